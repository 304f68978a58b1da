"""The defects4j engine's red-team corpus (``fixtures/redteam/defects4j/``): candidates that attack
the working copies and Defects4J's own files, judged by real Defects4J (Csv-4) under bubblewrap,
the engine's default. After each, the buggy method is ``wrong`` and the developer's fix
``plausible`` again; the pristine checkout and Defects4J's installation are as they were; and a
fresh cache afterwards judges both alike.

Each attack writes through ``javax.imageio.stream.FileImageOutputStream``, a writer the
class-file check (the first wall) now refuses. To test the operating system's walls behind it (a
fresh copy of the pristine checkout per candidate, the checkout and Defects4J read-only), the
attacks on later runs are judged with that check removed for the test (:func:`first_wall_removed`;
the check still reads their classes and the test asserts it would have refused them), so their code
runs and says what its write did. Before these walls (one working copy per bug, unconfined) the
first three changed every later verdict of that cache, the fourth that of every fresh cache.

``fixtures/redteam/d4j_fix_reader/`` reads instead of writing: the developer's fix from Defects4J's
installation and the checkout's history, which its builds and tests show empty now (unconfined, as
the test shows, it finds them).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from defects4j_adapter.contract import EngineOptions, EngineSettings, Phase
from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.engines import class_check
from defects4j_adapter.engines.defects4j import Defects4JEngine
from defects4j_adapter.sandbox.providers import make_sandbox
from nl2fix.core.domain import Bug, Verdict
from nl2fix.validation.verdicts import record_of
from tests.helpers.minibench import REDTEAM, red_team_attack

CORPUS = REDTEAM / "defects4j"
FIX_READER = REDTEAM / "d4j_fix_reader"
FIX_TELLS = ("FOUND", "FIX@", "REPO@", "GIT@", "headerMap == null")
"""What ``d4j_fix_reader`` says when it finds anything, and the fix's own words."""
ATTACKS = sorted(p.stem for p in CORPUS.glob("*.body"))
LATER_RUNS = {
    "broken_build_output": "wrote ",
    "lenient_test_class": "wrote ",
    "shared_checkout": "the wall held: ",
    "defects4j_installation": "the wall held: ",
}
"""Attacks on later runs (each changed later verdicts before this wall) and what their write does
now: into the candidate's own copy, which no later candidate sees, or refused."""
WRITER = "javax.imageio.stream.FileImageOutputStream"
TEST_CLASS = "target/test-classes/org/apache/commons/csv/CSVParserTest.class"
LENIENT = """package org.apache.commons.csv;

public class CSVParserTest {
    static final String PAD = "%s";

    @org.junit.Test
    public void testNoHeaderMap() {
    }
}
"""

pytestmark = [
    pytest.mark.defects4j,
    pytest.mark.sandbox,
    pytest.mark.slow,
    pytest.mark.skipif(
        d4j_cli.locate() is None, reason="Defects4J is not installed (no `defects4j` on PATH or under $D4J_HOME)"
    ),
]


CSV4 = Bug(
    project="Csv",
    number=4,
    path="src/main/java/org/apache/commons/csv/CSVParser.java",
    start_line=287,
    end_line=289,
    title="CSVParser: getHeaderMap throws NPE",
    buggy_method="public Map<String, Integer> getHeaderMap() {\n"
    "        return new LinkedHashMap<String, Integer>(this.headerMap);\n    }",
    fixed_method="public Map<String, Integer> getHeaderMap() {\n        return this.headerMap == null ? null"
    " : new LinkedHashMap<String, Integer>(this.headerMap);\n    }",
    trigger_tests=("org.apache.commons.csv.CSVParserTest::testNoHeaderMap",),
)
"""Defects4J-NL2Fix's Csv-4 (the dataset's record, as much of it as validation reads)."""


@pytest.fixture(scope="module")
def csv4(confined):
    return CSV4


def _engine(cache: Path, sandbox: str = "bwrap") -> Defects4JEngine:
    return Defects4JEngine(
        EngineOptions(sandbox=make_sandbox(sandbox), cache_dir=cache, settings=EngineSettings(workers=1))
    )


@pytest.fixture(scope="module")
def judged(csv4, tmp_path_factory):
    engine = _engine(tmp_path_factory.mktemp("d4j-redteam"))
    return engine, engine.prepare(csv4)


def _installation_file(engine: Defects4JEngine) -> Path:
    home = d4j_cli.layout_of(engine.d4j.executable, engine.d4j.env)
    assert home is not None
    return home.projects / "Csv" / "dependent_tests"


@pytest.fixture
def installation_kept(judged):
    """Defects4J's list of Csv's flaky tests, as it was: put back whatever an attack did, so that a
    broken wall costs this test only."""
    target = _installation_file(judged[0])
    before = target.read_bytes() if target.exists() else None
    yield target, before
    if before is None:
        target.unlink(missing_ok=True)
    elif target.read_bytes() != before:
        target.write_bytes(before)


@pytest.fixture(scope="module")
def lenient(judged, tmp_path_factory) -> str:
    """A CSVParserTest whose only test is the trigger test, passing, compiled to exactly the length
    of the real one (so that it can overwrite it without truncating it), as hex."""
    engine, ws = judged
    junit = Path(engine.d4j.executable).resolve().parents[1] / "projects" / "lib" / "junit-4.12-hamcrest-1.3.jar"
    tmp = tmp_path_factory.mktemp("lenient")
    want = (ws.root / TEST_CLASS).stat().st_size
    pad = 0
    for _ in range(2):
        source = tmp / "org/apache/commons/csv/CSVParserTest.java"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(LENIENT % ("x" * pad), encoding="utf-8")
        subprocess.run(
            ["javac", "--release", "8", "-cp", str(junit), "-d", str(tmp / "out"), str(source)],
            check=True,
            capture_output=True,
        )
        size = (tmp / "out/org/apache/commons/csv/CSVParserTest.class").stat().st_size
        pad += want - size
    data = (tmp / "out/org/apache/commons/csv/CSVParserTest.class").read_bytes()
    assert len(data) == want
    return data.hex()


def digest(root: Path) -> str:
    """Every path, mode and content under ``root``."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        h.update(str(path.relative_to(root)).encode())
        h.update(oct(path.lstat().st_mode).encode())
        if path.is_file() and not path.is_symlink():
            h.update(path.read_bytes())
    return h.hexdigest()


def verdict(engine, ws, method: str) -> Verdict:
    outcome = engine.run(ws, method)
    assert outcome.harness_error == "", outcome.harness_error
    return record_of(outcome, bug_id=ws.bug.id, hash="h", engine=engine.name.value).verdict


def buggy_and_fix_judged_alike(engine, ws, bug) -> None:
    assert verdict(engine, ws, bug.buggy_method) is Verdict.WRONG
    assert verdict(engine, ws, bug.fixed_method) is Verdict.PLAUSIBLE


def test_the_corpus_is_complete():
    assert set(LATER_RUNS) | {"blank_failing_tests"} == set(ATTACKS)


@contextlib.contextmanager
def first_wall_removed(monkeypatch):
    """The class-file check removed from the engine (the first wall removed, so that the second,
    the operating system's, is what is tested), for this block only; what the check would have
    said of each candidate is kept, for the test to assert that it still refuses it."""
    said: list[str] = []
    check = class_check.rejection_in

    def recorded(ws, classes):
        said.append(check(ws, classes))
        return ""

    with monkeypatch.context() as patch:
        patch.setattr(class_check, "rejection_in", recorded)
        yield said


@pytest.mark.parametrize("name", LATER_RUNS)
def test_an_attack_on_later_runs_changes_no_later_verdict(name, judged, csv4, lenient, installation_kept, monkeypatch):
    engine, ws = judged
    home = Path(engine.d4j.executable).resolve().parents[2]
    attack = red_team_attack(name, csv4, CORPUS, LENIENT=lenient, INSTALLATION=str(home))
    pristine = digest(ws.root)
    with first_wall_removed(monkeypatch) as said:
        outcome = engine.run(ws, attack)
    assert len(said) == 1 and WRITER in said[0], said  # the first wall alone refuses it
    # its code ran (the trigger test failed on its report) and its write was refused or went to its own copy
    assert outcome.compiled and outcome.rejection == "" and outcome.phase is Phase.TRIGGER, outcome
    (trigger,) = csv4.trigger_tests
    assert outcome.messages[trigger].startswith("java.lang.IllegalStateException: payload ran: " + LATER_RUNS[name])
    assert record_of(outcome, bug_id=ws.bug.id, hash="h", engine="defects4j").verdict is Verdict.WRONG
    buggy_and_fix_judged_alike(engine, ws, csv4)
    assert digest(ws.root) == pristine
    target, before = installation_kept
    assert (target.read_bytes() if target.exists() else None) == before


def test_a_candidate_that_blanks_its_own_failing_tests_does_not_pass(judged, csv4):
    # with the class-file check on, as every user runs it: this attack and those above are refused
    # for the same writer before any of their code runs
    engine, ws = judged
    outcome = engine.run(ws, red_team_attack("blank_failing_tests", csv4, CORPUS))
    assert WRITER in outcome.rejection and outcome.phase is Phase.COMPILE, outcome
    assert record_of(outcome, bug_id=ws.bug.id, hash="h", engine="defects4j").verdict is Verdict.REJECTED


def test_a_candidate_that_blanks_its_own_failing_tests_changes_no_later_verdict(judged, csv4):
    engine, ws = judged
    engine.run(ws, red_team_attack("blank_failing_tests", csv4, CORPUS))
    buggy_and_fix_judged_alike(engine, ws, csv4)


def test_a_fresh_cache_after_an_attack_on_defects4j_s_installation(judged, csv4, installation_kept, tmp_path):
    engine, ws = judged
    home = Path(engine.d4j.executable).resolve().parents[2]
    engine.run(ws, red_team_attack("defects4j_installation", csv4, CORPUS, INSTALLATION=str(home)))
    fresh = _engine(tmp_path)
    buggy_and_fix_judged_alike(fresh, fresh.prepare(csv4), csv4)
    assert os.listdir(tmp_path / "d4j" / "Csv-4.slots" / "0") == []  # no copy outlives its candidate


def test_a_candidate_reads_nothing_of_the_fix_from_defects4j_s_files(judged, csv4):
    # d4j_fix_reader: Defects4J's patches, project_repos and the working copy's .git, by paths built at run time
    engine, ws = judged
    attack = red_team_attack("fix_reader", csv4, FIX_READER)
    outcome = engine.run(ws, attack)
    record = record_of(outcome, bug_id=ws.bug.id, hash="h", engine="defects4j")
    (trigger,) = csv4.trigger_tests
    said = " ".join([record.detail, outcome.detail, *outcome.messages.values()])
    assert record.verdict is Verdict.WRONG and not any(tell in said for tell in FIX_TELLS), said
    assert outcome.messages[trigger].startswith("java.lang.NullPointerException"), said  # the bug's own failure
    # the same candidate unconfined (--no-sandbox, same cache): the payload finds and sends the fix
    loose = _engine(engine.options.cache_dir, "none")
    found = loose.run(loose.prepare(csv4), attack).messages[trigger]
    assert "FIX@" in found and "headerMap == null" in found and "REPO@" in found, found
