"""The JDK's reflection filter is the runner's (``ReflectionFilters.java``): the JDK's own additions (its
classes' static initializers) are in before the maps are taken, so a job's first annotation read keeps
them intact; a map of anyone else's in ``jdk.internal.reflect.Reflection`` (a candidate that reached it
hid a test's field from the fix judged next) fails the canary, and the runner puts its own back; a
class's member of an ``Unsafe`` type is
hidden from reflection by the job's loader. Checked on a real JVM of each installed test Java, with the
runner's own classes and the JVM options the engines give it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers.javac import JDKS, build, javac, runner_build, runner_check

CHECK = """package nl2fix.runner;

public final class FilterCheck {
    public static void main(String[] args) throws Exception {
        Class.forName("sun.misc.Unsafe");
        System.out.println("remembered " + (ReflectionWall.hideClassInternals() & ReflectionFilters.remember()));
        Class<?> reflection = Class.forName("jdk.internal.reflect.Reflection");
        java.lang.invoke.VarHandle fields = java.lang.invoke.MethodHandles.privateLookupIn(reflection,
                java.lang.invoke.MethodHandles.lookup())
                .findStaticVarHandle(reflection, "fieldFilterMap", java.util.Map.class);
        java.util.Map<Object, Object> foreign =
                new java.util.HashMap<>((java.util.Map<?, ?>) fields.getVolatile());
        for (String registrant : new String[] {"jdk.internal.reflect.ConstantPool",
                "jdk.internal.reflect.UnsafeStaticFieldAccessorImpl"}) {
            Class.forName(registrant, true, ClassLoader.getPlatformClassLoader());
        }
        System.out.println("intact " + ReflectionFilters.intact());
        fields.setVolatile(foreign);
        System.out.println("foreign map intact " + ReflectionFilters.intact());
        ReflectionFilters.restore();
        System.out.println("restored intact " + ReflectionFilters.intact());
        java.net.URL[] urls = {new java.io.File(args[0]).toURI().toURL()};
        nl2fix.loader.JobLoader loader =
                (nl2fix.loader.JobLoader) JobClasses.loader(urls, FilterCheck.class.getClassLoader());
        Class<?> holder = Class.forName("p.Holder", false, loader);
        System.out.println("visible " + java.util.Arrays.stream(holder.getDeclaredFields())
                .map(java.lang.reflect.Field::getName).sorted().collect(java.util.stream.Collectors.joining(",")));
        System.out.println("own " + JobClasses.own(holder) + " intact " + ReflectionFilters.intact());
        // a loader of the job's own making that names the runner's record is not heard
        nl2fix.loader.JobLoader made = new nl2fix.loader.JobLoader("made", urls, FilterCheck.class.getClassLoader(),
                loader.defined());
        System.out.println("made own " + JobClasses.own(Class.forName("p.Holder", false, made)));
        ReflectionFilters.restore();
    }
}
"""

HOLDER = """package p;
public final class Holder {
    private static final sun.misc.Unsafe U = null;
    private static final Object PLAIN = null;
}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("filters")
    src = root / "src" / "nl2fix" / "runner"
    src.mkdir(parents=True)
    (src / "FilterCheck.java").write_text(CHECK, encoding="utf-8")
    (root / "p").mkdir()
    (root / "p" / "Holder.java").write_text(HOLDER, encoding="utf-8")
    classes, holder = root / "classes", root / "holder"
    build(
        runner_build(src / "FilterCheck.java", classes),
        [str(javac()), "-source", "8", "-target", "8", "-nowarn", "-d", str(holder), str(root / "p" / "Holder.java")],
    )
    return classes, holder


@pytest.mark.parametrize("java", [j for j in JDKS if j.is_file()], ids=lambda j: j.parent.parent.name)
def test_a_foreign_filter_map_fails_the_canary_and_unsafe_members_are_hidden(built, java):
    classes, holder = built
    argv = runner_check(java, classes, "FilterCheck", str(holder))
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines() == [
        "remembered true",
        "intact true",
        "foreign map intact false",
        "restored intact true",
        "visible PLAIN",
        "own true intact true",
        "made own false",
    ], done
