"""How fast `nl2fix view` serves a run at the paper's scale: two synthetic runs of 283 bugs x 100 samples,
built through the run store's own API (about 40 unique candidates per bug, verdicts with failing tests,
messages and compiler errors, two rankings, raw logs), served over HTTP by the viewer's server.

Prints the seconds to gather each run when the viewer starts, then each page's load time: the runs page,
a run's page, bug pages (median and slowest of a sample), the comparison of the two runs, and the report
pages (their first load renders the figures; the server does that in the background after it starts),
and the static export of both runs.
With chromium and selenium installed (``--browser``), also each page's load in headless chromium
(navigation start to the load event).

    python3 scripts/bench_view.py [--bugs 283] [--samples 100] [--unique 40] [--browser]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import bench_results

from nl2fix.core.domain import Bug, Strategy, Verdict
from nl2fix.store.records import RankingEntry, RunConfig, SampleRecord, ValidationRecord
from nl2fix.store.run_store import RunStore
from nl2fix.validation.stage import ARTIFACTS
from nl2fix.view import site
from nl2fix.view.catalog import Catalog
from nl2fix.view.serve import export, server, url_of

BUGGY = (
    "public int clamp(int v, int lo, int hi) {\n    if (v < lo) {\n        return lo;\n    }\n"
    "    if (v > hi) {\n        return lo;\n    }\n    return v;\n}"
)
FIXED = BUGGY.replace("        return lo;\n    }\n    return v;", "        return hi;\n    }\n    return v;")
VERDICTS = [Verdict.PLAUSIBLE] + [Verdict.WRONG] * 6 + [Verdict.UNCOMPILABLE] * 3
ANSWER = "Here is the fixed method:\n\n```java\n{code}\n```\n\n" + "The change makes the upper bound return hi. " * 20


def build(run_dir: Path, bugs: int, samples: int, unique: int, seed: int) -> None:
    rng = random.Random(seed)
    with RunStore(run_dir, create=True) as store:
        store.set_config(
            RunConfig(
                dataset="bench",
                backend="openai",
                model="gpt-4o-mini",
                strategy=Strategy.ZERO_SHOT,
                temperature=0.8,
                n=samples,
            )
        )
        store.add_bugs(
            [
                Bug(
                    project=f"P{i % 12}",
                    number=i,
                    path="src/A.java",
                    start_line=10,
                    end_line=18,
                    buggy_method=BUGGY,
                    fixed_method=FIXED,
                    title=f"clamp returns lo above the range ({i})",
                    description="Calling clamp(12, 0, 10) returns 0 instead of 10. " * 8,
                    trigger_tests=("a.ATest::upper",),
                    relevant_tests=("a.ATest", "a.BTest"),
                )
                for i in range(bugs)
            ]
        )
        for bug in store.bugs():
            codes = [BUGGY.replace("return v;", f"return v + {j};") for j in range(unique)]
            for i in range(samples):
                j = min(int(rng.expovariate(0.15)), unique - 1)
                store.add_sample(
                    SampleRecord(
                        bug_id=bug.id,
                        index=i,
                        response=ANSWER.format(code=codes[j]),
                        prompt_tokens=420,
                        completion_tokens=180,
                        generation_seconds=1.7,
                        candidate_hash=f"h{j}",
                    ),
                    codes[j],
                )
            store.save_validation(
                ValidationRecord(bug_id=bug.id, hash="fixed", engine="fast", verdict=Verdict.PLAUSIBLE)
            )
            hashes = [c.hash for c in store.candidates(bug.id)]
            for h in hashes:
                verdict = rng.choice(VERDICTS)
                failing = ["a.ATest::upper"] if verdict is Verdict.WRONG else []
                store.save_validation(
                    ValidationRecord(
                        bug_id=bug.id,
                        hash=h,
                        engine="fast",
                        verdict=verdict,
                        failing_tests=failing,
                        failure_message="java.lang.AssertionError: expected:<10> but was:<0>" if failing else "",
                        failure_line=42 if failing else None,
                        failure_source="assertEquals(10, clamp(12, 0, 10));" if failing else "",
                        tests_run=3,
                        compile_errors="A.java:17: error: cannot find symbol\n  symbol:   variable w\n"
                        if verdict is Verdict.UNCOMPILABLE
                        else "",
                    )
                )
                logs = run_dir / ARTIFACTS / bug.id / h
                logs.mkdir(parents=True)
                (logs / "runner.out").write_text("NL2FIX\tSIGNED\t0\tc1\tSTART\n" * 50)
            for ranker in ("paper:tfidf:median", "paper:tfidf:median:pruned"):
                order = rng.sample(hashes, len(hashes) // 2)
                store.save_ranking(
                    bug.id,
                    ranker,
                    [
                        RankingEntry(bug_id=bug.id, ranker=ranker, rank=r, hash=h, score=0.9)
                        for r, h in enumerate(order, start=1)
                    ],
                )


def fetch(url: str) -> tuple[float, int]:
    start = time.perf_counter()
    with urllib.request.urlopen(url) as response:
        size = len(response.read())
        assert response.status == 200, url
    return time.perf_counter() - start, size


def in_browser(pages: dict[str, str]) -> dict[str, float]:
    """Seconds from navigation start to the load event of each page in headless chromium."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=shutil.which("chromedriver")))
    try:
        times = {}
        for name, url in pages.items():
            driver.get(url)
            times[name] = driver.execute_script(
                "const t = performance.getEntriesByType('navigation')[0];return (t.loadEventEnd - t.startTime) / 1000;"
            )
        return times
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bugs", type=int, default=283)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--unique", type=int, default=40)
    parser.add_argument("--bug-pages", type=int, default=20, help="How many bug pages to time.")
    parser.add_argument("--browser", action="store_true", help="Also time the pages in headless chromium.")
    bench_results.add_option(parser)
    args = parser.parse_args()
    bench_results.start(args.results)
    with tempfile.TemporaryDirectory() as tmp:
        runs = [Path(tmp) / "run-a", Path(tmp) / "run-b"]
        start = time.perf_counter()
        for seed, run_dir in enumerate(runs):
            build(run_dir, args.bugs, args.samples, args.unique, seed)
        print(
            f"stores: 2 runs of {args.bugs} bugs x {args.samples} samples built in {time.perf_counter() - start:.1f} s"
        )
        catalog = Catalog(runs)
        for run in catalog.runs:
            start = time.perf_counter()
            catalog.report(run)
            print(f"gather {run.id} (once, when the viewer starts): {time.perf_counter() - start:.2f} s")
        httpd = server(catalog, "127.0.0.1", 0)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        url = url_of(httpd)
        ids = [r.id for r in catalog.runs]
        bugs = [b.bug_id for b in catalog.report(catalog.runs[0]).bugs]
        pages = {
            "runs": site.INDEX,
            "run": site.run_page(ids[0]),
            "bug": site.bug_page(ids[0], bugs[0]),
            "compare": site.compare_page(ids),
        }
        for name, path in pages.items():
            seconds, size = fetch(url + path)
            print(f"{name:8} page: {seconds:.3f} s ({size / 1024:.0f} KiB)  /{path}")
        times = [fetch(url + site.bug_page(ids[0], b))[0] for b in random.Random(1).sample(bugs, args.bug_pages)]
        print(f"bug pages: median {statistics.median(times):.3f} s, slowest {max(times):.3f} s of {len(times)}")
        for name, path in (("report", site.report_page(ids[0])), ("compare report", site.compare_report_page(ids))):
            first, _ = fetch(url + path)
            again, size = fetch(url + path)
            print(
                f"{name} page: first {first:.2f} s (renders its figures; the server warms it after starting), "
                f"then {again:.3f} s ({size / 1024:.0f} KiB)"
            )
        start = time.perf_counter()
        written = export(catalog, Path(tmp) / "site")
        print(f"static export (nl2fix view --export): {written} pages in {time.perf_counter() - start:.1f} s")
        if args.browser:
            loads = in_browser({name: url + path for name, path in pages.items()})
            print(
                "in headless chromium (navigation start to load event): "
                + ", ".join(f"{name} {seconds:.3f} s" for name, seconds in loads.items())
            )
        httpd.shutdown()


if __name__ == "__main__":
    main()
