"""The JDK's common code compiled ahead of time (``aot``): the list's compile commands, reading the JIT's log and
``-XX:+PrintAOT``, a library built by the real ``jaotc`` and mapped by the runner's JVMs, and a JDK whose library
cannot be made (remembered, never fatal)."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from defects4j_adapter.jvm import aot, reference_java, runner
from defects4j_adapter.sandbox.base import Limits, Mounts, others_can_read
from defects4j_adapter.sandbox.providers import make_sandbox
from defects4j_adapter.sandbox.unconfined import CONTAINER_ENV, ContainerSandbox
from nl2fix.core.processes import run_command

# lines of a test JVM's -XX:+LogCompilation log (JDK 11), some attributes left out
LOG = """\
<task compile_id='1' method='java.util.concurrent.ConcurrentHashMap tabAt ()V' level='1' stamp='0.021'>
<task compile_id='4' method='java.lang.Object &lt;init&gt; ()V' level='1' stamp='0.021'>
<task compile_id='7' method='java.util.HashMap$Node &lt;init&gt; ()V' level='1' stamp='0.03'>
<task compile_id='9' method='java.lang.invoke.LambdaForm$MH/0x0000000800069c40 invoke ()V' level='1' stamp='0.2'>
<task compile_id='11' method='nl2fix.runner.Graphs$$Lambda$112/0x0000000800178040 apply ()V' level='1' stamp='0.3'>
<task compile_id='12' method='nl2fix.runner.Graphs snapshot ()V' level='1' stamp='0.3'>
<task compile_id='13' method='org.apache.commons.math3.util.FastMath abs ()V' level='1' stamp='0.4'>
<task compile_id='14' method='jdk.internal.reflect.GeneratedMethodAccessor3 invoke ()V' level='1' stamp='0.5'>
<task compile_id='15' method='java.util.logging.Logger log ()V' level='1' stamp='0.5'>
"""
BASE = {"java.lang", "java.util", "java.util.concurrent", "java.lang.invoke", "jdk.internal.reflect"}


def test_the_jit_s_log_names_the_module_s_classes_with_a_class_file():
    assert aot.jit_compiled_classes(LOG, BASE) == {
        "java.util.concurrent.ConcurrentHashMap",
        "java.lang.Object",
        "java.util.HashMap$Node",
    }


def test_compile_commands_match_a_nested_class_literally():
    assert aot.compile_commands(["java.util.HashMap", "java.util.HashMap$Node"]) == (
        "compileOnly java.util.HashMap.*\ncompileOnly java.util.HashMap\\$Node.*\n"
    )


def test_the_list_is_read_without_its_comments():
    assert aot.listed_classes("# made by ...\n\njava.lang.String  # why\njava.util.HashMap$Node\n") == [
        "java.lang.String",
        "java.util.HashMap$Node",
    ]
    listed = aot.listed_classes(aot.CLASSES.read_text())
    assert "java.util.HashMap" in listed and "java.util.HashMap$Node" in listed
    assert all(not name.startswith(("org.", "nl2fix.")) for name in listed)


def test_a_module_s_packages_are_read_from_the_jdk_s_own_description():
    java = reference_java.current().jdk.java
    described = run_command([java, "--describe-module", "java.base"], timeout=120).stdout
    packages = aot.module_packages(described)
    assert {"java.lang", "java.util", "jdk.internal.reflect", "sun.nio.fs"} <= packages
    assert "java.util.logging" not in packages


def _jaotc_or_skip() -> reference_java.Jdk:
    jdk = reference_java.current().jdk
    if aot.jaotc(jdk) is None:
        pytest.skip(f"Java {jdk.version} has no jaotc (JDK 9-16 ship it)")
    return jdk


@pytest.mark.slow
def test_a_library_made_for_another_collector_is_refused_and_said_so(tmp_path):
    jdk = _jaotc_or_skip()
    commands = tmp_path / "commands.txt"
    commands.write_text(aot.compile_commands(["java.util.ArrayList"]))
    lib = tmp_path / "parallel.so"
    made = run_command(
        [aot.jaotc(jdk), "-J-XX:+UseParallelGC", "--compile-commands", commands, "--module", "java.base"]
        + ["--output", lib],
        timeout=600,
    )
    assert made.ok, made.stderr[-2000:]
    shown = run_command(
        [jdk.java, aot.GC, aot.UNLOCK, f"-XX:AOTLibrary={lib}", "-XX:+PrintAOT", "-version"], timeout=120
    )
    why = aot.accepted(shown.stdout + shown.stderr, lib)
    assert "parallel gc" in why and "serial gc" in why, why
    assert aot.accepted(f"      6    1     loaded    {lib}  aot library\n", lib) == ""


@pytest.mark.slow
def test_the_runner_s_jvms_map_the_library_and_run_its_code(tmp_path, monkeypatch, nl2fix_cache):
    jdk = _jaotc_or_skip()
    listed = tmp_path / "classes.txt"
    listed.write_text("# two classes\njava.util.ArrayList\njava.util.HashMap$Node\n")
    monkeypatch.setattr(aot, "CLASSES", listed)
    monkeypatch.setenv(aot.DIR_ENV, str(tmp_path / "aot"))
    runner_dir = runner.runner_classes(nl2fix_cache)
    library = aot.for_host()
    assert len(library.paths) == 1 and library.paths[0].is_file(), library.why_not
    assert all(p.is_relative_to(tmp_path / "aot") for p in library.paths)
    # the engines' command, in bubblewrap, which shows the libraries only because the mounts do
    box = make_sandbox(True)
    mounts = Mounts(read_only=(runner_dir, *(p.parent for p in library.paths)))
    argv = runner.jvm_command(
        runner_dir, memory_mb=256, tmp_dir=box.tmp_dir(mounts), mode=["serve"], precompiled=library, argfile=False
    )
    option = "-XX:AOTLibrary=" + ":".join(map(str, library.paths))
    at = argv.index(option) + 1
    result = box.run([*argv[:at], "-XX:+PrintAOT", *argv[at:]], mounts, Limits(wall_seconds=120), input="")
    assert "NL2FIX\tREADY" in result.stdout, result.stderr[-2000:]
    assert all(f"loaded    {p}" in result.stdout for p in library.paths), result.stdout[:2000]
    ran = [line.split()[-1] for line in result.stdout.splitlines() if "aot[" in line]
    assert any(m.startswith(("java.util.ArrayList.", "java.util.HashMap$Node.")) for m in ran), ran
    # the runner's own classes are left to the JIT (compiled so, they kept a job's loader reachable: see aot)
    assert not any(m.startswith("nl2fix.") for m in ran), ran
    assert not any(m.startswith("java.lang.String.") for m in ran)  # not listed
    # a JVM on another Java (a docker image's) is never given it
    other = reference_java.TestJava(
        reference_java.Jdk(Path("/opt/nl2fix-jdk"), jdk.major, jdk.version), reference_java.reference(), "another"
    )
    argv = runner.jvm_command(
        runner_dir, memory_mb=256, tmp_dir="/tmp", mode=["serve"], precompiled=library, java=other, argfile=False
    )
    assert not any(a.startswith("-XX:AOTLibrary") for a in argv)


def test_a_jdk_whose_library_cannot_be_made_is_remembered_and_runs_without(tmp_path, monkeypatch):
    real = reference_java.current().jdk
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "java").symlink_to(real.java)
    tries = tmp_path / "tries"
    jaotc = home / "bin" / "jaotc"
    jaotc.write_text(f"#!/bin/sh\necho tried >> {tries}\necho 'Error: no Graal here' >&2\nexit 3\n")
    jaotc.chmod(jaotc.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(aot.DIR_ENV, str(tmp_path / "aot"))
    jdk = reference_java.Jdk(home, real.major, real.version)
    first = aot.library(jdk)
    assert first.paths == () and "no Graal here" in first.why_not
    aot._BUILT.clear()
    again = aot.library(jdk)
    assert again == first and tries.read_text().count("tried") == 1
    assert first.options() == []
    monkeypatch.setenv(aot.ENABLE_ENV, "0")
    assert aot.library(real) == aot.Library(why_not=f"{aot.ENABLE_ENV}=0")


def test_a_build_out_of_time_keeps_nothing_and_is_tried_again_by_the_next_process(tmp_path, monkeypatch):
    # a machine too busy today is not a JDK that cannot: unlike a refusal, nothing is kept
    real = reference_java.current().jdk
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "java").symlink_to(real.java)
    tries = tmp_path / "tries"
    jaotc = home / "bin" / "jaotc"
    jaotc.write_text(f"#!/bin/sh\necho tried >> {tries}\nexec sleep 30\n")
    jaotc.chmod(jaotc.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(aot.DIR_ENV, str(tmp_path / "aot"))
    monkeypatch.setattr(aot, "BUILD_TIMEOUT", 1.0)
    jdk = reference_java.Jdk(home, real.major, real.version)
    first = aot.library(jdk)
    assert first.paths == () and "ran out of its 1 s" in first.why_not, first
    assert aot.library(jdk) == first and tries.read_text().count("tried") == 1  # not again in this process
    assert not list((tmp_path / "aot").rglob(aot.REFUSED))
    aot._BUILT.clear()  # the next process
    assert aot.library(jdk) == first and tries.read_text().count("tried") == 2


WRITER = """
import java.io.File;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

public class Writer {
    /** Each path rewritten three ways, as its owner could: in place, after giving it a write bit, and by a new file
     *  moved over it; each way printed WROTE or REFUSED. */
    public static void main(String[] args) throws Exception {
        for (String path : args) {
            attempt("in-place", path, () -> write(path));
            attempt("chmod", path, () -> {
                if (!new File(path).setWritable(true, true)) {
                    throw new java.io.IOException("no write bit given");
                }
                write(path);
            });
            attempt("replace", path, () -> {
                File made = new File(path + ".new");
                Files.write(made.toPath(), new byte[] {(byte) 0xCC});
                Files.move(made.toPath(), new File(path).toPath(), StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
            });
        }
    }

    interface Attempt {
        void run() throws Exception;
    }

    static void attempt(String how, String path, Attempt attempt) {
        try {
            attempt.run();
            System.out.println("WROTE " + how + " " + path);
        } catch (Exception e) {
            System.out.println("REFUSED " + how + " " + path + " " + e);
        }
    }

    static void write(String path) throws Exception {
        try (RandomAccessFile file = new RandomAccessFile(path, "rw")) {
            file.seek(4096);
            file.write(0xCC);
        }
    }
}
"""


@pytest.mark.slow
@pytest.mark.sandbox
def test_code_in_the_sandbox_cannot_rewrite_the_precompiled_code_later_jvms_map(tmp_path, confined, nl2fix_cache):
    # the libraries are native code every later JVM runs: a job that rewrote them would run in the next candidate's
    # JVM, before any of the runner's checks; the sandbox shows them read-only (a Java program run as a job, not
    # through the runner, whose class-file check refuses file writes before this wall is reached)
    _jaotc_or_skip()
    runner_dir = runner.runner_classes(nl2fix_cache)
    library = aot.for_host()
    assert library.paths, library.why_not
    before = {p: p.read_bytes() for p in library.paths}
    source = tmp_path / "src"
    source.mkdir()
    (source / "Writer.java").write_text(WRITER)
    box = make_sandbox(True)
    mounts = Mounts(read_only=(runner_dir, source, *(p.parent for p in library.paths)))
    java = str(reference_java.current().jdk.java)
    result = box.run([java, str(source / "Writer.java"), *map(str, library.paths)], mounts, Limits(wall_seconds=120))
    assert result.stdout.count("REFUSED ") == 3 * len(library.paths), result.stdout + result.stderr[-2000:]
    assert "WROTE" not in result.stdout
    assert {p: p.read_bytes() for p in library.paths} == before
    assert not any(p.with_name(p.name + ".new").exists() for p in library.paths)
    # the control: the same program, unconfined, rewrites a file of the library's folder and mode that it owns
    copy = tmp_path / "copy" / library.paths[0].name
    copy.parent.mkdir(mode=library.paths[0].parent.stat().st_mode & 0o777)
    copy.write_bytes(bytes(8192))
    copy.chmod(library.paths[0].stat().st_mode & 0o777)
    unconfined = run_command([java, source / "Writer.java", copy], timeout=120)
    assert "WROTE " in unconfined.stdout, unconfined.stdout + unconfined.stderr[-2000:]


def test_a_path_is_readable_by_others_only_through_searchable_folders():
    # pytest's temporary folders are closed to others
    top = Path(tempfile.mkdtemp(prefix="nl2fix-readable-"))
    try:
        lib = top / "in" / "lib.so"
        lib.parent.mkdir()
        lib.write_bytes(b"x")
        top.chmod(0o711)
        lib.parent.chmod(0o755)
        lib.chmod(0o644)
        assert others_can_read(lib)
        lib.chmod(0o640)
        assert not others_can_read(lib)
        lib.chmod(0o644)
        top.chmod(0o700)  # root's home on Ubuntu, where nl2fix's image runs
        assert not others_can_read(lib)
        (top / "link.so").symlink_to(lib)  # a link is read where it leads
        top.chmod(0o711)
        assert others_can_read(top / "link.so")
        lib.parent.chmod(0o750)
        assert not others_can_read(top / "link.so")
    finally:
        shutil.rmtree(top, ignore_errors=True)


@pytest.mark.slow
def test_the_image_s_jobs_get_the_library_only_where_their_uids_read_it(tmp_path, monkeypatch, nl2fix_cache):
    # nl2fix's image as root runs each job as a uid of its own with nothing mounted: a JVM named a library it cannot
    # read stops at its start (every candidate an error in CI, red team 12's image fixture), so the library is given
    # where others may reach it and not where they may not
    _jaotc_or_skip()
    if os.geteuid() != 0:
        pytest.skip("the image's sandbox runs jobs as uids of their own only as root")
    assert aot.for_host().paths, aot.for_host().why_not
    monkeypatch.setenv(CONTAINER_ENV, "1")
    box = make_sandbox(True)
    assert isinstance(box, ContainerSandbox)
    open_root = Path(tempfile.mkdtemp(prefix="nl2fix-aot-open-"))
    try:
        open_root.chmod(0o711)
        # a copy of the machine's library (no rebuild) under a folder closed to others, as root's home is in CI and
        # on Ubuntu, then moved where others may search, as the image keeps it
        (open_root / "closed").mkdir(mode=0o700)
        shutil.copytree(aot.aot_root(), open_root / "closed" / "aot", symlinks=True)
        monkeypatch.setenv(aot.DIR_ENV, str(open_root / "closed" / "aot"))
        shut = box.precompiled()
        assert shut.paths == () and "the jobs' uids cannot read" in shut.why_not, shut
        (open_root / "closed" / "aot").rename(open_root / "aot")
        monkeypatch.setenv(aot.DIR_ENV, str(open_root / "aot"))
        # the runner's cache too: pytest's temporary folders are closed to others
        runner_dir = runner.runner_classes(open_root / "cache")
        given = box.precompiled()
        assert given.paths and given.paths[0].is_relative_to(open_root), given
        mounts = Mounts(read_only=(runner_dir,), host_scratch=open_root / "scratch")
        argv = runner.jvm_command(
            runner_dir,
            memory_mb=256,
            tmp_dir=box.tmp_dir(mounts),
            mode=["serve"],
            precompiled=given,
            argfile=False,
        )
        result = box.run(argv, mounts, Limits(wall_seconds=120), input="")
        assert "NL2FIX\tREADY" in result.stdout, result.stdout[-1000:] + result.stderr[-2000:]
        # the same JVM says it mapped the library (the list of what it maps, all 1,123 classes' methods, is cut)
        at = argv.index(given.options()[-1]) + 1
        shown = box.run([*argv[:at], "-XX:+PrintAOT", *argv[at:]], mounts, Limits(wall_seconds=120), input="")
        assert f"loaded    {given.paths[0]}" in shown.stdout, shown.stdout[:2000]
        # nor can a job rewrite the code every later job's JVM runs: it reads the library as others, never owns it
        (open_root / "src").mkdir(mode=0o755)
        (open_root / "src" / "Writer.java").write_text(WRITER)
        (open_root / "src" / "Writer.java").chmod(0o644)
        before = given.paths[0].read_bytes()
        java = str(reference_java.current().jdk.java)
        wrote = box.run([java, str(open_root / "src" / "Writer.java"), str(given.paths[0])], mounts, Limits(120))
        assert wrote.stdout.count("REFUSED ") == 3 and "WROTE" not in wrote.stdout, wrote.stdout + wrote.stderr[-2000:]
        assert given.paths[0].read_bytes() == before
    finally:
        shutil.rmtree(open_root, ignore_errors=True)
