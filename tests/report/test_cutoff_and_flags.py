"""`nl2fix report --cutoff DATE` and the difficulty flags in reports: pass@k split by when each
bug's issue was opened, and by flag, on the hand-countable run of tests/helpers/report_run.py."""

from dataclasses import replace
from datetime import date

import pytest

from nl2fix.core.domain import Bug
from nl2fix.dataset.hard_bugs import HardFlag, bug_flags
from nl2fix.report.data import collect
from nl2fix.report.render import render
from tests.helpers import report_run

DATES = {"Demo-1": "2020-01-01T00:00:00Z", "Demo-2": "2022-05-01T12:00:00Z", "Broken-1": "2019-01-01T00:00:00Z"}


def _dated_run(tmp_path, monkeypatch):
    plain = report_run.make_bug

    def dated(bug_id: str) -> Bug:
        return replace(plain(bug_id), issue_created=DATES.get(bug_id, ""), fix_outside_method=bug_id == "Other-1")

    monkeypatch.setattr(report_run, "make_bug", dated)
    return report_run.build_run(tmp_path / "run")


def test_flags_come_from_the_fix_and_the_dataset():
    bug = Bug("P", 1, "A.java", 1, 9, "int f() {\n a();\n b();\n c();\n}", "int f() {\n a2();\n b();\n c2();\n}", "t")
    assert bug_flags(bug) == (HardFlag.MULTI_HUNK,)
    assert bug_flags(bug, long_fix_lines=3) == (HardFlag.MULTI_HUNK, HardFlag.LONG_FIX)
    assert bug_flags(replace(bug, fixed_method=bug.buggy_method.replace("// x", ""), fix_outside_method=True)) == (
        HardFlag.OUTSIDE_METHOD,
    )


def test_cutoff_splits_pass_at_k_of_the_scored_bugs(tmp_path, monkeypatch):
    run = _dated_run(tmp_path, monkeypatch)
    data = collect(run, codebleu=False, cutoff=date(2021, 1, 1))
    groups = {g.group: g for g in data.cutoff_split.groups}
    # Broken-1 (ground truth fails) is left out as in the headline; Demo-1 has 2 plausible of 5 samples.
    assert list(groups) == [
        "issue opened before 2021-01-01",
        "issue opened on or after 2021-01-01",
        "issue date unknown",
    ]
    before, after, unknown = groups.values()
    assert (before.bugs, before.fixed, before.pass_at_k[1]) == (1, 1, pytest.approx(0.4))
    assert (after.bugs, after.fixed, after.pass_at_k[1]) == (1, 0, 0.0)
    assert (unknown.bugs, unknown.pass_at_k[1], unknown.pass_at_k[5]) == (1, 1.0, 1.0)
    assert before.pass_at_k[5] == 1.0
    assert {r.bug_id: r.flags for r in data.bugs}["Other-1"] == ["outside-method"]
    flags = {g.group: g for g in data.flag_split}
    assert flags["outside-method"].bugs == 1 and flags["no flag"].bugs == 2
    assert flags["no flag"].pass_at_k[1] == pytest.approx(0.2)
    text = render(data, "text")
    assert "pass@k by training cut-off (2021-01-01)" in text and "pass@k by difficulty flag" in text
    assert "issue opened on or after 2021-01-01" in text


def test_report_command_takes_a_cutoff(tmp_path, monkeypatch, invoke_cli):
    run = _dated_run(tmp_path, monkeypatch)
    result = invoke_cli("report", "--run", run, "--no-codebleu", "--format", "md", "--cutoff", "2021-01-01")
    assert result.exit_code == 0, result.stderr
    assert "pass@k by training cut-off (2021-01-01)" in result.output
    plain = invoke_cli("report", "--run", run, "--no-codebleu")
    assert "training cut-off" not in plain.output
    bad = invoke_cli("report", "--run", run, "--cutoff", "soon")
    assert bad.exit_code == 2 and "--cutoff 'soon' is not a date" in bad.stderr
