"""The JVM image candidates run in under ``--sandbox docker``: a JDK and JUnit 4 from Debian
packages on a Debian base, nothing else (nl2fix itself stays on the host).

The image is tagged by its content: ``nl2fix-jvm:<hash>`` of the recipe (this module's
Dockerfile text) and the base image's id, so it is built once per machine and again only when
either changes. Its label ``nl2fix.jvm.recipe`` names the recipe alone, so the sandbox finds an
image built from any base (``nl2fix image build --base IMAGE``) without being told which.

Bases: ``debian:bookworm-slim`` from a registry, or, where none is reachable, one made locally
from Debian's package archive by ``scripts/make_base_image.sh`` (``nl2fix/debian:bookworm``).
"""

from __future__ import annotations

import functools
import hashlib
import io
import logging
import time
from collections.abc import Callable
from pathlib import Path

from defects4j_adapter import cache
from defects4j_adapter.jvm import reference_java
from defects4j_adapter.jvm.reference_java import Jdk, TestJava
from nl2fix.core.errors import Nl2FixError

log = logging.getLogger(__name__)

REPOSITORY = "nl2fix-jvm"
DEFAULT_BASE = "debian:bookworm-slim"
LOCAL_BASE = "nl2fix/debian:bookworm"
"""What ``scripts/make_base_image.sh`` makes (debootstrap + ``docker import``)."""
RECIPE_LABEL = "nl2fix.jvm.recipe"
JDK_HOME = Path("/opt/nl2fix-jdk")
"""A fixed path to the image's JDK, whatever its architecture suffix."""
INFO = "/opt/nl2fix-jvm"
BUILD_TIMEOUT = 1800
JDK_MAJORS = {11: "bullseye", 17: ""}
"""JDKs the image can hold and the extra Debian suite each comes from (11 left Debian 12)."""

_LIST_PACKAGES = reference_java._LIST_PACKAGES.replace("\n", " ")


def recipe(jdk_major: int) -> str:
    """The Dockerfile after its ``FROM`` line: what the image's tag hashes besides the base."""
    suite = JDK_MAJORS[jdk_major]
    extra = ""
    if suite:
        # the suite at a low pin priority, so that only the JDK comes from it (as scripts/setup.sh does)
        extra = (
            f"RUN echo 'deb http://deb.debian.org/debian {suite} main' > /etc/apt/sources.list.d/{suite}.list"
            f" && printf 'Package: *\\nPin: release n={suite}\\nPin-Priority: 100\\n'"
            f" > /etc/apt/preferences.d/{suite}\n"
        )
    return (
        extra
        + "RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "
        f"openjdk-{jdk_major}-jdk-headless junit4 libhamcrest-java >/dev/null && rm -rf /var/lib/apt/lists/*\n"
        f'RUN ln -s "$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")" {JDK_HOME} && mkdir {INFO}'
        f" && {JDK_HOME}/bin/java -version 2> {INFO}/version"
        f" && echo '{_LIST_PACKAGES}' > /tmp/ListPackages.java"
        f" && {JDK_HOME}/bin/java /tmp/ListPackages.java | sort > {INFO}/packages && rm /tmp/ListPackages.java\n"
        # Jobs see their paths at the host's places, which are under /root for root's default cache. Docker
        # makes the folders between an image folder and a bind traversable, but keeps the image's own
        # mode, and a tmpfs over /root would get it too; so the image's /root (.bashrc and .profile
        # only) is opened rather than the host's, and jobs keep their unprivileged uid.
        "RUN chmod 0755 /root\n"
        "USER 65534:65534\n"
    )


def recipe_hash(jdk_major: int) -> str:
    return hashlib.sha256(recipe(jdk_major).encode()).hexdigest()[:12]


@functools.lru_cache(maxsize=1)
def client():
    """One Docker client per process (its HTTP pool is thread-safe)."""
    try:
        import docker
    except ImportError as exc:
        raise Nl2FixError("the Docker SDK for Python is not installed", "pip install docker") from exc
    try:
        made = docker.from_env(timeout=300)
        made.ping()
    except Exception as exc:  # the SDK raises several kinds for "no daemon"
        raise Nl2FixError(
            f"no Docker daemon answers: {exc}",
            "start one (scripts/setup.sh starts dockerd as root), or use --sandbox bwrap",
        ) from exc
    return made


def default_jdk_major() -> int:
    """The JDK of the reference Java (what Defects4J runs tests on), or 17 when Debian has no such JDK."""
    major = max(reference_java.reference().major, reference_java.RUNNER_MIN_MAJOR)
    return major if major in JDK_MAJORS else 17


def _base_image(base: str):
    from docker.errors import APIError, ImageNotFound

    try:
        return client().images.get(base)
    except ImageNotFound:
        pass
    try:
        return client().images.pull(base)
    except APIError as exc:
        raise Nl2FixError(
            f"the base image {base} is not here and cannot be pulled: {exc.explanation or exc}",
            f"without a registry, make one from Debian's archive: scripts/make_base_image.sh, then "
            f"nl2fix image build --base {LOCAL_BASE}",
        ) from exc


def image_tag(base_id: str, jdk_major: int) -> str:
    digest = hashlib.sha256(f"{base_id}\n{recipe(jdk_major)}".encode()).hexdigest()[:12]
    return f"{REPOSITORY}:{digest}"


def build(base: str = DEFAULT_BASE, jdk_major: int | None = None, tell: Callable[[str], None] = log.info) -> str:
    """The JVM image on ``base`` (built only when no image of that content exists); its tag. ``tell``
    hears what was done (`nl2fix image build` prints it)."""
    from docker.errors import BuildError, ImageNotFound

    major = jdk_major or default_jdk_major()
    if major not in JDK_MAJORS:
        raise Nl2FixError(f"no JVM image recipe for JDK {major}", f"choose one of {sorted(JDK_MAJORS)}")
    base_image = _base_image(base)
    tag = image_tag(base_image.id, major)
    try:
        client().images.get(tag)
        tell(f"{tag} is present (base {base}, JDK {major}); kept")
        return tag
    except ImageNotFound:
        pass
    dockerfile = (
        f"FROM {base_image.id}\nLABEL {RECIPE_LABEL}={recipe_hash(major)} nl2fix.jvm.base={base}\n{recipe(major)}"
    )
    start = time.monotonic()
    try:
        client().images.build(
            fileobj=io.BytesIO(dockerfile.encode()), tag=tag, rm=True, forcerm=True, pull=False, timeout=BUILD_TIMEOUT
        )
    except BuildError as exc:
        tail = "".join(str(c.get("stream", c.get("error", ""))) for c in exc.build_log)[-2000:]
        raise Nl2FixError(
            f"building {tag} failed: {exc.msg}\n{tail}", "check that apt inside a container reaches Debian's mirror"
        ) from exc
    tell(f"built {tag} (base {base}, JDK {major}) in {time.monotonic() - start:.0f}s")
    return tag


def find(jdk_major: int | None = None) -> str | None:
    """The newest local JVM image of this recipe (from whichever base), or None."""
    label = f"{RECIPE_LABEL}={recipe_hash(jdk_major or default_jdk_major())}"
    images = sorted(client().images.list(filters={"label": label}), key=lambda i: i.attrs.get("Created", ""))
    return images[-1].id if images else None


def ensure(jdk_major: int | None = None) -> str:
    """The id of the JVM image to run candidates in: one already built, or one built now from
    the default base."""
    # built unasked, for minutes: said as a warning, so the wait is explained without -v
    return find(jdk_major) or client().images.get(build(jdk_major=jdk_major, tell=log.warning)).id


def containers_cpu_seconds() -> float | None:
    """CPU seconds of every container the daemon has run since its cgroup parent was made (the
    ``docker`` cgroup of the cgroupfs driver, v1 or v2); None where it cannot be read. What a
    container ran is no child of nl2fix, so a benchmark counts it here, before and after."""
    for path in (
        Path("/sys/fs/cgroup/cpuacct/docker/cpuacct.usage"),
        Path("/sys/fs/cgroup/cpu,cpuacct/docker/cpuacct.usage"),
    ):
        if path.is_file():
            return int(path.read_text()) / 1e9
    stat = Path("/sys/fs/cgroup/docker/cpu.stat")
    if stat.is_file():
        for line in stat.read_text().splitlines():
            if line.startswith("usage_usec "):
                return int(line.split()[1]) / 1e6
    return None


@functools.cache
def test_java(image_id: str) -> TestJava:
    """The Java the image runs tests on, read from the image once (and cached by its id)."""

    def read(tmp: Path) -> None:
        out = client().containers.run(
            image_id,
            ["sh", "-c", f"cat {INFO}/version; echo ==; cat {INFO}/packages"],
            remove=True,
            network_mode="none",
            stderr=True,
        )
        (tmp / "info").write_bytes(out)

    folder = cache.build_once(cache.cache_dir() / "jvm-image" / image_id.replace(":", "-")[:80], read)
    text = (folder / "info").read_text()
    version_text, _, packages = text.partition("==\n")
    parsed = reference_java.parse_java_version(version_text)
    if parsed is None:
        raise Nl2FixError(f"the JVM image {image_id} has no working Java: {version_text[:300]}")
    major, version = parsed
    if major < reference_java.RUNNER_MIN_MAJOR:
        raise Nl2FixError(
            f"the JVM image holds Java {version}; nl2fix's runner needs {reference_java.RUNNER_MIN_MAJOR}+"
        )
    jdk = Jdk(JDK_HOME, major, version)
    ref = reference_java.reference()
    flags = reference_java.emulation_flags(jdk, ref, cache.cache_dir(), packages.split())
    return TestJava(jdk, ref, f"the JVM image's JDK ({image_id[:19]})", flags)
