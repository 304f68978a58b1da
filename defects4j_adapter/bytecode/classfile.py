"""A small, strict reader of Java class files (JVMS chapter 4), up to Java 25's: the constant pool,
the class's name, flags, superclass and interfaces, its fields and methods, and the attributes
the bytecode check needs (SourceFile, InnerClasses, EnclosingMethod, BootstrapMethods). Code is not
decoded: an instruction can name only what the constant pool holds, so the pool is the set of
symbols a class can reach, whatever its code does with them. Anything malformed is a
:class:`ClassFileError`. Pure."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from defects4j_adapter.bytecode.descriptors import classes_in, is_field_descriptor, is_method_descriptor
from nl2fix.core.errors import Nl2FixError

MAX_MAJOR = 69
"""Java 25's class files. A newer version may add constant kinds or attributes this reader would
misread, so it is refused until the reader has been checked against JVMS for it."""

ACC_BRIDGE = 0x0040
ACC_SYNTHETIC = 0x1000
ACC_MODULE = 0x8000


class ClassFileError(Nl2FixError):
    """Bytes that are not a class file this reader understands (never a candidate's fault: javac wrote them)."""


class Tag(IntEnum):
    """Constant pool tags (JVMS 4.4)."""

    UTF8 = 1
    INTEGER = 3
    FLOAT = 4
    LONG = 5
    DOUBLE = 6
    CLASS = 7
    STRING = 8
    FIELDREF = 9
    METHODREF = 10
    INTERFACE_METHODREF = 11
    NAME_AND_TYPE = 12
    METHOD_HANDLE = 15
    METHOD_TYPE = 16
    DYNAMIC = 17
    INVOKE_DYNAMIC = 18
    MODULE = 19
    PACKAGE = 20


class HandleKind(IntEnum):
    """A method handle's reference kind (JVMS 5.4.3.5)."""

    GET_FIELD = 1
    GET_STATIC = 2
    PUT_FIELD = 3
    PUT_STATIC = 4
    INVOKE_VIRTUAL = 5
    INVOKE_STATIC = 6
    INVOKE_SPECIAL = 7
    NEW_INVOKE_SPECIAL = 8
    INVOKE_INTERFACE = 9


_SINCE: dict[int, int] = {
    Tag.METHOD_HANDLE: 51,
    Tag.METHOD_TYPE: 51,
    Tag.INVOKE_DYNAMIC: 51,
    Tag.MODULE: 53,
    Tag.PACKAGE: 53,
    Tag.DYNAMIC: 55,
}
"""The first class file version each newer constant kind may appear in."""
_HANDLE_TARGETS = {
    **{
        kind: (Tag.FIELDREF,)
        for kind in (HandleKind.GET_FIELD, HandleKind.GET_STATIC, HandleKind.PUT_FIELD, HandleKind.PUT_STATIC)
    },
    HandleKind.INVOKE_VIRTUAL: (Tag.METHODREF,),
    HandleKind.NEW_INVOKE_SPECIAL: (Tag.METHODREF,),
    HandleKind.INVOKE_STATIC: (Tag.METHODREF, Tag.INTERFACE_METHODREF),
    HandleKind.INVOKE_SPECIAL: (Tag.METHODREF, Tag.INTERFACE_METHODREF),
    HandleKind.INVOKE_INTERFACE: (Tag.INTERFACE_METHODREF,),
}
_LOADABLE = frozenset(
    {
        Tag.INTEGER,
        Tag.FLOAT,
        Tag.LONG,
        Tag.DOUBLE,
        Tag.CLASS,
        Tag.STRING,
        Tag.METHOD_HANDLE,
        Tag.METHOD_TYPE,
        Tag.DYNAMIC,
    }
)
_MEMBER_REFS = (Tag.FIELDREF, Tag.METHODREF, Tag.INTERFACE_METHODREF)
_U2 = struct.Struct(">H").unpack_from
_U2U2 = struct.Struct(">HH").unpack_from
_U4 = struct.Struct(">I").unpack_from
_MEMBER = struct.Struct(">HHHH").unpack_from
_ATTRIBUTE = struct.Struct(">HI").unpack_from
_NUMBERS: dict[int, struct.Struct] = {
    Tag.INTEGER: struct.Struct(">i"),
    Tag.FLOAT: struct.Struct(">f"),
    Tag.LONG: struct.Struct(">q"),
    Tag.DOUBLE: struct.Struct(">d"),
}


@dataclass(frozen=True)
class MemberRef:
    """A Fieldref, Methodref or InterfaceMethodref: what a field access or a call names."""

    kind: Tag
    owner: str
    """The class named in the reference (the receiver's static type, not where the member is declared)."""
    name: str
    descriptor: str


@dataclass(frozen=True)
class MethodHandle:
    """A method handle constant: a bootstrap method, or what a lambda or method reference points at."""

    kind: HandleKind
    member: MemberRef


@dataclass(frozen=True)
class Dynamic:
    """A dynamically computed constant or call site: its bootstrap method's index, name and descriptor."""

    bootstrap: int
    name: str
    descriptor: str


@dataclass(frozen=True)
class Constant:
    """A loadable constant, as a bootstrap method's argument: a class or method type is its
    internal name or descriptor, a string its text."""

    tag: Tag
    value: str | int | float | MethodHandle | Dynamic


@dataclass(frozen=True)
class BootstrapMethod:
    handle: MethodHandle
    arguments: tuple[Constant, ...]


@dataclass(frozen=True)
class Member:
    """A field or method the class declares."""

    access: int
    name: str
    descriptor: str

    @property
    def synthetic(self) -> bool:
        """Made by javac, not written in the source (``lambda$...``, ``access$...``, ``this$0``, bridges)."""
        return bool(self.access & (ACC_SYNTHETIC | ACC_BRIDGE))


@dataclass(frozen=True)
class InnerClass:
    """An InnerClasses entry: ``outer`` is None for local and anonymous classes, ``simple_name``
    None for anonymous ones."""

    name: str
    outer: str | None
    simple_name: str | None
    access: int


@dataclass(frozen=True)
class EnclosingMethod:
    """Where a local or anonymous class is declared: ``method`` is None outside a method (a field's initializer)."""

    owner: str
    method: str | None
    descriptor: str | None


@dataclass(frozen=True)
class References:
    """Every symbol a class's constant pool holds, resolved."""

    classes: frozenset[str]
    """Internal names of the classes named anywhere: class constants (an array's element type),
    descriptors of members, references, method types and the class's own fields and methods."""
    members: frozenset[MemberRef]
    handles: frozenset[MethodHandle]
    strings: frozenset[str]


@dataclass(frozen=True)
class ClassFile:
    major: int
    minor: int
    access: int
    name: str
    """Internal name, e.g. ``org/x/Text$Inner``."""
    super_name: str | None
    interfaces: tuple[str, ...]
    fields: tuple[Member, ...]
    methods: tuple[Member, ...]
    source_file: str | None
    inner_classes: tuple[InnerClass, ...]
    enclosing_method: EnclosingMethod | None
    bootstrap_methods: tuple[BootstrapMethod, ...]
    references: References

    @property
    def synthetic(self) -> bool:
        """A class javac made on its own (an enum switch's map, a private constructor's access tag)."""
        return bool(self.access & ACC_SYNTHETIC)

    @property
    def own_entry(self) -> InnerClass | None:
        """This class's own InnerClasses entry: present for member, local and anonymous classes."""
        return next((entry for entry in self.inner_classes if entry.name == self.name), None)


def _modified_utf8(raw: bytes) -> str:
    """JVMS 4.4.7's encoding: NUL as two bytes, characters above U+FFFF as two encoded surrogates."""
    if b"\x00" in raw or any(b >= 0xF0 for b in raw):
        raise ClassFileError("a Utf8 constant holds a byte modified UTF-8 never has")
    try:
        text = raw.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    except UnicodeError as e:
        raise ClassFileError(f"a Utf8 constant is not modified UTF-8: {e}") from None


def _utf8(raw: bytes) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:  # NUL or a supplementary character: modified UTF-8's own forms
        return _modified_utf8(raw)
    if "\x00" in text or (not text.isascii() and max(text) > "\uffff"):
        raise ClassFileError("a Utf8 constant holds a byte modified UTF-8 never has")
    return text


class ConstantPool:
    """The constant pool: raw entries read in one pass, resolved and type-checked on demand."""

    def __init__(self, data: bytes, major: int):
        count = _U2(data, 8)[0]
        if count == 0:
            raise ClassFileError("the constant pool's count is 0")
        tags = [0] * count
        values: list[Any] = [None] * count
        i, pos = 1, 10
        while i < count:  # the tags by their entries' sizes, as ints (Tag's values) for speed
            tag = data[pos]
            if tag == 1:
                n = (data[pos + 1] << 8) | data[pos + 2]
                raw = data[pos + 3 : pos + 3 + n]
                if len(raw) != n:
                    raise ClassFileError("the class file ends inside its constant pool")
                values[i] = _utf8(raw)
                pos += 3 + n
            elif tag in (7, 8, 16, 19, 20):
                values[i] = (data[pos + 1] << 8) | data[pos + 2]
                pos += 3
            elif tag in (9, 10, 11, 12, 17, 18):
                values[i] = _U2U2(data, pos + 1)
                pos += 5
            elif tag == 15:
                values[i] = (data[pos + 1], _U2(data, pos + 2)[0])
                pos += 4
            elif tag in (3, 4, 5, 6):
                values[i] = _NUMBERS[tag].unpack_from(data, pos + 1)[0]
                pos += 1 + _NUMBERS[tag].size
            else:
                raise ClassFileError(f"constant pool entry {i} has the unknown tag {tag}")
            if _SINCE.get(tag, 0) > major:
                raise ClassFileError(f"constant pool entry {i}: tag {Tag(tag).name} in a version {major} class file")
            tags[i] = tag
            if tag in (5, 6):  # an 8-byte constant takes two slots; the second is unusable
                if i + 1 == count:
                    raise ClassFileError(f"constant pool entry {i}: an 8-byte constant in the last slot")
                i += 1
            i += 1
        self.end = pos
        self.tags = tags
        self.values = values
        self._members: dict[int, MemberRef] = {}

    def _check(self, index: int, *expected: Tag) -> Any:
        if not 0 < index < len(self.tags) or self.tags[index] not in expected:
            names = " or ".join(t.name for t in expected)
            raise ClassFileError(f"constant pool index {index} is not a {names} entry")
        return self.values[index]

    def utf8(self, index: int) -> str:
        if 0 < index < len(self.tags) and self.tags[index] == 1:  # the hottest look-up: no _check call
            return self.values[index]
        return self._check(index, Tag.UTF8)

    def class_name(self, index: int) -> str:
        tags = self.tags
        if not (0 < index < len(tags) and tags[index] == 7):  # Tag.CLASS; ints in the hot look-ups
            self._check(index, Tag.CLASS)
        name = self.utf8(self.values[index])
        if not name or (name[0] == "[" and not is_field_descriptor(name)) or (name[0] != "[" and ";" in name):
            raise ClassFileError(f"constant pool index {index} names the malformed class {name!r}")
        return name

    def optional_class(self, index: int) -> str | None:
        return None if index == 0 else self.class_name(index)

    def optional_utf8(self, index: int) -> str | None:
        return None if index == 0 else self.utf8(index)

    def name_and_type(self, index: int) -> tuple[str, str]:
        tags = self.tags
        if not (0 < index < len(tags) and tags[index] == 12):  # Tag.NAME_AND_TYPE
            self._check(index, Tag.NAME_AND_TYPE)
        name, descriptor = self.values[index]
        return self.utf8(name), self.utf8(descriptor)

    def member(self, index: int) -> MemberRef:
        found = self._members.get(index)
        if found is None:
            tags = self.tags
            if not (0 < index < len(tags) and 9 <= tags[index] <= 11):  # field, method, interface method refs
                self._check(index, *_MEMBER_REFS)
            owner, nat = self.values[index]
            kind = _MEMBER_REFS[tags[index] - 9]
            name, descriptor = self.name_and_type(nat)
            valid = is_field_descriptor if kind is Tag.FIELDREF else is_method_descriptor
            if not valid(descriptor):
                raise ClassFileError(f"constant pool entry {index}: malformed descriptor {descriptor!r}")
            found = self._members[index] = MemberRef(kind, self.class_name(owner), name, descriptor)
        return found

    def handle(self, index: int) -> MethodHandle:
        kind, target = self._check(index, Tag.METHOD_HANDLE)
        if kind not in _HANDLE_TARGETS:
            raise ClassFileError(f"constant pool entry {index}: method handle kind {kind}")
        self._check(target, *_HANDLE_TARGETS[HandleKind(kind)])
        return MethodHandle(HandleKind(kind), self.member(target))

    def method_type(self, index: int) -> str:
        descriptor = self.utf8(self._check(index, Tag.METHOD_TYPE))
        if not is_method_descriptor(descriptor):
            raise ClassFileError(f"constant pool entry {index}: malformed method type {descriptor!r}")
        return descriptor

    def dynamic(self, index: int) -> Dynamic:
        bootstrap, nat = self._check(index, Tag.DYNAMIC, Tag.INVOKE_DYNAMIC)
        name, descriptor = self.name_and_type(nat)
        valid = is_field_descriptor if self.tags[index] == Tag.DYNAMIC else is_method_descriptor
        if not valid(descriptor):
            raise ClassFileError(f"constant pool entry {index}: malformed descriptor {descriptor!r}")
        return Dynamic(bootstrap, name, descriptor)

    def loadable(self, index: int) -> Constant:
        self._check(index, *_LOADABLE)
        tag = Tag(self.tags[index])
        value: str | int | float | MethodHandle | Dynamic
        if tag is Tag.CLASS:
            value = self.class_name(index)
        elif tag is Tag.STRING:
            value = self.utf8(self.values[index])
        elif tag is Tag.METHOD_HANDLE:
            value = self.handle(index)
        elif tag is Tag.METHOD_TYPE:
            value = self.method_type(index)
        elif tag is Tag.DYNAMIC:
            value = self.dynamic(index)
        else:
            value = self.values[index]
        return Constant(tag, value)

    def references(self) -> tuple[References, list[Dynamic], bool]:
        """Every entry resolved and checked: the references, the dynamic entries (whose bootstrap
        methods are checked once the attributes are read) and whether it names modules or packages."""
        classes: set[str] = set()
        members: set[MemberRef] = set()
        handles: set[MethodHandle] = set()
        strings: set[str] = set()
        dynamics: list[Dynamic] = []
        modular = False
        # plain ints in the loop: comparing with Tag members costs an attribute lookup each time
        utf8, class_, string, handle, method_type = (
            Tag.UTF8.value,
            Tag.CLASS.value,
            Tag.STRING.value,
            Tag.METHOD_HANDLE.value,
            Tag.METHOD_TYPE.value,
        )
        for i, tag in enumerate(self.tags):
            if tag == utf8:
                continue
            if tag == class_:
                name = self.class_name(i)
                classes.update(classes_in(name) if name[0] == "[" else (name,))
            elif tag == string:
                strings.add(self.utf8(self.values[i]))
            elif 9 <= tag <= 11:  # field, method and interface method references
                ref = self.member(i)
                members.add(ref)
                classes.update(classes_in(ref.descriptor))
            elif tag == handle:
                handles.add(self.handle(i))
            elif tag == method_type:
                classes.update(classes_in(self.method_type(i)))
            elif tag in (17, 18):  # dynamic constants and call sites
                dynamic = self.dynamic(i)
                dynamics.append(dynamic)
                classes.update(classes_in(dynamic.descriptor))
            elif tag in (19, 20):  # modules and packages
                self.utf8(self.values[i])
                modular = True
        return (
            References(frozenset(classes), frozenset(members), frozenset(handles), frozenset(strings)),
            dynamics,
            modular,
        )


class _Reader:
    """The class file after the constant pool, read front to back."""

    def __init__(self, data: bytes, pool: ConstantPool):
        self.data = data
        self.pool = pool
        self.pos = pool.end

    def u2(self) -> int:
        value = _U2(self.data, self.pos)[0]
        self.pos += 2
        return value

    def members(self, is_method: bool) -> tuple[Member, ...]:
        valid = is_method_descriptor if is_method else is_field_descriptor
        data, utf8 = self.data, self.pool.utf8
        found = []
        for _ in range(self.u2()):
            access, name, descriptor, attributes = _MEMBER(data, self.pos)
            name, descriptor = utf8(name), utf8(descriptor)
            if not valid(descriptor):
                raise ClassFileError(f"{name}: malformed descriptor {descriptor!r}")
            pos = self.pos + 8
            for _ in range(attributes):  # skipped, Code included: the constant pool says what it can reach
                attribute, length = _ATTRIBUTE(data, pos)
                utf8(attribute)
                pos += 6 + length
            self.pos = pos
            found.append(Member(access, name, descriptor))
        return tuple(found)

    def attributes(self) -> dict[str, tuple[int, int]]:
        """Each attribute's name -> (start, length); each of the ones read here at most once."""
        found: dict[str, tuple[int, int]] = {}
        for _ in range(self.u2()):
            name = self.pool.utf8(self.u2())
            length = _U4(self.data, self.pos)[0]
            self.pos += 4
            if name in found and name in _ATTRIBUTES:
                raise ClassFileError(f"two {name} attributes")
            found[name] = (self.pos, length)
            self.pos += length
        if self.pos > len(self.data):
            raise ClassFileError("the class file ends inside an attribute")
        return found

    def at(self, span: tuple[int, int], length: int) -> None:
        """Moves to an attribute, checking that its declared length is ``length``."""
        if span[1] != length:
            raise ClassFileError(f"an attribute of {span[1]} bytes where {length} were due")
        self.pos = span[0]

    def inner_classes(self, span: tuple[int, int]) -> tuple[InnerClass, ...]:
        count = _U2(self.data, span[0])[0]
        self.at(span, 2 + 8 * count)
        self.u2()
        pool = self.pool
        return tuple(
            InnerClass(
                pool.class_name(self.u2()), pool.optional_class(self.u2()), pool.optional_utf8(self.u2()), self.u2()
            )
            for _ in range(count)
        )

    def enclosing_method(self, span: tuple[int, int]) -> EnclosingMethod:
        self.at(span, 4)
        owner, method = self.pool.class_name(self.u2()), self.u2()
        name, descriptor = self.pool.name_and_type(method) if method else (None, None)
        return EnclosingMethod(owner, name, descriptor)

    def bootstrap_methods(self, span: tuple[int, int]) -> tuple[BootstrapMethod, ...]:
        self.pos = span[0]
        found = []
        for _ in range(self.u2()):
            handle = self.pool.handle(self.u2())
            found.append(BootstrapMethod(handle, tuple(self.pool.loadable(self.u2()) for _ in range(self.u2()))))
        if self.pos != sum(span):
            raise ClassFileError("the BootstrapMethods attribute's length does not match its entries")
        return tuple(found)


_ATTRIBUTES = frozenset({"SourceFile", "InnerClasses", "EnclosingMethod", "BootstrapMethods"})


def parse(data: bytes) -> ClassFile:
    """Reads one class file; raises :class:`ClassFileError` on anything malformed or unknown."""
    try:
        return _parse(data)
    except (struct.error, IndexError):
        raise ClassFileError("the class file ends too early") from None


def _parse(data: bytes) -> ClassFile:
    if data[:4] != b"\xca\xfe\xba\xbe":
        raise ClassFileError("not a class file (no 0xCAFEBABE)")
    minor, major = _U2U2(data, 4)
    if not 45 <= major <= MAX_MAJOR or (major >= 56 and minor not in (0, 0xFFFF)):
        raise ClassFileError(f"class file version {major}.{minor} is not one this reader knows (up to {MAX_MAJOR})")
    pool = ConstantPool(data, major)
    references, dynamics, modular = pool.references()
    reader = _Reader(data, pool)
    access = reader.u2()
    if modular and not access & ACC_MODULE:
        raise ClassFileError("a Module or Package constant outside module-info")
    name = pool.class_name(reader.u2())
    super_name = pool.optional_class(reader.u2())
    if super_name is None and name != "java/lang/Object" and not access & ACC_MODULE:
        raise ClassFileError(f"{name} has no superclass")
    interfaces = tuple(pool.class_name(reader.u2()) for _ in range(reader.u2()))
    fields = reader.members(is_method=False)
    methods = reader.members(is_method=True)
    attributes = reader.attributes()
    if reader.pos != len(data):
        raise ClassFileError(f"{len(data) - reader.pos} bytes after the class file's end")
    source_file = None
    if "SourceFile" in attributes:
        reader.at(attributes["SourceFile"], 2)
        source_file = pool.utf8(reader.u2())
    inner = reader.inner_classes(attributes["InnerClasses"]) if "InnerClasses" in attributes else ()
    enclosing = reader.enclosing_method(attributes["EnclosingMethod"]) if "EnclosingMethod" in attributes else None
    bootstraps = reader.bootstrap_methods(attributes["BootstrapMethods"]) if "BootstrapMethods" in attributes else ()
    for dynamic in dynamics:
        if dynamic.bootstrap >= len(bootstraps):
            raise ClassFileError(f"a dynamic constant names bootstrap method {dynamic.bootstrap} of {len(bootstraps)}")
    own = {c for member in fields + methods for c in classes_in(member.descriptor)}
    references = References(references.classes | own, references.members, references.handles, references.strings)
    return ClassFile(
        major,
        minor,
        access,
        name,
        super_name,
        interfaces,
        fields,
        methods,
        source_file,
        inner,
        enclosing,
        bootstraps,
        references,
    )
