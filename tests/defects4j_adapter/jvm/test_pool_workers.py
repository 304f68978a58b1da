"""The common pool's workers as a task sees them (``PoolWorkers.java``): under the runner's security manager
the JDK would make them its innocuous workers, and a task's ``Thread.currentThread().getClass()`` told nl2fix's
JVM from a plain one (red team 12's ``pool_worker``). Checked on a real JVM of each installed test Java: the same
tasks in the runner's module with its factory and a security manager installed, and in a plain ``java -cp``
with none; what a task sees of its worker (class, name, priority, group, daemon, uncaught-exception handler),
and whether a thread-local set by one task is there for the next (Java 17 erases them, Java 11 keeps them), is
the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.javac import JDKS, build, javac, output_lines, runner_build, runner_check

TASKS = """
    static String tasks() throws Exception {
        ThreadLocal<String> local = new ThreadLocal<>();
        StringBuilder seen = new StringBuilder();
        java.util.concurrent.ForkJoinPool pool = java.util.concurrent.ForkJoinPool.commonPool();
        for (int i = 0; i < 2; i++) {
            java.util.concurrent.ForkJoinTask<String> task = pool.submit(() -> {
                Thread t = Thread.currentThread();
                String before = local.get();
                local.set("set");
                return t.getClass().getName() + " " + t + " daemon=" + t.isDaemon() + " handler="
                        + t.getUncaughtExceptionHandler().getClass().getName() + " local=" + before;
            });
            // done, and its worker idle again: a task queued while it still runs is run before the erasing
            while (!task.isDone() || pool.getActiveThreadCount() > 0) {
                Thread.sleep(1);
            }
            seen.append(task.join()).append('\\n');
        }
        return seen.toString();
    }
"""
CHECK = (
    """package nl2fix.runner;

public final class PoolWorkersCheck {
    public static void main(String[] args) throws Exception {
        System.out.println("hidden " + PoolWorkers.makeCommon());
        System.setSecurityManager(new SecurityManager() {
            @Override
            public void checkPermission(java.security.Permission p) {
            }
        });
        System.out.print(tasks());
    }
"""
    + TASKS
    + "}\n"
)
PLAIN = "package p;\n\npublic final class Plain {\n    public static void main(String[] args) throws Exception {\n"
PLAIN += '        System.out.println("hidden true");\n        System.out.print(tasks());\n    }\n' + TASKS + "}\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("pool-workers")
    check = root / "src" / "nl2fix" / "runner" / "PoolWorkersCheck.java"
    plain = root / "p" / "Plain.java"
    for path, text in ((check, CHECK), (plain, PLAIN)):
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
    classes, plain_classes = root / "classes", root / "plain"
    build(
        runner_build(check, classes),
        [str(javac()), "--release", "11", "-nowarn", "-d", str(plain_classes), str(plain)],
    )
    return classes, plain_classes


@pytest.mark.parametrize("java", [j for j in JDKS if j.is_file()], ids=lambda j: j.parent.parent.name)
def test_a_task_sees_the_worker_a_plain_jvm_gives_it(built, java):
    classes, plain_classes = built
    plain = output_lines([str(java), "-cp", str(plain_classes), "p.Plain"])
    argv = runner_check(java, classes, "PoolWorkersCheck")
    if "java-11" not in str(java):  # from Java 12 on a security manager is installed only where allowed
        argv[1:1] = ["-Djava.security.manager=allow"]
    job = output_lines(argv)
    print(plain, job, sep="\n")
    assert plain[1].startswith("java.util.concurrent.ForkJoinWorkerThread Thread[ForkJoinPool.commonPool-worker-")
    assert job == plain
