"""Static initialisers that compute their class's tables from nothing but constants, rewritten to take the
values from the runner (``nl2fix.runner.Statics``) instead of computing them again in every job.

A job's class loader is new, so every class's static initialiser runs again in every job, and its code runs
interpreted each time (the JIT's work is per class, and each loader's class is another). Commons Math 2.x's
``FastMath`` computes its exponential and logarithm tables so: 0.22-0.36 CPU-s in each loader that touches it
(a validation job, a probe's job and its twin), more than the rest of many a job.

An initialiser qualifies only when it is *closed*: it and every method of its own class it calls (static ones,
looked at likewise) create no object but arrays, call nothing but those methods and the JDK's pure arithmetic
(:data:`PURE_JDK`), read and write no static field but its class's own, load no constant but numbers and
strings, and take no lock. Its result is then the same in every loader and every JVM: the runner computes it
once a JVM in a loader of its own, before any job's code runs, and the rewritten initialiser sets each static
field to a copy of it (arrays copied whole, so nothing one job changes reaches another). A class the candidate's
file declares is never rewritten: its initialiser may call the candidate's method. Pure."""

from __future__ import annotations

import functools
import os
import struct
from collections.abc import Iterable
from pathlib import Path

from defects4j_adapter.bytecode.classfile import ClassFileError, ConstantPool, Tag
from defects4j_adapter.bytecode.instructions import Invoke, MethodBody, method_bodies

SWITCH = "NL2FIX_CLOSED_INIT"
"""``0`` leaves every static initialiser as it is (e.g. to compare the two)."""
RUNNER = "nl2fix/runner/Statics"
"""The runner's class the rewritten initialiser asks for each field's value."""
_GETTERS = {
    "Z": ("getBoolean", "Z"),
    "B": ("getByte", "B"),
    "C": ("getChar", "C"),
    "S": ("getShort", "S"),
    "I": ("getInt", "I"),
    "J": ("getLong", "J"),
    "F": ("getFloat", "F"),
    "D": ("getDouble", "D"),
}
"""Per primitive field type, the runner's getter and its return type; a reference field's is ``get``."""

_BIT_METHODS = {
    "java/lang/Double": frozenset({"longBitsToDouble", "doubleToRawLongBits", "doubleToLongBits", "isNaN"}),
    "java/lang/Float": frozenset({"intBitsToFloat", "floatToRawIntBits", "floatToIntBits", "isNaN"}),
}
_NOT_PURE = frozenset({"random"})
PURE_JDK = frozenset({"java/lang/Math", "java/lang/StrictMath", *_BIT_METHODS})
"""The JDK classes whose static methods a closed initialiser may call: arithmetic on its arguments alone
(``Math.random`` excepted; of ``Double`` and ``Float`` their bit conversions alone)."""

_FORBIDDEN = frozenset(
    {
        0xB4,  # getfield
        0xB5,  # putfield
        0xB6,  # invokevirtual
        0xB7,  # invokespecial
        0xB9,  # invokeinterface
        0xBA,  # invokedynamic
        0xBB,  # new
        0xC2,  # monitorenter
        0xC3,  # monitorexit
        0xA8,  # jsr
        0xA9,  # ret
        0xC9,  # jsr_w
    }
)
_CONSTANTS = frozenset({Tag.INTEGER, Tag.FLOAT, Tag.LONG, Tag.DOUBLE, Tag.STRING})
ACC_STATIC, ACC_NATIVE, ACC_INTERFACE = 0x0008, 0x0100, 0x0200
_LDC_W, _INVOKESTATIC, _CHECKCAST, _PUTSTATIC, _RETURN = 0x13, 0xB8, 0xC0, 0xB3, 0xB1
_U2 = struct.Struct(">H")
_U4 = struct.Struct(">I")


def _pure_jdk(owner: str, name: str) -> bool:
    if owner in _BIT_METHODS:
        return name in _BIT_METHODS[owner]
    return owner in PURE_JDK and name not in _NOT_PURE


def _reached(name: str, bodies: dict[tuple[str, str], MethodBody], fields: frozenset[str]) -> list[MethodBody] | None:
    """The static initialiser and the methods of the class it calls, when all of them are closed; else None."""
    todo, seen = [("<clinit>", "()V")], set()
    reached = []
    while todo:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        body = bodies.get(key)
        if body is None or not body.is_static or body.is_native or body.opcodes & _FORBIDDEN:
            return None
        if not body.constant_tags <= _CONSTANTS:
            return None
        if any(ref.owner != name or ref.name not in fields for ref in body.statics):
            return None
        for invoke, ref in body.calls:
            if invoke is not Invoke.STATIC:
                return None
            if ref.owner == name:
                todo.append((ref.name, ref.descriptor))
            elif not _pure_jdk(ref.owner, ref.name):
                return None
        reached.append(body)
    return reached


def _static_fields(data: bytes, pool: ConstantPool) -> tuple[list[tuple[str, str]], list[tuple[str, str]], int]:
    """The class's static fields without a constant value (name, descriptor), those with one, and where the method
    table begins."""
    pos = pool.end + 6
    pos += 2 + 2 * _U2.unpack_from(data, pos)[0]
    computed: list[tuple[str, str]] = []
    constant: list[tuple[str, str]] = []
    count = _U2.unpack_from(data, pos)[0]
    pos += 2
    for _ in range(count):
        access, name, descriptor, attributes = struct.unpack_from(">HHHH", data, pos)
        pos += 8
        has_constant = False
        for _ in range(attributes):
            has_constant |= pool.utf8(_U2.unpack_from(data, pos)[0]) == "ConstantValue"
            pos += 6 + _U4.unpack_from(data, pos + 2)[0]
        if access & ACC_STATIC:
            (constant if has_constant else computed).append((pool.utf8(name), pool.utf8(descriptor)))
    return computed, constant, pos


class _Pool:
    """Constant pool entries appended to a class file's."""

    def __init__(self, count: int):
        self.next, self.raw = count, bytearray()
        self._known: dict[tuple, int] = {}

    def _add(self, key: tuple, raw: bytes, slots: int = 1) -> int:
        if key not in self._known:
            self._known[key] = self.next
            self.raw += raw
            self.next += slots
        return self._known[key]

    def utf8(self, text: str) -> int:
        encoded = text.encode("ascii")  # names outside ASCII: the caller gives up (modified UTF-8 differs)
        return self._add(("utf8", text), bytes([Tag.UTF8]) + _U2.pack(len(encoded)) + encoded)

    def klass(self, internal: str) -> int:
        return self._add(("class", internal), bytes([Tag.CLASS]) + _U2.pack(self.utf8(internal)))

    def string(self, text: str) -> int:
        return self._add(("string", text), bytes([Tag.STRING]) + _U2.pack(self.utf8(text)))

    def member(self, tag: Tag, owner: str, name: str, descriptor: str) -> int:
        pair = _U2.pack(self.utf8(name)) + _U2.pack(self.utf8(descriptor))
        nat = self._add(("nat", name, descriptor), bytes([Tag.NAME_AND_TYPE]) + pair)
        return self._add((tag, owner, name, descriptor), bytes([tag]) + _U2.pack(self.klass(owner)) + _U2.pack(nat))


def _initialiser(pool: _Pool, name: str, fields: Iterable[tuple[str, str]]) -> bytes:
    """The rewritten ``<clinit>``'s code: each field set to the runner's copy of its value."""
    code = bytearray()
    this = pool.klass(name)
    for field, descriptor in fields:
        getter, returns = _GETTERS.get(descriptor, ("get", "Ljava/lang/Object;"))
        code += bytes([_LDC_W]) + _U2.pack(this) + bytes([_LDC_W]) + _U2.pack(pool.string(field))
        call = pool.member(Tag.METHODREF, RUNNER, getter, f"(Ljava/lang/Class;Ljava/lang/String;){returns}")
        code += bytes([_INVOKESTATIC]) + _U2.pack(call)
        if descriptor not in _GETTERS and descriptor != "Ljava/lang/Object;":
            cast = descriptor if descriptor.startswith("[") else descriptor[1:-1]
            code += bytes([_CHECKCAST]) + _U2.pack(pool.klass(cast))
        code += bytes([_PUTSTATIC]) + _U2.pack(pool.member(Tag.FIELDREF, name, field, descriptor))
    return bytes(code + bytes([_RETURN]))


def rewritten(data: bytes) -> bytes | None:
    """The class file with its static initialiser taking every computed static field's value from the runner, when
    the initialiser is closed and does work worth skipping (a loop, in it or a method it calls); else None."""
    cls, bodies = method_bodies(data)
    if cls.access & ACC_INTERFACE or cls.major < 49:  # ldc of a class constant needs Java 5's class files
        return None
    pool = ConstantPool(data, cls.major)
    computed, constant, methods_at = _static_fields(data, pool)
    own_fields = frozenset(f for f, _ in computed + constant)
    reached = _reached(cls.name, {(b.name, b.descriptor): b for b in bodies}, own_fields)
    if reached is None or not any(body.loops for body in reached):
        return None
    count = _U2.unpack_from(data, 8)[0]
    added = _Pool(count)
    try:
        code = _initialiser(added, cls.name, computed)
    except UnicodeEncodeError:
        return None
    if added.next > 0xFFFF:
        return None
    out = bytearray(data[:8]) + _U2.pack(added.next) + data[10 : pool.end] + added.raw + data[pool.end : methods_at + 2]
    pos = methods_at + 2
    for _ in range(_U2.unpack_from(data, methods_at)[0]):
        _, name, descriptor, attributes = struct.unpack_from(">HHHH", data, pos)
        out += data[pos : pos + 8]
        pos += 8
        is_init = (pool.utf8(name), pool.utf8(descriptor)) == ("<clinit>", "()V")
        for _ in range(attributes):
            attribute, length = _U2.unpack_from(data, pos)[0], _U4.unpack_from(data, pos + 2)[0]
            if is_init and pool.utf8(attribute) == "Code":
                # max_stack 2 (the class and the name; a long or a double back), no locals, no handlers, no attributes
                body = _U2.pack(2) + _U2.pack(0) + _U4.pack(len(code)) + code + _U2.pack(0) + _U2.pack(0)
                out += _U2.pack(attribute) + _U4.pack(len(body)) + body
            else:
                out += data[pos : pos + 6 + length]
            pos += 6 + length
    return bytes(out + data[pos:])


def classes(classes_dir: Path) -> dict[str, bytes]:
    """The rewritten class files (binary names with dots) of the compiled classes under ``classes_dir``, once a
    folder and process (a workspace's classes do not change; Commons Math's 700 are read in 0.3 s)."""
    return _classes(str(classes_dir)) if os.environ.get(SWITCH, "1") != "0" else {}


@functools.lru_cache(maxsize=32)
def _classes(classes_dir: str) -> dict[str, bytes]:
    found = {}
    root = Path(classes_dir)
    for path in sorted(root.rglob("*.class")):
        data = path.read_bytes()
        if b"<clinit>" not in data:
            continue
        try:
            made = rewritten(data)
        except (ClassFileError, ValueError, IndexError, struct.error):
            # a class file this reader does not take is left as it is
            continue
        if made is not None:
            found[".".join(path.relative_to(root).with_suffix("").parts)] = made
    return found
