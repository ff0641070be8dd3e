"""Haskell escape sequences in L0 char and string literals (docs/reference.md §1.4).

The 2014 compiler decoded literals with Haskell's `read`, so the escapes are those
of the Haskell report (section 2.6): `\\a \\b \\f \\n \\r \\t \\v \\\\ \\" \\'`,
decimal `\\65`, octal `\\o101`, hexadecimal `\\x41`, control `\\^A`, the ASCII
names `\\NUL` ... `\\DEL`, and in strings the empty escape `\\&` and gaps
`\\   \\` (spaces only: a raw tab or newline in a literal is an error anyway).
"""

from __future__ import annotations

import re

_SINGLE: dict[str, str] = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
    "'": "'",
}

_ASCII_NAMES: tuple[str, ...] = (
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT",
    "FF", "CR", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB",
    "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US",
)  # fmt: skip
_NAMED: dict[str, int] = {name: code for code, name in enumerate(_ASCII_NAMES)}
_NAMED["SP"] = 0x20
_NAMED["DEL"] = 0x7F
# Longest name first: `\SOH` is SOH, not SO followed by `H` (Haskell report 2.6).
_NAMES_BY_LENGTH = sorted(_NAMED, key=len, reverse=True)

_CONTROL = "@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_"
_MAX_CODE = 0x10FFFF


class EscapeError(Exception):
    """A malformed escape; `offset` is where in the text the problem is."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


def _numeric(text: str, start: int, digits: str, base: int, esc: int) -> tuple[str, int]:
    """A numeric escape whose digits (from `digits`) begin at `start`."""
    end = start
    while end < len(text) and text[end] in digits:
        end += 1
    if end == start:
        raise EscapeError(esc, "missing digits in numeric escape")
    value = int(text[start:end].lstrip("0") or "0", base) if end - start < 40 else _MAX_CODE + 1
    if value > _MAX_CODE:
        raise EscapeError(esc, f"character escape '{text[esc:end]}' is out of range")
    return chr(value), end


def decode_escape(text: str, i: int, *, in_string: bool) -> tuple[list[str], int]:
    """Decode the escape starting with the backslash at `text[i]`.

    Returns the characters it stands for (none for `\\&` and gaps) and the offset
    just after it. Raises `EscapeError` for anything `read` would reject."""
    esc = i
    i += 1
    if i >= len(text):
        raise EscapeError(esc, "unterminated escape sequence")
    c = text[i]
    if c in _SINGLE:
        return [_SINGLE[c]], i + 1
    if c.isdigit() and c.isascii():
        ch, end = _numeric(text, i, "0123456789", 10, esc)
        return [ch], end
    if c == "x":
        ch, end = _numeric(text, i + 1, "0123456789abcdefABCDEF", 16, esc)
        return [ch], end
    if c == "o":
        ch, end = _numeric(text, i + 1, "01234567", 8, esc)
        return [ch], end
    if c == "^":
        if i + 1 < len(text) and text[i + 1] in _CONTROL:
            return [chr(_CONTROL.index(text[i + 1]))], i + 2
        raise EscapeError(
            esc, "invalid control escape: expected one of @ A-Z [ \\ ] ^ _ after '\\^'"
        )
    for name in _NAMES_BY_LENGTH:
        if text.startswith(name, i):
            return [chr(_NAMED[name])], i + len(name)
    if in_string and c == "&":
        return [], i + 1
    if in_string and c == " ":
        end = i
        while end < len(text) and text[end] == " ":
            end += 1
        if end < len(text) and text[end] == "\\":
            return [], end + 1
        raise EscapeError(esc, "unterminated string gap: expected '\\' after the spaces")
    shown = c if c.isprintable() else repr(c)[1:-1]
    raise EscapeError(esc, f"invalid escape sequence '\\{shown}'")


# The escapes as regular expressions, for highlighters (the Pygments lexer; the tests
# hold the TextMate grammar's to the same strings): any escape `decode_escape` accepts,
# and those it accepts only in strings (the empty escape `\&` and gaps).
ESCAPE_PATTERN = (
    r"\\(?:[" + re.escape("".join(_SINGLE)) + r"]|[0-9]+|x[0-9a-fA-F]+|o[0-7]+"
    r"|\^[" + re.escape(_CONTROL) + "]|" + "|".join(_NAMES_BY_LENGTH) + ")"
)
STRING_ESCAPE_PATTERN = r"\\(?:&| +\\)"
