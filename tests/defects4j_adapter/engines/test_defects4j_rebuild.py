"""The fast engine's rebuild of a Defects4J checkout (a candidate whose declaration changes in a way
other classes can see): ``defects4j compile`` of a fresh copy of the pristine checkout, confined as
the defects4j engine's builds are, on real Defects4J (Csv-4) under bubblewrap."""

from __future__ import annotations

import pytest

from defects4j_adapter.contract import EngineOptions, EngineSettings
from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.engines import defects4j_rebuild
from defects4j_adapter.engines.fast import FastEngine
from defects4j_adapter.sandbox.providers import make_sandbox
from defects4j_adapter.workspaces.confined_defects4j import SandboxRunner
from nl2fix.core.domain import Verdict
from nl2fix.validation.verdicts import record_of
from tests.defects4j_adapter.engines.test_redteam_defects4j import CSV4

pytestmark = [
    pytest.mark.defects4j,
    pytest.mark.sandbox,
    pytest.mark.slow,
    pytest.mark.skipif(
        d4j_cli.locate() is None, reason="Defects4J is not installed (no `defects4j` on PATH or under $D4J_HOME)"
    ),
]

RETURNS_LINKED = "public LinkedHashMap<String, Integer> getHeaderMap() {"
"""A return type other classes see: every class is compiled again."""


def test_a_changed_declaration_is_built_by_defects4j_confined_in_a_fresh_copy(confined, tmp_path):
    engine = FastEngine(
        EngineOptions(sandbox=make_sandbox("bwrap"), cache_dir=tmp_path, settings=EngineSettings(workers=1))
    )
    try:
        ws = engine.prepare(CSV4)
        assert isinstance(engine.d4j_rebuild.d4j.runner, SandboxRunner)
        # what an earlier run could have left where the copy is made: gone before the build
        stale = tmp_path / "d4j" / "Csv-4.slots" / "0"
        (stale / "src").mkdir(parents=True)
        (stale / "build.xml").write_text("<project><target name='compile'><echo>planted</echo></target></project>")
        verdicts = {}
        for name, method in (("fix", CSV4.fixed_method), ("buggy", CSV4.buggy_method)):
            _, _, body = method.partition("\n")
            outcome = engine.run(ws, f"{RETURNS_LINKED}\n{body}", log_dir=tmp_path / "logs" / name)
            assert defects4j_rebuild.NOTE in outcome.detail and outcome.harness_error == "", outcome.compile_errors
            assert "planted" not in (tmp_path / "logs" / name / "defects4j-compile.log").read_text()
            verdicts[name] = record_of(outcome, bug_id=ws.bug.id, hash="h", engine="fast").verdict
            assert list(stale.iterdir()) == []  # the copy went with its candidate
        assert verdicts == {"fix": Verdict.PLAUSIBLE, "buggy": Verdict.WRONG}
    finally:
        engine.close()
