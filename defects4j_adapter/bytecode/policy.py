"""What a candidate may not add: the one list of references a candidate's compiled classes may not
hold unless the buggy version's classes (of the same source file) already do, each with why it
reaches the harness or the candidates judged after it. The candidate's code shares the test JVM
with nl2fix's runner and JUnit, and Defects4J's verdict is files that JVM writes.

How a reference is written, and what a pattern matches:

- a class: its binary name, ``java.lang.StackWalker$Option``;
- a field or method: ``java.lang.Runtime#halt``, and a method also with its parameter types,
  ``java.io.PrintWriter#<init>(java.io.File, java.lang.String)`` (constructors are ``<init>``);
  the class is the one the reference names, which for a call is the receiver's static type;
- a string constant: its text in double quotes, ``"/proc/self/fd/0"``.

A pattern is such a text with ``*`` for any run of characters and ``{a,b}`` for alternatives.
A pattern without ``#`` (a class or a package) also matches every field and method of its
classes, and a class's pattern its nested classes: ``java.lang.ClassLoader`` matches
``java.lang.ClassLoader#loadClass``, ``sun.*`` anything in ``sun`` and its subpackages. Classes
named only inside descriptors count too (``Thread#getThreadGroup`` names ``java.lang.ThreadGroup``).

Deep and harmless reflection. Every rule here names a class or member; reflection turns a string
into a member, so whatever calls, reads or writes through reflection (``Method#invoke``,
``Constructor#newInstance``, ``Field#get``/``set`` and their typed forms, a ``Lookup``'s
``find*``/``bind``/``unreflect*``, ``java.beans`` statements, script engines) would route around
the whole table and is deep, as is
what reaches non-public members (``setAccessible``, ``getDeclared*``, ``privateLookupIn``) and
what finds classes by name (``Class#forName``, class loaders). Harmless and allowed:
``getClass``, a ``Class``'s names, modifiers, ``isInstance``, ``cast``, ``getEnumConstants``,
``getMethod``/``getField``/``getConstructor`` and their plurals (they only describe public members;
using one needs ``invoke``, ``get`` or ``newInstance``), ``java.lang.reflect.Array`` and
``Modifier``, ``MethodHandles.lookup()`` and the bootstrap methods javac itself emits for lambdas,
method references, string concatenation and switches (``LambdaMetafactory``,
``StringConcatFactory``, ``SwitchBootstraps``).

Writes, sockets and processes: an allow-list, derived. Every public or protected member of the
JDK's exported packages that can create, write, move or delete a file (or chmod, link, time-stamp
one), open or connect a socket, or start or kill a process is refused, whatever its package: the
set is not written here but derived from the JDK's own class files by ``jdk_effects.py`` (a call
graph walked back from the natives that do these things; its docstring says how calls propagate
and lists the few hand-decided points), kept in ``effects-jdk11.txt`` and ``effects-jdk17.txt``
(the union is refused: the test JVM runs either) and checked against the JDKs by a test. So
``javax.imageio.stream.FileImageOutputStream``, ``ImageIO#write(..., File)``,
``Transformer#transform`` (which writes a ``StreamResult``'s file), ``Files#write``,
``File#deleteOnExit``, ``FileHandler`` and ``FileSystems#newFileSystem`` are refused by what their
code does. A ``StreamResult``'s own ``File``/``String`` constructors only record a name and stay
allowed: whatever writes to it is refused. Reading stays allowed (``FileInputStream``,
``Files#readAllBytes``, ``Files#lines``: opening is a write only with a write mode), and so do
``Writer#write``, ``Closeable#close`` and the other general abstractions, whose objects something
refused had to make first.

Objects of classes named in data, and callers: deserialization (``ObjectInputStream``,
``ServiceLoader``, JNDI, ``XMLDecoder``) makes an object of whatever class the bytes name, as
``Class#forName`` does (JUnit's own exceptions included, which the candidate's source cannot
name); ``Throwable#getStackTrace``, ``printStackTrace`` into a ``PrintWriter`` or ``PrintStream``,
``StackTraceElement``, ``StackWalker``, ``LogRecord#getSource*`` and ``getClassContext`` tell a test
run from real use, so that a candidate could be right only under test. Both are refused unless the
buggy version already holds them. Data names classes in more places than deserialization:
``java.util.logging.LogManager#readConfiguration``/``updateConfiguration`` (its ``handlers``,
``config``, formatter and filter properties name classes the LogManager makes; the red team's
``write_door/`` had a ``FileHandler`` it named write a file), ``java.beans``' editor and bean-info
search paths (JVM-wide, and classes named ``<package>.<Type>Editor`` are made later), RowSet's
``SyncFactory`` (providers by class name), Swing's ``UIManager``/``UIDefaults`` (a look and feel
made by ``Class#newInstance`` before its type is checked, UI classes named in the defaults) and
``DataFlavor``'s MIME-type constructors (``class=`` names the class they load). The others seen that
make an object of a class named by a string the caller passes also take a ``ClassLoader``
(``Beans#instantiate``, the ``javax.xml`` factories' ``newInstance``/``newFactory(String,
ClassLoader)``), which the class loader rule refuses through the descriptor. The list is by hand and
may miss a member (``jdk_effects.py`` says why its walk cannot find them); ``javax.naming`` (JNDI)
and ``java.rmi`` are refused whole. The JDK's factories without a class name
(``DocumentBuilderFactory#newInstance()``) take it from system properties, which a candidate may not
set, and the class path's service files, which it cannot write. ``ResourceBundle#getBundle`` stays
allowed: it makes only ``ResourceBundle`` subclasses, none of them the harness's.

The JVM's environment (refused unless the buggy version already reads it the same way): the test
JVM is not the user's, and whatever tells one from the other lets a candidate be the fix only
where nl2fix (or Defects4J's Ant) runs it and the bug everywhere else (the red team's
``right_under_nl2fix/``: ``System.getProperty("java.system.class.loader")``). Refused: system
properties (``System#getProperty``, ``getProperties``, ``Integer#getInteger``, ``Long#getLong``,
``Boolean#getBoolean``), environment variables (``System#getenv``), other processes and this one's
(``ProcessHandle``, under processes) and the platform's beans (``java.lang.management``, under
instrumentation), and where a class was declared (``Class#getEnclosingMethod``,
``getEnclosingConstructor``: the behaviour probe renames the candidate's method), whether the JVM has a
security manager (``System#getSecurityManager``: the runner's walls rest on one, a plain JVM has none),
the mount table and file systems' sizes (``FileStore``, ``FileSystem#getFileStores``,
``Files#getFileStore``, ``File#getTotalSpace`` and kin: the JDK reads ``/proc/mounts`` natively, where
no security-manager check sees a path), the network interfaces (``NetworkInterface``: a sandbox has
only loopback), where links lead (``File#getCanonicalPath``, ``getCanonicalFile``, ``Path#toRealPath``:
``/proc/self`` is the pid, the job's folders are nl2fix's cache), where a class or resource lives
(``Class#getResource``, ``Class#getProtectionDomain``: a URL of the host path; ``ClassLoader`` is refused
whole), where a link points (``Files#readSymbolicLink``), where the working directory is (``File#getAbsolutePath``,
``getAbsoluteFile``, ``toURI``, ``toURL``, ``Path#toAbsolutePath``, ``toUri``: ``/workspace``), what the job may
do to a file and whose it is (``File#canWrite``, ``canExecute``, ``Files#isWritable``, ``isExecutable``,
``getOwner``, ``getPosixFilePermissions``, ``getAttribute``, the POSIX and owner attribute views: the project is
read-only to every job) and the heap's limit and size
(``Runtime#maxMemory``, ``totalMemory``, ``freeMemory``: the ``-Xmx`` nl2fix sets caps the initial heap,
and a container's limit sets it), and a thread's id (``Thread#getId``, ``threadId``, and a log record's,
``java.util.logging.LogRecord`` and ``XMLFormatter``: the test thread is named ``main`` but is not the JVM's
first thread, id 1). Running out is caught at run time (the runner's ``Exhaustion``).
Allowed:
``System.getProperty(key)`` with one argument, a string constant of :data:`PORTABLE_PROPERTIES`
(the separators, the Java and OS versions and names, ``file.encoding``), read from the class
file's instructions, not its constants (``check.py``): a key chosen at run time, or through a
jump (``c ? "os.name" : "sun.java.command"``), is refused like any other read. Left out of the
portable keys on purpose: ``user.dir``, ``user.home``, ``user.name``, ``java.io.tmpdir``,
``java.home``, ``java.class.path``, ``sun.java.command`` and the launcher's ``jdk.*``/``sun.*``
properties, which name the job's folders, its uid, the test Java and the launch. The runner also
removes its own ``nl2fix.*`` properties and the launch from what a job sees (``Main.java``;
``docs/threat-model.md`` says what is still observable and why that is left).

Also allowed: the no-argument ``Throwable#printStackTrace()`` (to standard error, which the
candidate cannot read back), ``Thread.currentThread()``, a thread's name and ``toString`` (no id in them on
Java 11 and 17), ``interrupt``, ``isInterrupted``,
``sleep``, ``join`` and starting threads of its own (a thread that outlives its job retires the
JVM), reading files, serializing (``ObjectOutputStream``: it names no class to make), and printing
to ``System.out`` (only signed lines count).

What this check cannot see, the sandbox still confines: a string assembled at run time (a path to
``/proc`` built from parts), and a dangerous inherited method called through a project class
declared in another file (``MyThread#stop`` where ``MyThread extends Thread``; through a class of
the same file it is seen). A method named ``finalize`` in a class the candidate's method declares
is refused too (:data:`FINALIZER`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from defects4j_adapter.bytecode import jdk_effects
from defects4j_adapter.bytecode.classfile import MemberRef, Tag
from defects4j_adapter.bytecode.descriptors import java_name, java_parameters
from defects4j_adapter.bytecode.jdk_effects import Effect


class Family(Enum):
    DEEP_REFLECTION = "deep reflection"
    CLASS_DEFINITION = "class loading and definition"
    STACK_INSPECTION = "stack inspection"
    ENVIRONMENT = "the JVM's environment"
    DESERIALIZATION = "objects of classes named in data"
    INSTRUMENTATION = "instrumentation, attach and management"
    JDK_INTERNALS = "JDK internals"
    NATIVE_CODE = "native code"
    PROCESS = "the JVM's process, exit and standard streams"
    THREADS = "other threads"
    FILE_DESCRIPTORS = "file descriptors and /proc"
    FILE_WRITES = "writing and deleting files"
    SOCKETS = "sockets and remote calls"
    TEST_HARNESS = "the test framework and runner"
    FINALIZERS = "finalizers"


def _regex(pattern: str) -> str:
    """A pattern as a regular expression: ``*`` any run of characters, ``{a,b}`` alternatives, and
    after a class's name its nested classes and members."""

    def plain(text: str) -> str:
        return ".*".join(re.escape(part) for part in text.split("*"))

    regex = "".join(
        f"(?:{'|'.join(plain(a) for a in part[1:-1].split(','))})" if part.startswith("{") else plain(part)
        for part in re.split(r"(\{[^{}]*\})", pattern)
    )
    return regex if "#" in pattern or pattern.startswith('"') else regex + "(?:[$#].*)?"


@dataclass(frozen=True)
class Rule:
    family: Family
    pattern: str
    """A pattern, or for a derived rule what its members are (they are matched exactly, in a set)."""
    why: str
    """Why the reference reaches the harness or later candidates, in one line."""
    members: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    """A derived rule's references (``java.io.File#delete()``), from ``jdk_effects.py``'s files."""
    regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "regex", re.compile(_regex(self.pattern), re.DOTALL))

    def matches(self, subject: str) -> bool:
        return subject in self.members if self.members else self.regex.fullmatch(subject) is not None


def _derived(effect: Effect) -> frozenset[str]:
    """What any recorded JDK says reaches ``effect``: the test JVM runs one JDK or another."""
    return frozenset().union(
        *(jdk_effects.load(path)[1][effect] for path in sorted(jdk_effects.DATA_FOLDER.glob("effects-jdk*.txt")))
    )


_BY_NAME = "calls, reads or writes a member a string names, around every rule here that names members"
_OPENS = "reaches private members of any class, the runner's report and exit guard included"
_DEFINES = "defines classes at run time: a lenient stand-in for a test class, or code no rule here has seen"
_OTHER_THREADS = "reaches threads other than the candidate's own, the runner's included"
_EXIT = "ends or hooks the test JVM around the runner: it reports nothing, or a forger speaks last"
_STREAMS = (
    "the runner's standard streams: it reports on standard output and reads each job's key on standard "
    "input, and a replaced stream stays replaced for the candidates after"
)
_WRITES = "writes, moves or deletes files: Defects4J's verdict is files the test JVM writes (failing_tests)"
_SOCKETS = "talks to other processes outside the report channel: the harness, or another candidate's JVM"
_CALLERS = "its callers' classes and methods, which tell a test run from real use: a candidate right only under test"
_ENVIRONMENT = (
    "the JVM's launch, options and environment, which tell nl2fix's or a test harness's JVM from the "
    "user's: a candidate right only under test"
)
_MOUNTS = (
    "the mount table and the file systems' sizes, which the JDK reads in its own native code: they name the "
    "sandbox's folders under nl2fix's cache, the bug and the job's quota (round 7's mount_table)"
)
_BY_DATA = (
    "makes an object of whatever class the data names, as Class.forName does: the test framework's own "
    "exceptions and the runner's classes included, which the candidate's source cannot name"
)

RULES: tuple[Rule, ...] = (
    # deep reflection
    Rule(Family.DEEP_REFLECTION, "java.lang.reflect.*#{setAccessible,trySetAccessible}", _OPENS),
    Rule(Family.DEEP_REFLECTION, "java.lang.Class#getDeclared*", _OPENS),
    Rule(Family.DEEP_REFLECTION, "java.lang.invoke.MethodHandles#privateLookupIn", _OPENS),
    Rule(
        Family.DEEP_REFLECTION,
        "java.lang.Class#forName",
        "finds a class by name, the runner's and JUnit's included, which the candidate's source cannot name",
    ),
    Rule(Family.DEEP_REFLECTION, "java.lang.reflect.Method#invoke", _BY_NAME),
    Rule(Family.DEEP_REFLECTION, "java.lang.reflect.Constructor#newInstance", _BY_NAME),
    Rule(Family.DEEP_REFLECTION, "java.lang.Class#newInstance", _BY_NAME),
    Rule(
        Family.DEEP_REFLECTION,
        "java.lang.reflect.Field#{get,set}{,Boolean,Byte,Char,Short,Int,Long,Float,Double}",
        _BY_NAME,
    ),
    Rule(Family.DEEP_REFLECTION, "java.lang.invoke.MethodHandles$Lookup#{find*,bind,unreflect*}", _BY_NAME),
    Rule(Family.DEEP_REFLECTION, "java.beans.{Statement,Expression,EventHandler,XMLDecoder}", _BY_NAME),
    Rule(Family.DEEP_REFLECTION, "javax.script.*", "runs script code, which calls any Java method by name"),
    Rule(
        Family.DEEP_REFLECTION,
        "java.lang.reflect.Proxy",
        "makes a class at run time that answers any interface through one handler",
    ),
    # class loading and definition
    Rule(Family.CLASS_DEFINITION, "java.lang.invoke.MethodHandles$Lookup#defineHiddenClass*", _DEFINES),
    Rule(Family.CLASS_DEFINITION, "java.lang.invoke.MethodHandles$Lookup#defineClass", _DEFINES),
    Rule(
        Family.CLASS_DEFINITION,
        "java.lang.ClassLoader",
        "loads any class by name and defines classes from bytes: a stand-in for a test class",
    ),
    Rule(
        Family.CLASS_DEFINITION,
        "java.{net.URLClassLoader,security.SecureClassLoader}",
        "loads any class by name and defines classes from bytes: a stand-in for a test class",
    ),
    Rule(Family.CLASS_DEFINITION, "java.lang.ModuleLayer", "defines modules and the class loaders behind them"),
    Rule(
        Family.CLASS_DEFINITION,
        "javax.tools.*",
        "runs the Java compiler inside the test JVM: class files for a stand-in, made at run time",
    ),
    # stack inspection
    Rule(
        Family.STACK_INSPECTION,
        "java.lang.LiveStackFrame",
        "the locals of every frame on the stack, where the runner keeps its report key",
    ),
    Rule(
        Family.STACK_INSPECTION,
        "java.lang.StackWalker",
        "walks the runner's frames and classes on the candidate's stack (and their locals through LiveStackFrame)",
    ),
    Rule(
        Family.STACK_INSPECTION,
        "java.lang.Thread#{getStackTrace,getAllStackTraces}",
        "the frames of other threads, the runner's included",
    ),
    Rule(
        Family.STACK_INSPECTION,
        "java.lang.Throwable#{getStackTrace,printStackTrace(java.io.PrintWriter),printStackTrace(java.io.PrintStream)}",
        _CALLERS,
    ),
    Rule(Family.STACK_INSPECTION, "java.lang.StackTraceElement", _CALLERS),
    Rule(Family.STACK_INSPECTION, "java.util.logging.LogRecord#getSource*", _CALLERS),
    Rule(Family.STACK_INSPECTION, "java.lang.SecurityManager#getClassContext", _CALLERS),
    # objects of classes named in data
    Rule(Family.DESERIALIZATION, "java.io.{ObjectInputStream,ObjectInput}", _BY_DATA),
    Rule(Family.DESERIALIZATION, "java.util.ServiceLoader", _BY_DATA),
    Rule(Family.DESERIALIZATION, "javax.naming.*", _BY_DATA),
    Rule(Family.DESERIALIZATION, "java.util.logging.LogManager#{readConfiguration,updateConfiguration}", _BY_DATA),
    Rule(
        Family.DESERIALIZATION,
        "java.beans.{PropertyEditorManager#setEditorSearchPath,Introspector#setBeanInfoSearchPath}",
        _BY_DATA,
    ),
    Rule(Family.DESERIALIZATION, "javax.sql.rowset.spi.SyncFactory", _BY_DATA),
    Rule(Family.DESERIALIZATION, "javax.swing.{UIManager,UIDefaults}", _BY_DATA),
    Rule(Family.DESERIALIZATION, "java.awt.datatransfer.DataFlavor#<init>(java.lang.String*)", _BY_DATA),
    # instrumentation, attach, management (before com.sun.*, which covers two of them)
    Rule(Family.INSTRUMENTATION, "java.lang.instrument.*", "redefines loaded classes, the runner's and the tests'"),
    Rule(
        Family.INSTRUMENTATION,
        "com.sun.tools.attach.*",
        "attaches an agent to a running JVM, this one or another candidate's",
    ),
    Rule(Family.INSTRUMENTATION, "com.sun.jdi.*", "a debugger's view of a JVM: its threads, frames and locals"),
    Rule(
        Family.INSTRUMENTATION,
        "java.lang.management.*",
        "other threads' stacks and the platform's beans (a heap dump holds the report key)",
    ),
    Rule(
        Family.INSTRUMENTATION,
        "javax.management.*",
        "invokes any registered bean by name, HotSpot's heap dump among them (the report key in a dump)",
    ),
    # JDK internals
    Rule(
        Family.JDK_INTERNALS,
        "sun.*",
        "JDK internals outside every access check: sun.misc.Unsafe reads and writes any memory",
    ),
    Rule(
        Family.JDK_INTERNALS,
        "jdk.*",
        "JDK-specific modules: internals (Unsafe, class definition), JShell, Nashorn and Dynalink (code by "
        "name), the flight recorder and management extensions",
    ),
    Rule(
        Family.JDK_INTERNALS,
        "com.sun.*",
        "JDK-specific APIs: management extensions (heap dumps), the HTTP server, the compiler's internals",
    ),
    # native code
    Rule(
        Family.NATIVE_CODE,
        "java.lang.{System,Runtime}#{load,loadLibrary}",
        "loads native code, which reads and writes any memory of the JVM, the runner's results included",
    ),
    Rule(Family.NATIVE_CODE, "java.lang.foreign.*", "native calls and native memory without JNI"),
    # the JVM's process, exit and standard streams
    Rule(Family.PROCESS, "java.lang.System#exit", _EXIT),
    Rule(Family.PROCESS, "java.lang.Runtime#{exit,halt,addShutdownHook,removeShutdownHook}", _EXIT),
    Rule(Family.PROCESS, "java.lang.System#{setOut,setErr,setIn,in,inheritedChannel,console}", _STREAMS),
    Rule(
        Family.PROCESS,
        "java.lang.System#setSecurityManager",
        "installs a security manager that vetoes the runner's own actions",
    ),
    Rule(
        Family.PROCESS,
        "java.lang.System#{setProperty,setProperties,clearProperty}",
        "changes JVM-wide settings the runner and JUnit read, and they outlive the candidate in a warm JVM",
    ),
    Rule(
        Family.PROCESS,
        "<JDK members that start or kill processes>",
        "starts or kills another process, outside the test JVM's checks",
        _derived(Effect.PROCESSES),
    ),
    Rule(Family.PROCESS, "java.lang.ProcessHandle", "signals and kills other processes, the harness's included"),
    # other threads
    Rule(
        Family.THREADS,
        "java.lang.Thread#{stop,suspend,resume}",
        "stops or freezes a thread, possibly the runner's, leaving its locks and state broken",
    ),
    Rule(Family.THREADS, "java.lang.Thread#enumerate", _OTHER_THREADS),
    Rule(Family.THREADS, "java.lang.ThreadGroup", _OTHER_THREADS),
    Rule(
        Family.THREADS,
        "java.lang.Thread#setDefaultUncaughtExceptionHandler",
        "JVM-wide: sees and handles every thread's failures, the runner's and later candidates' included",
    ),
    # file descriptors and /proc
    Rule(
        Family.FILE_DESCRIPTORS,
        "java.io.FileDescriptor",
        "the runner's standard output and input, written and read around System.out and System.in",
    ),
    Rule(
        Family.FILE_DESCRIPTORS,
        '"*/proc{,/*}"',
        "/proc/self holds the JVM's memory (the report key), its file descriptors and the harness's processes",
    ),
    Rule(
        Family.FILE_DESCRIPTORS,
        '"*/dev/{fd,std}*"',
        "/dev/fd and /dev/stdin, /dev/stdout, /dev/stderr are the runner's report and key channels by another name",
    ),
    # writing and deleting files, sockets, processes: derived from the JDK (jdk_effects.py)
    Rule(Family.FILE_WRITES, "<JDK members that create, write, move or delete files>", _WRITES, _derived(Effect.FILES)),
    Rule(Family.SOCKETS, "<JDK members that open or connect sockets>", _SOCKETS, _derived(Effect.SOCKETS)),
    Rule(Family.SOCKETS, "java.net.URL#{openConnection,openStream,getContent}", _SOCKETS),
    Rule(Family.SOCKETS, "{java.net.http,javax.net,java.rmi}.*", _SOCKETS),
    # the JVM's environment, after the families that reach the harness (a refusal names the earliest rule's
    # reference); a constant portable key for System#getProperty(String) is allowed: check.py
    Rule(Family.ENVIRONMENT, "java.lang.System#{getProperty,getProperties,getenv}", _ENVIRONMENT),
    Rule(Family.ENVIRONMENT, "java.lang.{Integer#getInteger,Long#getLong,Boolean#getBoolean}", _ENVIRONMENT),
    Rule(
        Family.ENVIRONMENT,
        "java.lang.System#getSecurityManager",
        "whether the JVM has a security manager: nl2fix's runner installs one and a plain JVM has none, so a "
        "candidate could be the fix only where nl2fix runs it (found while closing round 6)",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.util.concurrent.ForkJoinPool#getFactory",
        "the common pool's worker factory: nl2fix's runner names its own, which makes the plain workers a JVM "
        "without a security manager has (red team 12's pool_worker), so its class tells nl2fix's JVM",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.nio.file.{FileSystem#getFileStores,Files#getFileStore}",
        _MOUNTS,
    ),
    Rule(Family.ENVIRONMENT, "java.nio.file.FileStore", _MOUNTS),
    Rule(
        Family.ENVIRONMENT,
        "java.io.File#{getTotalSpace,getFreeSpace,getUsableSpace}",
        "the file systems' sizes: the job's scratch has the sandbox's quota (round 6)",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.net.NetworkInterface",
        "the machine's network interfaces: a sandbox has only loopback, a machine in use has more, so a candidate "
        "could be the fix only without a network (round 7's no_network)",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.io.File#{getCanonicalPath,getCanonicalFile}",
        "where a path's links lead, resolved in the JDK's native code with no security-manager check: /proc/self "
        "names the JVM's pid (1 under bubblewrap), the job's folders resolve to host paths under nl2fix's cache",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.nio.file.Path#toRealPath",
        "where a path's links lead: the job's folders resolve to host paths under nl2fix's cache (under /proc the "
        "runner refuses the read as well)",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.io.File#{getAbsolutePath,getAbsoluteFile,toURI,toURL}",
        "a relative path made absolute names the working directory (user.dir, refused as a property): /workspace in "
        "every sandbox, the user's checkout elsewhere (round 9's working_dir: plausible before)",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.nio.file.Path#{toAbsolutePath,toUri}",
        "a relative path made absolute names the working directory, as File#getAbsolutePath does",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.io.File#{canWrite,canExecute}",
        "what the job may do to a file: the project is read-only to every job and the job's uid is not the owner's, "
        "where a user's checkout is the user's own (round 9's read_only_checkout: plausible before)",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.nio.file.Files#{isWritable,isExecutable,getOwner,getPosixFilePermissions,getAttribute}",
        "what the job may do to a file and whose it is, as File#canWrite tells",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.nio.file.attribute.{PosixFileAttributes,PosixFileAttributeView,FileOwnerAttributeView,UserPrincipal}",
        "a file's owner and permissions, as File#canWrite tells",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.nio.file.Files#readSymbolicLink",
        "where a link points: the job's /workspace links lead to host paths under nl2fix's cache (under /proc the "
        "runner refuses the read as well)",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.lang.Class#getResource",
        "where a class file or resource lives, as a URL: the project's classes are under nl2fix's cache on the host "
        "(the lead's own round 8 attack, resource_url: plausible before); getResourceAsStream, the contents, stays",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.lang.Class#getProtectionDomain",
        "where a class was loaded from (its code source's location): the project's classes are under nl2fix's cache",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.lang.Runtime#{maxMemory,totalMemory,freeMemory}",
        "the heap's limit and size: nl2fix's test JVMs run with -Xmx of its --memory setting, a plain JVM with a "
        "quarter of the machine's memory; the initial heap is capped by -Xmx, and in a container it is a share of "
        "the container's limit",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.lang.Thread#{getId,threadId}",
        "a thread's id: nl2fix's test thread is named main, as a plain run's first thread is, but it is a thread the "
        "runner started, not the JVM's first (id 1), so a thread called main with another id is nl2fix's (round 8's "
        "thread_id: plausible before); none of the dataset's 283 buggy and fixed methods calls it. Thread#toString "
        "shows no id on Java 11 and 17, the test JVM's (from Java 19 on it does: Thread[#3,main,5,main] on Java 25)",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.util.logging.{LogRecord,XMLFormatter}",
        "a log record carries the id of the thread that logged it (LogRecord#getThreadID, getLongThreadID, its "
        "serialized form) and the XML formatter prints it (<thread>), a Handler's publish or a Filter is handed one: "
        "the test thread's id, as Thread#getId tells",
    ),
    Rule(
        Family.ENVIRONMENT,
        "java.lang.Class#{getEnclosingMethod,getEnclosingConstructor}",
        "the method its class was declared in, which the behaviour probe renames: a candidate that knows it is probed",
    ),
    # the test framework and runner
    Rule(
        Family.TEST_HARNESS,
        "{org.junit,junit,org.hamcrest,org.opentest4j,nl2fix}.*",
        "the tests' own framework and runner: an assumption failure turns a failing test into a skip, which "
        "Defects4J does not count as a failure",
    ),
)

FINALIZER = Rule(
    Family.FINALIZERS, "*#finalize()", "runs later, in the JVM's finalizer thread, outside every job and its checks"
)
"""Matched against the methods declared by the classes the candidate's method declares, not against references."""

_ANY_RULE = re.compile(
    "|".join(f"(?P<r{i}>{_regex(rule.pattern)})" for i, rule in enumerate(RULES) if not rule.members), re.DOTALL
)
_DERIVED = tuple(i for i, rule in enumerate(RULES) if rule.members)


def rule_for(subject: str) -> Rule | None:
    """The first rule (in :data:`RULES`' order) that matches ``subject``: one regular expression for
    the patterns, a set look-up for each derived rule."""
    match = _ANY_RULE.fullmatch(subject)
    first = int(match.lastgroup[1:]) if match and match.lastgroup else len(RULES)
    first = next((i for i in _DERIVED if i < first and subject in RULES[i].members), first)
    return RULES[first] if first < len(RULES) else None


PORTABLE_PROPERTIES = frozenset(
    {
        "line.separator",
        "file.separator",
        "path.separator",
        "file.encoding",
        "java.version",
        "java.specification.version",
        "java.class.version",
        "java.vendor",
        "java.vm.name",
        "os.name",
        "os.arch",
        "os.version",
    }
)
"""The system properties a candidate may read with a constant key: what portable code reads to
format text and paths or to pick a code path per Java or OS, the same in nl2fix's test JVM as in
any JVM on that machine (see the module doc for the keys left out)."""
KEYED_READ = "java.lang.System#getProperty(java.lang.String)"
"""The one read allowed with a key of :data:`PORTABLE_PROPERTIES`, given as a constant."""


def class_subject(internal: str) -> str:
    return java_name(internal)


def member_subjects(ref: MemberRef) -> tuple[str, ...]:
    """A field as ``owner#name``; a method also with its parameters, ``owner#name(int, java.io.File)``."""
    member = f"{java_name(ref.owner)}#{ref.name}"
    return (member,) if ref.kind is Tag.FIELDREF else (member, member + java_parameters(ref.descriptor))


def string_subject(text: str) -> str:
    return f'"{text}"'
