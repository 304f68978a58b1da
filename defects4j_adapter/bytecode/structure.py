"""The shape of one source file's compiled classes, and whether a candidate kept the buggy
version's: a candidate may change its method's body and declaration, nothing else. Pure.

Named classes (top-level and member classes) are matched by name: the same flags, superclass,
interfaces, fields and methods, except the methods named as the target (a candidate may change
its declaration; a constructor's target name is its class's simple name). Local and anonymous
classes are matched by structure, as a multiset, because javac numbers them in order of
appearance (``Text$1`` becomes ``Text$2`` when the candidate declares one before it): their own
numbered names are replaced by placeholders. The ones the target method declares (directly, or
inside another such class, or in one of its lambdas) are the candidate's own and not compared.

What javac makes on its own is left out: synthetic and bridge members (``lambda$...``,
``access$...``, ``this$0``, ``val$x``, ``$assertionsDisabled``, ``$VALUES``), synthetic classes (an
enum switch's ``$SwitchMap$`` holder) and static initializers (``assert`` makes one). Their code is
still the candidate's, and its references are checked all the same.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from defects4j_adapter.bytecode.classfile import ClassFile, EnclosingMethod, Member
from defects4j_adapter.bytecode.descriptors import java_name, java_parameters, java_types, rename_classes

_LAMBDA = re.compile(r"lambda\$(.+)\$\d+")
_LAMBDA_HOSTS = {"new": "<init>", "static": "<clinit>"}
"""javac names a lambda's method after the method it is written in; ``new`` and ``static`` stand
for constructors and static initializers."""


@dataclass(frozen=True)
class ClassShape:
    """What other code can see of a class; in a local class's shape, local classes' names are placeholders."""

    name: str
    access: int
    nesting: int | None
    """The InnerClasses flags (``private``, ``static``...) of a nested class; None for a top-level one."""
    super_name: str | None
    interfaces: tuple[str, ...]
    fields: frozenset[Member]
    methods: frozenset[Member]
    enclosing: EnclosingMethod | None


@dataclass(frozen=True)
class Shape:
    named: Mapping[str, ClassShape]
    local: Counter[ClassShape]
    """Local and anonymous classes (and classes nested in them) the target method does not declare."""
    examples: Mapping[ClassShape, ClassFile]
    """One class of each local shape, to name in messages."""
    own: tuple[ClassFile, ...]
    """The classes the target method declares."""


def _host(method: str) -> str:
    """A lambda's method as the method it is written in (javac numbers lambdas across the whole class)."""
    lambda_ = _LAMBDA.fullmatch(method)
    return _LAMBDA_HOSTS.get(lambda_[1], lambda_[1]) if lambda_ else method


class _Classes:
    """One source file's classes, read for one target method."""

    def __init__(self, classes: Mapping[str, ClassFile], method_name: str):
        self.classes = classes
        self.method_name = method_name
        self._local: dict[str, bool] = {}
        self._own: dict[str, bool] = {}

    def outer(self, cls: ClassFile) -> str | None:
        """The class a nested class is declared in."""
        entry = cls.own_entry
        return cls.enclosing_method.owner if cls.enclosing_method else entry.outer if entry else None

    def is_local(self, name: str) -> bool:
        """A local or anonymous class, or a class nested in one."""
        if name not in self._local:
            self._local[name] = False  # a cycle (never from javac) ends here
            cls = self.classes.get(name)
            entry = cls.own_entry if cls else None
            self._local[name] = cls is not None and (
                cls.enclosing_method is not None
                or (entry is not None and (entry.outer is None or self.is_local(entry.outer)))
            )
        return self._local[name]

    def simple_name(self, name: str) -> str:
        cls = self.classes.get(name)
        entry = cls.own_entry if cls else None
        return entry.simple_name if entry and entry.simple_name else name.rsplit("/", 1)[-1]

    def is_target(self, owner: str, method: str) -> bool:
        method = _host(method)
        if method == "<init>":
            return self.simple_name(owner) == self.method_name
        return method == self.method_name

    def is_own(self, name: str) -> bool:
        """Declared by the target method, directly or inside another class it declares."""
        if name not in self._own:
            self._own[name] = False
            cls = self.classes[name]
            where, outer = cls.enclosing_method, self.outer(cls)
            self._own[name] = outer is not None and (
                self.is_own(outer)
                if self.is_local(outer)
                else where is not None and where.method is not None and self.is_target(where.owner, where.method)
            )
        return self._own[name]

    def placeholder(self, name: str) -> str:
        """A local class's name without javac's number: ``Text$1Helper`` -> ``Text$~Helper``,
        ``Text$3`` -> ``Text$~``."""
        if not self.is_local(name):
            return name
        cls = self.classes[name]
        entry = cls.own_entry
        simple = entry.simple_name if entry and entry.simple_name else ""
        outer = self.outer(cls)
        if cls.enclosing_method is None and entry is not None and entry.outer is not None:
            return f"{self.placeholder(entry.outer)}${simple}"  # a member class of a local class
        return f"{self.placeholder(outer) if outer else ''}$~{simple}"

    def shape(self, cls: ClassFile) -> ClassShape:
        local = self.is_local(cls.name)

        def rename(descriptor: str) -> str:
            return rename_classes(descriptor, self.placeholder) if local else descriptor

        def kept(members: tuple[Member, ...], named_methods: bool) -> frozenset[Member]:
            return frozenset(
                Member(m.access, m.name, rename(m.descriptor))
                for m in members
                if not m.synthetic and m.name != "<clinit>" and not (named_methods and self.is_target(cls.name, m.name))
            )

        entry, where = cls.own_entry, cls.enclosing_method
        return ClassShape(
            self.placeholder(cls.name),
            cls.access,
            entry.access if entry else None,
            self.placeholder(cls.super_name) if cls.super_name else None,
            tuple(self.placeholder(i) for i in cls.interfaces),
            kept(cls.fields, False),
            kept(cls.methods, not local),
            where
            and EnclosingMethod(
                self.placeholder(where.owner),
                where.method and _host(where.method),
                where.descriptor and rename(where.descriptor),
            ),
        )


def shape_of(classes: Mapping[str, ClassFile], method_name: str) -> Shape:
    """``classes`` by internal name; ``method_name`` the target's Java name (a constructor's: its
    class's simple name)."""
    view = _Classes(classes, method_name)
    named: dict[str, ClassShape] = {}
    local: Counter[ClassShape] = Counter()
    examples: dict[ClassShape, ClassFile] = {}
    own = []
    for name in sorted(classes):
        cls = classes[name]
        if cls.synthetic:
            continue
        if not view.is_local(name):
            named[name] = view.shape(cls)
        elif view.is_own(name):
            own.append(cls)
        else:
            shape = view.shape(cls)
            local[shape] += 1
            examples.setdefault(shape, cls)
    return Shape(named, local, examples, tuple(own))


def _member(owner: str, member: Member, is_method: bool) -> str:
    if not is_method:
        return f"field {java_name(owner)}.{member.name} ({java_types(member.descriptor)[0]})"
    name = "constructor " + java_name(owner) if member.name == "<init>" else f"method {java_name(owner)}.{member.name}"
    return name + java_parameters(member.descriptor)


def _members_difference(owner: str, old: frozenset[Member], new: frozenset[Member], is_method: bool) -> str | None:
    def key(m: Member) -> tuple[str, str]:
        return (m.name, m.descriptor if is_method else "")

    before, after = {key(m): m for m in old}, {key(m): m for m in new}
    for k in sorted(after.keys() - before.keys()):
        return "adds " + _member(owner, after[k], is_method)
    for k in sorted(before.keys() - after.keys()):
        return "removes " + _member(owner, before[k], is_method)
    for k in sorted(k for k in after if after[k] != before[k]):
        return "changes the declaration of " + _member(owner, before[k], is_method)
    return None


def _named_difference(name: str, old: ClassShape, new: ClassShape) -> str | None:
    shown = java_name(name)
    if (old.access, old.nesting) != (new.access, new.nesting):
        return f"changes the modifiers of class {shown}"
    if old.super_name != new.super_name:
        return (
            f"changes the superclass of {shown} from {java_name(old.super_name or '-')} to "
            f"{java_name(new.super_name or '-')}"
        )
    if old.interfaces != new.interfaces:
        return f"changes the interfaces of {shown} to ({', '.join(map(java_name, new.interfaces))})"
    return _members_difference(name, old.fields, new.fields, False) or _members_difference(
        name, old.methods, new.methods, True
    )


def _local_class(cls: ClassFile) -> str:
    entry, where = cls.own_entry, cls.enclosing_method
    kind = (
        "a class" if entry and entry.outer else "a local class" if entry and entry.simple_name else "an anonymous class"
    )
    place = (
        f"{java_name(where.owner)}.{where.method or '<an initializer>'}"
        if where
        else java_name(entry.outer)
        if entry and entry.outer
        else "?"
    )
    return f"{kind} ({java_name(cls.name)}) in {place}"


def _first_difference(buggy: Shape, candidate: Shape) -> str | None:
    added = sorted(candidate.named.keys() - buggy.named.keys())
    if added:
        return f"adds class {java_name(added[0])}"
    removed = sorted(buggy.named.keys() - candidate.named.keys())
    if removed:
        return f"removes class {java_name(removed[0])}"
    for name in sorted(buggy.named):
        changed = _named_difference(name, buggy.named[name], candidate.named[name])
        if changed:
            return changed
    if candidate.local - buggy.local:
        return "adds " + min(_local_class(candidate.examples[s]) for s in candidate.local - buggy.local)
    if buggy.local - candidate.local:
        return "removes or changes " + min(_local_class(buggy.examples[s]) for s in buggy.local - candidate.local)
    return None


def difference(buggy: Shape, candidate: Shape, method_name: str) -> str | None:
    """What the candidate changed outside its method, as one line, or None."""
    found = _first_difference(buggy, candidate)
    return found and f"the candidate {found}; it may change only the body and declaration of {method_name}"
