#!/usr/bin/env bash
# Make the JVM image's base without any registry: a minimal Debian bookworm root file system from
# Debian's package archive (debootstrap), imported into the local Docker daemon under a tag.
# Idempotent: an image already holding the tag is kept (never rebuilt), so CI pays this once per
# machine. Usage: scripts/make_base_image.sh [TAG] (default nl2fix/debian:bookworm), as root.
set -euo pipefail
source "$(dirname "$0")/apt_sources.sh"

TAG="${1:-nl2fix/debian:bookworm}"
SUITE="${NL2FIX_BASE_SUITE:-bookworm}"

if docker image inspect "$TAG" >/dev/null 2>&1; then
    echo "make_base_image: $TAG is present; kept"
    exit 0
fi
# the machine's own Debian archives (scripts/apt_sources.sh), unless NL2FIX_DEBIAN_MIRROR names one
MIRROR="${NL2FIX_DEBIAN_MIRROR:-$(debian_archive)}"
SECURITY="${NL2FIX_DEBIAN_SECURITY_MIRROR:-$(debian_security)}"
command -v debootstrap >/dev/null || { echo "make_base_image: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "make_base_image: debootstrap needs root" >&2; exit 1; }

ROOTFS="$(mktemp -d /tmp/nl2fix-rootfs.XXXXXX)"
trap 'rm -rf "$ROOTFS"' EXIT
start=$(date +%s)
debootstrap --variant=minbase "$SUITE" "$ROOTFS" "$MIRROR" >"$ROOTFS.log" 2>&1 \
    || { tail -20 "$ROOTFS.log" >&2; rm -f "$ROOTFS.log"; exit 1; }
rm -f "$ROOTFS.log"
# apt inside containers reaches the same mirror, with the security updates beside it
printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
    "$MIRROR" "$SUITE" "$MIRROR" "$SUITE" "$SECURITY" "$SUITE" >"$ROOTFS/etc/apt/sources.list"
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*
tar -C "$ROOTFS" -c . | docker import - "$TAG" >/dev/null
echo "make_base_image: built $TAG from $MIRROR ($SUITE) in $(( $(date +%s) - start ))s"
