import json

import pytest

from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.load import load_dataset, parse_key, parse_trigger_tests

GOOD = {
    "src": "int f() {\n    // one\n    return 1;\n}",
    "fixed_src": "int f() {\n    return 2;\n}",
    "summary": "f returns 1",
    "Description": None,
    "issue_url": None,
    "comments": None,
}


def _write(tmp_path, entries):
    path = tmp_path / "data.json"
    path.write_text(json.dumps(entries))
    return path


def test_malformed_entries_are_reported_not_fatal(tmp_path):
    entries = {
        "Demo_1_src/a/A.java_10_12": GOOD,
        "Demo_2_src/a/A.java_10": GOOD,
        "Demo_3_src/a/A.java_10_12": {**GOOD, "src": None},
        "Demo_4_src/a/A.java_12_10": GOOD,
        "Demo_5_src/a/A.java_1_3": "not an object",
        "Demo_1_src/a/B.java_1_3": GOOD,
    }
    ds = load_dataset(_write(tmp_path, entries))
    assert list(ds.bugs) == ["Demo-1"]
    assert len(ds.problems) == 5
    assert any("Demo_2" in p and "Project_BugId" in p for p in ds.problems)
    assert any("lacks src (the buggy method)" in p and "left out" in p for p in ds.problems)
    assert any("repeats bug Demo-1" in p for p in ds.problems)
    bug = ds.bugs["Demo-1"]
    assert bug.description == "" and bug.comments == () and bug.issue_url == ""
    assert bug.buggy_method_no_comments == "int f() {\n    return 1;\n}"
    assert "// one" in bug.buggy_method


def test_unreadable_dataset_is_a_user_error(tmp_path):
    with pytest.raises(Nl2FixError):
        load_dataset(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(Nl2FixError) as err:
        load_dataset(bad)
    assert "not valid JSON" in err.value.message


def test_key_with_underscores_in_path():
    assert parse_key("JacksonDatabind_12_src/main/java/a_b/C_D.java_7_9") == (
        "JacksonDatabind",
        12,
        "src/main/java/a_b/C_D.java",
        7,
        9,
    )


def test_trigger_file_parsing_skips_stack_traces():
    text = "--- a.BTest::testX\njava.lang.AssertionError\n\tat a.BTest.testX(BTest.java:3)\n--- a.CTest::testY\n"
    assert parse_trigger_tests(text) == ("a.BTest::testX", "a.CTest::testY")


def test_selection(tmp_path):
    ds = load_dataset(
        _write(tmp_path, {"Demo_1_src/A.java_1_3": GOOD, "Demo_2_src/A.java_5_7": GOOD, "Other_1_src/A.java_1_3": GOOD})
    )
    assert [b.id for b in ds.select(projects=["demo"])] == ["Demo-1", "Demo-2"]
    assert [b.id for b in ds.select(ids=["other_1", "Demo-2b"])] == ["Other-1", "Demo-2"]
    with pytest.raises(Nl2FixError):
        ds.select()
    with pytest.raises(Nl2FixError):
        ds.select(projects=["Nope"])


@pytest.mark.dataset
def test_real_dataset_loads_with_defects4j_metadata(shared_data):
    ds = load_dataset(shared_data / "nl2fix_dataset.json")
    assert len(ds.bugs) == 283 and ds.problems == []
    bug = ds.resolve("JXPath-20")
    assert bug.path.endswith("CoreOperationRelationalExpression.java")
    assert (bug.start_line, bug.end_line) == (71, 99)
    assert bug.trigger_tests == (
        "org.apache.commons.jxpath.ri.compiler.JXPath149Test::testComplexOperationWithVariables",
    )
    assert "org.apache.commons.jxpath.ri.compiler.JXPath149Test" in bug.relevant_tests
    assert bug.source_dir == "src/java" and len(bug.buggy_revision) == 40
    assert all(b.trigger_tests for b in ds.bugs.values())
