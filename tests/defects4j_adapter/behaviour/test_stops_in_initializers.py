"""A body the watchdog stops for its pace (``TestExecutor.watch``: ``referenceOverdue``, ``candidateOverdue``) is not
stopped while it runs a class's static initializer (``TestExecutor.initializingAClass``): a ``ThreadDeath`` there
leaves the class unusable for the rest of the job, every later use ``NoClassDefFoundError``, so every later input of
the probe differs. On real Defects4J (Math-50, 2026-11-30) the fix first initialized ``FastMath`` on a caller's
input and was stopped there: beside itself it then differed on 96 of them, which every candidate's probe passed over,
and the two overfitting patches those inputs catch were ``same-behaviour``. Here: the JDK's own rule that makes such a
stop final, and the runner telling a thread in an initializer from one that is not (real javac and java)."""

from __future__ import annotations

import subprocess

import pytest

from defects4j_adapter.jvm.runner import junit_jars
from tests.defects4j_adapter.behaviour.test_observable_state import runner  # noqa: F401  (the fixture)
from tests.helpers.javac import compile_java, javac

pytestmark = pytest.mark.slow

CHECK = """package nl2fix.runner;

public final class InitializerCheck {
    static final java.util.concurrent.CountDownLatch IN = new java.util.concurrent.CountDownLatch(1);
    static final java.util.concurrent.CountDownLatch GO = new java.util.concurrent.CountDownLatch(1);

    static final class Slow {
        static final int VALUE;
        static {
            IN.countDown();
            try {
                GO.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            VALUE = 7;
        }
    }

    static final class Stopped {
        static final int VALUE;
        static {
            IN2.countDown();
            for (;;) {
                Thread.onSpinWait();
                if (Boolean.getBoolean("never")) {
                    break;
                }
            }
            VALUE = 1;
        }
    }

    static final java.util.concurrent.CountDownLatch IN2 = new java.util.concurrent.CountDownLatch(1);
    static final java.util.concurrent.CountDownLatch OUTER_IN = new java.util.concurrent.CountDownLatch(1);
    static final java.util.concurrent.CountDownLatch OUTER_GO = new java.util.concurrent.CountDownLatch(1);

    /** A body the runner runs (a frame of its package) from inside a class's initializer. */
    public static void body() {
        OUTER_IN.countDown();
        try {
            OUTER_GO.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("removal")
    public static void main(String[] args) throws Exception {
        Thread t = new Thread(() -> System.out.println("value " + Slow.VALUE));
        // a body that runs inside an initializer (called from one, below the runner's frames) is stopped as ever
        Thread inside = new Thread(() -> Outer.touch());
        inside.start();
        OUTER_IN.await();
        System.out.println("inside " + TestExecutor.initializingAClass(inside));
        OUTER_GO.countDown();
        inside.join();
        System.out.println("before " + TestExecutor.initializingAClass(Thread.currentThread()));
        t.start();
        IN.await();
        System.out.println("in " + TestExecutor.initializingAClass(t));
        GO.countDown();
        t.join();
        // what the runner avoids: a thread stopped in an initializer leaves its class unusable for good
        Thread s = new Thread(() -> System.out.println("never " + Stopped.VALUE));
        s.setUncaughtExceptionHandler((th, e) -> { });
        s.start();
        IN2.await();
        System.out.println("stopped in " + TestExecutor.initializingAClass(s));
        s.stop();
        s.join();
        try {
            System.out.println("later " + Stopped.VALUE);
        } catch (NoClassDefFoundError e) {
            System.out.println("later " + e.getClass().getSimpleName());
        }
    }
}
"""


OUTER = """package h;

public final class Outer {
    static {
        nl2fix.runner.InitializerCheck.body();
    }

    public static void touch() {
    }
}
"""


def test_a_thread_in_a_static_initializer_is_told_and_a_stop_there_would_spoil_the_class(runner, tmp_path):
    classes = compile_java(
        {
            "nl2fix/runner/InitializerCheck.java": CHECK.replace("Outer.touch()", "h.Outer.touch()"),
            "h/Outer.java": OUTER,
        },
        tmp_path / "check",
        "-cp",
        f"{runner}:{':'.join(map(str, junit_jars()))}",
    )
    done = subprocess.run(
        [
            str(javac().with_name("java")),
            "-cp",
            ":".join(map(str, [classes, runner, *junit_jars()])),
            "nl2fix.runner.InitializerCheck",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:6] == [
        "inside false",
        "before false",
        "in true",
        "value 7",
        "stopped in true",
        "later NoClassDefFoundError",
    ], done.stdout
