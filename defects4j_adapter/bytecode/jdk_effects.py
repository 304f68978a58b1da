"""Which public members of the JDK create, write, move or delete files, open sockets or start and
signal processes: derived from the JDK's own class files (its ``jmods``), not written by hand, so
that a writer in an unexpected package (``javax.imageio.stream.FileImageOutputStream``, an XSLT
transformer writing a ``StreamResult``) is on the list because of what its code does.

The derivation is a call graph over every class of every module, walked backwards from each
effect's sinks (:data:`_SINKS`: the natives that create, write-open, delete, rename, link, chmod
and time-stamp files and directories, open and connect sockets, start and kill processes) to the
public and protected members of exported packages. A call reaches:

- for ``invokestatic`` and ``invokespecial``, the method resolution finds;
- for ``invokevirtual`` and ``invokeinterface``, the method resolution finds on the static type,
  and, where that method is abstract, every implementation in the JDK's subclasses of the type
  (a ``Transformer``, an ``ImageOutputStreamSpi``, a ``FileSystemProvider`` is whichever JDK class
  the JDK's own look-up made) -- except on the general abstractions of :data:`_GENERAL`
  (``Object``, ``Runnable``, ``Closeable``, streams, readers and writers, collections, functions,
  listeners, ``Graphics``, reflection): what a call on one of those does is decided by whoever made
  the object, and making a writing one is itself on the list (``FileWriter#<init>``,
  ``FileSystems#newFileSystem``, ``PrinterJob``). A concrete method is not resolved to overrides,
  but for the two refusing defaults of :data:`_DEFAULTS`;
- a lambda's or method reference's target, from the method that makes it, and a
  ``PrivilegedAction``'s ``run`` from the method that creates the action (the JDK's idiom:
  ``doPrivileged(new ...)``).

Static initializers are not followed: they run once per JVM, mostly before any candidate (the
JDK's start-up, JUnit, the runner), and whatever they do is not the candidate's choice; the one
effect that a candidate sets up for later, ``File#deleteOnExit``, is a sink of its own.

Opening a file is a write only with a write mode, which the opener's caller chooses: the
``RandomAccessFile`` mode constructors and the NIO channel factory (:data:`_OPENERS`) reach the
effect from a caller only if that caller names a write mode (``"rw"``, ``StandardOpenOption.WRITE``,
``CREATE``...: :data:`_WRITE_MODES`) or passes its own caller's mode on (a ``String``, an
``OpenOption[]`` or a ``Set`` parameter), so that ``Files#readAllBytes`` and ``ZipFile``, which
open for reading, stay off the list while ``Files#newOutputStream`` and ``FileChannel#open`` are
on it. :data:`_BARRIERS` names the few calls the walk does not cross, each with its reason.

What a call graph cannot show: an object the JDK makes by reflection of a class named in data
(``LogManager#readConfiguration``'s ``handlers=java.util.logging.FileHandler``, a ``ServiceLoader``'s
provider, JNDI's factories). Such members are not followed here but refused as a family in
``policy.py`` (objects of classes named in data), whatever the class named would do: walked back from
``Class#forName`` and ``ClassLoader#loadClass`` the same way, 29,106 public members of JDK 17 reach a
load by name (AWT, Swing, charsets, security providers look classes up by name everywhere), too many
to refuse, and most name only classes the JDK fixes; so the family is the members whose caller names
the class (or the data that does), decided by hand and each with its reason there.

The result is one text file per JDK (``effects-jdk<major>.txt`` beside this module), sorted, with
the JDK's version in its first line; ``policy.py`` loads it. ``scripts/jdk_effects.py``
regenerates it, and a test regenerates it on the machine's JDKs and compares.
"""

from __future__ import annotations

import re
import struct
import zipfile
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum, IntEnum
from pathlib import Path

from defects4j_adapter.bytecode.classfile import ClassFile, ConstantPool, HandleKind, Tag
from defects4j_adapter.bytecode.descriptors import java_name, java_parameters
from defects4j_adapter.bytecode.instructions import Invoke, MethodBody, method_bodies
from nl2fix.core.errors import Nl2FixError

DATA_FOLDER = Path(__file__).parent
"""Where the generated files live: ``effects-jdk11.txt``, ``effects-jdk17.txt``."""

_U2 = struct.Struct(">H").unpack_from
ACC_PUBLIC, ACC_PRIVATE, ACC_PROTECTED = 0x0001, 0x0002, 0x0004


class Effect(Enum):
    FILES = "files"
    SOCKETS = "sockets"
    PROCESSES = "processes"


_SINKS: dict[Effect, tuple[tuple[str, str], ...]] = {
    Effect.FILES: (
        ("java/io/FileOutputStream", r"open0?"),
        ("java/io/DeleteOnExitHook", "add"),  # deletes at the JVM's exit, from a hook no call reaches
        ("jdk/nio/zipfs/ZipFileSystem", "<init>"),  # a zip file system writes its file back: see _BARRIERS
        (
            "java/io/UnixFileSystem",
            r"(createFileExclusively|delete|rename|createDirectory|setPermission|setLastModifiedTime|setReadOnly)0?",
        ),
        (
            "sun/nio/fs/UnixNativeDispatcher",
            r"(mkdir|rmdir|unlink|unlinkat|rename|renameat|link|symlink|chmod|fchmod|chown|lchown|fchown|utimes|"
            r"futimes|futimens|lutimes|mknod)0?",
        ),
        ("sun/nio/fs/LinuxNativeDispatcher", r"f?(setxattr|removexattr)0?"),
    ),
    Effect.SOCKETS: (
        ("sun/nio/ch/Net", r"(socket|bind|connect|listen)0?"),
        ("sun/nio/ch/UnixDomainSockets", r"(socket|bind|connect)0?"),
        ("java/net/PlainSocketImpl", r"socket(Create|Bind|Connect|Listen)"),
        ("java/net/PlainDatagramSocketImpl", r"(datagramSocketCreate|bind0|connect0)"),
        ("sun/nio/ch/DatagramChannelImpl", r"connect0?"),
    ),
    Effect.PROCESSES: (
        ("java/lang/ProcessImpl", r"forkAndExec"),
        ("java/lang/ProcessHandleImpl", r"destroy0"),
    ),
}
"""Per effect, (class, method name regex): the natives (and, where they open with a mode, the
openers) whose call is the effect."""

_OPENERS: tuple[tuple[str, str], ...] = (
    ("java/io/RandomAccessFile", r"<init>\(L[^;]+;Ljava/lang/String;.*"),
    ("sun/nio/fs/UnixChannelFactory", r"new\w*Channel\(.*Ljava/util/Set;.*"),
    ("java/util/zip/ZipFile", r"<init>\(Ljava/io/File;I.*"),
    ("java/util/jar/JarFile", r"<init>\(Ljava/io/File;ZI.*"),
)
"""(class, ``name+descriptor`` regex): opening a file with a mode the caller chooses (see the module doc)."""

_WRITE_MODES = frozenset({"rw", "rws", "rwd"})
_WRITE_OPTIONS = frozenset({"WRITE", "APPEND", "CREATE", "CREATE_NEW", "TRUNCATE_EXISTING", "DELETE_ON_CLOSE"})
_MODE_PARAMETERS = ("Ljava/lang/String;", "[Ljava/nio/file/OpenOption;", "Ljava/util/Set;")

_DEBUG_OPTION = "writes (a dump, a log) only when a JVM option set at start-up asks for it"
_BARRIERS: dict[tuple[str, str], str] = {
    (
        "java/nio/file/spi/FileSystemProvider",
        "newInputStream",
    ): "passes its caller's options on to an opener, but refuses WRITE and APPEND first",
    ("sun/security/provider/NativePRNG$RandomIO", "implSetSeed"): "writes a seed into /dev/random, no file",
    ("java/lang/invoke/InvokerBytecodeGenerator", "maybeDump"): _DEBUG_OPTION,
    ("sun/net/sdp/SdpProvider", "<init>"): _DEBUG_OPTION,
    ("java/lang/reflect/ProxyGenerator", "generateProxyClass"): _DEBUG_OPTION,
    ("java/lang/invoke/ProxyClassesDumper", "*"): _DEBUG_OPTION,
    ("sun/java2d/loops/GraphicsPrimitive", "getTraceOutputFile"): _DEBUG_OPTION,
    ("java/io/ObjectInputStream", "*"): "runs the readObject of whatever class the data names: deserialization "
    "is refused on its own (policy.py)",
    ("jdk/nio/zipfs/ZipFileSystem", "*"): "its temporary files serve reads and writes alike; making one is the sink",
    ("sun/rmi/server/Activation$ActivatorImpl", "*"): "the activation daemon's side (rmid), never a client's",
    (
        "java/lang/SecurityManager",
        "*",
    ): "checks run only under a security manager: the test JVM has none, and a candidate may not install one",
    ("sun/net/www/http/HttpCapture", "getCapture"): _DEBUG_OPTION,
    ("java/util/zip/ZipFile$Source", "<init>"): "deletes the file only in OPEN_DELETE mode: see _OPENERS",
    (
        "sun/net/www/protocol/jar/URLJarFile",
        "retrieve",
    ): "copies a remote jar into a temporary file; fetching it needs a socket, itself on the list",
}
"""(class, method or ``*``): calls the walk does not cross, each with why what lies behind writes no file a
candidate chooses. Few, and each checked against the JDK's source."""

_GENERAL = re.compile(
    r"java/lang/(Object|Runnable|AutoCloseable|Iterable|Comparable|CharSequence|Appendable|Readable|Thread"
    r"|Thread\$UncaughtExceptionHandler|Throwable|Number|Enum|Record|ClassLoader|ClassValue|reflect/\w+)"
    r"|java/security/Privileged(Exception)?Action"
    r"|java/io/(Closeable|Flushable|InputStream|OutputStream|Reader|Writer|FilterInputStream|FilterOutputStream"
    r"|DataInput|DataOutput|ObjectInput|ObjectOutput|FileFilter|FilenameFilter)"
    r"|java/util/[^/]+|java/util/(function|stream|concurrent)/.*"
    r"|java/nio/channels/(spi/)?\w*Channel|java/util/logging/Handler|[\w/$]+Listener|java/awt/Graphics(2D)?"
)
"""The general abstractions: calls on them are not resolved to the JDK's implementations (see the module doc)."""

_DEFAULTS = frozenset(
    {
        ("java/nio/file/spi/FileSystemProvider", "newFileChannel"),
        ("java/nio/file/spi/FileSystemProvider", "newAsynchronousFileChannel"),
    }
)
"""Concrete methods that only refuse, overridden by the JDK's providers: resolved like abstract ones."""
_ACTIONS = re.compile(r"java/security/Privileged(Exception)?Action")

EXCLUDED_PACKAGES = ("sun/", "jdk/", "com/sun/")
"""Left out of the output: ``policy.py`` refuses these packages whole."""


class JdkEffectsError(Nl2FixError):
    """The JDK's class files cannot be read (no ``jmods`` folder: a JRE, or a JDK built without them)."""


@dataclass(frozen=True)
class _Class:
    file: ClassFile
    methods: Mapping[tuple[str, str], MethodBody]


def jdk_version(jdk: Path) -> str:
    """``17.0.15``, from the JDK's ``release`` file."""
    release = jdk / "release"
    found = re.search(r'^JAVA_VERSION="([^"]+)"', release.read_text(), re.M) if release.is_file() else None
    if not found:
        raise JdkEffectsError(f"{jdk} has no release file naming its JAVA_VERSION: is it a JDK?")
    return found[1]


def _exports(pool: ConstantPool, data: bytes) -> Iterator[str]:
    """The packages a module-info exports to everyone (JVMS 4.7.25)."""
    pos = pool.end + 14
    for _ in range(_U2(data, pos - 2)[0]):
        name, length = pool.utf8(_U2(data, pos)[0]), struct.unpack_from(">I", data, pos + 2)[0]
        if name == "Module":
            at = pos + 14
            at += 6 * _U2(data, at - 2)[0] + 2  # requires
            for _ in range(_U2(data, at - 2)[0]):
                package, targets = _U2(data, at)[0], _U2(data, at + 4)[0]
                if targets == 0:
                    yield pool.utf8(pool.values[package])
                at += 6 + 2 * targets
        pos += 6 + length


def _read(jdk: Path) -> tuple[dict[str, _Class], set[str]]:
    """Every class of every module, and the exported packages (internal names)."""
    jmods = sorted((jdk / "jmods").glob("*.jmod"))
    if not jmods:
        raise JdkEffectsError(f"{jdk}/jmods holds no modules: the JDK's class files are read from there")
    classes: dict[str, _Class] = {}
    exported: set[str] = set()
    for jmod in jmods:
        with zipfile.ZipFile(jmod) as archive:
            for entry in archive.infolist():
                if not (entry.filename.startswith("classes/") and entry.filename.endswith(".class")):
                    continue
                data = archive.read(entry)
                if entry.filename == "classes/module-info.class":
                    major = _U2(data, 6)[0]
                    exported.update(_exports(ConstantPool(data, major), data))
                    continue
                file, bodies = method_bodies(data)
                classes[file.name] = _Class(file, {(b.name, b.descriptor): b for b in bodies})
    return classes, exported


Method = tuple[str, str, str]
"""(class, name, descriptor)."""


class _Graph:
    def __init__(self, classes: Mapping[str, _Class]):
        self.classes = classes
        self.children: dict[str, list[str]] = defaultdict(list)
        for name, cls in classes.items():
            for parent in (cls.file.super_name, *cls.file.interfaces):
                if parent:
                    self.children[parent].append(name)
        self._descendants: dict[str, frozenset[str]] = {}

    def supertypes(self, name: str) -> Iterator[str]:
        """``name``, its superclasses, then its interfaces, breadth first: resolution's order."""
        seen, todo = set(), [name]
        while todo:
            current = todo.pop(0)
            if current in seen or current not in self.classes:
                continue
            seen.add(current)
            yield current
            file = self.classes[current].file
            todo.extend([file.super_name] if file.super_name else [])
            todo.extend(file.interfaces)

    def descendants(self, name: str) -> frozenset[str]:
        found = self._descendants.get(name)
        if found is None:
            seen: set[str] = set()
            todo = list(self.children.get(name, ()))
            while todo:
                child = todo.pop()
                if child not in seen:
                    seen.add(child)
                    todo.extend(self.children.get(child, ()))
            found = self._descendants[name] = frozenset(seen)
        return found

    def resolve(self, owner: str, name: str, descriptor: str) -> Method | None:
        for cls in self.supertypes(owner):
            if (name, descriptor) in self.classes[cls].methods:
                return cls, name, descriptor
        return None

    def targets(self, how: Invoke | HandleKind, owner: str, name: str, descriptor: str) -> Iterator[Method]:
        resolved = self.resolve(owner, name, descriptor)
        if resolved:
            yield resolved
        if how in (
            Invoke.STATIC,
            HandleKind.INVOKE_STATIC,
            Invoke.SPECIAL,
            HandleKind.INVOKE_SPECIAL,
            HandleKind.NEW_INVOKE_SPECIAL,
        ):
            return
        abstract = resolved is not None and self.classes[resolved[0]].methods[resolved[1:]].is_abstract
        if _GENERAL.fullmatch(owner) or not (abstract or (owner, name) in _DEFAULTS):
            return
        for cls in self.descendants(owner):
            body = self.classes[cls].methods.get((name, descriptor))
            if body and not body.is_abstract and not body.is_static:
                yield cls, name, descriptor

    def callees(self, method: Method) -> Iterator[Method]:
        cls, name, descriptor = method
        body = self.classes[cls].methods[method[1:]]
        for how, ref in body.calls:
            yield from self.targets(how, ref.owner, ref.name, ref.descriptor)
        for handle in body.handles:
            if handle.member.kind is not Tag.FIELDREF:
                yield from self.targets(handle.kind, handle.member.owner, handle.member.name, handle.member.descriptor)
        for created in body.created:  # the JDK's idiom: an action made here runs here, in doPrivileged
            if any(_ACTIONS.fullmatch(p) for p in self.supertypes(created)):
                yield from (
                    target for key in self.classes[created].methods if key[0] == "run" for target in [(created, *key)]
                )


class _Reach(IntEnum):
    NONE = 0
    WITH_MODE = 1
    """Reaches the effect if its caller's mode (a parameter) asks for a write."""
    ALWAYS = 2


def _names_write_mode(body: MethodBody) -> bool:
    return bool(body.strings & _WRITE_MODES) or any(
        ref.owner == "java/nio/file/StandardOpenOption" and ref.name in _WRITE_OPTIONS for ref in body.statics
    )


def _passes_mode(body: MethodBody) -> bool:
    parameters = body.descriptor[1 : body.descriptor.index(")")]
    return any(p in parameters for p in _MODE_PARAMETERS)


def _matching(
    classes: Mapping[str, _Class], patterns: Iterable[tuple[str, str]], with_descriptor: bool
) -> Iterator[Method]:
    for owner, pattern in patterns:
        cls = classes.get(owner)
        for name, descriptor in cls.methods if cls else ():
            if re.fullmatch(pattern, name + descriptor if with_descriptor else name):
                yield owner, name, descriptor


def _callers(graph: _Graph) -> dict[Method, set[Method]]:
    callers: dict[Method, set[Method]] = defaultdict(set)
    for cls_name, cls in graph.classes.items():
        for key in cls.methods:
            method = (cls_name, *key)
            for callee in graph.callees(method):
                callers[callee].add(method)
    return callers


def _reach(graph: _Graph, callers: Mapping[Method, set[Method]], effect: Effect) -> dict[Method, _Reach]:
    """Every method that reaches ``effect``, walked backwards from its sinks to a fixed point."""
    reach: dict[Method, _Reach] = {}
    todo: list[Method] = []

    def raise_to(method: Method, level: _Reach) -> None:
        if level > reach.get(method, _Reach.NONE):
            reach[method] = level
            todo.append(method)

    for sink in _matching(graph.classes, _SINKS[effect], with_descriptor=False):
        raise_to(sink, _Reach.ALWAYS)
    openers = set(_matching(graph.classes, _OPENERS, with_descriptor=True)) if effect is Effect.FILES else set()
    for opener in openers:
        raise_to(opener, _Reach.WITH_MODE)
    while todo:
        callee = todo.pop()
        level = reach[callee]
        for caller in callers.get(callee, ()):
            # an opener's own level is its mode's, whatever lies behind it
            if caller[:2] in _BARRIERS or (caller[0], "*") in _BARRIERS or caller in openers:
                continue
            body = graph.classes[caller[0]].methods[caller[1:]]
            if level is _Reach.ALWAYS or _names_write_mode(body):
                raise_to(caller, _Reach.ALWAYS)
            elif _passes_mode(body):
                raise_to(caller, _Reach.WITH_MODE)
    return reach


def _visible(graph: _Graph, exported: set[str]) -> Iterator[tuple[str, Method]]:
    """(class, method) for each public or protected method a class of an exported package has,
    declared or inherited: a reference names the receiver's static type."""
    for name, cls in graph.classes.items():
        package = name.rpartition("/")[0]
        if package not in exported or name.startswith(EXCLUDED_PACKAGES) or not cls.file.access & ACC_PUBLIC:
            continue
        seen: set[tuple[str, str]] = set()
        for owner in graph.supertypes(name):
            for key, body in graph.classes[owner].methods.items():
                inherited = owner != name
                if (
                    key in seen
                    or not body.access & (ACC_PUBLIC | ACC_PROTECTED)
                    or key[0] == "<clinit>"
                    or (inherited and (key[0] == "<init>" or body.is_static))
                ):
                    continue
                seen.add(key)
                yield name, (owner, *key)


def _called(graph: _Graph, static_type: str, method: Method) -> Iterator[Method]:
    """What a reference to ``method`` through ``static_type`` may run: an abstract method's JDK implementations too."""
    body = graph.classes[method[0]].methods[method[1:]]
    how = Invoke.SPECIAL if method[1] == "<init>" or body.is_static else Invoke.VIRTUAL
    return graph.targets(how, static_type, method[1], method[2])


def derive(jdk: Path) -> dict[Effect, list[str]]:
    """Per effect, the sorted members (``java.io.File#delete()``) of the JDK at ``jdk`` that reach it."""
    classes, exported = _read(jdk)
    graph = _Graph(classes)
    callers = _callers(graph)
    visible = list(_visible(graph, exported))
    found: dict[Effect, list[str]] = {}
    for effect in Effect:
        reach = _reach(graph, callers, effect)
        found[effect] = sorted(
            {
                f"{java_name(name)}#{method[1]}{java_parameters(method[2])}"
                for name, method in visible
                if any(t in reach for t in _called(graph, name, method))
            }
        )
    return found


def data_file(major: int) -> Path:
    return DATA_FOLDER / f"effects-jdk{major}.txt"


def render(version: str, effects: Mapping[Effect, list[str]]) -> str:
    lines = [f"# JDK {version}: members that reach an effect; generated by scripts/jdk_effects.py, do not edit"]
    lines += [f"{effect.value} {member}" for effect in Effect for member in effects[effect]]
    return "\n".join(lines) + "\n"


def load(path: Path) -> tuple[str, dict[Effect, frozenset[str]]]:
    """The JDK version and, per effect, the members a generated file lists."""
    header, *lines = path.read_text().splitlines()
    version = header.split()[2].rstrip(":")
    members: dict[Effect, set[str]] = {effect: set() for effect in Effect}
    for line in lines:
        effect, member = line.split(" ", 1)
        members[Effect(effect)].add(member)
    return version, {effect: frozenset(found) for effect, found in members.items()}
