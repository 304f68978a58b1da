"""What a fix changed in one Java file, declaration by declaration (tree-sitter-java).

The NL2Fix filter keeps a bug whose fix changes exactly one method body: this module parses the
buggy and the fixed file, pairs their methods and constructors by owner, name and parameter types,
and says which changed (comments and whitespace ignored), which were added or removed, and whether
anything else in the file changed (imports, fields, class headers, initialisers ...).
"""

from __future__ import annotations

import difflib
import enum
import functools
import re
from dataclasses import dataclass

from nl2fix.java_source.text import normalise, strip_comments

_METHODS = ("method_declaration", "constructor_declaration", "compact_constructor_declaration")
_TYPES = (
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
)
_SPACE = re.compile(r"\s+")


class Change(str, enum.Enum):
    """What kind of declaration a fix touched besides method bodies (a drop reason each)."""

    SEVERAL_METHODS = "several methods"
    NEW_METHOD = "new method"
    REMOVED_METHOD = "removed method"
    IMPORTS = "imports"
    FIELDS = "fields"
    OTHER = "other declarations"
    """Class headers, initialiser blocks, enum constants, annotations of the type ..."""


@dataclass(frozen=True)
class Method:
    """One method or constructor declaration of a file."""

    key: str
    """``Owner.Inner#name(Type1,Type2)``: what pairs it with its counterpart in the other file."""
    start_line: int
    """1-based line of its first annotation or modifier (its javadoc excluded)."""
    end_line: int
    """1-based line of its closing brace (inclusive)."""
    text: str
    """The declaration from its first annotation or modifier to its closing brace, later lines with
    their indent (a comment after the brace is not part of it): the dataset's ``src``."""
    code: str
    """The declaration alone, normalised (what decides whether a fix changed it)."""


@dataclass(frozen=True)
class JavaFile:
    """A parsed file: its methods, and the rest of its code (methods left out) by kind."""

    methods: dict[str, Method]
    imports: tuple[str, ...]
    fields: tuple[str, ...]
    skeleton: str
    """Everything else (package, class headers, initialisers ...), normalised."""


@dataclass(frozen=True)
class FileDiff:
    """How a fix changed one file."""

    path: str
    changed: tuple[str, ...]
    """Keys of methods present in both versions whose code differs."""
    added: tuple[str, ...]
    removed: tuple[str, ...]
    outside: tuple[Change, ...]
    """Changes outside method bodies: imports, fields, other declarations."""

    @property
    def code_changed(self) -> bool:
        return bool(self.changed or self.added or self.removed or self.outside)


@functools.lru_cache(maxsize=1)
def _parser():
    import tree_sitter_java
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_java.language()))


def _node_text(source: bytes, node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def _param_types(source: bytes, method) -> str:
    params = method.child_by_field_name("parameters")
    types = []
    for p in params.named_children if params is not None else ():
        if p.type in ("formal_parameter", "spread_parameter"):
            t = p.child_by_field_name("type") or next((c for c in p.named_children if c.type.endswith("type")), None)
            text = _SPACE.sub("", _node_text(source, t)) if t is not None else "?"
            types.append(text + ("..." if p.type == "spread_parameter" else ""))
    return ",".join(types)


class ParseError(ValueError):
    """tree-sitter found syntax errors: the file cannot be compared declaration by declaration."""


def parse_java(text: str) -> JavaFile:
    """The declarations of one file; :class:`ParseError` when the parse has errors."""
    text = text.replace("\r\n", "\n")
    source = text.encode("utf-8")
    tree = _parser().parse(source)
    if tree.root_node.has_error:
        raise ParseError("tree-sitter-java found syntax errors")
    methods: dict[str, Method] = {}
    imports: list[str] = []
    fields: list[str] = []
    cut: list[tuple[int, int]] = []

    def visit(node, owner: tuple[str, ...]) -> None:
        for child in node.named_children:
            if child.type in _METHODS:
                name = _node_text(source, child.child_by_field_name("name"))
                key = f"{'.'.join(owner)}#{name}({_param_types(source, child)})"
                start, end = child.start_point[0] + 1, child.end_point[0] + 1
                text = _node_text(source, child)
                methods.setdefault(key, Method(key, start, end, text, normalise(text)))
                cut.append((child.start_byte, child.end_byte))
            elif child.type in _TYPES:
                name = child.child_by_field_name("name")
                inner = owner + ((_node_text(source, name),) if name is not None else ())
                body = child.child_by_field_name("body")
                if body is not None:
                    visit(body, inner)
            elif child.type == "import_declaration":
                imports.append(normalise(_node_text(source, child)))
                cut.append((child.start_byte, child.end_byte))
            elif child.type in ("field_declaration", "constant_declaration"):
                fields.append(f"{'.'.join(owner)}:{normalise(_node_text(source, child))}")
                cut.append((child.start_byte, child.end_byte))
            elif child.type in ("enum_body_declarations", "class_body", "program"):
                visit(child, owner)

    visit(tree.root_node, ())
    pieces, at = [], 0
    for start, end in sorted(cut):
        pieces.append(source[at:start].decode("utf-8", errors="replace"))
        at = end
    pieces.append(source[at:].decode("utf-8", errors="replace"))
    return JavaFile(methods, tuple(sorted(imports)), tuple(fields), normalise(" ".join(pieces)))


def diff_files(path: str, buggy: str, fixed: str) -> FileDiff:
    """How ``fixed`` differs from ``buggy`` (both the whole text of ``path``)."""
    return diff_parsed(path, parse_java(buggy), parse_java(fixed))


def diff_parsed(path: str, before: JavaFile, after: JavaFile) -> FileDiff:
    shared = [k for k in before.methods if k in after.methods]
    changed = tuple(k for k in shared if before.methods[k].code != after.methods[k].code)
    outside = []
    if before.imports != after.imports:
        outside.append(Change.IMPORTS)
    if before.fields != after.fields:
        outside.append(Change.FIELDS)
    if before.skeleton != after.skeleton:
        outside.append(Change.OTHER)
    return FileDiff(
        path=path,
        changed=changed,
        added=tuple(k for k in after.methods if k not in before.methods),
        removed=tuple(k for k in before.methods if k not in after.methods),
        outside=tuple(outside),
    )


# -- the size and shape of a method's fix ----------------------------------------------------------


def _code_lines(method: str) -> list[str]:
    """The method's lines as the compiler sees them: comments dropped, whitespace folded, blank lines gone."""
    return [folded for line in strip_comments(method).split("\n") if (folded := " ".join(line.split()))]


@dataclass(frozen=True)
class FixShape:
    """How big a fix is, on comment- and whitespace-insensitive lines of the method."""

    hunks: int
    """Separate runs of changed lines (more than one: a multi-hunk fix)."""
    deleted: int
    """Buggy lines removed or replaced."""
    inserted: int
    """Fixed lines added or replacing."""

    @property
    def changed_lines(self) -> int:
        return self.deleted + self.inserted


def fix_shape(buggy: str, fixed: str) -> FixShape:
    a, b = _code_lines(buggy), _code_lines(fixed)
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    return FixShape(
        hunks=len(ops),
        deleted=sum(i2 - i1 for _, i1, i2, _, _ in ops),
        inserted=sum(j2 - j1 for _, _, _, j1, j2 in ops),
    )
