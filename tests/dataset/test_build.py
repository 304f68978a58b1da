"""`nl2fix dataset build` / `dataset diff` on a Defects4J-shaped fixture project (the example
benchmark: Defects4J metadata, fixed trees and patches), with issue texts from a real HTTP server
answering like Jira and GitHub from recorded responses; records checked field by field against
the example's own published-format dataset."""

import json
import shutil

import pytest

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.files import EXAMPLE_BENCHMARK
from nl2fix.dataset.build import (
    PatchedTreeSources,
    add_test_sources,
    build_dataset,
    classify,
    content_hash,
    parse_bug_numbers,
    read_active_bugs,
    source_of_test,
)
from nl2fix.dataset.diff import Same, diff_datasets
from nl2fix.dataset.load import load_dataset
from nl2fix.dataset.trackers import IssueFetcher
from nl2fix.java_source.method_diff import Change, ParseError, diff_files, parse_java
from tests.helpers.tracker_server import TrackerServer

META = EXAMPLE_BENCHMARK / "defects4j"
PROJECTS = EXAMPLE_BENCHMARK / "projects"
SHIPPED = EXAMPLE_BENCHMARK / "nl2fix_dataset.json"
PUBLISHED_FIELDS = (
    "src",
    "src_wo_comments",
    "fixed_src",
    "fixed_src_wo_comments",
    "summary",
    "Description",
    "issue_url",
    "comments",
)
CREATED = {
    "Textkit-1": "2019-03-04T10:15:30Z",
    "Textkit-2": "2020-11-20T07:00:00Z",
    "Textkit-3": "2021-07-01T06:30:00Z",
    "Textkit-5": "2023-02-14T12:00:00Z",
    "Rangekit-1": "2018-05-01T09:00:00Z",
    "Rangekit-2": "2021-09-01T00:00:00Z",
    "Rangekit-3": "2022-01-15T16:45:10Z",
    "Rangekit-4": "2024-03-03T03:03:03Z",
}
"""The recorded answers' creation dates (with their offsets) in UTC."""

JAVA = """package p;
import java.util.List;
/** A class. */
public class A {
    private int x = 1;
    /** doc */
    @Deprecated
    public int f(int a) {
        Runnable r = new Runnable() { public void run() { x++; } };
        return a + x; // plus
    }
    public int f(String s) { return s.length(); }
    A() { }
}
"""


@pytest.fixture(scope="module")
def server():
    with TrackerServer() as s:
        yield s


def _build(server, tmp_path, **kw):
    fetcher = IssueFetcher(
        tmp_path / "issues", endpoints=server.endpoints(), min_interval=0.0, offline=kw.pop("offline", False)
    )
    sources = PatchedTreeSources(PROJECTS, tmp_path / "work")
    (tmp_path / "work").mkdir(exist_ok=True)
    return build_dataset(META, ["Textkit", "Rangekit"], sources, fetcher, **kw)


# -- declaration-level diff ------------------------------------------------------------------------


def test_methods_are_found_with_their_lines_and_keys():
    f = parse_java(JAVA)
    assert list(f.methods) == ["A#f(int)", "A#f(String)", "A#A()"]
    m = f.methods["A#f(int)"]
    assert (m.start_line, m.end_line) == (7, 11)
    assert m.text.startswith("@Deprecated\n    public int f(int a) {") and m.text.endswith("    }")
    assert f.imports == ("import java.util.List;",)


def test_only_the_changed_overload_counts_and_comments_do_not():
    fixed = JAVA.replace("return a + x; // plus", "return a - x;")
    d = diff_files("A.java", JAVA, fixed)
    assert d.changed == ("A#f(int)",) and not (d.added or d.removed or d.outside)
    assert not diff_files(
        "A.java", JAVA, JAVA.replace("// plus", "// minus").replace("/** A class. */", "")
    ).code_changed
    inner = diff_files("A.java", JAVA, JAVA.replace("x++;", "x--;"))
    assert inner.changed == ("A#f(int)",)
    assert diff_files("A.java", JAVA.replace("\n", "\r\n"), JAVA).code_changed is False


@pytest.mark.parametrize(
    "edit, expected",
    [
        (("private int x = 1;", "private int x = 2;"), Change.FIELDS),
        (("import java.util.List;", "import java.util.List;\nimport java.util.Map;"), Change.IMPORTS),
        (("public class A {", "public class A implements Cloneable {"), Change.OTHER),
        (("    A() { }", "    A() { }\n    static { System.gc(); }"), Change.OTHER),
    ],
)
def test_changes_outside_methods_are_named(edit, expected):
    d = diff_files("A.java", JAVA, JAVA.replace(*edit))
    assert d.outside == (expected,) and not d.changed


def test_added_removed_and_several_methods_are_reasons_to_drop():
    added = diff_files("A.java", JAVA, JAVA.replace("    A() { }", "    A() { }\n    int g() { return 1; }"))
    assert added.added == ("A#g()",)
    several = diff_files("A.java", JAVA, JAVA.replace("a + x", "a - x").replace("s.length()", "0"))
    assert classify([several])[0] == [Change.SEVERAL_METHODS.value]
    both = diff_files("A.java", JAVA, JAVA.replace("a + x", "a - x").replace("x = 1", "x = 2"))
    assert classify([both]) == (["fields"], None)
    assert classify([both], keep_outside=True) == (["fields"], ("A.java", "A#f(int)"))
    assert classify([diff_files("A.java", JAVA, JAVA)]) == (["comments or whitespace only"], None)
    with pytest.raises(ParseError):
        parse_java("class A { void f( { }")


TEST_FILE = """package p;
public class FooTest extends BaseTest {
    @Test
    public void testA() {
        assertEquals(1, Foo.a());
    }

    public void testA(int x) { }

    public static class Inner {
        @Test public void testB() { fail(); }
    }
}
"""


def test_a_test_method_is_taken_as_written_from_its_class():
    assert source_of_test(TEST_FILE, "p.FooTest", "testA") == (
        "@Test\npublic void testA() {\n    assertEquals(1, Foo.a());\n}"
    )
    assert source_of_test(TEST_FILE, "p.FooTest$Inner", "testB") == "@Test public void testB() { fail(); }"
    assert source_of_test(TEST_FILE, "p.FooTest", "testInherited") is None
    assert source_of_test("class {", "p.FooTest", "testA") is None


def test_bug_number_specs():
    assert parse_bug_numbers("1-3,7") == {1, 2, 3, 7}
    assert parse_bug_numbers(None) is None
    with pytest.raises(Nl2FixError):
        parse_bug_numbers("1-x")
    with pytest.raises(Nl2FixError, match="no active-bugs.csv for project 'Lang'"):
        read_active_bugs(META, "Lang")


# -- whole builds ----------------------------------------------------------------------------------


def test_build_reproduces_the_example_dataset_field_by_field(server, tmp_path):
    records, summary = _build(server, tmp_path)
    shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))
    assert summary.dropped == {"new method": ["Textkit-4"]}
    assert sorted(records) == sorted(k for k in shipped if not k.startswith("Textkit_4_"))
    for key, record in records.items():
        for name in PUBLISHED_FIELDS:
            assert (
                record[name] == (shipped[key][name] or []) if name == "comments" else record[name] == shipped[key][name]
            ), (key, name)
        bug_id = "-".join(key.split("_")[:2])
        assert record["issue_created"] == CREATED[bug_id]
        assert record["tracker"] == ("jira" if bug_id.startswith("Textkit") else "github")
        assert record["fix_date"] == "" and record["fix_outside_method"] is False and record["issue_error"] == ""
        assert record["trigger_tests_src"] == shipped[key]["trigger_tests_src"], key
        assert record["content_hash"] == content_hash(record)
    assert summary.unfetched == [] and summary.fetch.requests == 8 + 4 + 1  # issues, comment lists, a second page


def test_rerun_offline_fetches_nothing_and_gives_the_same_records(server, tmp_path):
    first, _ = _build(server, tmp_path)
    asked = len(server.log)
    again, summary = _build(server, tmp_path, offline=True)
    assert again == first and len(server.log) == asked and summary.fetch.requests == 0


def test_unfetchable_issues_keep_their_bug_with_empty_text(server, tmp_path):
    records, summary = _build(
        server, tmp_path, offline=True, numbers={4}, keep_outside=True, benchmark="single-function"
    )
    ((key, record),) = [(k, r) for k, r in records.items() if k.startswith("Textkit_4_")]
    assert record["fix_outside_method"] is True
    assert record["summary"] == record["Description"] == "" and record["comments"] == []
    assert record["tracker"] == "none" and record["issue_url"] == ""
    assert ("Textkit-4", "UNKNOWN", "no known issue tracker for 'UNKNOWN'") in summary.unfetched
    assert (
        "Rangekit-4",
        "https://github.com/example-org/rangekit/issues/33",
        "not in the cache (--offline)",
    ) in summary.unfetched
    assert "issue text not fetched for 2 kept bug(s) (kept with empty texts):" in summary.lines()


def test_the_nl2fix_set_drops_bugs_without_an_issue_report_and_the_single_function_set_keeps_them(server, tmp_path):
    nl2fix, summary = _build(server, tmp_path, keep_outside=True)
    assert summary.dropped == {"no issue report": ["Textkit-4"]}  # its report.url is UNKNOWN
    single, whole = _build(server, tmp_path, keep_outside=True, benchmark="single-function")
    assert whole.dropped == {} and set(single) - set(nl2fix) == {k for k in single if k.startswith("Textkit_4_")}
    assert "  kept per project: Rangekit 4, Textkit 5" in whole.lines()
    ds_file = tmp_path / "single.json"
    ds_file.write_text(json.dumps(single), encoding="utf-8")
    loaded = load_dataset(ds_file, META)
    assert len(loaded.bugs) == 9 and loaded.problems == []  # no issue report: not a missing title
    with pytest.raises(Nl2FixError, match="unknown benchmark 'd4j'"):
        _build(server, tmp_path, benchmark="d4j")


def test_cli_builds_the_single_function_benchmark_of_every_project_for_the_test_driven_prompt(
    server, tmp_path, monkeypatch, invoke_cli
):
    monkeypatch.setenv("NL2FIX_JIRA_URL", f"{server.url}/jira")
    monkeypatch.setenv("NL2FIX_GITHUB_API_URL", f"{server.url}/github")
    monkeypatch.setenv("NL2FIX_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "single.json"
    result = invoke_cli(
        "dataset",
        "build",
        "--projects",
        "all",
        "--benchmark",
        "single-function",
        "--keep-outside-changes",
        "--defects4j-meta",
        META,
        "--projects-dir",
        PROJECTS,
        "--out",
        out,
        "--request-interval",
        "0",
        "--quiet",
    )
    assert result.exit_code == 0, result.output
    assert "bugs considered: 9, kept: 9, dropped: 0" in result.output
    assert "kept per project: Rangekit 4, Textkit 5" in result.output
    shown = invoke_cli(
        "prompt", "--dataset", out, "--defects4j-meta", META, "--bug", "Textkit-4", "--strategy", "test-driven"
    )
    assert shown.exit_code == 0, shown.output
    assert "Test `org.textkit.AccentsTest::testStripLigatures`:\n```java\n@Test" in shown.stdout


def test_cli_build_then_diff_then_select_by_date_and_flag(server, tmp_path, monkeypatch, invoke_cli):
    monkeypatch.setenv("NL2FIX_JIRA_URL", f"{server.url}/jira")
    monkeypatch.setenv("NL2FIX_GITHUB_API_URL", f"{server.url}/github")
    monkeypatch.setenv("NL2FIX_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "built" / "nl2fix_dataset.json"
    args = [
        "dataset",
        "build",
        "--projects",
        "Textkit,Rangekit",
        "--defects4j-meta",
        str(META),
        "--projects-dir",
        str(PROJECTS),
        "--out",
        str(out),
        "--request-interval",
        "0",
        "--quiet",
    ]
    result = invoke_cli(*args)
    assert result.exit_code == 0, result.output + result.stderr
    assert "bugs considered: 9, kept: 8, dropped: 1" in result.output
    assert "  dropped, new method: 1 (Textkit-4)" in result.output
    summary = json.loads(out.with_name(out.name + ".summary.json").read_text())
    assert summary["dropped"] == {"new method": ["Textkit-4"]} and summary["unfetched"] == []

    diff = invoke_cli("dataset", "diff", SHIPPED, out)
    assert diff.exit_code == 0, diff.output
    assert "bugs only in A: 1 (Textkit-4)" in diff.output
    assert "  line range: 8 same" in diff.output and "  src: 8 equal" in diff.output
    assert "  Description: 8 equal" in diff.output

    stats = invoke_cli("dataset", "stats", "--dataset", out, "--flags")
    assert (
        "difficulty flags: multi-hunk 1, long-fix 0, outside-method 0 (of 8 bugs); issue dates known for 8"
        in stats.output
    )

    shutil.copytree(META, out.parent / "defects4j")
    ds = load_dataset(out)
    assert ds.bugs["Textkit-3"].issue_created == "2021-07-01T06:30:00Z" and ds.bugs["Textkit-3"].trigger_tests
    shown = invoke_cli(
        "prompt", "--dataset", out, "--all", "--created-after", "2021-07-01", "--created-before", "2023-01-01"
    )
    assert shown.exit_code == 0, shown.output + shown.stderr
    assert [l for l in shown.output.splitlines() if l.startswith("=== ")] == [
        "=== Textkit-3",
        "=== Rangekit-2",
        "=== Rangekit-3",
    ]

    def selected(*flags):
        result = invoke_cli("prompt", "--dataset", out, "--all", *flags)
        assert result.exit_code == 0, result.stderr
        return [l[4:] for l in result.output.splitlines() if l.startswith("=== ")]

    one = invoke_cli("prompt", "--dataset", out, "--all", "--flag", "multi-hunk")  # one bug: printed without a header
    assert "CsvLine.split does not read back what CsvLine.join wrote" in one.output and "=== " not in one.output
    assert selected("--flag", "long-fix", "--long-fix-lines", "3") == ["Textkit-2", "Textkit-3", "Rangekit-4"]
    assert selected("--flag", "no-long-fix", "--long-fix-lines", "3", "--created-before", "2021-01-01") == [
        "Textkit-1",
        "Rangekit-1",
    ]
    bad = invoke_cli("prompt", "--dataset", out, "--all", "--flag", "hard")
    assert bad.exit_code == 2 and "unknown flag 'hard'" in bad.stderr
    bad = invoke_cli("prompt", "--dataset", out, "--all", "--created-after", "July")
    assert bad.exit_code == 2 and "--created-after 'July' is not a date" in bad.stderr


def test_diff_explains_drifted_ranges_and_changed_texts(tmp_path):
    shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))
    key = next(k for k in shipped if k.startswith("Rangekit_1_"))
    moved = {k: v for k, v in shipped.items() if k != key}
    start, end = (int(x) for x in key.rsplit("_", 2)[1:])
    entry = dict(shipped[key], Description="{{" + shipped[key]["Description"] + "}}", summary="")
    moved[key.rsplit("_", 2)[0] + f"_{start + 3}_{end + 3}"] = entry
    (tmp_path / "b.json").write_text(json.dumps(moved))
    result = diff_datasets(SHIPPED, tmp_path / "b.json")
    pair = next(p for p in result.pairs if p.bug_id == "Rangekit-1")
    assert pair.range == "shifted +3 lines"
    assert pair.fields["Description"] is Same.NORMALISED and pair.fields["summary"] is Same.EMPTY_B
    assert pair.fields["src"] is Same.EQUAL
    assert result.field_counts()["summary"][Same.EQUAL] == 8


def test_build_errors_are_clear(tmp_path, invoke_cli):
    (tmp_path / "a-file").write_text("")
    common = [
        "dataset",
        "build",
        "--defects4j-meta",
        META,
        "--projects-dir",
        PROJECTS,
        "--offline",
        "--quiet",
        "--cache",
        tmp_path / "issues",
    ]
    unwritable = invoke_cli(*common, "--projects", "Rangekit", "--out", tmp_path / "a-file" / "x.json")
    assert unwritable.exit_code == 2 and "error: cannot write" in unwritable.stderr
    unknown = invoke_cli(*common, "--projects", "Lang", "--out", tmp_path / "x.json")
    assert unknown.exit_code == 2 and "projects there: Rangekit, Textkit" in unknown.stderr
    bad_url = invoke_cli(
        *common, "--projects", "Rangekit", "--out", tmp_path / "x.json", "--tracker-url", "gitlab=http://x"
    )
    assert bad_url.exit_code == 2 and "TRACKER one of jira, github, sourceforge, google-code" in bad_url.stderr


def test_add_tests_gives_an_existing_dataset_its_test_sources_and_keeps_the_rest(tmp_path, invoke_cli):
    raw = json.loads(SHIPPED.read_text(encoding="utf-8"))
    stripped = {k: {f: v for f, v in e.items() if f != "trigger_tests_src"} for k, e in raw.items()}
    plain = tmp_path / "published_like.json"
    plain.write_text(json.dumps(stripped), encoding="utf-8")
    out = tmp_path / "with_tests.json"
    result = invoke_cli(
        "dataset", "add-tests", plain, "--out", out, "--defects4j-meta", META, "--projects-dir", PROJECTS, "--quiet"
    )
    assert result.exit_code == 0, result.output
    assert "trigger tests' source found for 9 bug(s) whole" in result.output
    assert json.loads(out.read_text(encoding="utf-8")) == raw  # every other field untouched
    shown = invoke_cli(
        "prompt", "--dataset", out, "--defects4j-meta", META, "--bug", "Rangekit-2", "--strategy", "test-driven"
    )
    assert shown.exit_code == 0 and "testContainsUpperBound" in shown.stdout


def test_add_tests_names_the_tests_it_could_not_find(tmp_path):
    meta = tmp_path / "meta"
    shutil.copytree(META, meta)
    with open(meta / "Textkit" / "trigger_tests" / "2", "a", encoding="utf-8") as fh:
        fh.write("--- org.textkit.WordsTest::testInheritedFromBase\njunit.framework.AssertionFailedError\n")
    raw = json.loads(SHIPPED.read_text(encoding="utf-8"))
    records = {k: v for k, v in raw.items() if k.startswith("Textkit_2_")}
    records["Textkit_99_src/main/java/org/textkit/Words.java_1_2"] = dict(next(iter(records.values())))
    (tmp_path / "work").mkdir()
    missing = add_test_sources(records, meta, PatchedTreeSources(PROJECTS, tmp_path / "work"))
    assert missing == {
        "Textkit-2": ["org.textkit.WordsTest::testInheritedFromBase"],
        "Textkit-99": ["(not an active bug)"],
    }
    textkit2 = next(v for k, v in records.items() if k.startswith("Textkit_2_"))
    assert list(textkit2["trigger_tests_src"]) == ["org.textkit.WordsTest::testCapitalizeNull"]
