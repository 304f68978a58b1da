#!/usr/bin/env bash
# JDK 11, the Java Defects4J 3 runs tests on: nl2fix's test JVM uses it when present (a newer JDK
# only emulates it). Idempotent; `scripts/setup.sh` runs it, and it runs alone too. Exits non-zero
# (saying why) when no JDK 11 is installed at the end.
#
# Debian 12 dropped JDK 11, yet `apt-cache show openjdk-11-jdk-headless` succeeds there (other
# packages name it), so only an installable candidate in `apt-cache policy` counts. Without one,
# Debian 11's suite (bullseye) of the machine's own Debian archive (read from its apt sources by
# scripts/apt_sources.sh; the public archive, said on stderr, when they name none) is added, pinned
# so that apt takes nothing but openjdk-11-* from it. The JDK's alternatives get Debian's lower
# priority for 11, so a newer JDK stays the default `java` and `javac`.
set -euo pipefail
source "$(dirname "$0")/apt_sources.sh"

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

jdk11_javac() { ls /usr/lib/jvm/java-11-openjdk-*/bin/javac 2>/dev/null | head -n1; }

has_candidate() {
  # Not `grep -q`: it stops reading early, and apt-cache's SIGPIPE fails the pipeline (pipefail).
  apt-cache policy openjdk-11-jdk-headless 2>/dev/null | grep -E '^ +Candidate: +[^ (]' >/dev/null
}

add_bullseye() {
  local mirror
  mirror=$(debian_archive)
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bullseye main" \
    | $SUDO tee /etc/apt/sources.list.d/nl2fix-bullseye.list >/dev/null
  # The specific record first: apt uses the first record that matches a package.
  printf '%s\n' 'Package: openjdk-11-*' 'Pin: release n=bullseye' 'Pin-Priority: 500' '' \
    'Package: *' 'Pin: release n=bullseye' 'Pin-Priority: -1' \
    | $SUDO tee /etc/apt/preferences.d/nl2fix-bullseye >/dev/null
  $SUDO apt-get update -qq
}

if [ -z "$(jdk11_javac)" ]; then
  if ! has_candidate && grep -qs '^ID=debian' /etc/os-release \
      && ! grep -rqs bullseye /etc/apt/sources.list /etc/apt/sources.list.d/; then
    add_bullseye
  fi
  has_candidate || { echo "jdk11.sh: apt has no installable openjdk-11-jdk-headless" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openjdk-11-jdk-headless >/dev/null
fi

javac=$(jdk11_javac)
version=$([ -n "$javac" ] && "$javac" -version 2>&1 || true)
case "$version" in
  "javac 11."*) echo "jdk11.sh: $version at ${javac%/bin/javac}" ;;
  *) echo "jdk11.sh: no working JDK 11 after the install (${javac:-no javac}: ${version:-nothing})" >&2; exit 1 ;;
esac
