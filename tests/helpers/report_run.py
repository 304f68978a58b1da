"""Shared by the metrics, report, compare and end-to-end tests: a run store with hand-countable contents,
the published human-eval estimator, and an HTML page parser.

Four bugs, n = 5 samples each:
- Demo-1: samples a a b - c; a plausible, b wrong (trigger only), c uncompilable; fixed version validates.
- Demo-2: samples d e f g h; d wrong (a regression test), e unvalidated, f error, g wrong (trigger), h timeout;
  its fixed version fails one regression test (discounted by validation), so its ground truth validates.
- Other-1: sample i five times, plausible and identical to the fix; fixed version never validated.
- Broken-1: sample j five times, plausible; but the fixed version fails a trigger test: shown apart, not scored.
"""

from collections import Counter
from html.parser import HTMLParser

import numpy as np

from nl2fix.core.domain import Bug, Strategy, Verdict
from nl2fix.store.records import RankingEntry, RunConfig, SampleRecord, ValidationRecord
from nl2fix.store.run_store import RunStore

TRIGGER = "demo.ATest::testBug"
CODE = {
    "a": "int f(int x) { if (x < 0) { return 0; } return x + 1; }",
    "b": "int f(int x) { return x + 2; }",
    "c": "int f(int x) { return x + ; }",
    "d": "int g(int y) { return y * 3; }",
    "e": "int g(int y) { return y * 4; }",
    "f": "int g(int y) { return y * 5; }",
    "g": "int g(int y) { return y - 1; }",
    "h": "int g(int y) { while (true) { y++; } }",
    "i": "String h(String s) {\n    return s.trim();\n}",
    "j": "long k() { return 7L; }",
}
VERDICTS = {
    "a": (Verdict.PLAUSIBLE, []),
    "b": (Verdict.WRONG, [TRIGGER]),
    "c": (Verdict.UNCOMPILABLE, []),
    "d": (Verdict.WRONG, ["demo.BTest::testOld"]),
    "f": (Verdict.ERROR, []),
    "g": (Verdict.WRONG, [TRIGGER]),
    "h": (Verdict.TIMEOUT, []),
    "i": (Verdict.PLAUSIBLE, []),
    "j": (Verdict.PLAUSIBLE, []),
}
SAMPLES = {
    "Demo-1": ["a", "a", "b", None, "c"],
    "Demo-2": ["d", "e", "f", "g", "h"],
    "Other-1": ["i"] * 5,
    "Broken-1": ["j"] * 5,
}
FIXED = {
    "Demo-1": "int f(int x) { return x < 0 ? 0 : x + 1; }",
    "Demo-2": "int g(int y) { return y * 2; }",
    "Other-1": "String h(String s) { return s.trim(); }",
    "Broken-1": "long k() { return 8L; }",
}
BUGGY = {
    "Demo-1": "int f(int x) { return x + 1; }",
    "Demo-2": "int g(int y) { return y * 3; }",
    "Other-1": "String h(String s) { return s; }",
    "Broken-1": "long k() { return 6L; }",
}
RANKERS = {
    "paper:tfidf:median": {"Demo-1": ["b", "c", "a"], "Demo-2": ["d", "e", "f"], "Other-1": ["i"], "Broken-1": ["j"]},
    "paper:tfidf:median:pruned": {"Demo-1": ["a", "b"], "Other-1": ["i"], "Broken-1": ["j"]},
}


def make_bug(bug_id: str) -> Bug:
    project, number = bug_id.split("-")
    return Bug(
        project=project,
        number=int(number),
        path=f"src/{project}.java",
        start_line=1,
        end_line=3,
        buggy_method=BUGGY[bug_id],
        fixed_method=FIXED[bug_id],
        title=f"{bug_id} is wrong",
        trigger_tests=(TRIGGER,),
        relevant_tests=("demo.ATest", "demo.BTest"),
    )


def build_run(run_dir, *, engine="fast", verdicts=None, temperature=0.8, backend="mutation"):
    verdicts = verdicts or VERDICTS
    with RunStore(run_dir, create=True) as store:
        store.set_config(
            RunConfig(
                dataset="example",
                backend=backend,
                model=backend,
                strategy=Strategy.ZERO_SHOT,
                temperature=temperature,
                n=5,
            )
        )
        store.add_bugs([make_bug(b) for b in SAMPLES])
        for bug_id, hashes in SAMPLES.items():
            for i, h in enumerate(hashes):
                store.add_sample(
                    SampleRecord(
                        bug_id=bug_id,
                        index=i,
                        response=f"```java\n{CODE.get(h)}\n```",
                        candidate_hash=h,
                        extraction_error=None if h else "no method",
                    ),
                    CODE[h] if h else None,
                )
        for bug_id, hashes in SAMPLES.items():
            for h in dict.fromkeys(x for x in hashes if x in verdicts):
                verdict, failing = verdicts[h]
                store.save_validation(
                    ValidationRecord(bug_id=bug_id, hash=h, engine=engine, verdict=verdict, failing_tests=failing)
                )
        for bug_id in ("Demo-1", "Demo-2", "Broken-1"):
            store.save_validation(
                ValidationRecord(
                    bug_id=bug_id, hash="buggy", engine=engine, verdict=Verdict.WRONG, failing_tests=[TRIGGER]
                )
            )
        store.save_validation(ValidationRecord(bug_id="Demo-1", hash="fixed", engine=engine, verdict=Verdict.PLAUSIBLE))
        store.save_validation(
            ValidationRecord(
                bug_id="Demo-2",
                hash="fixed",
                engine=engine,
                verdict=Verdict.WRONG,
                failing_tests=["demo.BTest::testEnvironment"],
            )
        )
        store.save_validation(
            ValidationRecord(
                bug_id="Broken-1", hash="fixed", engine=engine, verdict=Verdict.WRONG, failing_tests=[TRIGGER]
            )
        )
        for ranker, orders in RANKERS.items():
            for bug_id, hashes in orders.items():
                store.save_ranking(
                    bug_id,
                    ranker,
                    [
                        RankingEntry(bug_id=bug_id, ranker=ranker, rank=r, hash=h, score=0.9)
                        for r, h in enumerate(hashes, start=1)
                    ],
                )
    return run_dir


def fixed_bugs(run_dir, engine: str = "fast") -> dict[str, bool]:
    """Per bug of a run: some sample's candidate has a plausible verdict, counted from the store's rows."""
    with RunStore(run_dir, read_only=True) as store:
        plausible = {(v.bug_id, v.hash) for v in store.validations(engine=engine) if v.verdict is Verdict.PLAUSIBLE}
        return {b.id: any((b.id, s.candidate_hash) in plausible for s in store.samples(b.id)) for b in store.bugs()}


def human_eval_estimator(n: int, c: int, k: int) -> float:
    """The published human-eval estimator, verbatim: the reference our pass@k is checked against."""
    if n - c < k:
        return 1.0
    return 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))


class ParsedPage(HTMLParser):
    """An HTML page as the standard library's parser reads it: start tags counted, text collected."""

    def __init__(self, page: str):
        super().__init__()
        self.tags: Counter[str] = Counter()
        self.chunks: list[str] = []
        self.feed(page)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags[tag] += 1

    def handle_data(self, data):
        self.chunks.append(data)

    @property
    def text(self) -> str:
        return " ".join(self.chunks)
