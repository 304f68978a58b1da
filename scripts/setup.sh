#!/usr/bin/env bash
# One-time (and idempotent) set-up of a fresh machine: the JVM side (javac, JUnit 4,
# bubblewrap for confining candidates) from Debian packages, then nl2fix itself.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v javac >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
[ -f /usr/share/java/junit4.jar ] || need+=(junit4)
[ -f /usr/share/java/hamcrest-core.jar ] || need+=(libhamcrest-java)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# JDK 11, the Java Defects4J 3 runs tests on: nl2fix's test JVM uses it when present (a newer JDK
# only emulates it). Debian 12 dropped it; Debian 11's suite (bullseye) of the same mirror has it,
# added at a low pin priority so that nothing else comes from it. Best effort: without it, tests
# run on the newer JDK with --add-opens, and the tests that need Java 11 itself skip.
jdk11() {
  ls /usr/lib/jvm/java-11-openjdk-*/bin/javac >/dev/null 2>&1 && return 0
  local SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  if ! apt-cache show openjdk-11-jdk-headless >/dev/null 2>&1 && grep -qs '^ID=debian' /etc/os-release \
      && ! grep -rqs bullseye /etc/apt/sources.list /etc/apt/sources.list.d/; then
    local mirror
    mirror=$(grep -rhsoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ \
             | awk '{print $2}' | head -n1)
    mirror=${mirror:-http://deb.debian.org/debian}
    echo "deb ${mirror%/} bullseye main" | $SUDO tee /etc/apt/sources.list.d/nl2fix-bullseye.list >/dev/null
    printf 'Package: *\nPin: release n=bullseye\nPin-Priority: 100\n' \
      | $SUDO tee /etc/apt/preferences.d/nl2fix-bullseye >/dev/null
    $SUDO apt-get update -qq
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openjdk-11-jdk-headless >/dev/null
}
jdk11 || echo "setup.sh: JDK 11 could not be installed; tests will run on a newer JDK with --add-opens" >&2

python3 -m pip install -q -e '.[test,ray]'
