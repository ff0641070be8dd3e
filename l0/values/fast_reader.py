"""The fast path of the value reader: big arrays of ints, reals or bools in C-speed steps.

`try_fast_array(text, p, kind, rank)` reads the array whose `[` is at `text[p]` without a
Python loop over its elements: numpy finds the matching `]`, one rank-specific regular
expression (possessive, so it never backtracks) checks the whole syntax, `np.fromstring`
converts the numbers and numpy counts sub-arrays and commas to find the shape
(comments are no obstacle: the reader has blanked them out beforehand). It accepts only
the common case (no empty rows, no ints of 19 or more digits, which may be out of range,
no infinite reals, which may be overflows) and returns `None` for everything else,
including every error: the careful reader in `reader.py` then reads the value again and
reports the problem, so that messages never depend on which path ran.
"""

from __future__ import annotations

import functools
import re
import warnings

import numpy as np

from l0.types import Basic

# Deeper arrays use the careful reader: the validating pattern doubles in size per level.
MAX_FAST_RANK = 6
_OPEN, _CLOSE, _COMMA = ord("["), ord("]"), ord(",")

_EXP = r"[eE][+-]?+\d++"
# The same token forms as `reader._TOKEN`: a real has a point or an exponent.
_ELEMENT = {
    Basic.INT: r"-?+\d++",
    Basic.REAL: (
        rf"(?>-?+(?:\d++(?:\.\d*+(?:{_EXP})?+|{_EXP})|\.\d++(?:{_EXP})?+|Infinity)|NaN)"
    ),
    Basic.BOOL: r"(?>True|False)",
}
_LONG_INT = re.compile(r"\d{19}", re.ASCII)
_DTYPE = {Basic.INT: np.int64, Basic.REAL: np.float64}


@functools.cache
def _array_pattern(kind: Basic, rank: int) -> re.Pattern[str]:
    """A pattern matching exactly the non-empty, rank-`rank` array literals of `kind`."""
    inner = _ELEMENT[kind]
    for _ in range(rank):
        inner = rf"\[\s*+{inner}(?:\s*+,\s*+{inner})*+\s*+\]"
    # ASCII: other Unicode digits or spaces are left to the careful reader.
    return re.compile(inner, re.ASCII)


def find_array_end(text: str, p: int) -> int | None:
    """The offset just after the `]` matching the `[` at `text[p]`, or `None`.

    Scans in growing chunks, so the cost is proportional to the array, not to the text."""
    depth = 0
    pos = p
    size = 1 << 14
    while pos < len(text):
        chunk = np.frombuffer(text[pos : pos + size].encode("ascii", "replace"), np.uint8)
        at = np.flatnonzero((chunk == _OPEN) | (chunk == _CLOSE))
        if at.size:
            depths = np.cumsum(np.where(chunk[at] == _OPEN, 1, -1)) + depth
            closed = np.flatnonzero(depths == 0)
            if closed.size:
                return pos + int(at[closed[0]]) + 1
            depth = int(depths[-1])
        pos += size
        size *= 2
    return None


def _shape(body: bytes, rank: int) -> tuple[int, ...] | None:
    """The shape of a validated, non-empty array literal; `None` if it is irregular."""
    b = np.frombuffer(body, np.uint8)
    at = np.flatnonzero((b == _OPEN) | (b == _CLOSE))
    opening = b[at] == _OPEN
    depth_after = np.cumsum(np.where(opening, 1, -1))
    # The k-th `[` and the k-th `]` of one depth delimit the same array.
    opens = [at[opening & (depth_after == level)] for level in range(1, rank + 1)]
    closes = [at[~opening & (depth_after == level - 1)] for level in range(1, rank + 1)]
    dims: list[int] = []
    for level in range(rank - 1):  # children of outer arrays: the arrays one level down
        inner = opens[level + 1]
        counts = np.searchsorted(inner, closes[level]) - np.searchsorted(inner, opens[level])
        if not (counts == counts[0]).all():
            return None
        dims.append(int(counts[0]))
    # Innermost arrays: one more element than commas (the pattern admits no empty rows).
    bounds = np.empty(2 * opens[-1].size, dtype=np.int64)
    bounds[0::2], bounds[1::2] = opens[-1], closes[-1]
    counts = np.add.reduceat(b == _COMMA, bounds, dtype=np.int64)[0::2] + 1
    if not (counts == counts[0]).all():
        return None
    dims.append(int(counts[0]))
    return tuple(dims)


def try_fast_array(text: str, p: int, kind: Basic, rank: int) -> tuple[np.ndarray, int] | None:
    """Read the array literal at `text[p] == '['`; return it and the offset after it,
    or `None` when the careful reader must do it (see the module docstring)."""
    if kind not in _ELEMENT or rank > MAX_FAST_RANK:
        return None
    end = find_array_end(text, p)
    if end is None:
        return None
    body = text[p:end]
    if _array_pattern(kind, rank).fullmatch(body) is None:
        return None
    raw = body.encode("ascii")  # the pattern admits ASCII only
    if kind is Basic.BOOL:
        b = np.frombuffer(raw, np.uint8)
        flat = b[(b == ord("T")) | (b == ord("F"))] == ord("T")
    else:
        if kind is Basic.INT and _LONG_INT.search(body):
            return None  # may be out of the 64-bit range, which numpy does not report
        numbers = body.replace("[", " ").replace("]", " ")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                flat = np.fromstring(numbers, dtype=_DTYPE[kind], sep=",")
            except (ValueError, DeprecationWarning):
                return None
        if kind is Basic.REAL and np.isinf(flat).any():
            return None  # `Infinity`, or a real too large, which is an error
    shape = (flat.size,) if rank == 1 else _shape(raw, rank)
    if shape is None or int(np.prod(shape)) != flat.size:
        return None
    return flat.reshape(shape), end
