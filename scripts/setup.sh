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
python3 -m pip install -q -e '.[test]'
