"""Untrusted text (a candidate's code, a test's failure message, a probe's values) made safe to show.

A terminal obeys the control characters and escape sequences in what it prints, and a browser or an
editor reorders text around Unicode's bidirectional controls; zero-width and other format
characters show as nothing at all. Any of them in a candidate's text can make a person read
something else than what would be written into their project (a line hidden by a cursor move, a
comment that ends sooner than it seems, a redrawn verdict). Each is shown here as a visible escape
instead (``\\x1b``, ``\\u202e``, ``\\U000e0041``), and :func:`hidden_characters` says whether a
text carries any, so the candidate can be flagged wherever it is listed.

Kept as they are: newline and tab (the layout of code and of messages), and a carriage return
directly before a newline (a CRLF line end moves nothing). A lone carriage return is escaped: it
sends the cursor back over what was printed. The escapes are text a candidate could also have
typed; what tells them apart is the flag, and a distinct style where the output has one
(:func:`visible`'s ``mark``).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15): what a renderer
# shows as nothing, whatever its class. A hand list of "fillers" missed U+17B4, KHMER VOWEL INHERENT
# AQ, which Java accepts in a name: two variables that read alike ("sesame" and "sesame\u17b4") hid a
# backdoor in a plausible fix (tests/fixtures/redteam/found5/). Blank-looking letters besides.
_DEFAULT_IGNORABLE = frozenset(
    [
        0x00AD,
        0x034F,
        0x061C,
        0x115F,
        0x1160,
        0x17B4,
        0x17B5,
        *range(0x180B, 0x1810),
        *range(0x200B, 0x2010),
        *range(0x202A, 0x202F),
        *range(0x2060, 0x2070),
        0x3164,
        *range(0xFE00, 0xFE10),
        0xFEFF,
        0xFFA0,
        *range(0xFFF0, 0xFFF9),
        *range(0x1BCA0, 0x1BCA4),
        *range(0x1D173, 0x1D17B),
        *range(0xE0000, 0xE1000),
        0x2800,
        0x16FE4,
    ]
)
# format (Cf), control (Cc), separators (Zl, Zp), surrogates (Cs), what no font may show as meant:
# unassigned (Cn) and private-use (Co) characters, and the combining marks that take no space of their
# own (Mn, Me): a font draws one onto the letter before it, where it can read as part of that letter.
# Java takes them in a name: "i" + U+0307 COMBINING DOT ABOVE draws as a plain "i" (the dot lands on
# the i's own), so a second variable read as the loop's `i` hid a backdoor in a plausible fix
# (tests/fixtures/redteam/found8/). Text in a script that needs them (decomposed accents, Devanagari
# vowel signs) is flagged too: shown escaped, it still reads, and the flag costs a look.
_HIDDEN_CLASSES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Cn", "Co", "Mn", "Me"})
_LAYOUT = frozenset("\n\t")
_NAMES = {
    0x1B: "ESC",
    0x0D: "CR",
    0x07: "BEL",
    0x08: "BS",
    0x7F: "DEL",
    0x9B: "CSI",
    0x9D: "OSC",
    0x00: "NUL",
    0x0B: "VT",
    0x0C: "FF",
    0x85: "NEL",
}


def is_hidden(char: str) -> bool:
    """Whether ``char`` acts on the display instead of showing as itself (newline and tab aside)."""
    if char in _LAYOUT:
        return False
    return unicodedata.category(char) in _HIDDEN_CLASSES or ord(char) in _DEFAULT_IGNORABLE


def escape_char(char: str) -> str:
    """``\\xHH`` below U+0100, ``\\uHHHH`` in the basic plane, ``\\UHHHHHHHH`` above."""
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


# What may be hidden: an ASCII control (not tab or newline), a carriage return not ending a line, or
# any non-ASCII character (then its Unicode class decides): one pass of a regular expression, so
# that plain ASCII code costs next to nothing.
_MAYBE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)|[^\x00-\x7e]")


def _hidden(text: str) -> Iterator[int]:
    """The positions of the hidden characters in ``text``."""
    for found in _MAYBE.finditer(text):
        char = found.group()
        if char <= "\x7f" or is_hidden(char):
            yield found.start()


def segments(text: str) -> Iterator[tuple[str, bool]]:
    """``text`` as runs of (shown as it is, False) and (a hidden character's escape, True)."""
    start = 0
    for i in _hidden(text):
        if i > start:
            yield text[start:i], False
        yield escape_char(text[i]), True
        start = i + 1
    if start < len(text):
        yield text[start:], False


def visible(text: str, mark: Callable[[str], str] | None = None) -> str:
    """``text`` with every hidden character escaped; ``mark`` wraps each escape (a terminal's reverse
    video)."""
    if next(_hidden(text), None) is None:
        return text
    return "".join(mark(part) if escaped and mark else part for part, escaped in segments(text))


HTML_CLASS = "hidden-char"
"""The class of an escape's ``<span>`` in HTML (its style tells it from text that reads the same)."""


def html_visible(text: str) -> str:
    """``text`` as HTML: escaped as HTML, and each hidden character as its escape in a ``<span>`` of
    :data:`HTML_CLASS` (the attribute unquoted, so the result stays whole inside a quoted attribute)."""
    return "".join(
        f"<span class={HTML_CLASS}>{part}</span>" if escaped else html.escape(part) for part, escaped in segments(text)
    )


def hidden_characters(*texts: str) -> Counter[str]:
    """The hidden characters the texts carry, with how often."""
    return Counter(t[i] for t in texts for i in _hidden(t))


def strings_in(value: object) -> Iterable[str]:
    """Every string in a nest of dicts, lists and tuples (a record's ``model_dump()``), keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings_in(k)
            yield from strings_in(v)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from strings_in(v)


def char_name(char: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``; controls, which Unicode leaves unnamed, by their usual name."""
    code = ord(char)
    name = _NAMES.get(code) or unicodedata.name(char, "")
    return f"U+{code:04X} {name}".rstrip()


def describe(found: Counter[str], limit: int = 4) -> str:
    """``3 hidden characters (U+001B ESC x2, U+202E RIGHT-TO-LEFT OVERRIDE)``."""
    total = sum(found.values())
    kinds = [f"{char_name(c)}{f' x{n}' if n > 1 else ''}" for c, n in found.most_common(limit)]
    more = ", ..." if len(found) > limit else ""
    return f"{total} hidden character{'s' if total != 1 else ''} ({', '.join(kinds)}{more})"


def json_visible(json_text: str) -> str:
    """JSON with every hidden character written as a ``\\uXXXX`` escape (same data: in JSON they can
    only stand inside strings), so a terminal or an editor showing the file shows them as text."""
    out = []
    for part, escaped in segments(json_text):
        if not escaped:
            out.append(part)
            continue
        code = int(part[2:], 16)
        if code > 0xFFFF:
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out)
