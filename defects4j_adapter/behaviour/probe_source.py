"""The source file of a behaviour probe: the target class with the reference method (the
developer's fix, or the method as it is) and the candidate both in it, renamed, and in their place a
wrapper with the original declaration whose body hands both to the runner's
``nl2fix.runner.BehaviourProbe`` (see ``defects4j_adapter/java/nl2fix/runner/BehaviourProbe.java``).

Everything here is made from trusted text except the candidate's method, which is the text
validation already compiled and judged plausible: its body is copied unchanged, only its name is
changed (and its annotations and visibility dropped: the renamed copies are private). A candidate
cannot name the wrapper's helpers either: its code compiled, and passed the class-file check, before
they existed, and the runner's package is among the references it may not add.

A constructor cannot be renamed or wrapped: the reference's stays as it is, the tests construct their
objects with it, and right after its ``this(...)`` or ``super(...)`` it hands its arguments and a body
that constructs on copies of them to the runner (``BehaviourProbe.constructing``), which probes the
construction as a static method's call, the new object as its result.

Anonymous class bodies (not lambdas) keep the source compilable at every language level a
project may compile at (1.5 and up). Methods the probe cannot wrap raise :class:`NotProbeable`:
abstract or native methods, methods of interfaces and of anonymous or local classes, constructors of
abstract, inner (not static) or enum classes, and candidates whose declaration differs from the reference's.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from nl2fix.java_source import splice
from nl2fix.java_source.lexer import Kind, Token, code_tokens, matching_close
from nl2fix.java_source.methods import MODIFIERS, main_method
from nl2fix.java_source.parameters import Parameter, joined, parameters, skip_annotation
from nl2fix.java_source.unicode_escapes import UnreadableEscape, translate_unicode_escapes

REFERENCE_SUFFIX = "$nl2fix$ref"
PROBE = "nl2fix.runner.BehaviourProbe"
_BOXES = {
    "int": "Integer",
    "long": "Long",
    "short": "Short",
    "byte": "Byte",
    "char": "Character",
    "boolean": "Boolean",
    "float": "Float",
    "double": "Double",
}
_KEPT_MODIFIERS = ("static", "final", "synchronized", "strictfp")


class NotProbeable(ValueError):
    """The method cannot be probed; the message says why."""


@dataclass(frozen=True)
class Declaration:
    """One method declaration, read from its text (Unicode escapes translated)."""

    text: str
    name: str
    static: bool
    return_type: str
    params: tuple[Parameter, ...]
    """A varargs parameter's type is an array type."""
    header_start: int
    params_start: int
    """Offset of the parameter list's ``(``."""
    body_start: int
    """Offset of the body's ``{``."""
    end: int
    generic: bool = False
    """Whether it declares type parameters of its own."""
    constructor: bool = False
    """A constructor (:attr:`return_type` empty; read only when asked for: see :func:`declaration`)."""

    @property
    def signature(self) -> tuple[str, bool, str, tuple[str, ...]]:
        return self.name, self.static, self.return_type, tuple(p.type for p in self.params)


def declaration(method: str, constructor: bool = False) -> Declaration:
    """The declaration of the one method ``method`` holds; a constructor's only when ``constructor``."""
    try:
        text = translate_unicode_escapes(method)
    except UnreadableEscape as exc:
        raise NotProbeable(str(exc)) from exc
    span = main_method(text)
    if span is None or not span.complete:
        raise NotProbeable("no complete method declaration")
    tokens = [t for t in code_tokens(text) if span.start <= t.start < span.header_end]
    head: list[Token] = []
    i = 0
    while i < len(tokens) and tokens[i].text != "(":
        if tokens[i].text == "@":
            i = skip_annotation(tokens, i)
            continue
        head.append(tokens[i])
        i += 1
    if i >= len(tokens) or not head:
        raise NotProbeable("no method declaration")
    open_at = i
    close_at = matching_close(tokens, open_at)
    if close_at is None:
        raise NotProbeable("an unbalanced parameter list")
    name = head[-1].text
    modifiers = [t.text for t in head if t.text in MODIFIERS]
    rest = [t for t in head[:-1] if t.text not in MODIFIERS]
    generic = bool(rest) and rest[0].text == "<"
    if generic:  # type parameters
        depth, j = 0, 0
        while j < len(rest):
            depth += rest[j].text.count("<") - rest[j].text.count(">")
            j += 1
            if depth <= 0:
                break
        rest = rest[j:]
    if not rest and not constructor:
        raise NotProbeable("a constructor")
    if "abstract" in modifiers or "native" in modifiers or "default" in modifiers:
        raise NotProbeable("a method without a body of its own")
    params = parameters(tokens[open_at + 1 : close_at])
    if params is None:
        raise NotProbeable("a parameter list it cannot read")
    return Declaration(
        text=text,
        name=name,
        static="static" in modifiers,
        return_type=joined(rest),
        params=params,
        header_start=span.start,
        params_start=tokens[open_at].start,
        body_start=span.header_end - 1,
        end=span.end,
        generic=generic,
        constructor=not rest,
    )


def _renamed(decl: Declaration, suffix: str) -> str:
    """The method as a private copy named ``name + suffix`` (annotations and visibility dropped)."""
    tokens = [t for t in code_tokens(decl.text) if decl.header_start <= t.start < decl.params_start]
    modifiers = [t.text for t in tokens if t.text in _KEPT_MODIFIERS]
    head = decl.text[decl.header_start : decl.params_start]
    # the type parameters and return type, as written: from after the last modifier or annotation
    start = 0
    i = 0
    while i < len(tokens) - 1:
        if tokens[i].text == "@":
            j = skip_annotation(tokens, i)
            start = tokens[j].start - decl.header_start if j < len(tokens) else start
            i = j
            continue
        if tokens[i].text in MODIFIERS:
            start = tokens[i + 1].start - decl.header_start
        i += 1
    name_at = tokens[-1].start - decl.header_start
    return (
        " ".join(["private", *modifiers])
        + " "
        + head[start:name_at]
        + decl.name
        + suffix
        + decl.text[decl.params_start : decl.end]
    )


def _argument(type_: str, index: int) -> str:
    box = _BOXES.get(type_)
    if box:
        return f"(({box}) nl2fix$a[{index}]).{type_}Value()"
    return f"({type_}) nl2fix$a[{index}]"


def _body(decl: Declaration, owner: str) -> str:
    args = ", ".join(_argument(p.type, i) for i, p in enumerate(decl.params))
    target = owner if decl.static else f"(({owner}) nl2fix$r)"
    call = f"{target}.{decl.name}{REFERENCE_SUFFIX}({args})"
    run = f"{call}; return null;" if decl.return_type == "void" else f"return {call};"
    return (
        f'new {PROBE}.Body() {{ @SuppressWarnings("unchecked") public Object call(Object nl2fix$r, '
        f"Object[] nl2fix$a) throws Throwable {{ {run} }} }}"
    )


MAX_CONSTANTS = 12
DECIMAL_FLOAT = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def constants(decl: Declaration, buggy: Declaration | None = None) -> list[str]:
    """The literals of the method's body the probe tries as argument values (with their neighbours), as
    Java expressions: integers (as ``long``), characters and strings, then floating-point literals (as
    ``double``) in the room they leave, at most :data:`MAX_CONSTANTS`, each kind in order of first appearance.
    A method's behaviour changes where it compares against them: ``p > 1.5``, an epsilon ``1e-10``; a
    floating-point literal is as often a factor (``0.5 * x``), which is why it only takes the room left.
    Then, in the room the reference's leave, the buggy method's (``buggy``) that the reference's body does
    not hold: a literal the fix dropped or changed marks where the two part."""
    out = _literals(decl)
    if buggy is not None:
        out += [c for c in _literals(buggy) if c not in out]
    return out[:MAX_CONSTANTS]


def _literals(decl: Declaration) -> list[str]:
    out: list[str] = []
    floating: list[str] = []
    tokens = [t for t in code_tokens(decl.text) if decl.body_start <= t.start < decl.end]
    for i, t in enumerate(tokens):
        sign = "-" if i > 0 and tokens[i - 1].text == "-" else ""
        if t.kind is Kind.NUMBER:
            text = t.text.replace("_", "")
            if text[-1:] in "lL":
                text = text[:-1]
            try:
                value = int(text, 8) if len(text) > 1 and text[0] == "0" and text.isdigit() else int(text, 0)
            except ValueError:
                # a decimal float literal, its own suffix dropped: each is tried as a double, the probe's one
                # floating-point kind of constant (hexadecimal ones are left out)
                digits = text.rstrip("fFdD")
                if DECIMAL_FLOAT.fullmatch(digits) and f"{sign}{digits}d" not in floating:
                    floating.append(f"{sign}{digits}d")
                continue
            literal = f"{-value if sign else value}L"
        elif t.kind in (Kind.CHAR, Kind.STRING) and not t.text.startswith('"""'):
            literal = t.text
        else:
            continue
        if literal not in out:
            out.append(literal)
        if len(out) >= MAX_CONSTANTS:
            return out
    return out + floating[: MAX_CONSTANTS - len(out)]


_SAFE_NUMBER = re.compile(r"-?\d+L|-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?d")
"""A number as :func:`_literals` writes it: the only literals of the candidate's that enter the probe source."""
LONG_RANGE = range(-(2**63), 2**63)


def their_constants(candidate: Declaration, reference: Declaration, buggy: Declaration | None = None) -> list[str]:
    """The candidate's numeric literals that neither the reference's body nor the buggy method's holds, at most
    :data:`MAX_CONSTANTS`: where its behaviour turns (SimFix's ``abs(y - x) <= 1e-300``), which no literal of the
    fix's marks. Only numbers, written anew from their values: the candidate's text is hostile, and a string or
    character literal copied from it into the trusted probe source could end in another place than the lexer read
    (an escape javac reads before the literal); a number out of ``long``'s range (``0xFFFFFFFFFFFFFFFFL``, which
    the value here does not wrap) would keep the probe source from compiling."""
    ours = set(_literals(reference)) | set(_literals(buggy) if buggy else ())
    out = []
    for c in _literals(candidate):
        if c in ours or not _SAFE_NUMBER.fullmatch(c) or c.endswith("L") and int(c[:-1]) not in LONG_RANGE:
            continue
        out.append(c)
    return out[:MAX_CONSTANTS]


MAX_THEIR_NAMES = 64
THEIR_NAME_LENGTH = 255


def their_names(candidate: Declaration, reference: Declaration, buggy: Declaration | None = None) -> list[str]:
    """The names the candidate's body uses that neither the reference's nor the buggy method's does (the runner
    keeps those that are static final fields of the class: ``SAFE_MIN``): the first :data:`MAX_THEIR_NAMES` of at
    most :data:`THEIR_NAME_LENGTH` characters, so that the probe source stays within a method's and a constant's size
    however many locals the candidate declares (red team 25), and an unbounded name no field of the class has."""
    ours = set(names(reference)) | set(names(buggy) if buggy else ())
    kept = [n for n in names(candidate) if n not in ours and len(n) <= THEIR_NAME_LENGTH]
    return kept[:MAX_THEIR_NAMES]


def _theirs(candidate: Declaration, reference: Declaration, buggy: Declaration | None) -> str:
    """The candidate's own constants as the runner's two arguments: its literals, the names of its constants."""
    literals = ", ".join(their_constants(candidate, reference, buggy))
    named = ", ".join(_java_string(n) for n in their_names(candidate, reference, buggy))
    return f"new Object[] {{{literals}}}, new String[] {{{named}}}"


def names(decl: Declaration) -> list[str]:
    """The names the method's body uses, in order of first appearance: the runner compares a private field
    of the method's class only when the reference names it (reads or writes it itself). A superset of the
    fields it touches (locals and methods too) is harmless: the runner keeps the names that are fields."""
    tokens = [t for t in code_tokens(decl.text) if decl.body_start <= t.start < decl.end]
    return list(dict.fromkeys(t.text for t in tokens if t.kind is Kind.WORD))


CALLEE_DEPTH = 3
"""How deep :func:`callee_names` follows the methods the reference calls."""
CALLEE = "~"
"""Marks a name of :func:`callee_names` among the wrapper's names (no Java identifier holds it)."""
_STATEMENTS = frozenset(("if", "while", "for", "switch", "catch", "synchronized", "return", "throw", "assert"))
"""Words before a ``(`` that neither call nor declare a method."""


def callee_names(decl: Declaration, source: str) -> list[str]:
    """The names the bodies of the methods ``decl`` calls use, as ``source`` (its file) declares them, and of the
    methods those call, :data:`CALLEE_DEPTH` calls deep; each marked :data:`CALLEE`. The runner compares a
    private stream or writer of the method's class that they name (Compress-1's ``close()`` calls ``finish()``,
    which writes the archive through the private stream the caller handed in), and no other field: a private
    cache a helper of the fix fills is not behaviour a caller sees."""
    bodies = _method_bodies(source)
    found: dict[str, None] = {}
    called = set(_called(decl))
    seen: set[str] = set()
    for _ in range(CALLEE_DEPTH):
        following: set[str] = set()
        for name in called - seen:
            seen.add(name)
            for words in bodies.get(name, []):
                found.update(dict.fromkeys(words))
                following.update(w for w in words if w in bodies)
        called = following
    return [CALLEE + n for n in found]


@functools.lru_cache(maxsize=8)
def _method_bodies(source: str) -> dict[str, list[list[str]]]:
    """The words of each method body ``source`` declares, by the method's name: once a file, not once a
    candidate (each plausible candidate's probe source is made of the same file and fix)."""
    tokens = code_tokens(source)
    bodies: dict[str, list[list[str]]] = {}
    for i in range(1, len(tokens) - 1):
        t = tokens[i]
        before = tokens[i - 1]
        if t.kind is not Kind.WORD or t.text in _STATEMENTS or tokens[i + 1].text != "(" or before.text in (".", "new"):
            continue
        if before.kind is not Kind.WORD and before.text not in (">", "]"):
            continue
        close = matching_close(tokens, i + 1)
        at = None if close is None else close + 1
        if at is not None and at < len(tokens) and tokens[at].text == "throws":
            while at < len(tokens) and tokens[at].text not in ("{", ";"):
                at += 1
        if at is None or at >= len(tokens) or tokens[at].text != "{":
            continue
        end = matching_close(tokens, at)
        if end is not None:
            bodies.setdefault(t.text, []).append([w.text for w in tokens[at:end] if w.kind is Kind.WORD])
    return bodies


def _called(decl: Declaration) -> list[str]:
    """The names the method's body calls (a name before ``(``, not after ``new``)."""
    tokens = [t for t in code_tokens(decl.text) if decl.body_start <= t.start < decl.end]
    return [
        t.text
        for i, t in enumerate(tokens[:-1])
        if t.kind is Kind.WORD
        and t.text not in _STATEMENTS
        and tokens[i + 1].text == "("
        and (i == 0 or tokens[i - 1].text != "new")
    ]


def _java_string(text: str) -> str:
    """The identifier ``text`` as a Java string literal in ASCII (an identifier may hold any letter; the
    file's encoding need not, and it holds no quote or backslash that an escape would turn into one)."""
    units = text.encode("utf-16-be")  # Java's escapes are UTF-16 units: a letter beyond the BMP is two
    codes = (int.from_bytes(units[i : i + 2], "big") for i in range(0, len(units), 2))
    return '"' + "".join(chr(u) if u < 0x80 else f"\\u{u:04x}" for u in codes) + '"'


def _wrapper(decl: Declaration, owner: str, buggy: Declaration | None, source: str, theirs: str) -> str:
    args = ", ".join(p.name for p in decl.params)
    named = ", ".join(_java_string(n) for n in [*names(decl), *callee_names(decl, source)])
    probe = (
        f'{PROBE}.call({owner}.class, "{decl.name}{REFERENCE_SUFFIX}", {"null" if decl.static else "this"}, '
        f"new Object[] {{{args}}}, new Object[] {{{', '.join(constants(decl, buggy))}}}, new String[] {{{named}}},\n"
        f"            {theirs}, {_body(decl, owner)})"
    )
    rt = decl.return_type
    if rt == "void":
        statement = f"{probe};"
    elif rt in _BOXES:
        statement = f"return (({_BOXES[rt]}) {probe}).{rt}Value();"
    else:
        statement = f"return ({rt}) {probe};"
    header = decl.text[decl.header_start : decl.body_start]
    return f"{header}{{\n        {statement}\n    }}"


def probe_methods(reference: str, candidate: str, owner: str, buggy: str | None = None, source: str = "") -> str:
    """The text that stands in the buggy method's place: the reference renamed and the wrapper
    (``owner``: the enclosing class as the file names it, ``Outer.Inner``; ``buggy``: the buggy method,
    whose literals the probe tries after the reference's; ``source``: the file, whose methods the reference calls
    :func:`callee_names` reads). The candidate is not in it:
    the runner runs the candidate's own class files, as validated, in a loader of their own; its
    declaration must be the reference's but for the return type, so that the wrapper's calls fit it (the
    runner finds the candidate's method by its name and parameter types). A fix may change the return
    type (Math-8's ``T[]`` to ``Object[]``); candidates that keep the old one are probed, their results
    compared as they are (an array of another class is another result)."""
    ref, cand = declaration(reference, constructor=True), declaration(candidate, constructor=True)
    if ref.signature[:2] + ref.signature[3:] != cand.signature[:2] + cand.signature[3:]:
        raise NotProbeable("the candidate's declaration differs from the reference's")
    before = declaration(buggy, constructor=True) if buggy else None
    theirs = _theirs(cand, ref, before)
    if ref.constructor:
        return _hooked(ref, owner, before, source, theirs)
    wrapper = _wrapper(ref, owner, before, source, theirs)
    return "\n".join([wrapper, _renamed(ref, REFERENCE_SUFFIX)])


def _hooked(decl: Declaration, owner: str, buggy: Declaration | None, source: str, theirs: str) -> str:
    """The reference's constructor with the runner's hook after its ``this(...)`` or ``super(...)`` (or first)."""
    simple = owner.rsplit(".", 1)[-1]
    if decl.name != simple:
        raise NotProbeable("a constructor of another class than the one it is in")
    tokens = code_tokens(source)
    at = next(
        (
            i
            for i in range(len(tokens) - 1)
            if tokens[i].text in ("class", "enum", "record", "interface") and tokens[i + 1].text == simple
        ),
        None,
    )
    if at is None or tokens[at].text != "class":
        raise NotProbeable("a constructor of an enum or a record, or of a class not found")
    start = at
    while start > 0 and tokens[start - 1].text not in (";", "{", "}"):
        start -= 1
    modifiers = {t.text for t in tokens[start:at] if t.text in MODIFIERS}
    if "abstract" in modifiers:
        raise NotProbeable("a constructor of an abstract class")
    if "." in owner and "static" not in modifiers:
        raise NotProbeable("a constructor of an inner class (it needs an enclosing object)")
    args = ", ".join(p.name for p in decl.params)
    named = ", ".join(_java_string(n) for n in [*names(decl), *callee_names(decl, source)])
    made = ", ".join(_argument(p.type, i) for i, p in enumerate(decl.params))
    body = (
        f'new {PROBE}.Body() {{ @SuppressWarnings({{"unchecked", "rawtypes"}}) public Object call(Object nl2fix$r, '
        f"Object[] nl2fix$a) throws Throwable {{ return new {owner}({made}); }} }}"
    )
    probe = (
        f"{PROBE}.constructing({owner}.class, %s, new Object[] {{{', '.join(constants(decl, buggy))}}}, "
        f"new String[] {{{named}}},\n            {theirs}, {body});"
    )
    ends, first = _explicit_invocation(decl)
    generic = at + 2 < len(tokens) and tokens[at + 2].text == "<"
    if first is not None and not generic:
        # before the delegate runs: a delegate that changes the class's static state (a registry of unique names)
        # would change what every probed construction meets (red team 24). The first argument of this(...) or super(...)
        # is evaluated first, in a static context: `(helper(args) ? a : a)` is `a`, of its type, evaluated once
        arg = decl.text[first[0] : first[1]]
        hooked = (
            decl.text[decl.header_start : first[0]]
            + f"({CONSTRUCTING}(new Object[] {{{args}}}) ? {arg} : {arg})"
            + decl.text[first[1] : decl.end]
        )
        helper = (
            f"private static boolean {CONSTRUCTING}(Object[] nl2fix$p) {{\n"
            f"        {probe % 'nl2fix$p'}\n        return true;\n    }}"
        )
        return f"{hooked}\n\n    {helper}"
    # no argument to go before (this(), super(), a generic class's type variables, which no static code names): after
    return (
        decl.text[decl.header_start : ends]
        + f"\n        {probe % f'new Object[] {{{args}}}'}"
        + decl.text[ends : decl.end]
    )


CONSTRUCTING = "nl2fix$constructing"
"""The probe source's static helper that hands a construction to the runner before its ``this(...)``/``super(...)``."""


def _explicit_invocation(decl: Declaration) -> tuple[int, tuple[int, int] | None]:
    """Where a constructor's own statements begin (after its ``this(...)`` or ``super(...)``, else after ``{``), and
    the offsets of that call's first argument (None: no such call, or no argument)."""
    tokens = [t for t in code_tokens(decl.text) if decl.body_start < t.start < decl.end]
    depth = 0
    for i, t in enumerate(tokens):
        if t.text in ("(", "{", "["):
            depth += 1
        elif t.text in (")", "}", "]"):
            depth -= 1
        elif t.text == ";" and depth == 0:
            first = tokens[:i]
            call = next(
                (j for j, x in enumerate(first[:-1]) if x.text in ("this", "super") and first[j + 1].text == "("), None
            )
            if call is None:
                return decl.body_start + 1, None
            close = matching_close(first, call + 1)
            if close is None or close == call + 2:
                return t.start + 1, None
            level, end = 0, first[close].start
            for x in first[call + 2 : close]:
                level += 1 if x.text in ("(", "{", "[") else -1 if x.text in (")", "}", "]") else 0
                if x.text == "," and level == 0:
                    end = x.start
                    break
            return t.start + 1, (first[call + 2].start, end)
    return decl.body_start + 1, None


def enclosing_class(source: str, offset: int) -> str:
    """The class a declaration at ``offset`` of ``source`` belongs to, as the file names it
    (``Outer.Inner``); NotProbeable inside an interface, an anonymous or a local class."""
    stack: list[str | None] = []
    pending: str | None = None
    tokens = code_tokens(source)
    for i, t in enumerate(tokens):
        if t.start >= offset:
            break
        if (
            t.text in ("class", "enum", "interface")
            and i + 1 < len(tokens)
            and tokens[i + 1].kind is Kind.WORD
            and (i == 0 or tokens[i - 1].text != ".")
        ):
            pending = "" if t.text == "interface" else tokens[i + 1].text
        elif t.text == "{":
            stack.append(pending)
            pending = None
        elif t.text == "}" and stack:
            stack.pop()
        elif t.text == ";":
            pending = None
    if not stack or any(not name for name in stack):
        raise NotProbeable("the method is not a member of a named class")
    return ".".join(name for name in stack if name)


def probe_file(source: str, buggy_method: str, start_line: int, end_line: int, reference: str, candidate: str) -> str:
    """The buggy file's text with the buggy method replaced by the probe's methods."""
    try:
        location = splice.locate(source, buggy_method, start_line, end_line)
    except splice.SpliceError as exc:
        raise NotProbeable(str(exc)) from exc
    lines = source.splitlines(keepends=True)
    offset = sum(len(line) for line in lines[: location.start_line - 1])
    owner = enclosing_class(source, offset)
    try:
        return splice.splice_at(source, location, probe_methods(reference, candidate, owner, buggy_method, source))
    except splice.RefusedCandidate as exc:
        raise NotProbeable(str(exc)) from exc
