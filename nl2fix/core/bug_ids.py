"""Forgiving bug ids: ``JxPath-20``, ``JXPATH-20``, ``jxpath_20`` and ``JxPath-20b`` are one bug."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

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
    keyed = {k: kk for k in known if (kk := canonical_key(k)) is not None}
    by_key = {kk: k for k, kk in keyed.items()}
    key = canonical_key(text)
    if key is not None and key in by_key:
        return by_key[key]
    key = key or canonical_key(_read_as_digits(text))  # only suggested: the reading is a guess
    close = difflib.get_close_matches(text.strip(), known, n=3, cutoff=0.0)
    if key is not None:
        project, number = key
        project_ids = sorted(
            (k for k, kk in keyed.items() if kk[0] == project), key=lambda k: abs(keyed[k][1] - number)
        )
        if project_ids:
            close = project_ids[:3]
        elif not any(kk[0] == project for kk in keyed.values()):
            projects = sorted({k.rsplit("-", 1)[0] for k in known})
            near = difflib.get_close_matches(project, [p.lower() for p in projects], n=1, cutoff=0.5)
            if near:
                proj = next(p for p in projects if p.lower() == near[0])
                close = sorted((k for k in keyed if k.startswith(proj + "-")), key=lambda k: abs(keyed[k][1] - number))[
                    :3
                ]
    hint = f"did you mean {', '.join(close)}?" if close else "run `nl2fix dataset stats` to list projects"
    raise Nl2FixError(f"unknown bug id {text!r} in this dataset", hint)
