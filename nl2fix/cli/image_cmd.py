"""`nl2fix image build`: the JVM image that `--sandbox docker` runs candidates in."""

from __future__ import annotations

import click

from defects4j_adapter.sandbox import images
from nl2fix.cli.terminal import say


@click.group("image")
def image() -> None:
    """The JVM image of `--sandbox docker` (a JDK and JUnit 4 from Debian packages)."""


@image.command("build")
@click.option(
    "--base",
    default=None,
    metavar="IMAGE",
    help="Base image (default debian:bookworm-slim; without a registry, make nl2fix/debian:bookworm "
    "with scripts/make_base_image.sh and pass it here).",
)
@click.option(
    "--jdk",
    "jdk_major",
    type=click.Choice(["11", "17"]),
    default=None,
    help="The image's JDK (default: the Java Defects4J runs tests on, 11).",
)
def build_cmd(base: str | None, jdk_major: str | None) -> None:
    """Build the JVM image unless one of the same content (recipe and base) is already there;
    print its tag (nl2fix-jvm:<content hash>). `--sandbox docker` uses the newest image of the
    current recipe, whichever base it was built on."""

    tag = images.build(base or images.DEFAULT_BASE, int(jdk_major) if jdk_major else None, tell=say)
    say(f"java: {images.test_java(images.client().images.get(tag).id).describe()}")
