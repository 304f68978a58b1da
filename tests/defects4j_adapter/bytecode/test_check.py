"""The check on compiled candidates, on class files real javac made for ``--release 8`` and ``11``:
what a candidate may change (its method's body and declaration, the classes and lambdas it
declares), what it may not (classes, members, superclasses, classes in other methods), and every
family of policy.py, refused when added and accepted when the buggy version already has it."""

from __future__ import annotations

from dataclasses import dataclass, field
from string import Template

import pytest

from defects4j_adapter.bytecode.check import RejectionKind, check, classes_of_source
from defects4j_adapter.bytecode.classfile import ClassFileError
from defects4j_adapter.bytecode.policy import Family, rule_for
from tests.helpers.javac import compile_java
from tests.helpers.minibench import ATTACKS, MINIBENCH, red_team_attack

STRUCTURE, REFERENCE = RejectionKind.STRUCTURE, RejectionKind.REFERENCE
RELEASES = (8, 11)
TEXT = Template("""package $pkg;

$cls {
    enum Color { RED, GREEN }
    private int count;
    private final Runnable later = new Runnable() { public void run() { } };
    $header {
        $target
    }
    int other(String s) {
        $other
        return 0;
    }
    $extra
}
$after
""")
DEFAULTS = {
    "cls": "public class Text",
    "header": "public int target(int x)",
    "target": "return x;",
    "other": "",
    "extra": "",
    "after": "",
}


@dataclass(frozen=True)
class Case:
    id: str
    candidate: dict[str, str]
    """The template's slots the candidate changes."""
    rejected: RejectionKind | None = None
    expected: str | None = None
    """A part of the rejection's reason, or for a reference the whole offending symbol."""
    buggy: dict[str, str] = field(default_factory=dict)
    release: int = 8
    """The lowest ``--release`` the case compiles at."""
    method: str = "target"

    def source(self, side: str) -> str:
        slots = {**DEFAULTS, **(self.buggy if side == "buggy" else {**self.buggy, **self.candidate})}
        return TEXT.substitute(slots, pkg=self.package)

    @property
    def package(self) -> str:
        return "c_" + self.id.replace("-", "_")


def body(*statements: str) -> dict[str, str]:
    return {"target": "\n        ".join([*statements, "return x;"])}


ACCEPTED = [
    Case("body-only", {"target": "return x + 1;"}),
    Case("lambda", {"target": "java.util.function.IntUnaryOperator f = v -> v + count; return f.applyAsInt(x);"}),
    Case("anonymous", body("Runnable r = new Runnable() { public void run() { count++; } };", "r.run();")),
    Case(
        "local-class", {"target": "class Helper { int twice(int v) { return 2 * v; } } return new Helper().twice(x);"}
    ),
    Case("enum-switch", {"target": "switch (Color.values()[x % 2]) { case RED: return 1; default: return 2; }"}),
    Case(
        "string-switch",
        {"target": 'switch (String.valueOf(x)) { case "1": return 1; case "2": return 2; default: return 0; }'},
    ),
    Case(
        "try-with-resources",
        {
            "target": 'try (java.io.StringReader r = new java.io.StringReader("a")) '
            "{ return r.read(); } catch (java.io.IOException e) { return -1; }"
        },
    ),
    Case("assert", body('assert x > 0 : "positive";')),
    Case(
        "nested-in-lambda",
        body(
            "java.util.function.Supplier<Runnable> s = () -> new Runnable() { public void "
            "run() { new Object() { }.hashCode(); } };",
            "s.get().run();",
        ),
    ),
    Case(
        "renumbering",
        body("new Object() { }.hashCode();"),
        buggy={"other": "new Runnable() { public void run() { } }.run();"},
    ),
    Case("new-declaration", {"header": "public static long target(int x, long y)", "target": "return x + y;"}),
    Case("overload", {"extra": "public int target(int x, int y) { return x + y; }"}),
    Case(
        "constructor",
        {"extra": "public Text(int seed) { count = seed; new Object() { }.hashCode(); }"},
        buggy={"extra": "public Text() { }"},
        method="Text",
    ),
    Case(
        "harmless",
        body(
            "Thread.currentThread().interrupt();",
            'Thread t = Thread.currentThread(); if ("main".equals(t.getName())) { count += t.toString().length(); }',
            "String n = getClass().getName();",
            "new Throwable().printStackTrace();",
            "System.out.println(n + x);",
            "java.util.function.Supplier<String> s = this::toString;",
            'try { java.nio.file.Files.readAllBytes(java.nio.file.Paths.get("x")); '
            'String.class.getMethod("length"); } catch (Exception e) { }',
        ),
    ),
    # a constant portable key: what portable code reads, the same under nl2fix as anywhere
    Case(
        "portable-property",
        body(
            'String n = System.getProperty("line.separator") + System.getProperty("os.name");', "count += n.length();"
        ),
    ),
]

CHANGED_STRUCTURE = [
    Case("field", {"extra": "private int hits;"}, STRUCTURE, "adds field"),
    Case("method", {"extra": "void helper() { }"}, STRUCTURE, "adds method"),
    Case("member-class", {"extra": "static class Evil { }"}, STRUCTURE, "adds class"),
    Case("top-level-class", {"after": "class TextTest { }"}, STRUCTURE, "adds class"),
    Case(
        "superclass",
        {"cls": "public class Text extends java.util.ArrayList<String>"},
        STRUCTURE,
        "changes the superclass",
    ),
    Case("anonymous-elsewhere", {"other": "new Object() { }.hashCode();"}, STRUCTURE, "adds an anonymous class"),
    Case("local-class-elsewhere", {"other": "class Evil { } new Evil();"}, STRUCTURE, "adds a local class"),
    Case("constructor-elsewhere", {"extra": "public Text(int seed) { }"}, STRUCTURE, "adds constructor"),
]


@dataclass(frozen=True)
class Use:
    family: Family
    statements: tuple[str, ...]
    reference: str
    release: int = 8


USES = [
    Use(
        Family.DEEP_REFLECTION,
        (
            'try { java.lang.reflect.Field f = Text.class.getDeclaredField("later"); '
            "f.setAccessible(true); } catch (NoSuchFieldException e) { }",
        ),
        "java.lang.reflect.Field#setAccessible",
    ),
    Use(
        Family.DEEP_REFLECTION,
        ('try { Class.forName("nl2fix.runner.Report"); } catch (Exception e) { }',),
        "java.lang.Class#forName",
    ),
    Use(
        Family.DEEP_REFLECTION,
        ('try { Text.class.getMethod("other", String.class).invoke(this, "x"); } catch (Exception e) { }',),
        "java.lang.reflect.Method#invoke",
    ),
    Use(
        Family.CLASS_DEFINITION,
        ('try { getClass().getClassLoader().loadClass("x"); } catch (Exception e) { }',),
        "java.lang.ClassLoader",
    ),
    Use(
        Family.CLASS_DEFINITION,
        ("count += String.valueOf((Object) Thread.currentThread().getContextClassLoader()).length();",),
        "java.lang.ClassLoader",
    ),  # the loader object prints its class, nl2fix.loader.JobLoader: named only in a descriptor here
    Use(
        Family.CLASS_DEFINITION,
        ("try { java.lang.invoke.MethodHandles.lookup().defineClass(new byte[0]); } catch (Exception e) { }",),
        "java.lang.invoke.MethodHandles$Lookup#defineClass",
        release=11,
    ),
    Use(Family.STACK_INSPECTION, ("Thread.currentThread().getStackTrace();",), "java.lang.Thread#getStackTrace"),
    Use(Family.STACK_INSPECTION, ("new Throwable().getStackTrace();",), "java.lang.Throwable#getStackTrace"),
    Use(
        Family.STACK_INSPECTION,
        (
            "java.io.StringWriter w = new java.io.StringWriter();",
            "new Throwable().printStackTrace(new java.io.PrintWriter(w));",
        ),
        "java.lang.Throwable#printStackTrace(java.io.PrintWriter)",
    ),
    Use(
        Family.DESERIALIZATION,
        ("try { new java.io.ObjectInputStream(null).readObject(); } catch (Exception e) { }",),
        "java.io.ObjectInputStream",
    ),
    Use(
        Family.DESERIALIZATION,
        ("java.util.ServiceLoader.load(Runnable.class).iterator();",),
        "java.util.ServiceLoader",
        release=11,
    ),
    Use(
        Family.DESERIALIZATION,
        (
            "try { java.util.logging.LogManager.getLogManager().readConfiguration("
            "new java.io.ByteArrayInputStream(new byte[0])); } "
            "catch (java.io.IOException e) { }",
        ),
        "java.util.logging.LogManager#readConfiguration",
    ),
    Use(
        Family.DESERIALIZATION,
        ('java.beans.PropertyEditorManager.setEditorSearchPath(new String[] {"org.junit"});',),
        "java.beans.PropertyEditorManager#setEditorSearchPath",
    ),
    Use(
        Family.ENVIRONMENT,
        ('count += System.getProperty("java.system.class.loader").length();',),
        "java.lang.System#getProperty",
    ),
    Use(
        Family.ENVIRONMENT,
        ('count += System.getProperty("line.separator", "sun.java.command").length();',),
        "java.lang.System#getProperty",
    ),  # two arguments: the constant before the call is the default
    Use(
        Family.ENVIRONMENT,
        ('count += System.getProperty(count > 0 ? "sun.java.command" : "os.name").length();',),
        "java.lang.System#getProperty",
    ),  # a jump lands on the call: its key is not known
    Use(
        Family.ENVIRONMENT,
        ('String k = "os.name"; count += System.getProperty(k + "").length();',),
        "java.lang.System#getProperty",
    ),
    Use(Family.ENVIRONMENT, ("count += System.getenv().size();",), "java.lang.System#getenv"),
    Use(Family.ENVIRONMENT, ('count += Integer.getInteger("nl2fix.x", 0);',), "java.lang.Integer#getInteger"),
    Use(
        Family.ENVIRONMENT,
        ('java.util.function.UnaryOperator<String> p = System::getProperty; count += p.apply("os.name").length();',),
        "java.lang.System#getProperty",
    ),
    Use(
        Family.ENVIRONMENT, ("count += (int) Thread.currentThread().getId();",), "java.lang.Thread#getId"
    ),  # round 8's thread_id: nl2fix's test thread is named main but is not the JVM's first (id 1)
    Use(
        Family.ENVIRONMENT,
        ("new Thread() { public void run() { count += (int) getId(); } }.run();",),
        "java.lang.Thread#getId",
    ),  # inherited, through a class of the file
    Use(
        Family.ENVIRONMENT,
        ('count += new java.util.logging.LogRecord(java.util.logging.Level.INFO, "x").getThreadID();',),
        "java.util.logging.LogRecord",
    ),  # a record carries the id of the thread that made it
    Use(
        Family.ENVIRONMENT,
        (
            "java.util.logging.Logger.getAnonymousLogger().addHandler(new java.util.logging.StreamHandler("
            "new java.io.ByteArrayOutputStream(), new java.util.logging.XMLFormatter()));",
        ),
        "java.util.logging.XMLFormatter",
    ),  # prints a record's thread id, with no LogRecord named
    Use(
        Family.ENVIRONMENT,
        ("count += new Object() { }.getClass().getEnclosingMethod().getName().length();",),
        "java.lang.Class#getEnclosingMethod",
    ),
    Use(
        Family.ENVIRONMENT,
        ("if (System.getSecurityManager() != null) { count++; }",),
        "java.lang.System#getSecurityManager",
    ),
    Use(
        Family.ENVIRONMENT,
        ("count += java.util.concurrent.ForkJoinPool.commonPool().getFactory().getClass().getName().length();",),
        "java.util.concurrent.ForkJoinPool#getFactory",
    ),  # the runner's factory of plain workers, by its class (closing red team 12's pool_worker)
    Use(
        Family.ENVIRONMENT,
        (
            "try { for (Object store : java.nio.file.FileSystems.getDefault().getFileStores()) { count++; } } "
            "catch (RuntimeException e) { }",
        ),
        "java.nio.file.FileSystem#getFileStores",
    ),  # round 7: the mount table, read by the JDK's native code where no path check sees it
    Use(Family.ENVIRONMENT, ('count += (int) new java.io.File("x").getUsableSpace();',), "java.io.File#getUsableSpace"),
    Use(
        Family.ENVIRONMENT,
        ("try { count += java.net.NetworkInterface.getNetworkInterfaces().hashCode(); } catch (Exception e) { }",),
        "java.net.NetworkInterface",
    ),  # round 7: a sandbox has only loopback
    Use(
        Family.ENVIRONMENT,
        ('try { count += new java.io.File("x").getCanonicalPath().length(); } catch (java.io.IOException e) { }',),
        "java.io.File#getCanonicalPath",
    ),  # /proc/self resolves to the pid with no security-manager check
    Use(
        Family.ENVIRONMENT,
        (
            "java.util.function.UnaryOperator<java.io.File> real = f -> { try { return f.getCanonicalFile(); } "
            'catch (java.io.IOException e) { return f; } }; count += real.apply(new java.io.File("x")).hashCode();',
        ),
        "java.io.File#getCanonicalFile",
    ),
    Use(
        Family.ENVIRONMENT,
        ('try { count += java.nio.file.Paths.get("x").toRealPath().hashCode(); } catch (java.io.IOException e) { }',),
        "java.nio.file.Path#toRealPath",
    ),  # the job's links resolve to host paths under nl2fix's cache
    Use(Family.ENVIRONMENT, ("count += (int) Runtime.getRuntime().maxMemory();",), "java.lang.Runtime#maxMemory"),
    Use(Family.ENVIRONMENT, ("count += (int) Runtime.getRuntime().totalMemory();",), "java.lang.Runtime#totalMemory"),
    Use(Family.ENVIRONMENT, ("count += (int) Runtime.getRuntime().freeMemory();",), "java.lang.Runtime#freeMemory"),
    Use(
        Family.ENVIRONMENT,
        ('count += String.valueOf(Integer.class.getResource("Integer.class")).length();',),
        "java.lang.Class#getResource",
    ),  # a project class's URL names the host folder it came from: nl2fix's cache
    Use(
        Family.ENVIRONMENT,
        (
            'try { count += java.nio.file.Files.readSymbolicLink(java.nio.file.Paths.get("x")).hashCode(); } '
            "catch (java.io.IOException e) { }",
        ),
        "java.nio.file.Files#readSymbolicLink",
    ),  # the job's links lead to host paths under nl2fix's cache
    Use(
        Family.ENVIRONMENT,
        ("count += Integer.class.getProtectionDomain().hashCode();",),
        "java.lang.Class#getProtectionDomain",
    ),
    Use(
        Family.ENVIRONMENT,
        ('count += new java.io.File("").getAbsolutePath().length();',),
        "java.io.File#getAbsolutePath",
    ),
    Use(Family.ENVIRONMENT, ('count += new java.io.File("x").toURI().hashCode();',), "java.io.File#toURI"),
    Use(
        Family.ENVIRONMENT,
        ('count += java.nio.file.Paths.get("").toAbsolutePath().hashCode();',),
        "java.nio.file.Path#toAbsolutePath",
    ),  # round 9's working_dir: /workspace
    Use(Family.ENVIRONMENT, ('count += new java.io.File("src").canWrite() ? 1 : 0;',), "java.io.File#canWrite"),
    Use(
        Family.ENVIRONMENT,
        ('count += java.nio.file.Files.isWritable(java.nio.file.Paths.get("src")) ? 1 : 0;',),
        "java.nio.file.Files#isWritable",
    ),  # round 9's read_only_checkout
    Use(
        Family.ENVIRONMENT,
        (
            'try { count += java.nio.file.Files.readAttributes(java.nio.file.Paths.get("x"), '
            "java.nio.file.attribute.PosixFileAttributes.class).owner().hashCode(); } "
            "catch (java.io.IOException e) { }",
        ),
        "java.nio.file.attribute.PosixFileAttributes",
    ),
    Use(
        Family.STACK_INSPECTION,
        ("StackWalker.getInstance().walk(frames -> frames.count());",),
        "java.lang.StackWalker",
        release=11,
    ),
    Use(
        Family.INSTRUMENTATION,
        ("java.lang.management.ManagementFactory.getRuntimeMXBean();",),
        "java.lang.management.ManagementFactory",
    ),
    Use(Family.JDK_INTERNALS, ("Object u = sun.misc.Unsafe.class;",), "sun.misc.Unsafe", release=11),
    Use(Family.NATIVE_CODE, ('System.loadLibrary("evil");',), "java.lang.System#loadLibrary"),
    Use(Family.PROCESS, ("Runtime.getRuntime().halt(0);",), "java.lang.Runtime#halt"),
    Use(Family.PROCESS, ("System.exit(0);",), "java.lang.System#exit"),
    Use(Family.PROCESS, ("System.setOut(System.err);",), "java.lang.System#setOut"),
    Use(Family.PROCESS, ("try { System.in.read(); } catch (java.io.IOException e) { }",), "java.lang.System#in"),
    Use(
        Family.PROCESS,
        ('try { new ProcessBuilder("true").start(); } catch (java.io.IOException e) { }',),
        "java.lang.ProcessBuilder#start()",
    ),
    Use(
        Family.PROCESS, ("java.util.function.IntConsumer halt = Runtime.getRuntime()::halt;",), "java.lang.Runtime#halt"
    ),  # a method reference: a MethodHandle in BootstrapMethods
    Use(Family.THREADS, ("Thread.currentThread().getThreadGroup().interrupt();",), "java.lang.ThreadGroup"),
    Use(Family.THREADS, ("new Thread() { public void run() { stop(); } }.start();",), "java.lang.Thread#stop"),
    Use(
        Family.FILE_DESCRIPTORS,
        ('new java.io.PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out)).println("forged");',),
        "java.io.FileDescriptor",
    ),
    Use(Family.FILE_DESCRIPTORS, ('new java.io.File("/proc/self/fd/0").exists();',), '"/proc/self/fd/0"'),
    Use(Family.FILE_WRITES, ('new java.io.File("failing_tests").delete();',), "java.io.File#delete()"),
    Use(
        Family.FILE_WRITES,
        (
            'try { new javax.imageio.stream.FileImageOutputStream(new java.io.File("x")).close(); } '
            "catch (java.io.IOException e) { }",
        ),
        "javax.imageio.stream.FileImageOutputStream#<init>(java.io.File)",
    ),
    Use(
        Family.FILE_WRITES,
        ('try { new java.io.PrintWriter("failing_tests").close(); } catch (java.io.IOException e) { }',),
        "java.io.PrintWriter#<init>(java.lang.String)",
    ),
    Use(
        Family.FILE_WRITES,
        (
            'try { java.nio.file.Files.write(java.nio.file.Paths.get("x"), new byte[0]); } '
            "catch (java.io.IOException e) { }",
        ),
        "java.nio.file.Files#write(java.nio.file.Path, byte[], java.nio.file.OpenOption[])",
    ),
    Use(
        Family.SOCKETS,
        ('try { new java.net.Socket("localhost", 1).close(); } catch (java.io.IOException e) { }',),
        "java.net.Socket#<init>(java.lang.String, int)",
    ),
    Use(Family.TEST_HARNESS, ("org.junit.Assume.assumeTrue(count > 0);",), "org.junit.Assume"),
    Use(Family.FINALIZERS, ("new Object() { protected void finalize() { } }.hashCode();",), "#finalize()"),
]
JUNIT_STAND_IN = {
    "org/junit/Assume.java": "package org.junit; public class Assume { public static void assumeTrue(boolean b) { } }",
    "org/junit/AssumptionViolatedException.java": "package org.junit; public class AssumptionViolatedException "
    "extends RuntimeException { "
    "public AssumptionViolatedException(String m) { super(m); } }",
    "nl2fix/runner/MethodReach.java": "package nl2fix.runner; public final class MethodReach { "
    "public static void hit() { } }",
}
"""Compiled beside the cases, so that a candidate can name JUnit as one on a project's class path can (and
the runner's public entry point ``MethodReach.hit``, as one compiled where the runner is visible could)."""


def _policy_cases() -> list[Case]:
    cases = []
    for i, use in enumerate(USES):
        name = f"{use.family.name.lower()}-{i}"
        cases.append(Case(f"{name}-added", body(*use.statements), REFERENCE, use.reference, release=use.release))
        cases.append(
            Case(
                f"{name}-already", body(*use.statements), buggy={"other": " ".join(use.statements)}, release=use.release
            )
        )
    return cases


STATIC_INITIALIZER = Case(
    "static-initializer", {"extra": "static { System.exit(0); }"}, REFERENCE, "java.lang.System#exit"
)
CASES = ACCEPTED + CHANGED_STRUCTURE + _policy_cases() + [STATIC_INITIALIZER]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """Every case's versions at a release, compiled in one javac run per side (a case's package is
    the same in both, as the buggy and the candidate class are): release -> (case id, side) -> its
    classes, compiled on first use."""
    at: dict[int, dict] = {}

    def of(release: int) -> dict:
        if release not in at:
            cases = [case for case in CASES if case.release <= release]
            found = {}
            for side in ("buggy", "new"):
                sources = {**JUNIT_STAND_IN, **{f"{case.package}/Text.java": case.source(side) for case in cases}}
                classes = compile_java(sources, tmp_path_factory.mktemp(f"{side}{release}"), "--release", str(release))
                found.update({(case.id, side): classes_of_source(classes, case.package, "Text.java") for case in cases})
            at[release] = found
        return at[release]

    return of


@pytest.mark.parametrize(
    ("case", "release"),
    [(case, release) for release in RELEASES for case in CASES if case.release <= release],
    ids=lambda v: v.id if isinstance(v, Case) else f"release{v}",
)
def test_case(case, release, compiled):
    classes = compiled(release)
    rejection = check(classes[case.id, "buggy"], classes[case.id, "new"], case.method)
    if case.rejected is None:
        assert rejection is None
        return
    assert rejection is not None and rejection.kind is case.rejected, rejection
    if case.rejected is STRUCTURE:
        assert case.expected in rejection.reason and rejection.reference is None
    else:
        assert rejection.reference is not None and rejection.reference.endswith(case.expected)
        assert rejection.reference in rejection.reason


def test_every_policy_family_has_a_case():
    assert {use.family for use in USES} == set(Family)


@pytest.mark.parametrize("release", RELEASES)
def test_a_reference_rejection_names_the_class_and_the_policys_reason(compiled, release):
    classes = compiled(release)
    case = next(c for c in CASES if c.expected == "java.lang.Runtime#halt")
    rejection = check(classes[case.id, "buggy"], classes[case.id, "new"], "target")
    rule = rule_for("java.lang.Runtime#halt")
    assert rejection is not None and rule is not None
    assert (
        rejection.reason == f"{case.package}.Text uses java.lang.Runtime#halt, which the candidate may "
        f"not add ({rule.family.value}: {rule.why})"
    )


@pytest.mark.parametrize("release", RELEASES)
def test_a_structure_rejection_names_what_changed_and_what_may(compiled, release):
    classes = compiled(release)
    rejection = check(classes["member-class", "buggy"], classes["member-class", "new"], "target")
    assert rejection is not None and rejection.reason == (
        "the candidate adds class c_member_class.Text$Evil; it may change only the body and declaration of target"
    )


@pytest.mark.parametrize("release", RELEASES)
def test_the_target_decides_which_classes_are_the_candidates_own(compiled, release):
    classes = compiled(release)
    # the same change judged for another target: the lambda's and anonymous classes are not its own
    assert check(classes["anonymous", "buggy"], classes["anonymous", "new"], "other").kind is STRUCTURE
    assert check(classes["nested-in-lambda", "buggy"], classes["nested-in-lambda", "new"], "other").kind is STRUCTURE


@pytest.mark.parametrize("release", RELEASES)
def test_a_case_against_itself_passes(compiled, release):
    classes = compiled(release)
    for (case, side), version in classes.items():
        assert check(version, version, "target") is None, (case, side)


def test_classes_of_source_follow_the_source_file_not_the_names(tmp_path):
    out = compile_java(
        {
            "p/Text.java": "package p; public class Text { class In { } }\nclass TextTest { }\n",
            "p/Other.java": "package p; class Other { }\n",
        },
        tmp_path,
    )
    assert sorted(classes_of_source(out, "p", "Text.java")) == ["p/Text", "p/Text$In", "p/TextTest"]
    assert sorted(classes_of_source(out, "p", "Other.java")) == ["p/Other"]
    assert classes_of_source(out, "p", "Gone.java") == {}


def test_classes_without_a_source_file_attribute_cannot_be_told_apart(tmp_path):
    out = compile_java({"p/Text.java": "package p; public class Text { }\n"}, tmp_path, "-g:none")
    with pytest.raises(ClassFileError, match="no SourceFile attribute"):
        classes_of_source(out, "p", "Text.java")


@pytest.mark.parametrize("release", RELEASES)
def test_bytes_that_are_not_a_class_file_are_an_error_naming_the_class(compiled, release):
    classes = compiled(release)
    buggy = classes["body-only", "buggy"]
    broken = {**buggy, "c_body_only/Text": b"\xca\xfe\xba\xbe\x00"}
    with pytest.raises(ClassFileError, match="c_body_only/Text: "):
        check(buggy, broken, "target")
    with pytest.raises(ValueError, match="no classes"):
        check(buggy, {}, "target")


def test_cases_are_named_uniquely():
    assert len({case.id for case in CASES}) == len(CASES)


def test_the_red_team_corpus_is_refused_on_its_classes(minibench, tmp_path):
    """Every attack of ``fixtures/redteam/``, in the mini benchmark's Text bug, is refused before it runs."""
    bug = next(b for b in minibench.bugs.values() if b.path.endswith("Text.java"))
    fixed = (MINIBENCH / "projects" / bug.project / "fixed" / bug.path).read_text(encoding="iso-8859-1")
    buggy = fixed.replace(bug.fixed_method, bug.buggy_method)
    assert buggy != fixed

    def in_package(name: str, text: str) -> str:
        return text.replace("package org.mini;", f"package {name};")

    found = {}
    for side in ("buggy", "new"):
        sources = {
            f"{name}/Text.java": in_package(
                name, buggy if side == "buggy" else buggy.replace(bug.buggy_method, red_team_attack(name, bug))
            )
            for name in ATTACKS
        }
        classes = compile_java({**JUNIT_STAND_IN, **sources}, tmp_path / side)
        found[side] = {name: classes_of_source(classes, name, "Text.java") for name in ATTACKS}
    method = bug.buggy_method.split("(")[0].split()[-1]
    refused = {name: check(found["buggy"][name], found["new"][name], method) for name in ATTACKS}
    # spliced as raw text, the Unicode-escape attacks close the class and add one: the check sees
    # that on its own, whatever the splice refuses first
    expected = {name: STRUCTURE if name.startswith("unicode_") else REFERENCE for name in ATTACKS}
    assert {name: rejection and rejection.kind for name, rejection in refused.items()} == expected
