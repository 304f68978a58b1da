"""A JUnit 4 test that shows a divergence: written from the first input on which a candidate did not do
what the developer's fix does (its snapshot, as the runner's ``Graphs`` writes it) and the fix's
outcome there, to run on both versions: it passes on the fix and fails on the candidate.

A test can be written when the input is expressible in Java source: primitives, strings (each a new
object, unless the snapshot says an argument is the very object an earlier one is: a method may compare
them by identity), boxed values, enum constants, class literals, ``BigInteger``/``BigDecimal``/
``StringBuilder`` values, arrays and the JDK's lists, sets and maps of those; and when what differs is
the return value, the exception thrown, or an argument afterwards. Else :func:`divergence_test` says
why not: an object of a project class (the runner copies its fields without running a constructor; a
test can build it only through the class's own methods, and which calls reach that state is not known),
a receiver in any state but a fresh one, a generic or private method, a difference in the receiver's
or the class's fields (a test sees those only through other methods), an input or outcome longer than
what the probe keeps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from defects4j_adapter.behaviour.probe_source import NotProbeable, declaration, enclosing_class
from nl2fix.java_source import splice
from nl2fix.java_source.lexer import code_tokens

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
_NUMBER = re.compile(r"-?(?:NaN|Infinity|\d+(?:\.\d+)?(?:E-?\d+)?)[Lf]?")


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
            node.items.append(self.value())
        self.expect("}")
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
_HELD = re.compile(r" \(an object (\w+) holds\)")


def _items(text: str, labels: bool = True) -> list[tuple[str, Node, str]]:
    """The ``label=value`` items of a snapshot, each with what follows its value (`` (the same object as
    arg0)``); a value the text cuts off ends the list."""
    r = _Reader(text)
    out: list[tuple[str, Node, str]] = []
    while r.at < len(text):
        if out:
            r.expect(", ")
        eq = text.find("=", r.at)
        if eq < 0:
            break
        label = text[r.at : eq]
        r.at = eq + 1
        try:
            node = r.value()
        except _Cut:
            break
        same = ""
        m = _SAME.match(text, r.at)
        if m is not None:
            same, r.at = m.group(1), m.end()
        held = _HELD.match(text, r.at)
        if held is not None:
            # the very string or array another root keeps inside it: a test writes each value anew, so it
            # would pass an equal copy, another input
            same, r.at = f"held:{held.group(1)}", held.end()
        out.append((label, node, same))
    return out


def expression(node: Node, type_: str) -> str:
    """``node`` as a Java expression of the declared ``type_`` (a string a new object: an equal copy is
    not the same object); Unexpressible says why not."""
    if node.kind == "string":
        return f'new String("{_escape(node.java)}")'
    if node.kind == "literal":
        return node.java
    if node.kind == "opaque":
        raise Unexpressible(f"it holds {node.java}")
    if node.kind == "object":
        raise Unexpressible(
            f"it holds an object of the project's class {node.java} (the probe copies its fields without a "
            "constructor; a test builds it only through the class's own methods, and which calls reach this "
            "state is not known)"
        )
    if not node.complete:
        raise Unexpressible(f"it holds a {node.java} longer than the probe writes")
    if node.kind == "array":
        if node.java.startswith("["):
            raise Unexpressible("it holds an array of arrays")
        component = node.java.replace("$", ".")
        inner = ", ".join(expression(i, component) for i in node.items)
        return f"new {component}[] {{{inner}}}"
    elems = [expression(i, "Object") for i in node.items]
    if node.kind == "map":
        puts = "".join(f"put({k}, {v}); " for k, v in zip(elems[::2], elems[1::2]))
        return f"new {node.java}() {{{{ {puts}}}}}" if elems else f"new {node.java}()"
    return f"new {node.java}(java.util.Arrays.asList(new Object[] {{{', '.join(elems)}}}))"


def _assertion(node: Node, type_: str, actual: str) -> str:
    expected = expression(node, type_)
    if type_.endswith("[]"):
        shown = "java.util.Arrays.toString"
        return f"org.junit.Assert.assertEquals({shown}({expected}), {shown}({actual}));"
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
) -> Explained:
    """The JUnit 4 test that shows the divergence on ``first_input``, in the package of the method's
    class (``source``: its file, where ``buggy_method`` is at ``start_line..end_line``; ``reference``:
    the developer's fix), or why none can be written."""
    try:
        return Explained(
            test=_test(
                source, buggy_method, start_line, end_line, reference, first_input, reference_result, candidate_result
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
) -> str:
    decl = declaration(reference)
    header = decl.text[decl.header_start : decl.params_start]
    words = {t.text for t in code_tokens(header)}
    if "private" in words:
        raise Unexpressible("the method is private: a test reaches it only through the class's other methods")
    if decl.generic:
        raise Unexpressible("a generic method (its type variables have no value a test could name)")
    try:
        location = splice.locate(source, buggy_method, start_line, end_line)
    except splice.SpliceError as exc:
        raise Unexpressible(str(exc)) from exc
    lines = source.splitlines(keepends=True)
    owner = enclosing_class(source, sum(len(line) for line in lines[: location.start_line - 1]))
    if first_input.endswith("...") and len(first_input) > 1000:
        raise Unexpressible("the input is longer than the probe keeps")
    given = {label: (node, same) for label, node, same in _items(first_input)}
    local = {f"arg{i}": p.name for i, p in enumerate(decl.params)} | {"this": "receiver"}
    body = []
    args = []
    for i, p in enumerate(decl.params):
        label = f"arg{i}"
        if label not in given:
            raise Unexpressible("the input is longer than the probe keeps")
        node, same = given[label]
        if same.startswith("held:"):
            raise Unexpressible(
                f"argument {p.name} is the very object {same[5:]} holds (a method may compare them by identity); "
                "a test writes its values anew"
            )
        try:
            value = local[same] if same else expression(node, p.type)
        except Unexpressible as exc:
            raise Unexpressible(f"argument {p.name} cannot be written in a test: {exc}") from exc
        body.append(f"{p.type} {p.name} = {value};")
        args.append(p.name)
    target = owner
    if not decl.static:
        node, _ = given.get("this", (Node("", "opaque", "nothing"), ""))
        if node.kind != "object" or node.items:
            raise Unexpressible(
                f"the receiver, {node.text[:200]}, is in a state only the class's own methods build (the probe "
                "copied it field by field; which calls reach it is not known)"
            )
        body.append(f"{owner} receiver = new {owner}();")
        target = "receiver"
    call = f"{target}.{decl.name}({', '.join(args)})"
    expected = reference_result.strip()
    if expected.startswith("..."):
        raise Unexpressible("the developer's fix's outcome is longer than the probe shows")
    annotation = "@org.junit.Test"
    if expected.startswith("throws "):
        thrown = expected[len("throws ") :].split("=")[0]
        annotation = f"@org.junit.Test(expected = {thrown.replace('$', '.')}.class)"
        body.append(f"{call};")
    else:
        ours, theirs = _items(expected), dict((label, node) for label, node, _ in _items(candidate_result))
        differs = next(
            ((label, node) for label, node, _ in ours if theirs.get(label, Node("", "")).text != node.text), None
        )
        if differs is None or candidate_result.startswith("throws "):
            differs = ("return", ours[0][1]) if ours and ours[0][0] == "return" else None
        if differs is None:
            raise Unexpressible("the outcomes differ beyond what the probe shows")
        label, node = differs
        if label == "return":
            if decl.return_type == "void":
                body.append(f"{call};")
            else:
                body.append(f"{decl.return_type} result = {call};")
                body.append(_assertion(node, decl.return_type, "result"))
        elif label.startswith("arg") and label[3:].isdigit() and int(label[3:]) < len(decl.params):
            p = decl.params[int(label[3:])]
            body.append(f"{call};")
            body.append(_assertion(node, p.type, p.name))
        else:
            raise Unexpressible(
                f"they differ in {'the receiver' if label == 'this' else label} afterwards, which a test sees only "
                "through the class's other methods"
            )
    package = re.search(r"^\s*package\s+([\w.]+)\s*;", source, re.M)
    imports = re.findall(r"^\s*(import\s+(?:static\s+)?[\w.]+(?:\.\*)?\s*;)", source, re.M)
    simple = owner.split(".")[0]
    comment = [
        "// Written by nl2fix from a behaviour probe: passes on the developer's fix, fails on the candidate.",
        f"// Input: {first_input[:300]}",
        f"// Developer's fix: {reference_result[:300]}",
        f"// Candidate: {candidate_result[:300]}",
    ]
    return "\n".join(
        [
            *([f"package {package.group(1)};", ""] if package else []),
            *imports,
            *([""] if imports else []),
            *comment,
            f"public class {simple}Nl2fixDivergenceTest {{",
            f"    {annotation}",
            f"    public void {decl.name}AsTheDevelopersFix() throws Throwable {{",
            *(f"        {line}" for line in body),
            "    }",
            "}",
            "",
        ]
    )
