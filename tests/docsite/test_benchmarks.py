"""Benchmark pages from results files: a script run with ``--results DIR`` keeps what it printed with the
machine and the date (``scripts/bench_results.py``), and its page is rendered from that file."""

from __future__ import annotations

import json
import subprocess
import sys

from docsite import benchmarks
from tests.helpers.paths import REPO

SCRIPT = '''"""Counts to three, slowly.

    python3 scripts/count.py [--results DIR]
"""
import argparse
import sys

sys.path.insert(0, {scripts!r})
import bench_results

parser = argparse.ArgumentParser()
parser.add_argument("--fail", action="store_true")
bench_results.add_option(parser)
args = parser.parse_args()
bench_results.start(args.results)
for i in (1, 2, 3):
    print(f"count {{i}}: {{i * 0.5:.1f}} s")
if args.fail:
    raise RuntimeError("broken")
'''


def run(tmp_path, *args: str) -> subprocess.CompletedProcess:
    scripts = tmp_path / "scripts"
    scripts.mkdir(exist_ok=True)
    (scripts / "count.py").write_text(SCRIPT.format(scripts=str(REPO / "scripts")))
    return subprocess.run(
        [sys.executable, str(scripts / "count.py"), *args], capture_output=True, text=True, timeout=60
    )


def test_results_keep_the_output_machine_and_date_and_make_the_page(tmp_path):
    results = tmp_path / "results"
    done = run(tmp_path, "--results", str(results))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "count 1: 0.5 s\ncount 2: 1.0 s\ncount 3: 1.5 s\n"
    (written,) = results.glob("count-*.json")
    record = json.loads(written.read_text())
    assert record["output"] == done.stdout
    assert record["command"].startswith("python3 scripts/count.py --results ")
    assert record["machine"]["cores"] >= 1 and len(record["machine"]["load_start"]) == 3
    assert record["date"].endswith("Z")

    pages = benchmarks.pages(results, tmp_path / "scripts")
    page = pages["benchmarks/count.md"]
    assert "Counts to three, slowly." in page
    assert f"## {record['date']}" in page and "count 3: 1.5 s" in page
    assert f"[`results/{written.name}`](results/{written.name})" in page
    assert "[count](count.md)" in pages["benchmarks/index.md"]


def test_two_runs_started_in_the_same_second_keep_a_file_each(tmp_path):
    results = tmp_path / "results"
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "count.py").write_text(SCRIPT.format(scripts=str(REPO / "scripts")))
    command = [sys.executable, str(scripts / "count.py"), "--results", str(results)]
    # started together, as two labelled sets measured side by side are: most often in the same second
    runs = [subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    assert all(p.wait(timeout=60) == 0 for p in runs)
    written = sorted(results.glob("count-*.json"))
    assert len(written) == 4 and all(json.loads(w.read_text())["script"] == "count.py" for w in written)


def test_without_the_option_or_after_a_failure_nothing_is_written(tmp_path):
    results = tmp_path / "results"
    assert run(tmp_path).returncode == 0
    failed = run(tmp_path, "--fail", "--results", str(results))
    assert failed.returncode == 1 and "RuntimeError: broken" in failed.stderr
    assert "none written" in failed.stderr
    assert not results.exists() or not list(results.iterdir())


def test_every_results_file_of_the_repository_renders():
    results = REPO / "docs" / "benchmarks" / "results"
    pages = benchmarks.pages(results, REPO / "scripts")
    for result in benchmarks.load(results):
        assert result.date and result.machine and (result.output or result.notes), result.file
        assert result.file in pages[f"benchmarks/{result.stem}.md"]
