"""The probe source: reference and candidate renamed beside a wrapper with the original declaration."""

import pytest

from defects4j_adapter.behaviour.probe_source import (
    CANDIDATE_SUFFIX,
    REFERENCE_SUFFIX,
    NotProbeable,
    declaration,
    enclosing_class,
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


def test_the_wrapper_hands_both_bodies_to_the_runner_and_the_copies_are_private():
    text = probe_methods(GENERIC, GENERIC.replace("return xs", "return null"), "a.B")
    wrapper, ref, cand = text.split("\nprivate ")
    call = "nl2fix.runner.BehaviourProbe.call(a.B.class, \"pick" + REFERENCE_SUFFIX + "\", null, "
    assert call + "new Object[] {xs, n, names}" in wrapper
    assert "((Integer) nl2fix$a[1]).intValue()" in wrapper and "(String[]) nl2fix$a[2]" in wrapper
    assert ref.startswith("static <T extends Comparable<T>> List<T> pick" + REFERENCE_SUFFIX + "(")
    assert cand.startswith("static <T extends Comparable<T>> List<T> pick" + CANDIDATE_SUFFIX + "(")
    assert "return null" in cand and "@Override" not in ref + cand


def test_an_instance_method_returning_a_primitive_is_unboxed():
    text = probe_methods("public int f(int x) { return x; }", "public int f(int x) { return 1; }", "Outer.In")
    assert "return ((Integer) nl2fix.runner.BehaviourProbe.call(Outer.In.class" in text and ", this, " in text
    assert "((Outer.In) nl2fix$r).f" + CANDIDATE_SUFFIX in text


@pytest.mark.parametrize("reference, candidate, why", [
    ("public Calc(int x) { this.x = x; }", "public Calc(int x) { this.x = 1; }", "a constructor"),
    ("int f(int x) { return x; }", "long f(int x) { return x; }", "declaration differs"),
    ("int f(int x) { return x; }", "int f(long x) { return 1; }", "declaration differs"),
])
def test_what_cannot_be_probed_says_why(reference, candidate, why):
    with pytest.raises(NotProbeable, match=why):
        probe_methods(reference, candidate, "C")


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
    source = ("package p;\n\npublic class A {\n    int f(int x) {\n        return x;\n    }\n\n"
              "    int g() { return 2; }\n}\n")
    text = probe_file(source, "int f(int x) {\n        return x;\n    }", 4, 6, "int f(int x) { return x + 1; }",
                      "int f(int x) { return 1 + x; }")
    assert text.startswith("package p;\n\npublic class A {\n") and text.endswith("    int g() { return 2; }\n}\n")
    assert "f" + REFERENCE_SUFFIX + "(int x) { return x + 1; }" in text
    assert "f" + CANDIDATE_SUFFIX + "(int x) { return 1 + x; }" in text
