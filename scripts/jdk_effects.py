"""Regenerates the JDK effects files the class-file check loads (``defects4j_adapter/bytecode/
effects-jdk<major>.txt``) from the JDKs' own class files: ``python scripts/jdk_effects.py
/usr/lib/jvm/java-11-openjdk-amd64 /usr/lib/jvm/java-17-openjdk-amd64``. See
``defects4j_adapter/bytecode/jdk_effects.py`` for what is derived and how."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from defects4j_adapter.bytecode.jdk_effects import Effect, data_file, derive, jdk_version, render


def main(jdks: list[str]) -> None:
    for jdk in map(Path, jdks):
        started = time.monotonic()
        version = jdk_version(jdk)
        effects = derive(jdk)
        target = data_file(int(version.split(".")[0]))
        target.write_text(render(version, effects))
        counts = ", ".join(f"{effect.value} {len(effects[effect])}" for effect in Effect)
        print(f"{target.name}: JDK {version}, {counts} members, {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:] or ["/usr/lib/jvm/java-11-openjdk-amd64", "/usr/lib/jvm/java-17-openjdk-amd64"])
