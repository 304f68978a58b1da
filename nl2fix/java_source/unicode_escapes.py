"""Java text as javac reads it: Unicode escapes translated (JLS 3.3) before anything is lexed.

javac translates every ``\\uXXXX`` before it reads tokens, comments included, so ``\\u007d`` is a
``}`` and ``// x \\u000a }`` is a comment that ends and a closing brace. Whatever reads a
candidate's text to decide something (do its braces balance, does its declaration change) reads
this translation, and what is compiled is the translation too, so javac reads what was checked.

The rules, as javac applies them: a ``\\`` begins an escape only when an even number of raw
backslashes come right before it (``\\\\u0041`` is six characters, ``\\\\\\u0041`` is ``\\\\A``),
and only when one or more ``u`` follow it; then exactly four hex digits. Anything else after
the ``u`` is a compile error, in a comment too (``// c:\\users``). UTF-16 surrogate pairs written
as two escapes are one character.

Two kinds of text are refused rather than translated (:class:`UnreadableEscape`):

- a malformed escape (javac's "illegal unicode escape": uncompilable anyway), and one whose
  digits are not all ASCII hex digits, the only ones JLS allows (javac 17 takes any Unicode digit,
  ``\\u\uff10041``; refusing it keeps the verdict from depending on that);
- an escape that yields a backslash (``\\u005c``). javac does not let that backslash begin another
  escape nor count it among the backslashes before one, but does let it begin an ordinary escape
  sequence (``"\\u005c""`` is the one-character string ``"``). So neither text can stand for
  it: left as six characters, our lexer would end that string where javac does not; translated,
  the backslash would be a raw one to javac reading the file, which may then begin an escape that
  was not there (``// \\u005cu000a }`` hides the brace from javac, its translation does not).
"""

from __future__ import annotations

import re

BACKSLASH = 0x5C
_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\(u+)([0-9A-Fa-f]{0,4})")
"""An eligible ``\\`` (not after a backslash, or after an even run of them, kept in group 1), its
``u``s, and the ASCII hex digits that follow, four at most."""


class UnreadableEscape(ValueError):
    """Text whose Unicode escapes javac would refuse, or read otherwise than any text we can check."""


def translate_unicode_escapes(text: str) -> str:
    """``text`` with every Unicode escape replaced by its character, as javac reads it.

    Raises :class:`UnreadableEscape` (with a one-line reason) for the text described above."""

    def one(m: re.Match) -> str:
        digits = m.group(3)
        line = text.count("\n", 0, m.start()) + 1
        if len(digits) < 4:
            raise UnreadableEscape(
                f"an illegal Unicode escape at line {line}: `\\{m.group(2)}{digits}` is not "
                "followed by four ASCII hex digits (javac reads escapes in comments too)"
            )
        if int(digits, 16) == BACKSLASH:
            raise UnreadableEscape(
                f"a Unicode escape of a backslash (`\\{m.group(2)}{digits}`) at line {line}: javac "
                "would read it unlike any text that could be checked and compiled in its place"
            )
        return m.group(1) + chr(int(digits, 16))

    translated = _ESCAPE.sub(one, text)
    # escaped surrogate pairs become the one character they encode; a lone surrogate stays
    return translated.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
