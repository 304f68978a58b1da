"""policy.py's patterns: what each kind matches, which rule wins, and what stays allowed."""

from __future__ import annotations

import pytest

from defects4j_adapter.bytecode.classfile import MemberRef, Tag
from defects4j_adapter.bytecode.policy import FINALIZER, RULES, Family, member_subjects, rule_for


@pytest.mark.parametrize(
    "subject, pattern",
    [
        ("java.lang.ClassLoader", "java.lang.ClassLoader"),
        ("java.lang.ClassLoader#loadClass(java.lang.String)", "java.lang.ClassLoader"),  # a class's members
        ("java.lang.StackWalker$Option", "java.lang.StackWalker"),  # and its nested classes
        ("sun.misc.Unsafe#putAddress(long, long)", "sun.*"),  # a package's subpackages
        ("java.lang.reflect.Field#setAccessible", "java.lang.reflect.*#{setAccessible,trySetAccessible}"),
        (
            "java.lang.reflect.Field#setInt",
            "java.lang.reflect.Field#{get,set}{,Boolean,Byte,Char,Short,Int,Long,Float,Double}",
        ),
        (
            "java.io.PrintStream#<init>(java.io.File, java.lang.String)",
            "<JDK members that create, write, move or delete files>",
        ),
        (
            "javax.imageio.stream.FileImageOutputStream#<init>(java.io.File)",
            "<JDK members that create, write, move or delete files>",
        ),  # derived: a set look-up, exact
        ("java.lang.ProcessBuilder#start()", "<JDK members that start or kill processes>"),
        (
            "java.lang.Throwable#getStackTrace",
            "java.lang.Throwable#{getStackTrace,printStackTrace(java.io.PrintWriter),"
            "printStackTrace(java.io.PrintStream)}",
        ),
        ("java.io.ObjectInputStream#readObject", "java.io.{ObjectInputStream,ObjectInput}"),
        ('"/proc/self/mem"', '"*/proc{,/*}"'),
        ('"/proc"', '"*/proc{,/*}"'),
        ('"/dev/stdout"', '"*/dev/{fd,std}*"'),
        ("com.sun.tools.attach.VirtualMachine", "com.sun.tools.attach.*"),  # before com.sun.*: the earlier rule wins
        (
            "java.util.logging.LogManager#readConfiguration",
            "java.util.logging.LogManager#{readConfiguration,updateConfiguration}",
        ),
        ("javax.swing.UIManager#setLookAndFeel", "javax.swing.{UIManager,UIDefaults}"),
        (
            "java.awt.datatransfer.DataFlavor#<init>(java.lang.String, java.lang.String)",
            "java.awt.datatransfer.DataFlavor#<init>(java.lang.String*)",
        ),
        ("java.lang.System#getenv", "java.lang.System#{getProperty,getProperties,getenv}"),
        ("java.lang.Boolean#getBoolean", "java.lang.{Integer#getInteger,Long#getLong,Boolean#getBoolean}"),
        ("java.lang.Thread#threadId", "java.lang.Thread#{getId,threadId}"),  # Java 19's name for getId
        ("java.util.logging.LogRecord#getLongThreadID", "java.util.logging.{LogRecord,XMLFormatter}"),
    ],
)
def test_what_a_pattern_matches(subject, pattern):
    rule = rule_for(subject)
    assert rule is not None and rule.pattern == pattern


@pytest.mark.parametrize(
    "subject",
    [
        "java.lang.ClassLoaderish",  # only the class, not a longer name
        "java.lang.Thread#interrupt",
        "java.lang.Thread#currentThread",
        "java.lang.Thread#getName",  # "main" as a plain run's first thread
        "java.lang.Thread#toString",  # no id in it on Java 11 and 17
        "java.lang.Thread#sleep(long)",
        "java.lang.Throwable#printStackTrace()",
        "java.lang.Object#getClass",
        "java.lang.Class#getName",
        "javax.imageio.stream.FileImageOutputStream#<init>",  # a derived member matches with its parameters only
        "java.io.ObjectOutputStream#writeObject(java.lang.Object)",
        "java.io.Writer#write(java.lang.String)",
        "java.lang.Class#getMethod(java.lang.String, java.lang.Class[])",
        "java.lang.reflect.Field#getName",
        "java.lang.reflect.Array#get(java.lang.Object, int)",
        "java.lang.invoke.MethodHandles#lookup",
        "java.lang.invoke.MethodHandles$Lookup",
        "java.lang.invoke.LambdaMetafactory#metafactory",
        "java.lang.invoke.StringConcatFactory#makeConcatWithConstants",
        "java.lang.System#out",
        "java.io.PrintStream#<init>(java.io.OutputStream)",
        "java.io.PrintWriter#<init>(java.io.Writer)",
        "java.nio.file.Files#readAllBytes(java.nio.file.Path)",
        "java.io.File#exists",
        '"/processor"',
        '"proc"',
        "sunny.Day",
        "java.lang.System#lineSeparator",
        "java.lang.System#currentTimeMillis",  # not the environment
        "java.awt.datatransfer.DataFlavor#<init>(java.lang.Class, java.lang.String)",  # a class, not its name
        "java.util.logging.Logger#addHandler(java.util.logging.Handler)",  # put back after the job (JdkState)
    ],
)
def test_what_stays_allowed(subject):
    assert rule_for(subject) is None


def test_a_field_is_matched_by_name_and_a_method_also_with_its_parameters():
    field = MemberRef(Tag.FIELDREF, "java/lang/System", "in", "Ljava/io/InputStream;")
    method = MemberRef(Tag.METHODREF, "java/io/PrintWriter", "<init>", "([Ljava/io/File;I)V")
    assert member_subjects(field) == ("java.lang.System#in",)
    assert member_subjects(method) == ("java.io.PrintWriter#<init>", "java.io.PrintWriter#<init>(java.io.File[], int)")


def test_the_table_is_readable():
    assert len({rule.pattern for rule in RULES}) == len(RULES)
    assert all(rule.why and "\n" not in rule.why for rule in (*RULES, FINALIZER))
    assert {rule.family for rule in RULES} | {FINALIZER.family} == set(Family)
    assert FINALIZER.matches("p.Text$2#finalize()") and not FINALIZER.matches("p.Text$2#finalize(int)")
