"""The class file reader on real-world input (JUnit's jar, a varied file javac compiled, a module
descriptor, a newer JDK's class files) and on hand-made and damaged bytes: what it reads, and that
whatever is wrong is a ClassFileError and nothing else."""

from __future__ import annotations

import random
import subprocess
import zipfile
from pathlib import Path

import pytest

from defects4j_adapter.bytecode.classfile import (
    ACC_MODULE,
    ClassFileError,
    Constant,
    Dynamic,
    HandleKind,
    MemberRef,
    MethodHandle,
    Tag,
    parse,
)
from tests.helpers.javac import compile_java

JUNIT_JAR = Path("/usr/share/java/junit4.jar")
JDK25_JAVAC = Path("/usr/lib/jvm/temurin-25-jdk-amd64/bin/javac")

VARIED = """package p;

import java.util.function.Supplier;

public class Varied implements Comparable<Varied> {
    static final long BIG = 1L << 40;
    static final double HALF = 0.5;
    static final String ODD = "nul\\0 and \\uD83D\\uDE00";
    private final Notifier notifier = new Notifier();
    enum Mode { ON, OFF }

    public int compareTo(Varied other) { return 0; }

    Object everything(Mode mode, int[] numbers) throws Exception {
        Runnable stop = notifier::pleaseStop;
        Supplier<String> text = () -> ODD + numbers.length + mode;
        Runnable each = new Runnable() { public void run() { stop.run(); } };
        class Local { Object grid() { return new Thread[2][3]; } }
        switch (mode) { case ON: each.run(); break; default: break; }
        switch (text.get()) { case "a": return ThreadGroup[].class; default: break; }
        Runnable iface = each::run;
        float f = 1.5f;
        return new Local().grid().toString() + BIG + HALF + f + Thread.currentThread().getContextClassLoader()
            + iface;
    }
}

class Notifier {
    void pleaseStop() { }
}
"""


@pytest.fixture(scope="module")
def varied(tmp_path_factory) -> dict[str, bytes]:
    out = compile_java({"p/Varied.java": VARIED}, tmp_path_factory.mktemp("varied"), "--release", "11")
    return {str(path.relative_to(out).with_suffix("")): path.read_bytes() for path in out.rglob("*.class")}


def test_every_class_of_junit4_is_read():
    if not JUNIT_JAR.is_file():
        pytest.skip(f"{JUNIT_JAR} is not installed")
    with zipfile.ZipFile(JUNIT_JAR) as jar:
        names = [n for n in jar.namelist() if n.endswith(".class")]
        assert len(names) > 200
        for name in names:
            cls = parse(jar.read(name))
            assert cls.name == name.removesuffix(".class")


def test_a_varied_file_is_read_whole(varied):
    cls = parse(varied["p/Varied"])
    assert (cls.major, cls.name, cls.super_name, cls.interfaces) == (
        55,
        "p/Varied",
        "java/lang/Object",
        ("java/lang/Comparable",),
    )
    assert cls.source_file == "Varied.java"
    refs = cls.references
    assert "nul\0 and \U0001f600" in refs.strings  # modified UTF-8: NUL in two bytes, a surrogate pair
    assert {"java/lang/ThreadGroup", "java/lang/Thread", "java/lang/ClassLoader"} <= refs.classes  # arrays, descriptors
    assert MemberRef(Tag.METHODREF, "p/Notifier", "pleaseStop", "()V") in refs.members
    please_stop = MethodHandle(HandleKind.INVOKE_VIRTUAL, MemberRef(Tag.METHODREF, "p/Notifier", "pleaseStop", "()V"))
    assert please_stop in refs.handles
    assert any(Constant(Tag.METHOD_HANDLE, please_stop) in b.arguments for b in cls.bootstrap_methods)
    assert (
        MethodHandle(
            HandleKind.INVOKE_INTERFACE, MemberRef(Tag.INTERFACE_METHODREF, "java/lang/Runnable", "run", "()V")
        )
        in refs.handles
    )
    lambdas = [m for m in cls.methods if m.name.startswith("lambda$")]
    assert lambdas and all(m.synthetic for m in lambdas)
    assert not any(m.synthetic for m in cls.methods if m.name == "compareTo" and "Varied" in m.descriptor)
    assert any(m.synthetic for m in cls.methods if m.name == "compareTo" and "Object" in m.descriptor)  # bridge
    assert {entry.name for entry in cls.inner_classes} >= {"p/Varied$Mode", "p/Varied$1", "p/Varied$1Local"}


def test_nested_classes_say_where_they_are_declared(varied):
    anonymous, local, member = (parse(varied[n]) for n in ("p/Varied$1", "p/Varied$1Local", "p/Varied$Mode"))
    assert anonymous.own_entry and anonymous.own_entry.outer is None and anonymous.own_entry.simple_name is None
    assert anonymous.enclosing_method and anonymous.enclosing_method.method == "everything"
    assert local.own_entry and local.own_entry.simple_name == "Local"
    assert member.own_entry and member.own_entry.outer == "p/Varied" and member.enclosing_method is None
    assert parse(varied["p/Varied"]).own_entry is None


def test_a_module_descriptor_is_read(tmp_path):
    out = compile_java(
        {"m/module-info.java": "module m { exports p; }", "m/p/A.java": "package p; public class A { }"},
        tmp_path,
        "--release",
        "11",
    )
    cls = parse((out / "module-info.class").read_bytes())
    assert cls.access & ACC_MODULE and cls.super_name is None and cls.name == "module-info"


def test_class_files_of_a_newer_jdk_are_read(tmp_path):
    if not JDK25_JAVAC.is_file():
        pytest.skip("no JDK 25")
    source = tmp_path / "R.java"
    source.write_text(
        "record R(int a, String b) { Object kind(Object o) { return switch (o) { "
        'case Integer i when i > 0 -> "positive"; case String s -> s; default -> o; }; } }'
    )
    subprocess.run([str(JDK25_JAVAC), "-d", str(tmp_path), str(source)], check=True)
    cls = parse((tmp_path / "R.class").read_bytes())
    assert cls.major == 69 and cls.super_name == "java/lang/Record"
    assert any(b.handle.member.owner == "java/lang/runtime/SwitchBootstraps" for b in cls.bootstrap_methods)


# Hand-made class files: the constant pool given entry by entry.


def u2(n: int) -> bytes:
    return n.to_bytes(2, "big")


def utf8(text: bytes) -> bytes:
    return b"\x01" + u2(len(text)) + text


def entry(tag: Tag, *indices: int) -> bytes:
    return bytes([tag]) + b"".join(map(u2, indices))


BASE_POOL = [utf8(b"p/A"), entry(Tag.CLASS, 1), utf8(b"java/lang/Object"), entry(Tag.CLASS, 3)]
"""#2 is the class, #4 its superclass."""


def assemble(
    pool: list[bytes],
    attributes: list[tuple[int, bytes]] = (),
    major: int = 55,
    access: int = 0x21,
    this: int = 2,
    slots: int | None = None,
) -> bytes:
    count = 1 + (slots if slots is not None else len(pool))
    return (
        b"\xca\xfe\xba\xbe"
        + u2(0)
        + u2(major)
        + u2(count)
        + b"".join(pool)
        + u2(access)
        + u2(this)
        + u2(4)
        + u2(0)
        + u2(0)
        + u2(0)
        + u2(len(attributes))
        + b"".join(u2(name) + len(body).to_bytes(4, "big") + body for name, body in attributes)
    )


def test_a_hand_made_class_with_every_constant_kind_is_read():
    pool = BASE_POOL + [
        utf8(b"java/lang/invoke/ConstantBootstraps"),
        entry(Tag.CLASS, 5),  # 5, 6
        utf8(b"nullConstant"),  # 7
        utf8(b"(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/Object;"),
        entry(Tag.NAME_AND_TYPE, 7, 8),
        entry(Tag.METHODREF, 6, 9),  # 9, 10
        bytes([Tag.METHOD_HANDLE, HandleKind.INVOKE_STATIC]) + u2(10),  # 11
        utf8(b"x"),
        utf8(b"Ljava/lang/ThreadGroup;"),
        entry(Tag.NAME_AND_TYPE, 12, 13),  # 12-14
        entry(Tag.DYNAMIC, 0, 14),
        utf8(b"BootstrapMethods"),  # 15, 16
        bytes([Tag.LONG]) + (7).to_bytes(8, "big"),  # 17 (and 18)
        bytes([Tag.DOUBLE]) + bytes(8),
        bytes([Tag.INTEGER]) + bytes(4),
        bytes([Tag.FLOAT]) + bytes(4),  # 19, 21, 22
        utf8(b"()V"),
        entry(Tag.METHOD_TYPE, 23),
        entry(Tag.STRING, 26),  # 23-25
        utf8(b"nul\xc0\x80 \xed\xa0\xbd\xed\xb8\x80"),  # 26
    ]
    bootstrap = u2(1) + u2(11) + u2(4) + u2(15) + u2(24) + u2(17) + u2(25)
    cls = parse(assemble(pool, [(16, bootstrap)], slots=len(pool) + 2))
    (method,) = cls.bootstrap_methods
    assert method.handle.member.name == "nullConstant"
    assert method.arguments == (
        Constant(Tag.DYNAMIC, Dynamic(0, "x", "Ljava/lang/ThreadGroup;")),
        Constant(Tag.METHOD_TYPE, "()V"),
        Constant(Tag.LONG, 7),
        Constant(Tag.STRING, "nul\0 \U0001f600"),
    )  # modified UTF-8's NUL and surrogates
    assert "java/lang/ThreadGroup" in cls.references.classes


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\xca\xfe\xba\xbf" + bytes(20), "not a class file"),
        (assemble(BASE_POOL, major=70), "version 70.0"),
        (assemble(BASE_POOL + [bytes([2]) + bytes(4)]), "unknown tag 2"),
        (assemble(BASE_POOL + [entry(Tag.STRING, 4)]), "index 4 is not a UTF8"),
        (assemble(BASE_POOL, this=3), "index 3 is not a CLASS"),
        (assemble(BASE_POOL + [entry(Tag.METHOD_TYPE, 3)], major=50), "METHOD_TYPE in a version 50"),
        (assemble(BASE_POOL + [bytes([Tag.LONG]) + bytes(8)]), "last slot"),
        (assemble(BASE_POOL + [utf8(b"a\x00b")]), "modified UTF-8 never has"),
        (assemble(BASE_POOL + [utf8(b"\xf0\x9f\x98\x80")]), "modified UTF-8 never has"),
        (assemble(BASE_POOL + [utf8(b"\xc0\x81")]), "not modified UTF-8"),
        (assemble(BASE_POOL + [entry(Tag.PACKAGE, 1)]), "outside module-info"),
        (assemble(BASE_POOL + [utf8(b"SourceFile")], [(5, u2(1)), (5, u2(1))]), "two SourceFile"),
        (assemble(BASE_POOL + [utf8(b"SourceFile")], [(5, u2(1) + b"\x00")]), "3 bytes where 2"),
        (assemble(BASE_POOL) + b"\x00", "1 bytes after"),
        (assemble(BASE_POOL + [entry(Tag.CLASS, 6), utf8(b"a;b")]), "malformed class"),
        (assemble(BASE_POOL + [entry(Tag.DYNAMIC, 0, 0)]), "not a NAME_AND_TYPE"),
    ],
)
def test_malformed_class_files_are_refused_clearly(data, message):
    with pytest.raises(ClassFileError, match=message):
        parse(data)


def test_a_class_file_cut_anywhere_is_refused(varied):
    data = varied["p/Notifier"]
    for end in range(len(data)):
        with pytest.raises(ClassFileError):
            parse(data[:end])


def test_damaged_bytes_are_a_class_file_error_or_a_class_never_a_crash(varied):
    data = varied["p/Varied$1Local"]
    rng = random.Random(19)
    for _ in range(3000):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        try:
            parse(bytes(damaged))
        except ClassFileError:
            pass
