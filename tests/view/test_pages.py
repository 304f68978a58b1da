"""The viewer's pages, served by its Flask app over real run stores, checked against the stores: the runs,
a run's bugs, a bug's candidates with their failures, compile errors, raw logs and conversation rounds,
runs compared, and the static export whose relative links must all resolve."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from nl2fix.cli.main import cli
from nl2fix.core.domain import Behaviour, ConversationPhase, Verdict
from nl2fix.report.data import collect
from nl2fix.store.records import BehaviourRecord, RoundRecord, SampleRecord, ValidationRecord
from nl2fix.store.run_store import RunStore
from nl2fix.validation.stage import ARTIFACTS
from nl2fix.view import catalog as catalog_module
from nl2fix.view import site
from nl2fix.view.app import create_app, every_page
from nl2fix.view.catalog import Catalog
from tests.helpers.html_elements import Elements
from tests.helpers.paths import REPO
from tests.helpers.report_run import CODE, SAMPLES, VERDICTS, build_run, fixed_bugs

ERRORS = (
    "Demo.java:1: error: illegal start of expression\n"
    "        int f(int x) { return x + ; }\n"
    "                                  ^\n"
    "Demo.java:40: error: cannot find symbol\n"
    "  symbol:   method helper(int)\n"
    "  location: class Demo\n"
)
FAILURE = "java.lang.AssertionError: expected:<1> but was:<2>"
JUNIT = "public class DemoNl2fixDivergenceTest {\n    @org.junit.Test\n    public void fAsTheDevelopersFix() {}\n}\n"


def _with_details(run_dir: Path) -> Path:
    """The hand-countable run, with what validation and a conversation store beyond verdicts."""
    with RunStore(run_dir) as store:
        store.save_validation(
            ValidationRecord(
                bug_id="Demo-1", hash="c", engine="fast", verdict=Verdict.UNCOMPILABLE, compile_errors=ERRORS
            )
        )
        store.save_validation(
            ValidationRecord(
                bug_id="Demo-1",
                hash="a",
                engine="fast",
                verdict=Verdict.PLAUSIBLE,
                behaviour=BehaviourRecord(
                    label=Behaviour.DIVERGES,
                    inputs=7,
                    first_input="arg0=-1",
                    reference_result="return=0",
                    candidate_result="return=-1",
                    junit_test=JUNIT,
                ),
            )
        )
        store.save_validation(
            ValidationRecord(
                bug_id="Demo-1",
                hash="b",
                engine="fast",
                verdict=Verdict.WRONG,
                failing_tests=["demo.ATest::testBug"],
                failure_message=FAILURE,
                failure_line=12,
                failure_source="assertEquals(1, f(0));",
                tests_run=3,
            )
        )
        store.add_sample(
            SampleRecord(
                bug_id="Demo-2",
                index=5,
                response="```java\nint g(int y) { return y * 3; }\n```",
                candidate_hash="d",
                transcript=[
                    {"role": "user", "content": "Which lines are wrong?"},
                    {"role": "assistant", "content": "The multiplication by 3."},
                ],
            ),
            CODE["d"],
        )
        store.save_round(
            RoundRecord(
                bug_id="Demo-1",
                round=1,
                phase=ConversationPhase.REPAIR,
                prompt_tokens=42,
                messages=[{"role": "user", "content": "Fix f: the first round's prompt"}],
                indices=[0, 1, 2],
            )
        )
    logs = run_dir / ARTIFACTS / "Demo-1" / "b"
    logs.mkdir(parents=True)
    (logs / "runner.out").write_text("NL2FIX\tSIGNED\t0\tc1\tSTART\n")
    return run_dir


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    base = tmp_path_factory.mktemp("view")
    flipped = {
        **VERDICTS,
        "a": (Verdict.WRONG, ["demo.ATest::testBug"]),
        "i": (Verdict.WRONG, ["demo.ATest::testBug"]),
        "d": (Verdict.PLAUSIBLE, []),
    }
    return [_with_details(build_run(base / "hot")), build_run(base / "cold", verdicts=flipped, temperature=0.2)]


@pytest.fixture(scope="module")
def client(runs):
    return create_app(Catalog(runs)).test_client()


def get(client, path: str) -> Elements:
    response = client.get(f"/{path}")
    assert response.status_code == 200, path
    return Elements(response.get_data(as_text=True))


def test_runs_page_lists_each_run_with_its_configuration_and_headline(client, runs):
    page = get(client, site.INDEX)
    assert [row["data-run"] for row in page.find("tr") if "data-run" in row] == ["hot", "cold"]
    for run_id, run_dir in zip(("hot", "cold"), runs):
        data = collect(run_dir, codebleu=False)
        assert page.text_of[f"fixed-{run_id}"] == f"{data.bug_counts.fixed}/{data.bug_counts.scored}"
        assert page.text_of[f"pass1-{run_id}"] == f"{100 * data.pass_at_k[1]:.1f}%"
    assert [page.text_of[f"fixed-{r}"] for r in ("hot", "cold")] == ["2/3", "1/3"]
    text = client.get("/").get_data(as_text=True)
    assert "zero-shot" in text and "mutation" in text and "<td>0.2</td>" in text
    assert {a["href"] for a in page.find("a", class_="run-link")} == {site.run_page("hot"), site.run_page("cold")}


def test_run_page_has_a_row_per_bug_with_the_stores_numbers(client, runs):
    page = get(client, site.run_page("hot"))
    rows = [r for r in page.find("tr") if "data-bug" in r]
    assert [r["data-bug"] for r in rows] == list(SAMPLES)
    fixed = fixed_bugs(runs[0])
    assert {r["data-bug"]: r["data-fixed"] == "yes" for r in rows} == fixed
    assert fixed == {"Demo-1": True, "Demo-2": False, "Other-1": True, "Broken-1": True}
    assert {r["data-bug"]: r["data-project"] for r in rows}["Other-1"] == "Other"
    assert "demo-1 demo-1 is wrong" in rows[0]["data-search"]
    links = [a["href"] for a in page.find("a", class_="bug-link")]
    assert links == [f"../../runs/hot/bugs/{b}.html" for b in SAMPLES]  # relative to the run's page


def test_bug_page_groups_every_unique_candidate_by_its_verdict(client, runs):
    page = get(client, site.bug_page("hot", "Demo-1"))
    with RunStore(runs[0], read_only=True) as store:
        verdicts = {v.hash: v.verdict.value for v in store.validations("Demo-1", "fast")}
        counts = {c.hash: c.count for c in store.candidates("Demo-1")}
    shown = page.find("details", class_="candidate")
    assert {d["data-hash"]: d["data-verdict"] for d in shown} == {h: verdicts[h] for h in counts}
    assert [d["data-verdict"] for d in shown] == ["plausible", "wrong", "uncompilable"]
    assert [d["id"] for d in shown] == [site.candidate_anchor(h) for h in ("a", "b", "c")]
    text = page.text_of[site.candidate_anchor("a")]
    assert f"{counts['a']} samples" in text and "#3" in text and "#1" in text  # median ranks it 3rd, pruned 1st
    assert "int f(int x) { return x < 0 ? 0 : x + 1; }" in page.text_of[site.candidate_anchor("a")]  # vs the fix
    root = "../../../"
    assert page.find("a", id="next")[0]["href"] == root + site.bug_page("hot", "Demo-2")
    assert not page.find("a", id="prev")
    assert page.find("a", id="up")[0]["href"] == root + site.run_page("hot")
    assert [a["href"] for a in page.find("a", class_="other-run")] == [root + site.bug_page("cold", "Demo-1")]


def test_plausible_candidates_are_grouped_by_behaviour_with_the_first_differing_input(client):
    page = get(client, site.bug_page("hot", "Demo-1"))
    [plausible] = [d for d in page.find("details", class_="candidate") if d["data-verdict"] == "plausible"]
    assert plausible["data-behaviour"] == "diverges"
    assert [g["data-behaviour"] for g in page.find("section", class_="group")] == ["diverges", "", ""]
    text = page.text_of[site.candidate_anchor("a")]
    assert re.search(
        r"diverges beside the developer's fix on 7 input\(s\); first differs on\s*arg0=-1\s*: "
        r"the fix return=0, the candidate return=-1",
        text,
    ), text
    # the test that shows it, as stored, behind its own summary
    assert len(page.find("details", class_="junit-test")) == 1
    assert JUNIT in text


def test_a_failing_test_shows_its_message_expected_actual_and_source_line(client):
    text = get(client, site.bug_page("hot", "Demo-1")).text_of[site.candidate_anchor("b")]
    assert "demo.ATest::testBug" in text and FAILURE in text
    assert re.search(r"expected\s*1\s*actual\s*2", text)
    assert "test line 12" in text and "assertEquals(1, f(0));" in text


def test_a_samples_earlier_turns_are_shown_with_its_answer(client):
    text = get(client, site.bug_page("hot", "Demo-2")).text_of[site.candidate_anchor("d")]
    assert "2 sample(s)" in text and "raw answer and 2 earlier turn(s)" in text
    assert text.index("Which lines are wrong?") < text.index("The multiplication by 3.") < text.rindex("return y * 3;")


def test_compile_errors_are_placed_in_the_candidates_lines(client):
    page = client.get(f"/{site.bug_page('hot', 'Demo-1')}").get_data(as_text=True)
    body = page[page.index(f'id="{site.candidate_anchor("c")}"') :]
    body = body[: body.index("</details>\n</section>")]
    line = re.search(
        r'<span class="ln has-error"><span class="no">1</span>(.*?)</span>\s*'
        r'<span class="compile-error">\s*\^ (.*?)</span>',
        body,
        re.DOTALL,
    )
    assert line and line.group(1) == CODE["c"].replace("<", "&lt;") and line.group(2) == "illegal start of expression"
    assert "line 40 of the file: cannot find symbol; symbol:   method helper(int); location: class Demo" in body


def test_raw_logs_are_listed_and_served_and_nothing_else(client):
    page = get(client, site.bug_page("hot", "Demo-1"))
    log = site.log_file("hot", "Demo-1", "b", "runner.out")
    assert [a["href"] for a in page.find("a", class_="log-file")] == ["../" * 3 + log]
    assert client.get(f"/{log}").get_data(as_text=True) == "NL2FIX\tSIGNED\t0\tc1\tSTART\n"
    for wrong in (
        "runs/hot/logs/Demo-1/b/nothing",
        "runs/hot/logs/Demo-1/b/..%2F..%2F..%2Frun.sqlite",
        "runs/hot/logs/Demo-1/zz/runner.out",
        "runs/none/index.html",
        "runs/hot/bugs/Nope-1.html",
        "compare/hot~hot/index.html",
        "compare/hot/index.html",
    ):
        assert client.get(f"/{wrong}").status_code == 404, wrong


def test_conversation_rounds_show_the_prompt_and_each_answer_with_its_candidate(client):
    page = get(client, site.bug_page("hot", "Demo-1"))
    text = page.text_of["round-1"]
    assert "Round 1" in text and "repair" in text and "42 prompt tokens" in text
    assert "Fix f: the first round's prompt" in text
    answers = [a["href"] for a in page.find("a", class_="to-candidate")]
    assert answers == ["#" + site.candidate_anchor(h) for h in ("a", "a", "b")]
    assert "This version fails the test demo.ATest::testBug." in text  # what the model is told about b


def test_compare_sorts_the_shared_bugs_into_fixed_by_one_all_or_none(client, runs):
    page = get(client, site.compare_page(["hot", "cold"]))
    hot, cold = fixed_bugs(runs[0]), fixed_bugs(runs[1])
    rows = {r["data-bug"]: r["data-category"] for r in page.find("tr") if "data-bug" in r}
    expected = {
        b: "all" if hot[b] and cold[b] else "none" if not (hot[b] or cold[b]) else "only hot" if hot[b] else "only cold"
        for b in hot
    }
    assert rows == expected and set(rows.values()) == {"all", "only hot", "only cold"}
    links = [a["href"] for a in page.find("a", class_="in-run")]
    assert "../../runs/cold/bugs/Demo-2.html" in links and "../../runs/hot/bugs/Demo-2.html" in links
    report = client.get(f"/{site.compare_report_page(['hot', 'cold'])}").get_data(as_text=True)
    assert "Strategies and models (Table 5)" in report and "<svg" in report


def test_a_run_written_after_it_was_gathered_is_gathered_again(tmp_path):
    run_dir = build_run(tmp_path / "live")
    catalog = Catalog([run_dir])
    client = create_app(catalog).test_client()
    assert {r["data-bug"]: r["data-fixed"] for r in get(client, site.run_page("live")).find("tr") if "data-bug" in r}[
        "Demo-2"
    ] == "no"
    gathered = catalog.report(catalog.runs[0])
    get(client, site.bug_page("live", "Demo-2"))  # reading the store is no reason to gather it again
    assert catalog.report(catalog.runs[0]) is gathered
    with RunStore(run_dir) as store:
        store.save_validation(ValidationRecord(bug_id="Demo-2", hash="e", engine="fast", verdict=Verdict.PLAUSIBLE))
    assert {r["data-bug"]: r["data-fixed"] for r in get(client, site.run_page("live")).find("tr") if "data-bug" in r}[
        "Demo-2"
    ] == "yes"


def test_the_export_opens_from_the_file_system(runs, tmp_path):
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["view", "--run", str(runs[0]), "--run", str(runs[1]), "--export", str(out)])
    assert result.exit_code == 0, result.output
    pages = every_page(Catalog(runs))
    assert result.output == f"wrote {len(pages)} pages: {(out / 'index.html').resolve().as_uri()}\n"
    checked = 0
    for path in pages:
        page = Elements((out / path).read_text(encoding="utf-8"))
        for link in page.links():
            if link.startswith(("#", "https://github.com/")):  # an anchor in the page; an issue's address
                continue
            assert not re.match(r"^[a-z]+:|^/", link), f"{path}: {link} is not relative"
            assert (out / path).parent.joinpath(link.split("#")[0]).resolve().is_file(), f"{path}: {link}"
            checked += 1
    assert checked > 100
    assert (out / site.log_file("hot", "Demo-1", "b", "runner.out")).is_file()
    assert not Elements((out / site.INDEX).read_text()).find("input", name="run")  # no form that needs the server
    assert Elements((out / site.INDEX).read_text()).find("a", id="compare-all")


def test_the_export_of_one_run_opens_on_its_page(runs, tmp_path):
    out = tmp_path / "one"
    result = CliRunner().invoke(cli, ["view", "--run", str(runs[1]), "--export", str(out)])
    assert result.exit_code == 0, result.output
    opened = out / site.run_page("cold")
    assert result.output.endswith(f" pages: {opened.resolve().as_uri()}\n")
    assert "<h1>cold</h1>" in opened.read_text(encoding="utf-8")


def test_view_without_a_run_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["view"])
    assert result.exit_code == 2 and "error: no run under runs/" in result.output
    result = CliRunner().invoke(cli, ["view", "--run", str(tmp_path), "--export", str(tmp_path / "x")])
    assert result.exit_code == 2 and "is not a run directory" in result.output


def test_view_starts_in_one_command_and_prints_its_url(runs):
    """The command itself, as a user starts it: it prints the URL, serves the runs, and stops on Ctrl-C, also
    when started with SIGINT ignored (a child inherits that: from a shell's background job, or from this test
    process once a library has ignored it, which made the viewer deaf to Ctrl-C in the full suite)."""
    command = [sys.executable, "-c", "from nl2fix.cli.main import main; main()"]
    process = subprocess.Popen(
        [*command, "view", "--run", str(runs[0]), "--port", "0"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        line = process.stdout.readline()
        # one run: the address printed is that run's page, not a list holding one run
        found = re.fullmatch(r"nl2fix view: (http://127\.0\.0\.1:\d+/)(\S*)  \(Ctrl-C to stop\)\n", line)
        assert found, line + process.stderr.read()
        assert found.group(2) == site.run_page("hot")
        with urllib.request.urlopen(found.group(1) + found.group(2)) as response:
            assert response.status == 200 and "<h1>hot" in response.read().decode()
        with urllib.request.urlopen(found.group(1) + site.bug_page("hot", "Demo-1")) as response:
            assert response.status == 200 and f'id="{site.candidate_anchor("a")}"' in response.read().decode()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0  # Ctrl-C stops the viewer; nothing was left half-done
        assert "Traceback" not in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_pages_asked_at_once_gather_a_run_once(runs, monkeypatch):
    """The threaded server's requests share one gathering of a run (it takes seconds at the paper's scale)."""
    calls = []
    real = catalog_module.collect

    def counted(*args, **kwargs):
        calls.append(args)
        time.sleep(0.2)  # long enough for the other requests to arrive while it runs
        return real(*args, **kwargs)

    monkeypatch.setattr(catalog_module, "collect", counted)
    catalog = Catalog(runs)
    threads = [threading.Thread(target=catalog.report, args=(catalog.runs[0],)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert catalog.report(catalog.runs[0]).bug_counts.selected == len(SAMPLES) and len(calls) == 1
