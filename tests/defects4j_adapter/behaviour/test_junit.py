"""The JUnit test of a divergence, written from the probe's snapshots (pure text; the test compiled and run
on both versions is in tests/validation/test_behaviour.py): values written back as Java, what cannot be
written and why."""

import pytest

from defects4j_adapter.behaviour.junit import Node, Unexpressible, _items, divergence_test, expression

SOURCE = """package org.demo;

import java.util.List;

public class Calc {
    private int total;

%s
}
"""


def _test(method: str, first_input: str, fix: str, candidate: str):
    source = SOURCE % method
    start = source.splitlines().index(method.splitlines()[0]) + 1
    return divergence_test(
        source, method, start, start + len(method.splitlines()) - 1, method, first_input, fix, candidate
    )


@pytest.mark.parametrize(
    "snapshot, type_, java",
    [
        ('"a\\u00c0\\"b\\u000a"', "String", 'new String("a\\u00c0\\"b\\n")'),
        ('char("\'")', "char", "'\\''"),
        ("int[3]{1,-2,3}", "int[]", "new int[] {1, -2, 3}"),
        ('java.lang.String[2]{"a",null}', "String[]", 'new java.lang.String[] {new String("a"), null}'),
        ("NaN", "double", "Double.NaN"),
        ("[D[2]{double[1]{1.5},double[0]{}}", "double[][]", "new double[][] {new double[] {1.5}, new double[] {}}"),
        (
            '[Ljava.lang.String;[1]{java.lang.String[1]{"a"}}',
            "String[][]",
            'new java.lang.String[][] {new java.lang.String[] {new String("a")}}',
        ),
        ("-Infinityf", "float", "Float.NEGATIVE_INFINITY"),
        ("(short) 3", "short", "(short) 3"),
        ('BigDecimal("1.50")', "java.math.BigDecimal", 'new java.math.BigDecimal("1.50")'),
        ("org.demo.Calc$Mode.FAST", "Calc.Mode", "org.demo.Calc.Mode.FAST"),
        (
            'java.util.ArrayList[2]{"a",5L}',
            "List<Object>",
            'new java.util.ArrayList(java.util.Arrays.asList(new Object[] {new String("a"), 5L}))',
        ),
    ],
)
def test_values_are_written_back_as_java(snapshot, type_, java):
    [(label, node, _)] = _items(f"arg0={snapshot}")
    assert label == "arg0" and expression(node, type_) == java


def test_a_static_methods_divergence_is_a_test_of_its_return_value():
    method = "    public static long f(final String a, String b) {\n        return a.length();\n    }"
    test = _test(method, 'arg0="x", arg1="x" (the same object as arg0)', "return=1L", "return=2L").test
    assert test.startswith("package org.demo;\n\nimport java.util.List;\n")
    body = [line.strip() for line in test.splitlines()]
    # an argument the very object another is, is that object; every other string a new one
    assert body[body.index("public void fAsTheDevelopersFix() throws Throwable {") + 1 :][:4] == [
        'String a = new String("x");',
        "String b = a;",
        "long result = Calc.f(a, b);",
        "org.junit.Assert.assertEquals((long) 1L, (long) result);",
    ]


def test_an_exception_the_fix_throws_is_expected_and_a_changed_argument_is_asserted():
    method = "    public static void f(int[] xs) {\n        xs[0] = 1;\n    }"
    thrown = _test(
        method, "arg0=null", "throws java.lang.IllegalArgumentException=null", "throws java.lang.NullPointer"
    )
    # exactly the fix's class: a subclass the candidate throws is another outcome
    assert 'org.junit.Assert.assertEquals("java.lang.IllegalArgumentException", thrown.getClass().getName());' in (
        thrown.test
    )
    changed = _test(method, "arg0=int[1]{0}", "return=null, arg0=int[1]{1}", "return=null, arg0=int[1]{0}")
    # by its elements (a double by its bits), not by how it prints: ["a, b"] and ["a", "b"] print alike
    assert "Nl2fix.check(new int[] {1}, xs);" in changed.test


@pytest.mark.parametrize(
    "method, first_input, fix, candidate, why",
    [
        (
            # a state made field by field needs every field: one that refers back to the object is not written
            "    public int f(int x) {\n        return total + x;\n    }",
            "arg0=1, this=org.demo.Calc{total=3,self=^1}",
            "return=4",
            "return=5",
            "the receiver cannot be written in a test: it holds an object that refers back",
        ),
        (
            "    public int f(int x) {\n        return total + x;\n    }",
            "arg0=1, this=org.demo.Calc{total=3,total=4}",
            "return=4",
            "return=5",
            "two of whose classes have a field total",
        ),
        (
            "    public int f(int x) {\n        return total + x;\n    }",
            'arg0=1, this=org.demo.Calc{total=3}[1]{"a"}',
            "return=4",
            "return=5",
            "it holds a org.demo.Calc, a project's subclass of a JDK collection",
        ),
        (
            "    public void f(int x) {\n        total = x;\n    }",
            "arg0=1, this=org.demo.Calc{}",
            "return=null, this=org.demo.Calc{total=java.util.ArrayList[1]{org.demo.Calc{total=1}}}",
            "return=null, this=org.demo.Calc{total=java.util.ArrayList[1]{org.demo.Calc{total=2}}}",
            "they differ in the receiver's field total afterwards: the fix's outcome holds a java.util.ArrayList of "
            "the project's objects",
        ),
        (
            "    private static int f(int x) {\n        return x;\n    }\n    private static int f(long x) {\n"
            "        return 0;\n    }",
            "arg0=1",
            "return=1",
            "return=2",
            "the method is private and overloaded",
        ),
        (
            # the very string the array argument holds: a test writes each value anew, an equal copy
            "    static int f(String[] xs, String x) {\n        return 1;\n    }",
            'arg0=java.lang.String[1]{"a"}, arg1="a" (an object arg0 holds)',
            "return=1",
            "return=2",
            "argument x cannot be written in a test: it is the very object arg0 holds, deeper than one of its fields",
        ),
        (
            # an anonymous class's object: its enclosing object and the locals it captured are not in the snapshot
            "    public static int f(Object o) {\n        return 1;\n    }",
            "arg0=org.demo.Calc$1{}",
            "return=1",
            "return=2",
            "it holds a org.demo.Calc$1, an anonymous or local class's object",
        ),
        (
            # held by the receiver, but an equal string sits deeper in it too: which one it is, is not known
            "    public int f(String u) {\n        return 1;\n    }",
            'arg0="kg" (an object this holds), this=org.demo.Calc{unit="kg",units=java.util.ArrayList[1]{"kg"}}',
            "return=1",
            "return=2",
            "argument u cannot be written in a test: it is the very object this holds, deeper than one of its fields",
        ),
        (
            "    static String f(String x) {\n        return x;\n    }",
            'arg0="aaaa..."(3000)',
            'return="a"',
            "return=null",
            "a string longer than the probe writes",
        ),
    ],
)
def test_what_cannot_be_written_says_why(method, first_input, fix, candidate, why):
    explained = _test(method, first_input, fix, candidate)
    assert not explained.test and why in explained.why_not, explained


def test_a_fresh_receiver_is_built_with_its_constructor():
    method = "    public int f(int x) {\n        return x;\n    }"
    test = _test(method, "arg0=1, this=org.demo.Calc{}", "return=1, this=org.demo.Calc{}", "return=2").test
    assert "Calc receiver = new Calc();" in test and "int result = receiver.f(x);" in test


def test_a_snapshot_cut_anywhere_is_read_up_to_the_cut_or_refused():
    # the probe shortens inputs and outcomes: every prefix gives a test or a reason, never an error
    method = "    public static int f(int[] xs, String s, java.util.List<Object> l) {\n        return 1;\n    }"
    whole = (
        'arg0=int[2]{1,-2}, arg1="a\\u00c0\\"b" (the same object as arg0), '
        'arg2=java.util.ArrayList[3]{BigDecimal("1.5"),char("x"),org.demo.Calc{total=3,next=^1}} (an object arg0 holds)'
    )
    for cut in range(len(whole) + 1):
        explained = _test(method, whole[:cut] + "...", "return=1", "return=2")
        assert bool(explained.test) != bool(explained.why_not), (cut, explained)


def test_a_result_of_the_projects_objects_is_expected_field_by_field_as_the_probe_saw_it():
    # Math's RealPointValuePair has no equals of its own: the fix's result is another instance, so assertEquals would
    # fail on the fix too; only the fields the probe saw are checked (a private field it did not show is not)
    method = "    public Calc[] f(int x) {\n        return null;\n    }"
    fix = "return=org.demo.Calc[2]{null,org.demo.Calc{total=2,point=double[1]{1.5}}}, this=org.demo.Calc{total=0}"
    candidate = "return=org.demo.Calc[2]{null,org.demo.Calc{total=3,point=double[1]{1.5}}}, this=org.demo.Calc{total=0}"
    test = _test(method, "arg0=2, this=org.demo.Calc{}", fix, candidate).test
    body = [line.strip() for line in test.splitlines()]
    at = body.index("Calc[] result = receiver.f(x);")
    assert body[at + 1 : at + 5] == [
        'Nl2fix.checkClass("[Lorg.demo.Calc;", result);',
        'Nl2fix.check(new Object[] {null, Nl2fix.seen("org.demo.Calc",',
        '"total", 2,',
        '"point", new double[] {1.5})}, result);',
    ]


def test_a_long_primitive_array_is_written_as_text_the_helper_reads_in_constants_a_class_file_holds():
    # 8,192 ints: an initialiser would pass a test method's 64 KB of bytecode, one string a class file's constant
    [(_, node, _)] = _items("arg0=int[8192]{" + ",".join(str(-(10**9) - i) for i in range(8192)) + "}")
    java = expression(node, "int[]")
    assert java.startswith('((int[]) Nl2fix.array("int", "-1000000000,-1000000001,')
    parts = java.split('", "')
    assert len(parts) > 5 and all(len(p) <= 16_100 for p in parts)
    [(_, floats, _)] = _items("arg0=float[258]{" + ",".join(["-Infinityf", "NaNf", "1.5f"] * 86) + "}")
    assert expression(floats, "Object").startswith('((float[]) Nl2fix.array("float", "-Infinity,NaN,1.5,-Infinity,')
    [(_, chars, _)] = _items("arg0=char[300]{" + ",".join(['char("a")'] * 300) + "}")
    assert expression(chars, "char[]").startswith("new char[] {'a', ")  # chars stay an initialiser
    # only numbers go into the text: an element that would end its string constant is refused, not written
    crafted = Node("", "array", "int", items=[Node('1", "2', "literal", "1")] * 300)
    with pytest.raises(Unexpressible, match="otherwise than as numbers"):
        expression(crafted, "int[]")
