"""jdk_effects.py: the committed lists catch the writers seen in attacks and leave honest code alone,
and they are what the JDKs' class files say today (regenerated and compared)."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from defects4j_adapter.bytecode.jdk_effects import DATA_FOLDER, Effect, data_file, derive, jdk_version, load, render

JDKS = {11: Path("/usr/lib/jvm/java-11-openjdk-amd64"), 17: Path("/usr/lib/jvm/java-17-openjdk-amd64")}
FILES = sorted(DATA_FOLDER.glob("effects-jdk*.txt"))

WRITERS = [
    "javax.imageio.stream.FileImageOutputStream#<init>(java.io.File)",
    "javax.imageio.ImageIO#write(java.awt.image.RenderedImage, java.lang.String, java.io.File)",
    "javax.xml.transform.Transformer#transform(javax.xml.transform.Source, javax.xml.transform.Result)",
    "java.util.logging.FileHandler#<init>(java.lang.String)",
    "java.nio.file.Files#write(java.nio.file.Path, byte[], java.nio.file.OpenOption[])",
    "java.nio.file.Files#newBufferedWriter(java.nio.file.Path, java.nio.file.OpenOption[])",
    "java.nio.file.Files#copy(java.nio.file.Path, java.nio.file.Path, java.nio.file.CopyOption[])",
    "java.nio.file.Files#move(java.nio.file.Path, java.nio.file.Path, java.nio.file.CopyOption[])",
    "java.nio.file.Files#createTempFile(java.lang.String, java.lang.String, java.nio.file.attribute.FileAttribute[])",
    "java.nio.file.FileSystems#newFileSystem(java.net.URI, java.util.Map)",
    "java.nio.channels.FileChannel#open(java.nio.file.Path, java.nio.file.OpenOption[])",
    "java.io.File#deleteOnExit()",
    "java.io.File#delete()",
    "java.io.File#renameTo(java.io.File)",
    "java.io.File#createTempFile(java.lang.String, java.lang.String)",
    "java.io.File#setLastModified(long)",
    "java.io.FileWriter#<init>(java.lang.String)",
    "java.io.PrintWriter#<init>(java.lang.String)",
    "java.io.RandomAccessFile#<init>(java.io.File, java.lang.String)",
    "java.util.Formatter#<init>(java.lang.String)",
    "java.util.prefs.Preferences#flush()",
]
SOCKETS = [
    "java.net.Socket#<init>(java.lang.String, int)",
    "java.net.ServerSocket#<init>(int)",
    "java.net.DatagramSocket#<init>()",
    "java.nio.channels.SocketChannel#open(java.net.SocketAddress)",
]
PROCESSES = [
    "java.lang.ProcessBuilder#start()",
    "java.lang.Runtime#exec(java.lang.String)",
    "java.lang.ProcessHandle#destroy()",
]
HONEST = [
    "java.lang.Object#toString()",
    "java.lang.Object#equals(java.lang.Object)",
    "java.lang.Runnable#run()",
    "java.io.Closeable#close()",
    "java.util.Iterator#next()",
    "java.util.stream.Stream#collect(java.util.stream.Collector)",
    "java.io.Writer#write(java.lang.String)",
    "java.io.PrintStream#println(java.lang.String)",
    "java.lang.StringBuilder#append(java.lang.String)",
    "java.lang.String#format(java.lang.String, java.lang.Object[])",
    "java.util.HashMap#put(java.lang.Object, java.lang.Object)",
    "java.lang.Integer#parseInt(java.lang.String)",
    "java.lang.Throwable#printStackTrace()",
    "java.util.regex.Pattern#compile(java.lang.String)",
    "java.text.SimpleDateFormat#<init>(java.lang.String)",
    "java.math.BigDecimal#<init>(java.lang.String)",
    "java.util.Calendar#getInstance()",
    "java.util.TimeZone#getDefault()",
    "java.nio.file.Files#readAllBytes(java.nio.file.Path)",
    "java.nio.file.Files#lines(java.nio.file.Path)",
    "java.nio.file.Files#newInputStream(java.nio.file.Path, java.nio.file.OpenOption[])",
    "java.io.FileReader#<init>(java.io.File)",
    "java.io.FileInputStream#<init>(java.lang.String)",
    "java.util.zip.ZipFile#<init>(java.io.File)",
    "java.io.File#exists()",
    "java.io.ObjectOutputStream#writeObject(java.lang.Object)",
    "java.awt.Graphics2D#drawRect(int, int, int, int)",
    "java.awt.geom.Rectangle2D#getWidth()",
    "java.awt.Color#<init>(int, int, int)",
]


def test_there_is_a_file_per_jdk_the_tests_run_on():
    assert [path.name for path in FILES] == ["effects-jdk11.txt", "effects-jdk17.txt"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_writers_attacks_used_are_on_the_lists_and_honest_members_are_not(path):
    version, effects = load(path)
    assert version.startswith(path.stem.removeprefix("effects-jdk") + ".")
    for effect, members in ((Effect.FILES, WRITERS), (Effect.SOCKETS, SOCKETS), (Effect.PROCESSES, PROCESSES)):
        assert [m for m in members if m not in effects[effect]] == [], effect
    assert [(m, e.value) for m in HONEST for e in Effect if m in effects[e]] == []


@pytest.fixture(scope="module")
def derived() -> dict[int, str]:
    """Each installed JDK's list as its class files say today, rendered; both JDKs at once (a minute or
    more of CPU each: the suite's wall time halves on two cores)."""
    present = {major: jdk for major, jdk in JDKS.items() if (jdk / "jmods").is_dir()}
    with ProcessPoolExecutor(max(1, len(present))) as pool:
        jobs = {major: pool.submit(derive, jdk) for major, jdk in present.items()}
        return {major: render(jdk_version(present[major]), job.result()) for major, job in jobs.items()}


@pytest.mark.slow
@pytest.mark.parametrize("major", sorted(JDKS))
def test_the_lists_are_what_the_jdk_says(major, derived):
    jdk = JDKS[major]
    if major not in derived:
        pytest.skip(f"no JDK {major} with jmods at {jdk}")
    recorded, _ = load(data_file(major))
    if jdk_version(jdk) != recorded:
        pytest.skip(
            f"{jdk} is JDK {jdk_version(jdk)}, the list was made from {recorded}: "
            "run scripts/jdk_effects.py to regenerate it"
        )
    assert derived[major] == data_file(major).read_text(), (
        "the JDK's class files say otherwise: run scripts/jdk_effects.py and review the difference"
    )
