"""The probe source: the reference renamed beside a wrapper with the original declaration; the candidate is
not in it (the runner loads the candidate's own class files apart)."""

import pytest

from defects4j_adapter.behaviour.probe_source import (
    MAX_CONSTANTS,
    REFERENCE_SUFFIX,
    NotProbeable,
    callee_names,
    constants,
    declaration,
    enclosing_class,
    names,
    probe_file,
    probe_methods,
)
from nl2fix.java_source.parameters import Parameter

GENERIC = """  /** Picks. */
  @Override @a.b.Marker(x = 1)
  public static <T extends Comparable<T>> List<T> pick(final List<T> xs, int n, String... names) throws IOException {
      return xs;
  }"""


def test_a_declaration_is_read_through_annotations_generics_and_varargs():
    d = declaration(GENERIC)
    assert d.signature == ("pick", True, "List<T>", ("List<T>", "int", "String[]"))
    assert declaration("int f(int x[]) { return x[0]; }").params == (Parameter("int[]", "x"),)


def test_the_wrapper_hands_the_reference_to_the_runner_as_a_private_copy_and_the_candidate_is_not_in_it():
    text = probe_methods(GENERIC, GENERIC.replace("return xs", "return null"), "a.B")
    wrapper, ref = text.split("\nprivate ")
    call = 'nl2fix.runner.BehaviourProbe.call(a.B.class, "pick' + REFERENCE_SUFFIX + '", null, '
    assert call + "new Object[] {xs, n, names}" in wrapper
    assert "((Integer) nl2fix$a[1]).intValue()" in wrapper and "(String[]) nl2fix$a[2]" in wrapper
    assert ref.startswith("static <T extends Comparable<T>> List<T> pick" + REFERENCE_SUFFIX + "(")
    assert "return null" not in text and "@Override" not in ref and "$nl2fix$cand" not in text


def test_an_instance_method_returning_a_primitive_is_unboxed():
    text = probe_methods("public int f(int x) { return x; }", "public int f(int x) { return 1; }", "Outer.In")
    assert "return ((Integer) nl2fix.runner.BehaviourProbe.call(Outer.In.class" in text and ", this, " in text
    assert "((Outer.In) nl2fix$r).f" + REFERENCE_SUFFIX in text and "return 1;" not in text


@pytest.mark.parametrize(
    "reference, candidate, why",
    [
        ("public Calc(int x) { this.x = x; }", "public Calc(int x) { this.x = 1; }", "a constructor"),
        ("int f(int x) { return x; }", "int f(long x) { return 1; }", "declaration differs"),
        ("int f(int x) { return x; }", "static int f(int x) { return x; }", "declaration differs"),
    ],
)
def test_what_cannot_be_probed_says_why(reference, candidate, why):
    with pytest.raises(NotProbeable, match=why):
        probe_methods(reference, candidate, "C")


def test_a_candidate_that_keeps_the_return_type_the_fix_changed_is_probed_behind_the_fixs_wrapper():
    # Math-8: the fix returns Object[] where the buggy method (and its patches) return T[]
    text = probe_methods(
        "public Object[] sample(int n) { return new Object[n]; }", "public T[] sample(int n) { return null; }", "D"
    )
    assert "public Object[] sample(int n)" in text and "private Object[] sample" + REFERENCE_SUFFIX in text
    assert "T[]" not in text


def test_the_enclosing_class_is_named_as_the_file_names_it():
    source = "package p;\nclass A {\n  static class B {\n    int f() { return 1; }\n  }\n}\n"
    assert enclosing_class(source, source.index("int f")) == "A.B"
    anonymous = "class A {\n  Object o = new Object() {\n    int f() { return 1; }\n  };\n}\n"
    with pytest.raises(NotProbeable, match="named class"):
        enclosing_class(anonymous, anonymous.index("int f"))
    interface = "interface I {\n  default int f() { return 1; }\n}\n"
    with pytest.raises(NotProbeable, match="named class"):
        enclosing_class(interface, interface.index("default"))


def test_the_probe_file_replaces_only_the_method():
    source = (
        "package p;\n\npublic class A {\n    int f(int x) {\n        return x;\n    }\n\n    int g() { return 2; }\n}\n"
    )
    text = probe_file(
        source,
        "int f(int x) {\n        return x;\n    }",
        4,
        6,
        "int f(int x) { return x + 1; }",
        "int f(int x) { return 1 + x; }",
    )
    assert text.startswith("package p;\n\npublic class A {\n") and text.endswith("    int g() { return 2; }\n}\n")
    assert "f" + REFERENCE_SUFFIX + "(int x) { return x + 1; }" in text
    assert "return 1 + x" not in text


def test_the_fixs_literals_are_handed_to_the_runner_as_values_to_try():
    fix = 'int f(int x, String s) { if (x > 0x1F || x == -3 || s.equals("a\\"b")) return \'c\' + 010; return 2; }'
    assert constants(declaration(fix)) == ["31L", "-3L", '"a\\"b"', "'c'", "8L", "2L"]
    wrapper = probe_methods(fix, fix, "C").split("\nprivate ")[0]
    assert 'new Object[] {x, s}, new Object[] {31L, -3L, "a\\"b", \'c\', 8L, 2L},' in wrapper
    # floating-point literals as doubles (their suffix dropped), after the others, in the room they leave
    floating = "double f(double p) { return p > 1.5f ? 0.5 : p < -1e-10 ? 2 : 1.5d; }"
    assert constants(declaration(floating)) == ["2L", "1.5d", "0.5d", "-1e-10d"]
    many = "int f(int x) { return " + " + ".join(str(i) for i in range(100, 130)) + "; }"
    assert len(constants(declaration(many))) == MAX_CONSTANTS
    assert constants(declaration(many.replace("100 +", "0.25 + 100 +"))) == constants(declaration(many))


def test_the_buggy_methods_literals_follow_the_fixs():
    # a bound the fix moved (`x > 10` to `x >= 12`): the buggy method's 10 is where the two part, and where
    # a candidate that kept a piece of the buggy code differs from the fix
    fix = "int f(int x) { return x >= 12 ? 1 : 0; }"
    buggy = "int f(int x) { return x > 10 ? 1 : 0; }"
    assert constants(declaration(fix), declaration(buggy)) == ["12L", "1L", "0L", "10L"]
    wrapper = probe_methods(fix, fix, "C", buggy).split("\nprivate ")[0]
    assert "new Object[] {x}, new Object[] {12L, 1L, 0L, 10L}," in wrapper
    source = "package p;\n\npublic class A {\n    " + buggy + "\n}\n"
    assert "new Object[] {12L, 1L, 0L, 10L}," in probe_file(source, buggy, 4, 4, fix, fix)


def test_the_names_the_fixs_body_uses_are_handed_to_the_runner():
    # the runner compares a private field of the class only when the fix names it (see Graphs.View)
    fix = "int f(int x) { return this.count + x + gr\u00f6\u00dfe; }"
    assert names(declaration(fix)) == ["return", "this", "count", "x", "gr\u00f6\u00dfe"]
    wrapper = probe_methods(fix, fix, "C").split("\nprivate ")[0]
    assert 'new String[] {"return", "this", "count", "x", "gr\\u00f6\\u00dfe"},' in wrapper


def test_the_names_the_methods_the_fix_calls_use_are_marked_and_no_others():
    source = """class C {
    private java.io.OutputStream out;
    private java.io.Writer unused;
    public void close() throws java.io.IOException { finish(); }
    void finish() throws java.io.IOException { if (out != null) { write(); } }
    private void write() throws java.io.IOException { out.write(1); flushed = deep(); }
    private boolean deep() { return helper(); }
    private boolean helper() { return unused != null; }
}"""
    fix = "public void close() throws java.io.IOException { finish(); }"
    names = callee_names(declaration(fix), source)
    assert "~out" in names and "~flushed" in names  # finish(), then write(), two calls deep
    assert "~unused" not in names  # helper() is four calls deep (CALLEE_DEPTH 3)
    assert not [n for n in callee_names(declaration("public void close() { }"), source)]
    assert '"~out"' in probe_methods(fix, fix, "C", source=source)
