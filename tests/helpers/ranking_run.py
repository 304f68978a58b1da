"""A small run store for ranking tests, written through the RunStore API like the real stages do."""

from __future__ import annotations

from pathlib import Path

from nl2fix.core.domain import Bug, Strategy, Verdict
from nl2fix.java_source.text import candidate_hash, remove_comments
from nl2fix.store.records import RunConfig, SampleRecord, ValidationRecord
from nl2fix.store.run_store import RunStore

CLAMP_BUGGY = """\
public int clamp(int value, int low, int high) {
    // values outside the range are pulled back in
    if (value < low) {
        return low;
    }
    if (value > high) {
        return low;
    }
    return value;
}"""

CLAMP_FIX = CLAMP_BUGGY.replace("return low;\n    }\n    return", "return high;\n    }\n    return")
CLAMP_SAME = CLAMP_BUGGY.replace("    // values outside the range are pulled back in\n", "    // unchanged\n")
CLAMP_REWRITE = """\
public int clamp(int value, int low, int high) {
    return Math.max(low, Math.min(high, value));
}"""
CLAMP_TYPO = CLAMP_FIX.replace("return high;", "return hgh;")
CLAMP_GE = CLAMP_FIX.replace("value > high", "value >= high")

JOIN_BUGGY = """\
public static String join(List<String> parts, String separator) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < parts.size(); i++) {
        out.append(separator);
        out.append(parts.get(i));
    }
    return out.toString();
}"""
JOIN_FIX = JOIN_BUGGY.replace(
    "        out.append(separator);\n", "        if (i > 0) {\n            out.append(separator);\n        }\n"
)
JOIN_STRIP = JOIN_BUGGY.replace("return out.toString();", "return out.substring(separator.length());")
JOIN_STREAM = """\
public static String join(List<String> parts, String separator) {
    return String.join(separator, parts);
}"""

# (code, verdict or None when not validated), one entry per sample; repeats are duplicates.
SAMPLES = {
    "Demo-1": [
        (CLAMP_FIX, Verdict.PLAUSIBLE),
        (CLAMP_SAME, Verdict.WRONG),
        (CLAMP_FIX, Verdict.PLAUSIBLE),
        (CLAMP_REWRITE, Verdict.PLAUSIBLE),
        (CLAMP_TYPO, Verdict.UNCOMPILABLE),
        (None, None),
        (CLAMP_FIX, Verdict.PLAUSIBLE),
        (CLAMP_GE, Verdict.PLAUSIBLE),
        (CLAMP_SAME, Verdict.WRONG),
    ],
    "Demo-2": [
        (JOIN_STRIP, Verdict.WRONG),
        (JOIN_FIX, Verdict.PLAUSIBLE),
        (JOIN_STREAM, None),
        (JOIN_STRIP, Verdict.WRONG),
    ],
    "Demo-3": [(None, None), (None, None)],
}


def _bug(number: int, buggy: str, fixed: str, title: str) -> Bug:
    return Bug(
        project="Demo",
        number=number,
        path="src/Demo.java",
        start_line=10,
        end_line=10 + buggy.count("\n"),
        buggy_method=buggy,
        fixed_method=fixed,
        title=title,
        trigger_tests=("demo.DemoTest::testIt",),
        relevant_tests=("demo.DemoTest",),
        buggy_method_no_comments=remove_comments(buggy),
    )


BUGS = [
    _bug(1, CLAMP_BUGGY, CLAMP_FIX, "clamp returns the lower bound for values above the range"),
    _bug(2, JOIN_BUGGY, JOIN_FIX, "join puts a separator before the first part"),
    _bug(3, CLAMP_BUGGY, CLAMP_FIX, "a bug the model never answered with code"),
]


def build_run(run_dir: Path, *, validate: bool = True) -> Path:
    """A run with three bugs (one without candidates), duplicates, and ``fast`` verdicts when ``validate``."""
    with RunStore(run_dir, create=True) as store:
        store.set_config(
            RunConfig(
                dataset="example", backend="replay", model="fixture", strategy=Strategy.ZERO_SHOT, temperature=0.8, n=9
            )
        )
        store.add_bugs(BUGS)
        for bug_id, samples in SAMPLES.items():
            for index, (code, verdict) in enumerate(samples):
                h = candidate_hash(code) if code else None
                record = SampleRecord(
                    bug_id=bug_id,
                    index=index,
                    response=f"```java\n{code}\n```" if code else "no idea",
                    candidate_hash=h,
                    extraction_error=None if code else "no Java method",
                )
                store.add_sample(record, code)
                if validate and verdict is not None:
                    store.save_validation(
                        ValidationRecord(
                            bug_id=bug_id,
                            hash=h,
                            engine="fast",
                            verdict=verdict,
                            failing_tests=["demo.DemoTest::testIt"] if verdict is Verdict.WRONG else [],
                            compile_errors=(
                                "Demo.java:16: error: cannot find symbol hgh" if verdict is Verdict.UNCOMPILABLE else ""
                            ),
                        )
                    )
    return run_dir
