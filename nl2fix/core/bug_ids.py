"""Forgiving bug ids: ``JxPath-20``, ``JXPATH-20``, ``jxpath_20`` and ``JxPath-20b`` are one bug."""

from __future__ import annotations

import difflib
import re
from typing import Iterable

from nl2fix.core.errors import Nl2FixError

_ID = re.compile(r"^\s*([A-Za-z][A-Za-z0-9]*?)[\s_\-]*(\d+)\s*[bBfF]?\s*$")
_DIGIT_LOOKALIKES = str.maketrans("lIiOo", "11100")
_NUMBER_PART = re.compile(r"(?<=[\s_\-])[0-9lIiOo]+(?=[bBfF]?\s*$)")


def canonical_key(text: str) -> tuple[str, int] | None:
    """``("jxpath", 20)`` for any spelling of JxPath bug 20; None when it is no bug id."""
    m = _ID.match(text)
    if not m:
        return None
    return m.group(1).lower(), int(m.group(2))


def _read_as_digits(text: str) -> str:
    """``Textkit-l`` as ``Textkit-1``: letters that look like digits where the bug number goes."""
    return _NUMBER_PART.sub(lambda m: m.group().translate(_DIGIT_LOOKALIKES), text)


def resolve(text: str, known_ids: Iterable[str]) -> str:
    """The known id that ``text`` names, or a user-facing error naming the closest ids."""
    known = list(known_ids)
    by_key = {canonical_key(k): k for k in known}
    key = canonical_key(text)
    if key is not None and key in by_key:
        return by_key[key]
    key = key or canonical_key(_read_as_digits(text))  # only suggested: the reading is a guess
    close = difflib.get_close_matches(text.strip(), known, n=3, cutoff=0.0)
    if key is not None:
        project_ids = sorted(
            (k for k in known if canonical_key(k)[0] == key[0]),
            key=lambda k: abs(canonical_key(k)[1] - key[1]),
        )
        if project_ids:
            close = project_ids[:3]
        elif not any(canonical_key(k)[0] == key[0] for k in known):
            projects = sorted({k.rsplit("-", 1)[0] for k in known})
            near = difflib.get_close_matches(key[0], [p.lower() for p in projects], n=1, cutoff=0.5)
            if near:
                proj = next(p for p in projects if p.lower() == near[0])
                close = sorted(
                    (k for k in known if k.startswith(proj + "-")),
                    key=lambda k: abs(canonical_key(k)[1] - key[1]),
                )[:3]
    hint = f"did you mean {', '.join(close)}?" if close else "run `nl2fix dataset stats` to list projects"
    raise Nl2FixError(f"unknown bug id {text!r} in this dataset", hint)
