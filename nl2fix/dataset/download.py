"""``nl2fix dataset pull``: fetch the published dataset file, check its sha256, write it atomically."""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from nl2fix.core.errors import Nl2FixError
from nl2fix.dataset.load import DATASET_FILE, DATASET_SHA256, DATASET_URL, data_dir

CHUNK = 1 << 16


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def pull(
    url: str = DATASET_URL,
    sha256: str = DATASET_SHA256,
    dest: Path | None = None,
    *,
    force: bool = False,
    timeout: float = 60.0,
) -> tuple[Path, bool]:
    """Download ``url`` to ``dest`` (default: the data directory) and check it; returns the path and
    whether anything was downloaded (a good copy already in place is kept). ``file://`` URLs work."""
    dest = Path(dest) if dest else data_dir() / DATASET_FILE
    if dest.is_file() and not force and sha256_of(dest) == sha256:
        return dest, False
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    tmp = Path(tmp_name)
    digest = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as response:
            for chunk in iter(lambda: response.read(CHUNK), b""):
                digest.update(chunk)
                out.write(chunk)
        if digest.hexdigest() != sha256:
            raise Nl2FixError(
                f"the file at {url} has sha256 {digest.hexdigest()}, not the published {sha256}",
                "the download was corrupted or the file changed upstream; nothing was written",
            )
        os.replace(tmp, dest)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise Nl2FixError(
            f"could not download {url}: {reason}",
            f"check the network, or fetch the file elsewhere and run `nl2fix dataset pull --url file:///path/to/{DATASET_FILE}`",
        ) from exc
    finally:
        tmp.unlink(missing_ok=True)
    return dest, True
