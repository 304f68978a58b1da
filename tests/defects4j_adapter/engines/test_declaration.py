"""Which declaration changes send a candidate to a whole-project rebuild (pure)."""

from __future__ import annotations

import pytest

from defects4j_adapter.engines.declaration import affects_other_classes, parse

OLD = "private Object readResolve() {\n    return this;\n}"


def test_parse_reads_modifiers_result_and_parameter_types():
    decl = parse(
        '@Override @SuppressWarnings({"a", "b"}) public static <T extends Comparable<? super T>> '
        "java.util.List<T> copy(final @javax.annotation.Nonnull Map<String, List<T>> m, int xs[], "
        "String... rest) throws IOException { return null; }"
    )
    assert decl.modifiers == {"public", "static"}
    assert decl.result == "< T extends Comparable < ? super T >> java . util . List < T > copy"
    assert decl.parameters == ("Map<String,List<T>>", "int[]", "String[]")
    assert parse("int values()[] { return null; }").result == "int values[]"
    assert parse("{ no declaration }") is None


@pytest.mark.parametrize(
    "new",
    [
        "protected Object readResolve() { return this; }",  # Collections-26: more visibility
        "public Object readResolve() { return this; }",
        "private final synchronized Object readResolve() throws ObjectStreamException { return this; }",
        '@SuppressWarnings("unchecked") private Object readResolve() { return null; }',
    ],
)
def test_changes_other_classes_cannot_see_stay_on_the_fast_path(new):
    assert not affects_other_classes(OLD, new)


@pytest.mark.parametrize(
    "old, new",
    [
        ("public int size() {}", "protected int size() {}"),  # less visibility
        ("protected int size() {}", "int size() {}"),
        ("int size() {}", "private int size() {}"),
        ("int size() {}", "long size() {}"),  # return type
        ("int size() {}", "int length() {}"),  # name
        ("int get(int i) {}", "int get(long i) {}"),  # parameter type
        ("int get(int i) {}", "int get(int i, int j) {}"),
        ("int get(int i) {}", "static int get(int i) {}"),  # static-ness
        ("<T> T first(List<T> xs) {}", "<T extends Number> T first(List<T> xs) {}"),  # type parameters
        ("int size() {}", "int size( {}"),  # unreadable: rebuilt, to be safe
        ("int size() {}", "\\u0073tatic int size() {}"),  # ``static`` as javac reads it
        ("int size() {}", "int size() // \\u000a [] {}"),  # the comment ends: an array is returned
        ("int size() {}", "int size() { return 0; } // c:\\users"),  # javac cannot read it
    ],
)
def test_changes_other_classes_can_see_are_rebuilt(old, new):
    assert affects_other_classes(old, new)


def test_escapes_are_read_as_javac_reads_them():
    assert not affects_other_classes("public int size() {}", "publ\\u0069c int si\\u007ae() {}")


def test_parameter_names_final_and_varargs_spelling_do_not_matter():
    assert not affects_other_classes("int f(String[] a, int b) {}", "int f(final String... values, int count) {}")
    assert not affects_other_classes("int f(int a[]) {}", "int f(int[] a) {}")
    assert not affects_other_classes("int f(Map<String,Integer> m) {}", "int f(Map<String, Integer> other) {}")
