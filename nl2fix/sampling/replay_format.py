"""The NL2Fix reference patch format, read and written.

``{key: {"prompt": text, "patches": [{"patch": text, "index": i}, ...]}, ...}`` where ``key`` is the
dataset key (``Project_N_path_start_end``). ``index`` is the choice index within the API call that
produced the patch, so it repeats across calls; a patch's sample index is its position in the list.
"""

from __future__ import annotations

import json
from pathlib import Path

from nl2fix.core import bug_ids
from nl2fix.core.errors import Nl2FixError


def parse(data: object, source: str = "patch file") -> dict[str, list[str]]:
    """Patch texts per bug id, in file order. Keys may be dataset keys or bug ids."""
    if not isinstance(data, dict):
        raise Nl2FixError(
            f"{source} must hold a JSON object keyed by bug", "expected the NL2Fix format {key: {prompt, patches}}"
        )
    found: dict[str, list[str]] = {}
    for key, entry in data.items():
        if _bug_of(key) is None or not isinstance(entry, dict) or not isinstance(entry.get("patches", []), list):
            raise Nl2FixError(f"{source}: entry {key!r} is not a bug with a list of patches")
        patches = []
        for i, patch in enumerate(entry.get("patches") or []):
            text = patch.get("patch") if isinstance(patch, dict) else None
            if not isinstance(text, str):
                raise Nl2FixError(f"{source}: patch {i} of {key!r} has no text")
            patches.append(text)
        found[key] = patches
    return found


def load(path: Path | str) -> dict[str, list[str]]:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise Nl2FixError(f"patch file {path} not found") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise Nl2FixError(f"patch file {path} is not valid JSON: {exc}") from exc
    return parse(data, str(path))


def _bug_of(key: str) -> tuple[str, int] | None:
    """The bug a key names: ``Math_2_src/...java_10_20``, ``Math-2`` and ``math_2`` all name Math-2."""
    return bug_ids.canonical_key("-".join(key.split("_")[:2]) if "_" in key else key)


def by_bug(patches: dict[str, list[str]]) -> dict[tuple[str, int], list[str]]:
    """Patches keyed by canonical bug (see :func:`nl2fix.core.bug_ids.canonical_key`); the first entry wins."""
    keyed: dict[tuple[str, int], list[str]] = {}
    for key, texts in patches.items():
        bug = _bug_of(key)
        if bug is None:
            raise Nl2FixError(f"patch file entry {key!r} is not a bug")
        keyed.setdefault(bug, texts)
    return keyed


def entry(prompt: str, patches: list[str]) -> dict:
    """One bug's entry in the format (``index`` numbers the patches in order)."""
    return {"prompt": prompt, "patches": [{"patch": text, "index": i} for i, text in enumerate(patches)]}
