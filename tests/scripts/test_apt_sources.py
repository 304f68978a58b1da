"""scripts/apt_sources.sh, which the set-up scripts source: the machine's own apt sources say where Debian
comes from (one-line and deb822 formats, options, comments, disabled stanzas), and without one the public
archive is used and stderr says so."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers.paths import REPO

DEB822 = """\
Types: deb-src
URIs: http://src.example.org/debian
Suites: bookworm

Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://disabled.example.org/debian
Suites: bookworm
Enabled: no

Types: deb
# the snapshot it was taken from, commented out
URIs: http://mirror.example.org/debian/
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://security.example.org/debian-security
Suites: bookworm-security
"""


def _ask(function: str, *args: str) -> subprocess.CompletedProcess:
    script = f'source "{REPO}/scripts/apt_sources.sh"; {function} "$@"'
    return subprocess.run(["bash", "-c", script, "apt_sources", *args], capture_output=True, text=True, timeout=30)


def _apt(tmp_path: Path, *, sources_list: str = "", files: dict[str, str] | None = None) -> Path:
    (tmp_path / "sources.list.d").mkdir(parents=True)
    if sources_list:
        (tmp_path / "sources.list").write_text(sources_list)
    for name, text in (files or {}).items():
        (tmp_path / "sources.list.d" / name).write_text(text)
    return tmp_path


def test_deb822_sources_skip_comments_source_types_and_disabled_stanzas(tmp_path):
    apt = _apt(tmp_path, files={"debian.sources": DEB822, "other.sources.disabled": "Types: deb\nURIs: x\n"})
    assert _ask("apt_source_uri", "bookworm", str(apt)).stdout == "http://mirror.example.org/debian/\n"
    assert _ask("apt_source_uri", "bookworm-security", str(apt)).stdout == (
        "http://security.example.org/debian-security\n"
    )
    assert _ask("apt_source_uri", "bullseye", str(apt)).stdout == ""


def test_one_line_sources_with_options_are_read_in_apts_order(tmp_path):
    apt = _apt(
        tmp_path,
        sources_list="# deb http://old.example.org/debian bookworm main\n"
        "deb [arch=amd64 signed-by=/k.gpg] http://one.example.org/debian bookworm main\n",
        files={"extra.list": "deb http://two.example.org/debian bullseye main  # for JDK 11\n"},
    )
    assert _ask("apt_source_uri", "bookworm", str(apt)).stdout == "http://one.example.org/debian\n"
    assert _ask("apt_source_uri", "bullseye", str(apt)).stdout == "http://two.example.org/debian\n"


def test_without_a_debian_source_the_public_archive_is_used_and_said(tmp_path):
    apt = _apt(tmp_path, files={"vendor.list": "deb https://packages.example.com/apt stable main\n"})
    result = _ask("debian_archive", str(apt))
    assert result.returncode == 0 and result.stdout == "http://deb.debian.org/debian\n"
    assert "apt sources name no Debian" in result.stderr and "using http://deb.debian.org/debian" in result.stderr
