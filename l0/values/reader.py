"""Reading `main`'s arguments from text (docs/reference.md §6.2, generalised).

The 2014 `l0c -i` read one value per line; this reader reads a whitespace-separated
stream, one value per flattened parameter of `main`, so values may span lines; a value
left over after the last needed one is an error (l0c ignored extra lines silently, which
hid data sets that did not match the program). Accepted:

    value ::= INT | REAL | "True" | "False" | CHAR | STRING | "Checked"
            | "[" [ value { "," value } ] "]" | "empty" "(" TYPE ")"

* numbers may be negative (`-3`, `-2.5e-3`); a real needs a point or an exponent (`2.0`,
  `1e5`, `1.`, `.5`) and `Infinity`, `-Infinity`, `NaN` are reals too; an int outside
  the 64-bit range, or a real too large for a double (`1e999`), is an error (l0c's `read`
  wrapped or overflowed silently);
* as in l0c, an int is *not* accepted where a real is expected (`2` for a `real`
  parameter is an error): the finpar data sets (`$L0_FINPAR_DIR`) never need it,
  they write every real with a point;
* chars `'a'` and strings `"ab"` (a `[char]`) with Haskell escapes, as in programs;
* `[]` and `empty(T)` are empty arrays, typed by the parameter (`T` must be its row type);
* `//` comments run to the end of the line (the finpar data sets use them);
* arrays must be rectangular ("irregular array: row 1 has 3 elements, expected 4"; rows
  are numbered from 0, as in L0 and in run-time errors).

Errors are `L0Error(Loc(source, line, col), message, kind="value-error")` at the input
position. Big arrays of numbers or bools go through `fast_reader` first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import NamedTuple, NoReturn

import numpy as np

from l0.diagnostics import L0Error, Loc
from l0.syntax.escapes import EscapeError, decode_escape
from l0.types import ArrayType, Basic, BasicType, Type
from l0.values.fast_reader import try_fast_array
from l0.values.model import CHECKED, DTYPES, INT_MAX, INT_MIN, Value

_REAL = r"-?(?:\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\.\d+(?:[eE][+-]?\d+)?)"
_CHAR = r"'(?:\\[^\n]|[^'\\\n])[^'\n]*'"  # one char or escape, checked when decoded
_STRING = r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
_TOKEN = re.compile(
    rf"(?P<real>{_REAL})|(?P<int>-?\d+)|(?P<word>-?[A-Za-z_]\w*)"
    rf"|(?P<char>{_CHAR})|(?P<string>{_STRING})|(?P<punct>[\[\](){{}},*])",
    re.ASCII,  # `\d` is 0-9 only, as in L0's lexer
)
_SPACE = re.compile(r"\s*")
_NUMBER_TAIL = re.compile(r"[\w.]")  # a number glued to these is malformed (`1.5.3`, `2x`)
_MALFORMED = re.compile(r"[\w.+-]*")

_COMMENT = re.compile(r"//[^\n]*")
# Quoted literals are matched too so that a `//` inside a string is not a comment.
_COMMENT_OR_QUOTED = re.compile(rf"{_CHAR}|{_STRING}|//[^\n]*")
_SPECIAL_REALS = {"Infinity": float("inf"), "-Infinity": float("-inf"), "NaN": float("nan")}
_BASIC_NAMES = {b.value: b for b in Basic}


class _Tok(NamedTuple):
    kind: str  # a group name of `_TOKEN`
    text: str
    start: int
    end: int


def _blank_comments(text: str) -> str:
    """`text` with every comment replaced by spaces, so offsets (and lines) stay put."""
    if "//" not in text:
        return text
    if "'" not in text and '"' not in text:
        return _COMMENT.sub(lambda m: " " * len(m.group()), text)
    return _COMMENT_OR_QUOTED.sub(
        lambda m: " " * len(m.group()) if m.group().startswith("//") else m.group(), text
    )


def _match_end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where `pattern`, which matches the empty string (so always matches), ends from `pos`."""
    m = pattern.match(text, pos)
    assert m is not None
    return m.end()


def _shown(tok: _Tok | None, limit: int = 30) -> str:
    if tok is None:
        return "end of input"
    text = tok.text if len(tok.text) <= limit else tok.text[: limit - 3] + "..."
    return f"`{text}`"


def _elements(n: int) -> str:
    return f"{n} element" if n == 1 else f"{n} elements"


def _values(n: int) -> str:
    return f"{n} value" if n == 1 else f"{n} values"


def _array_type(kind: Basic, rank: int) -> Type:
    return BasicType(kind) if rank == 0 else ArrayType(BasicType(kind), rank)


class _Reader:
    """A type-directed reader over one text; `pos` is the next unread offset."""

    def __init__(self, text: str, source: str) -> None:
        self.text = _blank_comments(text)
        self.source = source
        self.pos = 0
        self.param = 0  # the 1-based parameter being read, for messages
        self._peeked: tuple[int, _Tok | None] | None = None  # (pos, token there)

    # -- positions and errors ------------------------------------------------------

    def loc(self, offset: int, length: int = 0) -> Loc:
        """The position of `offset`; a span when the `length` characters there are known."""
        line = self.text.count("\n", 0, offset) + 1
        col = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        if length <= 0:
            return Loc(self.source, line, col)
        return Loc(self.source, line, col, line, col + length - 1)

    def fail(self, offset: int, message: str, length: int = 0) -> NoReturn:
        raise L0Error(self.loc(offset, length), message, "value-error")

    def fail_expected(self, want: Type, tok: _Tok | None, nested: bool) -> NoReturn:
        where = "in the array for" if nested else "for"
        found = _shown(tok)
        if tok is not None and tok.kind == "int" and want == BasicType(Basic.REAL):
            found += f" (an int; write `{tok.text}.0` for a real)"
        elif tok is not None and tok.text in ("(", "{"):
            found += " (tuples are given one component at a time, without `(` or `{`)"
        self.fail(
            self._at(tok),
            f"expected a value of type {want} {where} parameter {self.param}, found {found}",
        )

    # -- tokens --------------------------------------------------------------------

    def peek(self) -> _Tok | None:
        """The next token (without consuming it); `None` at the end of the input."""
        if self._peeked is not None and self._peeked[0] == self.pos:
            return self._peeked[1]
        tok = self._lex()
        self._peeked = (self.pos, tok)
        return tok

    def _lex(self) -> _Tok | None:
        start = _match_end(_SPACE, self.text, self.pos)
        if start >= len(self.text):
            return None
        m = _TOKEN.match(self.text, start)
        if m is None:
            self._bad_token(start)
        kind = m.lastgroup or ""
        if kind in ("int", "real") and _NUMBER_TAIL.match(self.text, m.end()):
            bad = self.text[start:_match_end(_MALFORMED, self.text, start)]
            self.fail(start, f"malformed number `{bad}`")
        return _Tok(kind, m.group(), start, m.end())

    def _bad_token(self, start: int) -> NoReturn:
        c = self.text[start]
        if c == "'":
            self.fail(start, "unterminated or empty character literal")
        if c == '"':
            self.fail(start, "unterminated string literal")
        if c == "-":
            self.fail(start, "expected a number after `-` (write negative numbers as `-3`)")
        shown = c if c.isprintable() else repr(c)[1:-1]
        self.fail(start, f"unexpected character `{shown}` in the input")

    def next(self) -> _Tok | None:
        tok = self.peek()
        if tok is not None:
            self.pos = tok.end
        return tok

    # -- scalars -------------------------------------------------------------------

    def scalar(self, kind: Basic, nested: bool) -> Value:
        tok = self.next()
        if tok is not None:
            if kind is Basic.INT and tok.kind == "int":
                return self.integer(tok)
            if kind is Basic.REAL and tok.kind == "real":
                return self.real(tok)
            if kind is Basic.REAL and tok.text in _SPECIAL_REALS:
                return _SPECIAL_REALS[tok.text]
            if kind is Basic.BOOL and tok.text in ("True", "False"):
                return tok.text == "True"
            if kind is Basic.CHAR and tok.kind == "char":
                return self.char(tok)
            if kind is Basic.CERT and tok.text == "Checked":
                return CHECKED
        self.fail_expected(BasicType(kind), tok, nested)

    def integer(self, tok: _Tok) -> int:
        # The length test first: `int()` refuses strings of thousands of digits.
        if len(tok.text.lstrip("-").lstrip("0")) <= 19:
            v = int(tok.text)
            if INT_MIN <= v <= INT_MAX:
                return v
        self.fail(tok.start, f"integer {_shown(tok)} is out of the 64-bit range", len(tok.text))

    def real(self, tok: _Tok) -> float:
        v = float(tok.text)
        if math.isinf(v):  # `Infinity` is how to write it on purpose
            self.fail(
                tok.start, f"real {_shown(tok)} is too large for a 64-bit real", len(tok.text)
            )
        return v

    def char(self, tok: _Tok) -> int:
        if tok.text[1] != "\\":
            if len(tok.text) != 3:
                self.fail(tok.start, f"character literal {_shown(tok)} has more than one character")
            return ord(tok.text[1])
        try:
            chars, end = decode_escape(self.text, tok.start + 1, in_string=False)
        except EscapeError as err:
            self.fail(err.offset, err.message)
        if end != tok.end - 1:
            self.fail(tok.start, f"character literal {_shown(tok)} has more than one character")
        return ord(chars[0])

    def string(self, tok: _Tok) -> list[int]:
        body = tok.text[1:-1]
        if "\\" not in body:
            return [ord(c) for c in body]
        out: list[int] = []
        i, end = tok.start + 1, tok.end - 1
        while i < end:
            if self.text[i] != "\\":
                out.append(ord(self.text[i]))
                i += 1
                continue
            try:
                chars, i = decode_escape(self.text, i, in_string=True)
            except EscapeError as err:
                self.fail(err.offset, err.message)
            out.extend(ord(c) for c in chars)
        return out

    # -- arrays --------------------------------------------------------------------

    def array(self, kind: Basic, rank: int) -> np.ndarray:
        """Read an array of `rank` dimensions of `kind` (the careful, general path)."""
        flat: list[Value] = []
        # levels[L]: (offset, element count, index in parent) of each array at depth L;
        # indices count from 0 in messages, as L0's indices and run-time errors do.
        levels: list[list[tuple[int, int, int]]] = [[] for _ in range(rank)]
        self._array_at(kind, rank, 0, 0, flat, levels)
        shape = self._shape(levels, rank)
        if kind is Basic.CERT:
            arr = np.empty(len(flat), dtype=object)
            arr[:] = flat
        else:
            arr = np.array(flat, dtype=DTYPES[kind])
        return arr.reshape(shape)

    def _array_at(
        self,
        kind: Basic,
        rank: int,
        level: int,
        index: int,
        flat: list[Value],
        levels: list[list[tuple[int, int, int]]],
    ) -> None:
        """Read the array at nesting depth `level` (0 = the parameter itself).

        Recursion depth is bounded by the parameter type's rank, not by the input."""
        sub_rank = rank - level
        tok = self.next()
        if tok is not None and tok.text == "empty":
            self._empty(kind, sub_rank, tok, level > 0)
            levels[level].append((tok.start, 0, index))
            return
        if tok is not None and tok.kind == "string" and kind is Basic.CHAR and sub_rank == 1:
            codes = self.string(tok)
            flat.extend(codes)
            levels[level].append((tok.start, len(codes), index))
            return
        if tok is None or tok.text != "[":
            self.fail_expected(_array_type(kind, sub_rank), tok, level > 0)
        count = 0
        after = self.peek()
        if after is not None and after.text == "]":
            self.next()
        else:
            while True:
                count += 1
                if sub_rank == 1:
                    flat.append(self.scalar(kind, nested=True))
                else:
                    self._array_at(kind, rank, level + 1, count - 1, flat, levels)
                sep = self.next()
                if sep is not None and sep.text == "]":
                    break
                if sep is None or sep.text != ",":
                    self.fail(
                        self._at(sep),
                        f"expected `,` or `]` in the array for parameter {self.param}, "
                        f"found {_shown(sep)}",
                    )
        levels[level].append((tok.start, count, index))

    def _expect(self, punct: str, context: str) -> None:
        tok = self.next()
        if tok is None or tok.text != punct:
            self.fail(self._at(tok), f"expected `{punct}` {context}, found {_shown(tok)}")

    def _at(self, tok: _Tok | None) -> int:
        return tok.start if tok is not None else len(self.text)

    def _empty(self, kind: Basic, sub_rank: int, tok: _Tok, nested: bool) -> None:
        """Read the rest of `empty(T)`; `T` must be the row type of the array expected."""
        self._expect("(", "after `empty`")
        depth = 0
        t = self.next()
        while t is not None and t.text in ("[", "*"):
            depth += t.text == "["
            t = self.next()
        if t is None or t.text not in _BASIC_NAMES:
            self.fail(self._at(t), f"expected a type in `empty(...)`, found {_shown(t)}")
        elem = _BASIC_NAMES[t.text]
        for _ in range(depth):
            self._expect("]", "in the type of `empty(...)`")
        self._expect(")", "after the type in `empty(...)`")
        if elem is not kind or depth != sub_rank - 1:
            want = _array_type(kind, sub_rank)
            found = _array_type(elem, depth + 1)
            where = "in the array for" if nested else "for"
            self.fail(
                tok.start,
                f"expected a value of type {want} {where} parameter {self.param}, "
                f"found `empty({_array_type(elem, depth)})` of type {found}",
            )

    def _shape(self, levels: list[list[tuple[int, int, int]]], rank: int) -> tuple[int, ...]:
        """The shape from the element counts per depth; rows of one depth must agree."""
        dims: list[int] = []
        for level, arrays in enumerate(levels):
            if not arrays:  # only empty arrays above: inner sizes are unknown
                return tuple(dims) + (0,) * (rank - level)
            expected = arrays[0][1]
            for offset, count, index in arrays:
                if count != expected:
                    self.fail(
                        offset,
                        f"irregular array: row {index} has {_elements(count)}, expected {expected}",
                    )
            dims.append(expected)
        return tuple(dims)

    # -- parameters ----------------------------------------------------------------

    def value(self, t: Type, fast: bool) -> Value:
        """Read the value of the next parameter, of flattened type `t`."""
        if isinstance(t, BasicType):
            return self.scalar(t.kind, nested=False)
        if not isinstance(t, ArrayType) or not isinstance(t.elem, BasicType):
            raise ValueError(f"read_values needs flattened parameter types, got {t}")
        kind = t.elem.kind
        if fast:
            tok = self.peek()
            if tok is not None and tok.text == "[":
                got = try_fast_array(self.text, tok.start, kind, t.rank)
                if got is not None:
                    self.pos = got[1]
                    return got[0]
        return self.array(kind, t.rank)


def read_values(
    text: str | bytes | bytearray, types: Sequence[Type], source: str = "<stdin>"
) -> list[Value]:
    """Read one value per type in `types` (the flattened parameter types of `main`, from
    `l0.types.flatten`) from `text`; see the module docstring for the syntax. Given
    bytes, text and binary values may be mixed (`binary.py`).

    Raises `L0Error` (kind `value-error`) at the position of the offending input."""
    if not isinstance(text, str):
        from l0.values.binary import read_mixed

        return read_mixed(text, types, source)
    return _read_values(text, types, source, fast=True)


def _read_values(text: str, types: Sequence[Type], source: str, *, fast: bool) -> list[Value]:
    """`read_values`, with the fast array path optional (tests compare both paths)."""
    reader = _Reader(text, source)
    out: list[Value] = []
    for n, t in enumerate(types, 1):
        reader.param = n
        out.append(reader.value(t, fast))
    extra = reader.peek()
    if extra is not None:
        reader.fail(
            extra.start,
            f"unexpected {_shown(extra)} after the last argument "
            f"(expected {_values(len(types))})",
            len(extra.text),
        )
    return out
