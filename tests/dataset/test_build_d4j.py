"""`nl2fix dataset build` with the real Defects4J (skipped where it is not installed): two Cli bugs
checked out for real, one kept with the published record's range and methods, one dropped for the
import its fix adds (kept and flagged with --keep-outside-changes)."""

import json

import pytest

from defects4j_adapter.d4j import cli as d4j_cli

pytestmark = [
    pytest.mark.defects4j,
    pytest.mark.skipif(
        d4j_cli.locate() is None,
        reason="Defects4J is not installed (no `defects4j` on PATH or "
        "under $D4J_HOME); build docker/Dockerfile to run this",
    ),
]
CLI_4 = "Cli_4_src/java/org/apache/commons/cli/Parser.java_290_309"


def test_real_build_of_two_cli_bugs(tmp_path, invoke_cli, shared_data):
    out = tmp_path / "cli.json"
    # The checkouts go to the user's nl2fix cache, as every Defects4J checkout does, and are reused.
    result = invoke_cli(
        "dataset",
        "build",
        "--projects",
        "Cli",
        "--bugs",
        "4,10",
        "--out",
        out,
        "--offline",
        "--cache",
        tmp_path / "issues",
        "--quiet",
    )
    assert result.exit_code == 0, result.output + result.stderr
    assert "  dropped, imports: 1 (Cli-10)" in result.output
    assert "  Cli-4: https://issues.apache.org/jira/browse/CLI-1: not in the cache (--offline)" in result.output
    built = json.loads(out.read_text())
    published = json.loads((shared_data / "nl2fix_dataset.json").read_text())
    assert list(built) == [CLI_4]
    for name in ("src", "src_wo_comments", "fixed_src", "fixed_src_wo_comments"):
        assert built[CLI_4][name] == published[CLI_4][name], name
    assert built[CLI_4]["fix_date"] == "2007-06-05T04:01:08Z"

    wide = tmp_path / "wide.json"
    result = invoke_cli(
        "dataset",
        "build",
        "--projects",
        "Cli",
        "--bugs",
        "10",
        "--out",
        wide,
        "--offline",
        "--cache",
        tmp_path / "issues",
        "--quiet",
        "--keep-outside-changes",
    )
    assert result.exit_code == 0, result.output + result.stderr
    ((key, record),) = json.loads(wide.read_text()).items()
    assert key.startswith("Cli_10_") and record["fix_outside_method"] is True
    assert key in published
