"""What each method of a class does, read from its instructions (JVMS chapter 6): the members it
calls, the classes it creates, the static fields it reads and the strings it loads. The JDK
effects analysis (``jdk_effects.py``) needs this; the check on candidates reads constant pools
(``classfile.py``), and instructions only for the string constant a call is given (``check.py``). Pure."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from defects4j_adapter.bytecode.classfile import (
    ClassFile,
    ClassFileError,
    ConstantPool,
    MemberRef,
    MethodHandle,
    Tag,
    parse,
)

_U2 = struct.Struct(">H").unpack_from
_U4 = struct.Struct(">I").unpack_from
_S4 = struct.Struct(">i").unpack_from
_S2 = struct.Struct(">h").unpack_from

ACC_STATIC = 0x0008
ACC_NATIVE = 0x0100
ACC_ABSTRACT = 0x0400


class Invoke(IntEnum):
    VIRTUAL = 0xB6
    SPECIAL = 0xB7
    STATIC = 0xB8
    INTERFACE = 0xB9


_GETSTATIC, _PUTSTATIC, _NEW, _LDC, _LDC_W, _INVOKEDYNAMIC = 0xB2, 0xB3, 0xBB, 0x12, 0x13, 0xBA
_TABLESWITCH, _LOOKUPSWITCH, _WIDE, _IINC = 0xAA, 0xAB, 0xC4, 0x84
_BRANCHES = frozenset((*range(0x99, 0xA9), 0xC6, 0xC7))
"""Conditional jumps, ``goto`` and ``jsr``: a two-byte offset (``goto_w`` and ``jsr_w``, 0xC8 and 0xC9: four)."""
_LENGTHS = bytearray([1] * 256)
"""Each fixed-length instruction's size in bytes, operands included (switches and ``wide`` vary)."""
for _op in (0x10, 0x12, *range(0x15, 0x1A), *range(0x36, 0x3B), 0xA9, 0xBC):
    _LENGTHS[_op] = 2
for _op in (0x11, 0x13, 0x14, _IINC, *range(0x99, 0xA9), *range(0xB2, 0xB9), 0xBB, 0xBD, 0xC0, 0xC1, 0xC6, 0xC7):
    _LENGTHS[_op] = 3
_LENGTHS[0xC5] = 4
for _op in (0xB9, 0xBA, 0xC8, 0xC9):
    _LENGTHS[_op] = 5


@dataclass(frozen=True)
class MethodBody:
    access: int
    name: str
    descriptor: str
    calls: frozenset[tuple[Invoke, MemberRef]]
    created: frozenset[str]
    """Internal names of the classes ``new`` creates."""
    statics: frozenset[MemberRef]
    """Static fields read or written (either initializes their class)."""
    strings: frozenset[str]
    handles: frozenset[MethodHandle]
    """Method handles loaded or passed to a bootstrap method: a lambda's or method reference's target."""
    last_strings: frozenset[tuple[MemberRef, str | None]]
    """Per call, the string constant the instruction just before it loaded (its last argument: a
    constant key, ``System.getProperty("os.name")``), or None."""
    opcodes: frozenset[int] = frozenset()
    """Every instruction's opcode."""
    constant_tags: frozenset[int] = frozenset()
    """The constant pool tags of the constants ``ldc`` and ``ldc_w`` load (a class, a string, a number...)."""
    loops: bool = False
    """Whether a jump goes back (a loop, or a jump to code before it)."""

    @property
    def is_static(self) -> bool:
        return bool(self.access & ACC_STATIC)

    @property
    def is_abstract(self) -> bool:
        return bool(self.access & ACC_ABSTRACT)

    @property
    def is_native(self) -> bool:
        return bool(self.access & ACC_NATIVE)


def _decode(code: bytes, pool: ConstantPool, cls: ClassFile, access: int, name: str, descriptor: str) -> MethodBody:
    calls: set[tuple[Invoke, MemberRef]] = set()
    created: set[str] = set()
    statics: set[MemberRef] = set()
    strings: set[str] = set()
    handles: set[MethodHandle] = set()
    after_string: list[tuple[int, MemberRef, str | None]] = []
    targets: set[int] = set()
    opcodes: set[int] = set()
    tags: set[int] = set()
    loops = False
    loaded: str | None = None
    pos, end = 0, len(code)
    while pos < end:
        op = code[pos]
        opcodes.add(op)
        loading, loaded = loaded, None
        if 0xB6 <= op <= 0xB9:
            ref = pool.member(_U2(code, pos + 1)[0])
            calls.add((Invoke(op), ref))
            after_string.append((pos, ref, loading))
        elif op in (_GETSTATIC, _PUTSTATIC):
            statics.add(pool.member(_U2(code, pos + 1)[0]))
        elif op == _NEW:
            created.add(pool.class_name(_U2(code, pos + 1)[0]))
        elif op in (_LDC, _LDC_W):
            index = code[pos + 1] if op == _LDC else _U2(code, pos + 1)[0]
            tag = pool.tags[index]
            tags.add(tag)
            if tag == Tag.STRING:
                loaded = pool.utf8(pool.values[index])
                strings.add(loaded)
            elif tag == Tag.METHOD_HANDLE:
                handles.add(pool.handle(index))
        elif op == _INVOKEDYNAMIC:
            dynamic = pool.dynamic(_U2(code, pos + 1)[0])
            bootstrap = cls.bootstrap_methods[dynamic.bootstrap]
            handles.update(arg.value for arg in bootstrap.arguments if isinstance(arg.value, MethodHandle))
        elif op in _BRANCHES:
            targets.add(pos + _S2(code, pos + 1)[0])
        elif op in (0xC8, 0xC9):
            targets.add(pos + _S4(code, pos + 1)[0])
        if op in _BRANCHES or op in (0xC8, 0xC9):
            offset = _S2(code, pos + 1)[0] if op in _BRANCHES else _S4(code, pos + 1)[0]
            loops |= offset <= 0
        if op == _TABLESWITCH:
            start = pos + 4 - pos % 4
            low, high = _S4(code, start + 4)[0], _S4(code, start + 8)[0]
            count = high - low + 1
            targets.update(pos + _S4(code, at)[0] for at in (start, *range(start + 12, start + 12 + 4 * count, 4)))
            pos = start + 12 + 4 * count
        elif op == _LOOKUPSWITCH:
            start = pos + 4 - pos % 4
            count = _S4(code, start + 4)[0]
            targets.update(pos + _S4(code, at)[0] for at in (start, *range(start + 12, start + 12 + 8 * count, 8)))
            pos = start + 8 + 8 * count
        elif op == _WIDE:
            opcodes.add(code[pos + 1])
            pos += 6 if code[pos + 1] == _IINC else 4
        else:
            pos += _LENGTHS[op]
    if pos != end:
        raise ClassFileError(f"{cls.name}#{name}{descriptor}: an instruction runs past the code's end")
    # a call a jump lands on may get its argument from another path (``c ? "a" : "b"`` loads "a", jumps
    # past "b"'s load to the call): its string is not known
    last_strings = {(ref, None if at in targets else loading) for at, ref, loading in after_string}
    return MethodBody(
        access,
        name,
        descriptor,
        frozenset(calls),
        frozenset(created),
        frozenset(statics),
        frozenset(strings),
        frozenset(handles),
        frozenset(last_strings),
        frozenset(opcodes),
        frozenset(tags),
        loops,
    )


def method_bodies(data: bytes) -> tuple[ClassFile, tuple[MethodBody, ...]]:
    """The class and each of its methods' bodies (an abstract or native method's is empty)."""
    cls = parse(data)
    pool = ConstantPool(data, cls.major)
    pos = pool.end + 6
    pos += 2 + 2 * _U2(data, pos)[0]  # interfaces
    pos += 2
    for _ in range(_U2(data, pos - 2)[0]):  # fields: skipped with their attributes
        pos += 8
        for _ in range(_U2(data, pos - 2)[0]):
            pos += 6 + _U4(data, pos + 2)[0]
    pos += 2
    bodies = []
    for _ in range(_U2(data, pos - 2)[0]):
        access, name, descriptor = _U2(data, pos)[0], pool.utf8(_U2(data, pos + 2)[0]), pool.utf8(_U2(data, pos + 4)[0])
        code = b""
        pos += 8
        for _ in range(_U2(data, pos - 2)[0]):
            length = _U4(data, pos + 2)[0]
            if pool.utf8(_U2(data, pos)[0]) == "Code":
                code = data[pos + 14 : pos + 14 + _U4(data, pos + 10)[0]]
            pos += 6 + length
        bodies.append(_decode(code, pool, cls, access, name, descriptor))
    return cls, tuple(bodies)
