"""A JUnit 4 test that shows a divergence: written from the first input on which a candidate did not do
what the developer's fix does (its snapshot, as the runner's ``Graphs`` writes it) and the fix's
outcome there, to run on both versions: it passes on the fix and fails on the candidate.

A test can be written when the input is expressible in Java source: primitives, strings (each a new
object, unless the snapshot says an argument is the very object an earlier one is: a method may compare
them by identity), boxed values, enum constants, class literals, ``BigInteger``/``BigDecimal``/
``StringBuilder`` values, arrays and the JDK's lists, sets and maps of those, and objects of project
classes whose every field the snapshot shows, made field by field (:data:`HELPER`); and when what differs
is the return value, the exception thrown, an argument or one of the receiver's fields afterwards (an object of
the project's classes expected as the probe saw it, field by field; a long primitive array as text the helper
reads). The input and outcomes are the runner's whole texts where it wrote them (``BehaviourProbe.WHOLE_TEXTS``).
Else :func:`divergence_test` says why not: an object that refers back to one it is part of, a project's
subclass of a JDK collection, an input or outcome longer than what the probe keeps, a value that is another
input itself, a test past a method's 64 KB of bytecode. The snapshot text heads
the test as comments, made safe there (:func:`_commented`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from defects4j_adapter.behaviour.observations import TIMEOUT
from defects4j_adapter.behaviour.probe_source import Declaration, NotProbeable, declaration, enclosing_class
from nl2fix.java_source import splice
from nl2fix.java_source.lexer import code_tokens
from nl2fix.java_source.methods import find_methods

_PRIMITIVES = {"int", "long", "short", "byte", "char", "boolean", "float", "double"}
_INTEGRAL = {"int", "long", "short", "byte", "char"}
_VALUES = {
    "BigInteger": "java.math.BigInteger",
    "BigDecimal": "java.math.BigDecimal",
    "StringBuilder": "java.lang.StringBuilder",
    "StringBuffer": "java.lang.StringBuffer",
}
"""The JDK values the runner writes as ``Name("text")`` that ``new Name("text")`` builds again."""
_COLLECTIONS = {
    "java.util.ArrayList",
    "java.util.LinkedList",
    "java.util.Vector",
    "java.util.ArrayDeque",
    "java.util.HashSet",
    "java.util.LinkedHashSet",
    "java.util.TreeSet",
}
_MAPS = {"java.util.HashMap", "java.util.LinkedHashMap", "java.util.TreeMap", "java.util.Hashtable"}
_NAME = re.compile(r"[A-Za-z_$][\w$.]*")
_ARRAY_OF_ARRAYS = re.compile(r"\[+(?:[ZBCSIJFD]|L[\w$.]+;)")
"""The component type of an array of arrays, as the runner writes it (``Class.getName``: ``[D``, ``[Lp.C;``)."""
_NUMBER = re.compile(r"-?(?:NaN|Infinity|\d+(?:\.\d+)?(?:E-?\d+)?)[Lf]?")


HELPER_CLASS = "Nl2fix"
HELPER = """\
    /** Objects made and read field by field, as nl2fix's probe saw them, and methods a test cannot call by name. */
    static final class Nl2fix {
        /** An object of the class of that binary name with no constructor run, its fields given in pairs. */
        static Object make(String className, Object... fieldsAndValues) throws Exception {
            Class<?> c = Class.forName(className);
            java.lang.reflect.Field theUnsafe = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            Object unsafe = theUnsafe.get(null);
            Object made = unsafe.getClass().getMethod("allocateInstance", Class.class).invoke(unsafe, c);
            for (int i = 0; i < fieldsAndValues.length; i += 2) {
                field(c, (String) fieldsAndValues[i]).set(made, fieldsAndValues[i + 1]);
            }
            return made;
        }

        static Object get(Object o, String name) throws Exception {
            return field(o.getClass(), name).get(o);
        }

        /** An array of the primitive type of that name, its elements the strings joined, separated by commas: a long
         * array written as an initialiser would pass the 64 KB of bytecode a test method may have. */
        static Object array(String type, String... parts) {
            StringBuilder all = new StringBuilder();
            for (String part : parts) {
                all.append(part);
            }
            String[] values = all.length() == 0 ? new String[0] : all.toString().split(",");
            Class<?> c = type.equals("byte") ? byte.class : type.equals("short") ? short.class
                    : type.equals("int") ? int.class : type.equals("long") ? long.class
                    : type.equals("float") ? float.class : type.equals("double") ? double.class : boolean.class;
            Object made = java.lang.reflect.Array.newInstance(c, values.length);
            for (int i = 0; i < values.length; i++) {
                String v = values[i];
                if (c == byte.class) {
                    java.lang.reflect.Array.setByte(made, i, Byte.parseByte(v));
                } else if (c == short.class) {
                    java.lang.reflect.Array.setShort(made, i, Short.parseShort(v));
                } else if (c == int.class) {
                    java.lang.reflect.Array.setInt(made, i, Integer.parseInt(v));
                } else if (c == long.class) {
                    java.lang.reflect.Array.setLong(made, i, Long.parseLong(v));
                } else if (c == float.class) {
                    java.lang.reflect.Array.setFloat(made, i, Float.parseFloat(v));
                } else if (c == double.class) {
                    java.lang.reflect.Array.setDouble(made, i, Double.parseDouble(v));
                } else {
                    java.lang.reflect.Array.setBoolean(made, i, Boolean.parseBoolean(v));
                }
            }
            return made;
        }

        /** The method of {@code owner} of that name and as many parameters (there is one), called. */
        static Object invoke(Class<?> owner, Object receiver, String name, Object... args) throws Throwable {
            for (java.lang.reflect.Method m : owner.getDeclaredMethods()) {
                if (m.getName().equals(name) && m.getParameterTypes().length == args.length && !m.isBridge()) {
                    m.setAccessible(true);
                    try {
                        return m.invoke(receiver, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                }
            }
            throw new NoSuchMethodException(name);
        }

        /** What the probe saw of an object of the class of that binary name, its fields given in pairs: an
         * expected value {@link #check} compares field by field (the class may have no equals of its own). */
        static Object seen(String className, Object... fieldsAndValues) {
            return new Seen(className, fieldsAndValues);
        }

        /** Fails unless {@code actual} is {@code expected}: arrays by their elements (a double by its bits), a
         * StringBuilder or StringBuffer (no equals of its own) by its class and text, an object {@link #seen} by its
         * class and those fields, any other value by equals. */
        static void check(Object expected, Object actual) throws Exception {
            if (!same(expected, actual)) {
                throw new AssertionError("expected: " + text(expected) + " but was: " + text(actual));
            }
        }

        private static boolean same(Object expected, Object actual) throws Exception {
            if (expected instanceof Seen) {
                Seen seen = (Seen) expected;
                if (actual == null || !actual.getClass().getName().equals(seen.className)) {
                    return false;
                }
                for (int i = 0; i < seen.fields.length; i += 2) {
                    if (!same(seen.fields[i + 1], get(actual, (String) seen.fields[i]))) {
                        return false;
                    }
                }
                return true;
            }
            if (expected instanceof java.util.regex.Pattern) {
                // no equals of its own: the same class and expression
                return actual != null && expected.getClass() == actual.getClass()
                        && expected.toString().equals(actual.toString());
            }
            if (expected instanceof java.util.Collection || expected instanceof java.util.Map) {
                // an equal collection of another class (a fixed-size list) is another result, at any depth
                Class<?> made = expected.getClass().isAnonymousClass() ? expected.getClass().getSuperclass()
                        : expected.getClass();
                if (actual == null || made != actual.getClass()) {
                    return false;
                }
                if (expected instanceof java.util.List) {
                    java.util.List<?> e = (java.util.List<?>) expected;
                    java.util.List<?> a = (java.util.List<?>) actual;
                    for (int i = 0; i < e.size() && e.size() == a.size(); i++) {
                        if (!same(e.get(i), a.get(i))) {
                            return false;
                        }
                    }
                    return e.size() == a.size();
                }
            }
            if (expected instanceof Object[] && actual instanceof Object[]) {
                Object[] e = (Object[]) expected;
                Object[] a = (Object[]) actual;
                for (int i = 0; i < e.length && e.length == a.length; i++) {
                    if (!same(e[i], a[i])) {
                        return false;
                    }
                }
                return e.length == a.length;
            }
            return expected instanceof CharSequence && !(expected instanceof String)
                    ? actual != null && expected.getClass() == actual.getClass()
                            && expected.toString().equals(actual.toString())
                    : java.util.Arrays.deepEquals(new Object[] {expected}, new Object[] {actual});
        }

        private static final class Seen {
            final String className;
            final Object[] fields;

            Seen(String className, Object[] fields) {
                this.className = className;
                this.fields = fields;
            }

            @Override
            public String toString() {
                return className + java.util.Arrays.deepToString(fields);
            }
        }

        /** Fails unless {@code actual} is of the class of that binary name. */
        static void checkClass(String name, Object actual) {
            String was = actual == null ? "null" : actual.getClass().getName();
            if (!name.equals(was)) {
                throw new AssertionError("expected a " + name + " but was: " + was);
            }
        }

        private static String text(Object o) {
            return java.util.Arrays.deepToString(new Object[] {o});
        }

        private static java.lang.reflect.Field field(Class<?> c, String name) throws NoSuchFieldException {
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                try {
                    java.lang.reflect.Field f = k.getDeclaredField(name);
                    f.setAccessible(true);
                    return f;
                } catch (NoSuchFieldException e) {
                    // a superclass's
                }
            }
            throw new NoSuchFieldException(name);
        }
    }
"""
"""Written into a test that needs it: a receiver or argument the tests' code built (no constructor
gives that state, so none runs, as none ran on the probe's copy), an argument that is the very object
the receiver holds, a private or generic method (called through reflection: its parameters' types
may not be nameable in the test), a receiver's field afterwards. Java 5 source, as old projects compile
their tests."""


class Unexpressible(ValueError):
    """The input or outcome cannot be written as Java source; the message says why."""


class _Cut(ValueError):
    """The snapshot text ends before the value does (shortened by the probe)."""


@dataclass
class Node:
    """One value of a snapshot: its text, and what it is."""

    text: str
    kind: str
    """``literal``, ``string``, ``array``, ``collection``, ``map``, ``object`` or ``opaque``."""
    java: str = ""
    """A literal's Java expression; an array's component type; a collection's class; why an opaque value is."""
    items: list[Node] = field(default_factory=list)
    complete: bool = True
    """False when the runner left elements out (``,...``)."""
    names: list[str] = field(default_factory=list)
    """An object's field names, one per item."""


class _Reader:
    """Reads snapshot text (``Graphs.write``) into nodes."""

    def __init__(self, text: str):
        self.text, self.at = text, 0

    def peek(self, s: str) -> bool:
        return self.text.startswith(s, self.at)

    def expect(self, s: str) -> None:
        if self.at >= len(self.text) or self.text[self.at :] == "...":
            raise _Cut(self.text)
        if not self.peek(s):
            raise Unexpressible(f"unexpected text at {self.text[self.at : self.at + 30]!r}")
        self.at += len(s)

    def value(self) -> Node:
        start = self.at
        node = self._value()
        node.text = self.text[start : self.at]
        return node

    def _value(self) -> Node:
        t = self.text
        if self.at >= len(t) or self.peek("..."):
            if self.at + 3 >= len(t):
                raise _Cut(t)
            self.at += 3
            return Node("", "opaque", "a part deeper than the probe writes")
        if self.peek('"'):
            return self._string()
        if self.peek("char("):
            self.at += 5
            s = self._string()
            self.expect(")")
            return Node("", "literal", _java_char(s.java))
        if self.peek("("):  # (short) 1, (byte) 1
            m = re.compile(r"\((short|byte)\) (-?\d+)").match(t, self.at)
            if m is None:
                raise Unexpressible(f"unexpected text at {t[self.at : self.at + 30]!r}")
            self.at = m.end()
            return Node("", "literal", f"({m.group(1)}) {m.group(2)}")
        if self.peek("^") or self.peek("@"):
            m = re.compile(r"[\^@][\w]+").match(t, self.at)
            self.at = m.end() if m else len(t)
            return Node("", "opaque", "an object that refers back to one it is part of, or is another input")
        if self.peek("lambda of "):
            m = _NAME.match(t, self.at + len("lambda of "))
            self.at = m.end() if m else len(t)
            return Node("", "opaque", "a lambda")
        m = _NUMBER.match(t, self.at)
        if m is not None:
            self.at = m.end()
            return Node("", "literal", _java_number(m.group()))
        m = _ARRAY_OF_ARRAYS.match(t, self.at)
        if m is not None and t.startswith("[", m.end()):
            self.at = m.end()
            return self._elements(m.group())
        m = _NAME.match(t, self.at)
        if m is None:
            raise _Cut(t) if self.at >= len(t) else Unexpressible(f"unexpected text at {t[self.at : self.at + 30]!r}")
        name = m.group()
        self.at = m.end()
        if name in ("null", "true", "false"):
            return Node("", "literal", name)
        if self.peek("[") and not name.startswith("["):
            return self._elements(name)
        if self.peek("{") and not self.peek("{?}") and not self.peek("{unreadable"):
            return self._object(name)
        if self.peek("("):
            self.at += 1
            if name == "Pattern" or name in _VALUES:
                s = self._string()
                self.expect(")")
                text = f'"{_escape(s.java)}"'
                made = (
                    f"java.util.regex.Pattern.compile({text})" if name == "Pattern" else f"new {_VALUES[name]}({text})"
                )
                return Node("", "literal", made)
            depth = 1
            while depth and self.at < len(t):
                if t[self.at] == '"':  # a parenthesis inside a quoted string counts for nothing
                    self._string()
                    continue
                depth += {"(": 1, ")": -1}.get(t[self.at], 0)
                self.at += 1
            return Node("", "opaque", f"a {name} (a JDK object a test cannot rebuild from what the probe writes)")
        if self.peek("{"):  # {?} or {unreadable ...}
            end = t.find("}", self.at)
            self.at = len(t) if end < 0 else end + 1
            return Node("", "opaque", f"a {name} (a JDK object whose state the probe does not read)")
        if name.endswith(".class"):
            return Node("", "literal", name.replace("$", "."))
        return Node("", "literal", name.replace("$", "."))  # an enum constant

    def _string(self) -> Node:
        t, i = self.text, self.at + 1
        out = []
        while i < len(t) and t[i] != '"':
            if t[i] == "\\" and i + 1 < len(t):
                if t[i + 1] == "u":
                    if not re.fullmatch(r"[0-9a-f]{4}", t[i + 2 : i + 6]):
                        raise _Cut(t)
                    out.append(chr(int(t[i + 2 : i + 6], 16)))
                    i += 6
                    continue
                out.append(t[i + 1])
                i += 2
                continue
            out.append(t[i])
            i += 1
        if i >= len(t):
            raise _Cut(t)
        self.at = i + 1
        if self.peek("("):  # "first 2000 characters..."(length)
            raise Unexpressible("a string longer than the probe writes")
        return Node("", "string", "".join(out))

    def _elements(self, name: str) -> Node:
        self.expect("[")
        while self.at < len(self.text) and self.text[self.at].isdigit():
            self.at += 1
        self.expect("]")
        self.expect("{")
        kind = "map" if name in _MAPS else "collection" if name in _COLLECTIONS else "array"
        node = Node("", kind, name)
        while not self.peek("}"):
            if self.peek(",...}"):
                self.at += 4
                node.complete = False
                break
            if node.items:
                self.expect(",")
            node.items.append(self.value())
            if kind == "map":
                self.expect("=")
                node.items.append(self.value())
        self.expect("}")
        if kind == "array" and name.startswith("java.util.") and name not in _COLLECTIONS | _MAPS:
            node.kind = "opaque"
            node.java = f"a {name} (a JDK collection a test would have to build otherwise)"
        return node

    def _object(self, name: str) -> Node:
        self.expect("{")
        node = Node("", "object", name)
        while not self.peek("}"):
            if node.items:
                self.expect(",")
            m = _NAME.match(self.text, self.at)
            if m is None:
                raise _Cut(self.text)
            self.at = m.end()
            self.expect("=")
            node.names.append(m.group())
            node.items.append(self.value())
        self.expect("}")
        if self.peek("["):
            # its contents follow its fields: a test would have to fill it through the JDK class's own methods
            raise Unexpressible(f"it holds a {name}, a project's subclass of a JDK collection")
        return node


def _java_char(value: str) -> str:
    return "'" + ("\\'" if value == "'" else _escape(value)) + "'"


def _escape(value: str) -> str:
    """Java string literal text for ``value`` (no Unicode escape for a line break or quote: javac reads
    those escapes before it reads the literal)."""
    out = []
    for c in value:
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\{ord(c):03o}")
        elif ord(c) > 0x7E:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return "".join(out)


def _java_number(text: str) -> str:
    suffix = "f" if text.endswith("f") and not text.endswith("Inf") else ""
    core = text[:-1] if suffix else text
    box = "Float" if suffix else "Double"
    special = {"NaN": f"{box}.NaN", "Infinity": f"{box}.POSITIVE_INFINITY", "-Infinity": f"{box}.NEGATIVE_INFINITY"}
    return special.get(core, text)


_SAME = re.compile(r" \(the same object as (\w+)\)")
_ALIAS = re.compile(r"[@^]\w")
"""A value the runner writes as another root it is (``@return``) or an object it is part of (``^1``)."""
_HELD = re.compile(r" \(an object (\w+) holds\)")


def _items(text: str, lenient: bool = False) -> list[tuple[str, Node, str]]:
    """The ``label=value`` items of a snapshot, each with what follows its value (`` (the same object as
    arg0)``); a value the text cuts off ends the list, and with ``lenient`` so does one it cannot read."""
    r = _Reader(text)
    out: list[tuple[str, Node, str]] = []
    while r.at < len(text):
        try:
            item = _next_item(r, text, bool(out))
        except Unexpressible:
            if not lenient:
                raise
            break
        if item is None:
            break
        out.append(item)
    return out


def _next_item(r: _Reader, text: str, after: bool) -> tuple[str, Node, str] | None:
    if after:
        try:
            r.expect(", ")
        except _Cut:  # the text cut right after a whole value: the list ends there
            return None
    eq = text.find("=", r.at)
    if eq < 0:
        return None
    label = text[r.at : eq]
    r.at = eq + 1
    try:
        node = r.value()
    except _Cut:
        return None
    same = ""
    m = _SAME.match(text, r.at)
    if m is not None:
        same, r.at = m.group(1), m.end()
    held = _HELD.match(text, r.at)
    if held is not None:
        # the very string or array another root keeps inside it: a test writes each value anew, so it
        # would pass an equal copy, another input
        same, r.at = f"held:{held.group(1)}", held.end()
    return label, node, same


def expression(node: Node, type_: str, built: bool = False, expected: bool = False) -> str:
    """``node`` as a Java expression of the declared ``type_`` (a string a new object: an equal copy is
    not the same object); with ``built``, an object of a project class is made field by field as the probe
    saw it (:data:`HELPER`'s ``make``: no constructor runs, as none ran on the probe's copy); with ``expected``
    (a value :data:`HELPER`'s ``check`` compares with), it is what the probe saw of it (``seen``), in an array
    of ``Object``. Unexpressible says why not."""
    if node.kind == "string":
        return f'new String("{_escape(node.java)}")'
    if node.kind == "literal":
        return node.java
    if node.kind == "opaque":
        raise Unexpressible(f"it holds {node.java}")
    if node.kind == "object":
        if expected:
            return _made(node, "Object", "seen")
        if not built:
            raise Unexpressible(
                f"it holds an object of the project's class {node.java} (the probe copies its fields without a "
                "constructor; a test builds it only through the class's own methods, and which calls reach this "
                "state is not known)"
            )
        return _made(node, type_)
    if not node.complete:
        raise Unexpressible(f"it holds a {node.java} longer than the probe writes")
    if node.kind == "array":
        component = _source_type(node.java)
        if component in _PRIMITIVES - {"char"} and len(node.items) > PACKED_FROM:
            return _packed(node, component)
        if expected and _holds_object(node):
            component = "Object" + component[component.index("[") :] if "[" in component else "Object"
        inner = ", ".join(expression(i, component, built, expected) for i in node.items)
        return f"new {component}[] {{{inner}}}"
    if expected and _holds_object(node):
        raise Unexpressible(f"the fix's outcome holds a {node.java} of the project's objects")
    elems = [expression(i, "Object", built) for i in node.items]
    if node.kind == "map":
        puts = "".join(f"put({k}, {v}); " for k, v in zip(elems[::2], elems[1::2]))
        return f"new {node.java}() {{{{ {puts}}}}}" if elems else f"new {node.java}()"
    return f"new {node.java}(java.util.Arrays.asList(new Object[] {{{', '.join(elems)}}}))"


_DESCRIPTORS = {
    "Z": "boolean",
    "B": "byte",
    "C": "char",
    "S": "short",
    "I": "int",
    "J": "long",
    "F": "float",
    "D": "double",
}


def _source_type(name: str) -> str:
    """A class's name as ``Class.getName`` gives it (an array's as its descriptor: ``[D``, ``[Lp.C;``) in source."""
    dims = len(name) - len(name.lstrip("["))
    if dims:
        element = name[dims:]
        name = _DESCRIPTORS.get(element) or element.removeprefix("L").removesuffix(";")
    return name.replace("$", ".") + "[]" * dims


PACKED_FROM = 256
"""A primitive array of more elements is written as text :data:`HELPER`'s ``array`` reads (Codec's and Compress's
8 KB buffers: an initialiser costs about 7 bytes of bytecode an element, and a test method may have 64 KB)."""
_PLAIN = re.compile(r"-?(?:NaN|Infinity|\d+(?:\.\d+)?(?:E-?\d+)?|true|false)")
"""What the parse methods of :data:`HELPER`'s ``array`` read, and nothing that could end its string constant."""
_PACKED_PART = 16_000
"""Characters of one string constant of a packed array (a class file's constant holds 65,535 bytes)."""


MAX_WEIGHT = 5000
"""Values a test may write, a string counting two (:func:`_weight`): about 8 bytes of bytecode each, and a test method
may have 64 KB (red team 22: an input of 3,000 strings wrote a test javac refused as "code too large")."""


def _weight(node: Node) -> int:
    if node.kind == "array" and _source_type(node.java) in _PRIMITIVES - {"char"} and len(node.items) > PACKED_FROM:
        return 1
    return (2 if node.kind == "string" else 1) + sum(_weight(i) for i in node.items)


def _packed(node: Node, component: str) -> str:
    # the runner writes (byte) 1, 2L, 1.5f, -Infinityf: the number alone, as the parse methods read it
    values = [re.sub(r"^\((?:byte|short)\) |[Lf]$", "", i.text) for i in node.items]
    if not all(i.kind == "literal" and _PLAIN.fullmatch(v) for i, v in zip(node.items, values)):
        raise Unexpressible(f"it holds a {node.java} array the probe wrote otherwise than as numbers")
    text = ",".join(values)
    parts = [text[i : i + _PACKED_PART] for i in range(0, len(text), _PACKED_PART)]
    strings = "".join(f', "{p}"' for p in parts)
    return f'(({component}[]) {HELPER_CLASS}.array("{component}"{strings}))'


def _holds_object(node: Node) -> bool:
    return any(i.kind == "object" or _holds_object(i) for i in node.items)


def _made(node: Node, type_: str, how: str = "make") -> str:
    """``HELPER``'s ``make`` of an object node (or, ``how``, its ``seen``): its class, then each field's name and
    value."""
    if re.search(r"\$\d", node.java):
        # the snapshot leaves synthetic fields out: what an anonymous or local class captured (its enclosing
        # object, the locals it reads) would be missing (Math-85's AbstractContinuousDistribution$1: the fix
        # fails the test too)
        raise Unexpressible(f"it holds a {node.java}, an anonymous or local class's object")
    twice = sorted({n for n in node.names if node.names.count(n) > 1})
    if twice:
        raise Unexpressible(f"it holds a {node.java}, two of whose classes have a field {twice[0]}")
    # a field to a line, a nested object's lines indented under it
    fields = "".join(
        f',\n    "{name}", ' + expression(item, "Object", built=True, expected=how == "seen").replace("\n", "\n    ")
        for name, item in zip(node.names, node.items)
    )
    made = f'{HELPER_CLASS}.{how}("{node.java}"{fields})'
    return made if type_ in ("Object", "") else f"(({type_}) {made})"


def _assertion(node: Node, type_: str, actual: str) -> list[str]:
    """The assertions that ``actual``, of the declared ``type_``, is the fix's value ``node``."""
    if type_.endswith("[]") or node.kind in ("collection", "map", "array", "object") or _value_class(node):
        return _checked_value(node, actual)
    return [_typed_assertion(node, type_, actual)]


def _value_class(node: Node) -> str:
    """The JDK class of a value the test makes with ``new C("text")`` or ``Pattern.compile``, else empty: checked by
    its exact class too (a ``BigInteger`` subclass equals a ``BigInteger``; a ``Pattern`` equals no other)."""
    if node.kind != "literal":
        return ""
    if node.java.startswith("java.util.regex.Pattern.compile("):
        return "java.util.regex.Pattern"
    made = re.match(r"new ([\w.]+)\(", node.java)
    return made.group(1) if made and made.group(1) in _VALUES.values() else ""


def _checked_value(node: Node, actual: str) -> list[str]:
    """:data:`HELPER`'s ``check`` of ``actual`` against the fix's value, and of a collection's class: an equal list
    of another class (a fixed-size one) is another result."""
    # an array of project objects is expected as an array of Object: its own class is checked apart
    classed = node.kind in ("collection", "map") or node.kind == "array" and _holds_object(node)
    name = node.java if node.kind != "array" else f"[{_descriptor(node.java)}"
    if _value_class(node):
        classed, name = True, _value_class(node)
    kept = [f'{HELPER_CLASS}.checkClass("{name}", {actual});'] if classed else []
    return [*kept, f"{HELPER_CLASS}.check({expression(node, 'Object', expected=True)}, {actual});"]


def _descriptor(name: str) -> str:
    """An array's component type, as the runner writes it (``Class.getName``), as its array's name holds it."""
    if name.startswith("["):
        return name
    primitive = {v: k for k, v in _DESCRIPTORS.items()}.get(name)
    return primitive or f"L{name};"


def _typed_assertion(node: Node, type_: str, actual: str) -> str:
    expected = expression(node, type_)
    if type_ in _INTEGRAL:
        return f"org.junit.Assert.assertEquals((long) {expected}, (long) {actual});"
    if type_ in ("double", "float"):
        box = "Double" if type_ == "double" else "Float"
        # the probe compares exactly: a value one ulp away, or -0.0 for 0.0, is another value
        return f"org.junit.Assert.assertEquals({box}.valueOf({expected}), {box}.valueOf({actual}));"
    if type_ == "boolean":
        return f"org.junit.Assert.assertEquals(Boolean.valueOf({expected}), Boolean.valueOf({actual}));"
    return f"org.junit.Assert.assertEquals({expected}, {actual});"


@dataclass(frozen=True)
class Explained:
    test: str = ""
    """The JUnit 4 test's source, or empty."""
    why_not: str = ""
    """Why no test could be written."""


def divergence_test(
    source: str,
    buggy_method: str,
    start_line: int,
    end_line: int,
    reference: str,
    first_input: str,
    reference_result: str,
    candidate_result: str,
    caller: str = "",
) -> Explained:
    """The JUnit 4 test that shows the divergence on ``first_input``, in the package of the method's
    class (``source``: its file, where ``buggy_method`` is at ``start_line..end_line``; ``reference``:
    the developer's fix), or why none can be written. ``caller``: the method of the class the input is a
    call of, when it is not the changed one (``BehaviourRecord.first_call``)."""
    try:
        return Explained(
            test=_test(
                source,
                buggy_method,
                start_line,
                end_line,
                reference,
                first_input,
                reference_result,
                candidate_result,
                caller,
            )
        )
    except (Unexpressible, NotProbeable) as exc:
        return Explained(why_not=str(exc))
    except _Cut:
        return Explained(why_not="the input or the fix's outcome is longer than the probe keeps")


def _test(
    source: str,
    buggy_method: str,
    start_line: int,
    end_line: int,
    reference: str,
    first_input: str,
    reference_result: str,
    candidate_result: str,
    caller: str = "",
) -> str:
    try:
        location = splice.locate(source, buggy_method, start_line, end_line)
    except splice.SpliceError as exc:
        raise Unexpressible(str(exc)) from exc
    lines = source.splitlines(keepends=True)
    owner = enclosing_class(source, sum(len(line) for line in lines[: location.start_line - 1]))
    decl = _caller_declaration(source, owner, caller) if caller else declaration(reference, constructor=True)
    header = decl.text[decl.header_start : decl.params_start]
    if decl.constructor:
        if "private" in {t.text for t in code_tokens(header)}:
            raise Unexpressible("the constructor is private")
        # a construction: no receiver, the new object its result
        decl = replace(decl, static=True, return_type=owner)
    # a private or generic method is called through reflection: its parameters' types (type variables, a
    # private class's) may have no name in the test, so its values are Objects there
    reflective = "private" in {t.text for t in code_tokens(header)} or decl.generic
    if reflective and sum(m.name == decl.name and m.arity == len(decl.params) for m in find_methods(source)) > 1:
        raise Unexpressible(f"the method is {'private' if not decl.generic else 'generic'} and overloaded")
    variables = _type_variables(source, owner)
    for p in decl.params if not reflective else ():
        if variables & set(re.findall(r"\w+", p.type)):
            # a test outside the class cannot name its type variable (red team 24's `T first = ...`)
            raise Unexpressible(f"parameter {p.name} is of a type variable of the class ({p.type})")
    if first_input.endswith("...") and len(first_input) > 1000:
        raise Unexpressible("the input is longer than the probe keeps")
    given = {label: (node, same) for label, node, same in _items(first_input)}
    local = {f"arg{i}": _local(p.name) for i, p in enumerate(decl.params)} | {"this": "receiver"}
    body = []
    target = owner
    if not decl.static:
        if "this" not in given:
            raise Unexpressible("the input is longer than the probe keeps")
        node, _ = given["this"]
        if node.kind == "object" and not node.items:
            body.append(f"{owner} receiver = new {owner}();")
        else:
            try:
                body.append(f"{owner} receiver = {expression(node, owner, built=True)};")
            except Unexpressible as exc:
                raise Unexpressible(f"the receiver cannot be written in a test: {exc}") from exc
        target = "receiver"
    args = []
    for i, p in enumerate(decl.params):
        label = f"arg{i}"
        if label not in given:
            raise Unexpressible("the input is longer than the probe keeps")
        node, same = given[label]
        type_ = "Object" if reflective else p.type
        try:
            if same.startswith("held:"):
                value = _held(given, local, same[5:], node, type_)
            else:
                value = local[same] if same else expression(node, type_, built=True)
        except Unexpressible as exc:
            raise Unexpressible(f"argument {p.name} cannot be written in a test: {exc}") from exc
        body.append(f"{type_} {_local(p.name)} = {value};")
        args.append(_local(p.name))
    weight = sum(_weight(node) for node, _ in given.values()) + max(
        (_weight(node) for _, node, _ in _items(reference_result.strip(), lenient=True)), default=0
    )
    if weight > MAX_WEIGHT:
        raise Unexpressible(f"the test would pass the 64 KB of bytecode a test method may have ({weight} values)")
    if reflective:
        on = "null" if decl.static else "receiver"
        call = f'{HELPER_CLASS}.invoke({owner}.class, {on}, "{decl.name}"{"".join(", " + a for a in args)})'
    elif decl.constructor:
        call = f"new {owner}({', '.join(args)})"
    else:
        call = f"{target}.{decl.name}({', '.join(args)})"
    expected = reference_result.strip()
    if expected.startswith("..."):
        raise Unexpressible("the developer's fix's outcome is longer than the probe shows")
    # a candidate that does not end fails the test at JUnit's limit, not never
    annotation = "@org.junit.Test" + ("(timeout = 60000)" if candidate_result == TIMEOUT else "")
    if expected.startswith("throws "):
        # exactly the fix's class: `@Test(expected = ...)` would take a subclass the candidate throws
        thrown = expected[len("throws ") :].split("=")[0]
        body += [
            "try {",
            f"    {call};",
            "} catch (Throwable thrown) {",
            f'    org.junit.Assert.assertEquals("{thrown}", thrown.getClass().getName());',
            "    return;",
            "}",
            f'org.junit.Assert.fail("{thrown} not thrown");',
        ]
    else:
        body += _checked(decl, reflective, call, expected, candidate_result)
    package = re.search(r"^\s*package\s+([\w.]+)\s*;", source, re.M)
    imports = re.findall(r"^\s*(import\s+(?:static\s+)?[\w.]+(?:\.\*)?\s*;)", source, re.M)
    simple = owner.split(".")[0]
    comment = [
        "// Written by nl2fix from a behaviour probe: passes on the developer's fix, fails on the candidate.",
        *([f"// A call of {_commented(caller)}, which calls the method the candidate changes."] if caller else []),
        f"// Input: {_commented(first_input[:300])}",
        f"// Developer's fix: {_commented(reference_result[:300])}",
        f"// Candidate: {_commented(candidate_result[:300])}",
    ]
    helper = any(HELPER_CLASS + "." in line for line in body)
    return "\n".join(
        [
            *([f"package {package.group(1)};", ""] if package else []),
            *imports,
            *([""] if imports else []),
            *comment,
            f"public class {simple}Nl2fixDivergenceTest {{",
            f"    {annotation}",
            f"    public void {decl.name}AsTheDevelopersFix() throws Throwable {{",
            *(f"        {line}" for entry in body for line in entry.split("\n")),
            "    }",
            *(["", HELPER.rstrip("\n")] if helper else []),
            "}",
            "",
        ]
    )


def _caller_declaration(source: str, owner: str, caller: str) -> Declaration:
    """The declaration of ``caller`` (``name(type,...)`` as the probe names it: the JVM's names of its parameters'
    types) among the methods of class ``owner`` in ``source``."""
    name, _, rest = caller.partition("(")
    types = [t for t in rest.rstrip(")").split(",") if t]
    found = [
        m
        for m in find_methods(source)
        if m.name == name and m.arity == len(types) and m.complete and _class_of(source, m.start) == owner
    ]
    if len(found) > 1:
        found = [m for m in found if _simple_types(declaration(source[m.start : m.end])) == [_simple(t) for t in types]]
    if len(found) != 1:
        raise Unexpressible(f"the method {caller} the input is a call of is not one declaration of the class")
    return declaration(source[found[0].start : found[0].end])


def _class_of(source: str, offset: int) -> str | None:
    try:
        return enclosing_class(source, offset)
    except NotProbeable:
        return None


def _simple(type_: str) -> str:
    """A type's simple name without type arguments, varargs written as an array: ``Map<K,V>`` -> ``Map``."""
    plain = re.sub(r"<.*>", "", type_).replace("...", "[]").replace(" ", "")
    return plain.rsplit(".", 1)[-1].rsplit("$", 1)[-1]


def _simple_types(decl: Declaration) -> list[str]:
    return [_simple(p.type) for p in decl.params]


_OWN_NAMES = {"receiver", "result", "thrown", "org", "java", HELPER_CLASS}
"""Names the test uses itself (``org.junit``, ``java.util``, its helper) that a parameter's variable must not take."""


def _local(parameter: str) -> str:
    """The test's variable for a parameter of that name: its own name, unless the test needs that name itself (a
    variable named ``org`` hides ``org.junit.Assert``; one named ``result`` is declared twice)."""
    return f"{parameter}Arg" if parameter in _OWN_NAMES else parameter


def _held(given: dict[str, tuple[Node, str]], local: dict[str, str], holder: str, node: Node, type_: str) -> str:
    """The very object ``holder`` holds in one of its fields, read from it in the test: a value written anew
    would be an equal copy, another input. The snapshot says only that ``holder`` holds it somewhere, so the
    field must be the one place in all of ``holder`` whose value reads as ``node``."""
    held_by = given.get(holder, (Node("", "opaque"), ""))[0]
    fields = [f for f, item in zip(held_by.names, held_by.items) if item.text == node.text]
    if held_by.kind != "object" or len(fields) != 1 or held_by.text.count(node.text) != 1:
        raise Unexpressible(f"it is the very object {holder} holds, deeper than one of its fields or in more than one")
    cast = "" if type_ == "Object" else f"({type_}) "
    return f'{cast}{HELPER_CLASS}.get({local[holder]}, "{fields[0]}")'


def _checked(decl, reflective: bool, call: str, expected: str, candidate_result: str) -> list[str]:
    """The call and the assertions on the first part of the fix's outcome that the candidate's, as far as it is
    shown, has otherwise: the return value, an argument or a field of the receiver afterwards. A candidate that
    threw or did not end where the fix returned is shown by the call itself, its return value asserted."""
    if candidate_result.startswith("..."):
        # the window the probe shows starts past the candidate's first labels: what they held is not known
        raise Unexpressible("the candidate's outcome is shown from the middle, where it differs")
    ours = _items(expected)
    stopped = candidate_result.startswith("throws ") or candidate_result == TIMEOUT
    theirs: dict[str, Node] = {}
    if stopped:
        differs = ("return", ours[0][1]) if ours and ours[0][0] == "return" else None
    else:
        theirs = {label: node for label, node, _ in _items(candidate_result, lenient=True)}
        differs = next(((label, n) for label, n, _ in ours if label in theirs and theirs[label].text != n.text), None)
    if differs is None:
        raise Unexpressible("the outcomes differ beyond what the probe shows")
    label, node = differs
    if _ALIAS.match(node.text) or label in theirs and _ALIAS.match(theirs[label].text):
        # one of them is another input or result itself (`arg0=@return`): an assertion of the fix's value there holds
        # on the candidate too (red team 22)
        raise Unexpressible(f"they differ in which object {label} is, which a test of values does not show")
    if label == "return" and decl.constructor and node.kind == "object" and theirs.get("return", node).kind == "object":
        # a new object: the first of its fields that the candidate's holds otherwise, not all of them (a count of the
        # objects made so far, which the probe saw after the test's own construction, is no part of the difference)
        field_name, value = _first_differing_field(node, theirs["return"])
        try:
            return [
                f"{decl.return_type} result = {call};",
                *_checked_value(value, f'{HELPER_CLASS}.get(result, "{field_name}")'),
            ]
        except Unexpressible as exc:
            raise Unexpressible(f"they differ in the new object's field {field_name}: {exc}") from exc
    if label == "return":
        if decl.return_type == "void":
            return [f"{call};"]
        if reflective:
            return [f"Object result = {call};", *_checked_value(node, "result")]
        return [f"{decl.return_type} result = {call};", *_assertion(node, decl.return_type, "result")]
    if label.startswith("arg") and label[3:].isdigit() and int(label[3:]) < len(decl.params):
        p = decl.params[int(label[3:])]
        name = _local(p.name)
        return [f"{call};", *(_checked_value(node, name) if reflective else _assertion(node, p.type, name))]
    if label == "this" and not decl.static and node.kind == "object" and theirs["this"].kind == "object":
        their_fields = dict(zip(theirs["this"].names, theirs["this"].items))
        fields = [
            (f, v) for f, v in zip(node.names, node.items) if f in their_fields and their_fields[f].text != v.text
        ]
        if fields:
            field_name, value = fields[0]
            try:
                return [f"{call};", *_checked_value(value, f'{HELPER_CLASS}.get(receiver, "{field_name}")')]
            except Unexpressible as exc:
                raise Unexpressible(f"they differ in the receiver's field {field_name} afterwards: {exc}") from exc
    raise Unexpressible(
        f"they differ in {'the receiver' if label == 'this' else label} afterwards, which a test sees only "
        "through the class's other methods"
    )


def _first_differing_field(ours: Node, theirs: Node) -> tuple[str, Node]:
    """The first field of object ``ours`` whose value ``theirs`` shows otherwise, and the value ``ours`` holds."""
    their_fields = dict(zip(theirs.names, theirs.items))
    for name, value in zip(ours.names, ours.items):
        if name in their_fields and their_fields[name].text != value.text:
            return name, value
    raise Unexpressible("the objects differ beyond what the probe shows")


def _type_variables(source: str, owner: str) -> set[str]:
    """The type variables of class ``owner`` (``Outer.Inner``) as ``source`` declares them: ``class Holder<T, U>``."""
    simple = owner.rsplit(".", 1)[-1]
    found = re.search(rf"\b(?:class|interface)\s+{re.escape(simple)}\s*<", source)
    if found is None:
        return set()
    depth, at, names, part = 1, found.end(), set(), ""
    while at < len(source) and depth:
        c = source[at]
        depth += {"<": 1, ">": -1}.get(c, 0)
        if depth == 1 and c == "," or depth == 0:
            names.add(re.findall(r"\w+", part)[0] if re.findall(r"\w+", part) else "")
            part = ""
        elif depth >= 1:
            part += c
        at += 1
    return names - {""}


def _commented(snapshot: str) -> str:
    """Snapshot text made safe in a line comment: javac translates ``\\u000a`` before it reads comments, so a
    line break the candidate's own output holds (written so by the probe) would end the comment and make the
    rest of that output code of the test a user runs. Every backslash doubled, none starts an escape; a
    character outside printable ASCII written as such an unread escape (a class name in another script, which a
    build reading its sources as ASCII refuses)."""
    doubled = snapshot.replace("\\", "\\\\")
    return "".join(c if " " <= c <= "~" else f"\\\\u{ord(c):04x}" for c in doubled)
