"""Preparing a bug: every property Defects4J exports and the compile in one Ant run of Defects4J's
own targets (on a small installation of the same shape, with the real Ant), the per-property
fallback, `nl2fix prepare`; and, marked ``defects4j``, equality with `defects4j export` on real bugs."""

from __future__ import annotations

import shutil
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from defects4j_adapter.contract import EngineOptions
from defects4j_adapter.d4j import cli as d4j_cli
from defects4j_adapter.d4j.cli import Defects4J, Layout, layout_of
from defects4j_adapter.workspaces import defects4j as d4j_workspace
from defects4j_adapter.workspaces.prepare import PrepareStatus, prepare_bugs, prepare_one
from nl2fix.core.errors import Nl2FixError

PROPS = ("tests.trigger", "cp.test", "dir.bin.classes")
needs_ant = pytest.mark.skipif(shutil.which("ant") is None, reason="Apache Ant is not installed")


def installation(root: Path, *, compile_fails: bool = False, export_fails: str = "") -> Path:
    """A Defects4J-shaped tree: ``framework/bin/defects4j`` (never run here), a build file with
    ``export.<prop>`` targets that write ``${file.export}``, ``compile`` and ``compile.tests``
    targets, and ``major/bin/ant`` (the real Ant). Every target appends its name to
    ``${basedir}/ran.log``."""
    (root / "framework/bin").mkdir(parents=True)
    (root / "framework/bin/defects4j").write_text("#!/bin/sh\nexit 99\n")
    (root / "framework/projects").mkdir(parents=True)
    exports = "".join(
        f'<target name="export.{p}"><echo file="${{basedir}}/ran.log" append="true" message="export.{p} "/>'
        + (
            '<fail message="no such property"/>'
            if p == export_fails
            else f'<echo message="value of {p} in ${{basedir}}&#10;" file="${{file.export}}"/>'
        )
        + "</target>\n"
        for p in PROPS
    )
    (root / "framework/projects/defects4j.build.xml").write_text(
        textwrap.dedent(f"""\
        <project name="Defects4J" basedir="${{basedir}}">
        {exports}
        <target name="compile"><echo file="${{basedir}}/ran.log" append="true" message="compile "/>
          {'<fail message="javac: cannot find symbol"/>' if compile_fails else ""}</target>
        <target name="compile.tests" depends="compile">
          <property environment="env"/>
          <echo file="${{basedir}}/ran.log" append="true" message="compile.tests ${{env.JAVA_TOOL_OPTIONS}}"/>
        </target>
        </project>
        """)
    )
    (root / "major/bin").mkdir(parents=True)
    (root / "major/bin/ant").symlink_to(shutil.which("ant"))
    return root / "framework/bin/defects4j"


@needs_ant
def test_the_layout_is_the_installation_s_own_unless_the_environment_says_otherwise(tmp_path):
    exe = installation(tmp_path / "d4j")
    found = layout_of(exe, {})
    assert found == Layout(
        home=tmp_path / "d4j",
        projects=tmp_path / "d4j/framework/projects",
        build_file=tmp_path / "d4j/framework/projects/defects4j.build.xml",
        ant=tmp_path / "d4j/major/bin/ant",
    )
    assert layout_of(exe, {"MAJOR_ROOT": str(tmp_path / "elsewhere")}) is None
    assert layout_of(tmp_path / "wrapper/bin/defects4j", {}) is None


def test_the_build_file_calls_each_export_target_with_its_own_output(tmp_path):
    layout = Layout(tmp_path, tmp_path / "p", tmp_path / 'we"ird & <dir>/defects4j.build.xml', tmp_path / "ant")
    root = ET.fromstring(d4j_cli.export_build_file(layout, tmp_path / "out", PROPS))
    assert root.find("import").get("file") == str(layout.build_file)
    calls = root.find(f"target[@name='{d4j_cli.EXPORT_TARGET}']").findall("antcall")
    assert [c.get("target") for c in calls] == [f"export.{p}" for p in PROPS]
    assert [c.find("param").get("value") for c in calls] == [str(tmp_path / "out" / p) for p in PROPS]
    assert {c.find("param").get("name") for c in calls} == {"file.export"}


def test_ant_runs_as_defects4j_runs_it(tmp_path):
    layout = Layout(Path("/d4j"), Path("/d4j/framework/projects"), Path("/d4j/b.xml"), Path("/d4j/major/bin/ant"))
    assert d4j_cli.ant_args(layout, Path("/t/x.xml"), Path("/w"), ("a", "b")) == (
        "/d4j/major/bin/ant",
        "-f",
        "/t/x.xml",
        "-Dd4j.home=/d4j",
        "-Dd4j.dir.projects=/d4j/framework/projects",
        "-Dbasedir=/w",
        "a",
        "b",
    )
    env = d4j_cli.ant_environment({"PATH": "/usr/bin", "JAVA_TOOL_OPTIONS": "-Xss4m"}, layout, Path("/w"))
    assert env["PATH"] == "/d4j/major/bin:/usr/bin"
    assert env["JAVA_TOOL_OPTIONS"] == f"-Xss4m {d4j_cli.QUICK_JVM_OPTIONS}"
    assert env["GRADLE_USER_HOME"] == "/w/.gradle_local_home"


@needs_ant
def test_one_ant_run_exports_every_property_and_then_compiles(tmp_path):
    d4j = Defects4J(installation(tmp_path / "d4j"))
    work = tmp_path / "work"
    work.mkdir()
    values, built = d4j.export_and_compile(work, PROPS)
    assert values == {p: f"value of {p} in {work}\n" for p in PROPS}
    assert built.ok
    ran = (work / "ran.log").read_text().split()
    # as `defects4j compile` runs them: compile, then compile.tests (which runs compile again)
    assert ran == [f"export.{p}" for p in PROPS] + [
        "compile",
        "compile",
        "compile.tests",
        *d4j_cli.QUICK_JVM_OPTIONS.split(),
    ]


@needs_ant
def test_a_revision_that_does_not_compile_is_a_failed_compile(tmp_path):
    d4j = Defects4J(installation(tmp_path / "d4j", compile_fails=True))
    (tmp_path / "work").mkdir()
    values, built = d4j.export_and_compile(tmp_path / "work", PROPS)
    assert set(values) == set(PROPS) and not built.ok
    assert "cannot find symbol" in built.describe()


@needs_ant
def test_a_property_that_cannot_be_exported_is_named(tmp_path):
    d4j = Defects4J(installation(tmp_path / "d4j", export_fails="cp.test"))
    (tmp_path / "work").mkdir()
    with pytest.raises(Nl2FixError, match=r"cannot export cp\.test, dir\.bin\.classes of"):
        d4j.export_and_compile(tmp_path / "work", PROPS)


def test_elsewhere_each_property_is_a_defects4j_export_and_the_compile_comes_last(tmp_path):
    exe = tmp_path / "bin" / "defects4j"
    exe.parent.mkdir()
    exe.write_text(
        textwrap.dedent(f"""\
        #!/bin/sh
        echo "$1 $3" >> {tmp_path}/calls.log
        [ "$1" = export ] && printf 'exported %s\\n' "$3"
        exit 0
        """)
    )
    exe.chmod(0o755)
    values, built = Defects4J(exe).export_and_compile(tmp_path, PROPS)
    assert values == {p: f"exported {p}\n" for p in PROPS} and built.ok
    assert (tmp_path / "calls.log").read_text().split("\n")[:-1] == [f"export {p}" for p in PROPS] + [
        f"compile {tmp_path}"
    ]


# --- nl2fix prepare on the bundled benchmark -------------------------------------------------------


def test_prepare_builds_the_example_bugs_and_checks_where_their_methods_are(invoke_cli, tmp_path):
    result = invoke_cli(
        "prepare",
        "--dataset",
        "example",
        "--bug",
        "Textkit-1",
        "--bug",
        "Rangekit-1",
        "--quiet",
        env={"NL2FIX_CACHE_DIR": str(tmp_path)},
    )
    assert result.exit_code == 0, result.output
    assert sorted(result.stdout.split("\n")[:2]) == ["ok   Rangekit-1", "ok   Textkit-1"]
    assert "2 of 2 bugs prepared" in result.stdout
    assert (tmp_path / "workspaces").is_dir()


def test_a_bug_whose_method_is_not_in_its_file_fails_to_prepare(tmp_path):
    from nl2fix.dataset.load import open_dataset

    bug = open_dataset("example").resolve("Textkit-1")
    options = EngineOptions(sandbox=None, cache_dir=tmp_path)
    assert prepare_one(bug, options).status is PrepareStatus.READY
    moved = prepare_one(replace(bug, start_line=bug.start_line + 2, end_line=bug.end_line + 2), options)
    assert moved.status is PrepareStatus.CORRECTED and f"{bug.start_line}-{bug.end_line}" in moved.detail
    gone = prepare_one(replace(bug, buggy_method="int nowhere() {\n return 0;\n}"), options)
    assert gone.status is PrepareStatus.FAILED and bug.path in gone.detail


def test_without_defects4j_preparing_its_bugs_stops_at_once(tmp_path, monkeypatch):
    from nl2fix.dataset.load import open_dataset

    bug = replace(open_dataset("example").resolve("Textkit-1"), benchmark="nl2fix", project="Lang")
    monkeypatch.setenv("PATH", str(tmp_path))
    for name in d4j_cli.HOME_ENVS:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(Nl2FixError, match="Defects4J is not installed"):
        list(prepare_bugs([bug], EngineOptions(sandbox=None, cache_dir=tmp_path), progress=False))


# --- The real thing (needs Defects4J) ------------------------------------------------------------

REAL_BUGS = ("Cli-3", "JacksonXml-1")


@pytest.fixture(scope="module")
def real_checkouts(tmp_path_factory):
    if d4j_cli.locate() is None:
        pytest.skip("Defects4J is not installed (no `defects4j` on PATH or under $D4J_HOME)")
    d4j = Defects4J.find()
    cache = tmp_path_factory.mktemp("d4j-prepare")
    return d4j, cache, {b: d4j_workspace.ensure_checkout(d4j, b, cache) for b in REAL_BUGS}


@pytest.mark.defects4j
@pytest.mark.parametrize("bug_id", REAL_BUGS)
def test_prepared_properties_equal_what_defects4j_export_prints(real_checkouts, bug_id):
    d4j, _, checkouts = real_checkouts
    checkout = checkouts[bug_id]
    assert set(checkout.properties) == set(d4j_cli.EXPORT_PROPERTIES)
    for prop in d4j_cli.EXPORT_PROPERTIES:
        assert checkout.properties[prop] == d4j.export(checkout.root, prop), prop
    classes = checkout.root / checkout.properties["dir.bin.classes"].strip()
    tests = checkout.root / checkout.properties["dir.bin.tests"].strip()
    assert any(classes.rglob("*.class")) and any(tests.rglob("*.class"))


@pytest.mark.defects4j
@pytest.mark.dataset
def test_cli3_is_found_by_its_declaration_with_the_correction_noted(real_checkouts, shared_data):
    from nl2fix.dataset.load import open_dataset

    _, cache, _ = real_checkouts
    bug = open_dataset(str(shared_data / "nl2fix_dataset.json")).resolve("Cli-3")
    done = prepare_one(bug, EngineOptions(sandbox=None, cache_dir=cache))
    assert done.status is PrepareStatus.CORRECTED
    assert "lines 157-169 instead of the dataset's lines 158-170" in done.detail
    assert "org.apache.commons.lang.math.NumberUtils" in done.detail
