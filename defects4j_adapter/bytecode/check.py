"""The check on a compiled candidate: the classes javac made from the candidate's source file,
against the buggy version's. It holds whatever the source text looked like: a candidate that
closes its method to add classes or members is refused on structure (``structure.py``), and one
whose classes reach what ``policy.py`` forbids, where the buggy version's did not, on references.

Parsing is cached by content, so a bug's buggy classes are parsed once whatever the number of
candidates, and so are the classes a candidate leaves byte-for-byte as they were (its file's
other member classes, usually).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from operator import attrgetter
from pathlib import Path

from defects4j_adapter.bytecode.classfile import ClassFile, ClassFileError, MemberRef, References, parse
from defects4j_adapter.bytecode.descriptors import java_name
from defects4j_adapter.bytecode.instructions import method_bodies
from defects4j_adapter.bytecode.policy import (
    FINALIZER,
    KEYED_READ,
    PORTABLE_PROPERTIES,
    RULES,
    class_subject,
    member_subjects,
    rule_for,
    string_subject,
)
from defects4j_adapter.bytecode.structure import Shape, difference, shape_of

_SOURCE_FILE = b"\x01\x00\x0aSourceFile"
"""The Utf8 constant every class file with a SourceFile attribute holds."""


class RejectionKind(Enum):
    STRUCTURE = "structure"
    """The candidate changed its file outside its method: classes, members, superclasses."""
    REFERENCE = "reference"
    """The candidate's classes reach something ``policy.py`` forbids."""


@dataclass(frozen=True)
class Rejection:
    kind: RejectionKind
    reason: str
    """One line: what the candidate added, where, and (for a reference) why the policy forbids it."""
    reference: str | None = None
    """The offending symbol as the policy writes it (``java.lang.Runtime#halt(int)``), for a reference."""


@lru_cache(maxsize=512)
def _parse_cached(data: bytes) -> ClassFile:
    return parse(data)


def _parsed(where: str, data: bytes) -> ClassFile:
    try:
        return _parse_cached(data)
    except ClassFileError as e:
        raise ClassFileError(f"{where}: {e.message}") from None


@dataclass(frozen=True)
class _Side:
    """One version's classes, read for one target method."""

    shape: Shape
    uses: Mapping[str, References]
    """Per class, its references, with calls and accesses through the file's own classes also
    counted on the classes outside the file they are inherited from."""
    everything: References
    finalizers: tuple[str, ...]
    """The ``finalize()`` methods the classes of the target method declare."""
    has_finalizer: bool
    """Whether any class declares ``finalize()``."""


def _inherited(ref: MemberRef, classes: Mapping[str, ClassFile], declared: Mapping[str, frozenset]) -> Iterator[str]:
    """The classes outside the file a member named through one of the file's classes may come from:
    ``stop()`` called in an anonymous subclass of ``Thread`` names the anonymous class, not ``Thread``."""
    todo, seen = [ref.owner], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        cls = classes.get(name)
        if cls is None:
            yield name
        elif (ref.name, ref.descriptor) not in declared[name]:
            todo.extend(cls.interfaces)
            todo.extend([cls.super_name] if cls.super_name else [])


def _uses(cls: ClassFile, classes: Mapping[str, ClassFile], declared: Mapping[str, frozenset]) -> References:
    refs = cls.references
    through = {
        dataclasses.replace(ref, owner=origin)
        for ref in refs.members
        if ref.owner in classes
        for origin in _inherited(ref, classes, declared)
    }
    return dataclasses.replace(refs, members=refs.members | through) if through else refs


def _without_portable_reads(data: bytes, refs: References) -> References:
    """``refs`` without ``System#getProperty(String)`` when every call of it in the class is given a
    constant key of :data:`PORTABLE_PROPERTIES` (the constant pool only says the member is named; the
    instructions say with what) and no method handle names it (``System::getProperty`` takes any key)."""
    keyed = {ref for ref in refs.members if member_subjects(ref)[-1] == KEYED_READ}
    if not keyed or keyed & {handle.member for handle in refs.handles}:
        return refs
    keys = [(ref, key) for body in method_bodies(data)[1] for ref, key in body.last_strings if ref in keyed]
    portable = {
        ref
        for ref in keyed
        if any(r == ref for r, _ in keys) and all(key in PORTABLE_PROPERTIES for r, key in keys if r == ref)
    }
    return dataclasses.replace(refs, members=refs.members - portable) if portable else refs


def _declares_finalizer(cls: ClassFile) -> bool:
    return any(m.name == "finalize" and m.descriptor == "()V" and not m.synthetic for m in cls.methods)


@lru_cache(maxsize=16)
def _side(items: tuple[tuple[str, bytes], ...], method_name: str) -> _Side:
    if not items:
        raise ValueError("no classes to check")
    parsed = [_parsed(name, data) for name, data in items]
    classes = {cls.name: cls for cls in parsed}
    declared = {cls.name: frozenset((m.name, m.descriptor) for m in cls.fields + cls.methods) for cls in parsed}
    uses = {
        cls.name: _without_portable_reads(data, _uses(cls, classes, declared)) for cls, (_, data) in zip(parsed, items)
    }
    everything = References(
        frozenset().union(*(u.classes for u in uses.values())),
        frozenset().union(*(u.members for u in uses.values())),
        frozenset().union(*(u.handles for u in uses.values())),
        frozenset().union(*(u.strings for u in uses.values())),
    )
    shape = shape_of(classes, method_name)
    finalizers = tuple(f"{java_name(cls.name)}#finalize()" for cls in shape.own if _declares_finalizer(cls))
    return _Side(shape, uses, everything, finalizers, any(map(_declares_finalizer, parsed)))


def _added(old: _Side, new: _Side) -> Iterator[tuple[str, str]]:
    """(subject, the class holding it) of every reference ``new`` has and ``old`` has not, in a fixed order."""

    def holder(item: object, part: Callable[[References], frozenset]) -> str:
        return next(java_name(name) for name, refs in sorted(new.uses.items()) if item in part(refs))

    before, after = old.everything, new.everything
    for name in sorted(after.classes - before.classes):
        yield class_subject(name), holder(name, attrgetter("classes"))
    for ref in sorted(after.members - before.members, key=lambda r: (r.owner, r.name, r.descriptor, r.kind)):
        where = holder(ref, attrgetter("members"))
        for subject in member_subjects(ref):
            yield subject, where
    for text in sorted(after.strings - before.strings):
        yield string_subject(text), holder(text, attrgetter("strings"))


def _forbidden(old: _Side, new: _Side) -> Rejection | None:
    """The added reference the earliest rule forbids."""
    found = [
        (RULES.index(rule), subject, where, rule)
        for subject, where in _added(old, new)
        for rule in [rule_for(subject)]
        if rule
    ]
    if not found:
        return None
    _, subject, where, rule = min(found, key=lambda f: (f[0], f[1]))
    return Rejection(
        RejectionKind.REFERENCE,
        f"{where} uses {subject}, which the candidate may not add ({rule.family.value}: {rule.why})",
        subject,
    )


def check(buggy: Mapping[str, bytes], candidate: Mapping[str, bytes], method_name: str) -> Rejection | None:
    """Whether the candidate's compiled classes may be run: ``buggy`` and ``candidate`` are the
    class files javac made from the one source file (internal name, e.g. ``org/x/Text$1``, ->
    bytes; see :func:`classes_of_source`), ``method_name`` the target's Java name (a
    constructor's: its class's simple name). None when nothing is wrong, else the first problem.
    Raises :class:`ClassFileError` on bytes that are not a class file."""
    old = _side(tuple(sorted(buggy.items())), method_name)
    new = _side(tuple(sorted(candidate.items())), method_name)
    reason = difference(old.shape, new.shape, method_name)
    if reason:
        return Rejection(RejectionKind.STRUCTURE, reason)
    if new.finalizers and not old.has_finalizer:
        return Rejection(
            RejectionKind.REFERENCE,
            f"{new.finalizers[0]} is declared in {method_name}, which the "
            f"candidate may not add ({FINALIZER.family.value}: {FINALIZER.why})",
            new.finalizers[0],
        )
    return _forbidden(old, new)


def classes_of_source(classes_root: Path, package: str, source_name: str) -> dict[str, bytes]:
    """The class files under ``classes_root`` compiled from ``source_name`` (``Text.java``) of
    ``package`` (``org.x``; ``""`` for the default package), by internal name. They are chosen
    by their SourceFile attribute, not their names: a hostile file can declare top-level classes
    of any name in its package, and they still carry its SourceFile. The folder should hold one
    compilation's classes (an earlier one's anonymous classes would count as the candidate's).
    Raises :class:`ClassFileError` on a class file without SourceFile (compiled with
    ``-g:none``): whose it is cannot be told."""
    folder = classes_root.joinpath(*package.split(".")) if package else classes_root
    marker = source_name.encode() if source_name.isascii() else b""  # a quick filter before parsing
    found = {}
    for path in sorted(folder.glob("*.class")):
        data = path.read_bytes()
        if _SOURCE_FILE not in data:
            raise ClassFileError(
                f"{path} has no SourceFile attribute (compiled with -g:none?): "
                "which source file it came from cannot be told"
            )
        if marker in data:
            cls = _parsed(str(path), data)
            if cls.source_file == source_name:
                found[cls.name] = data
    return found
