"""Printing values: `main`'s result as the 2014 `l0c -i` printed it (docs/reference.md §6.3).

`format_result(t, values)` flattens the result as the internaliser did: tuples vanish,
an array of tuples whose elements flatten to several components becomes `Checked`
followed by one array per component; one value prints alone, several as `{a, b}`.
`format_value(t, v)` prints one flattened value (also used by `trace`):

* int: decimal; real: Haskell `printf "%.6f"` (see Note [Haskell real rounding]), with
  `Infinity`, `-Infinity`, `NaN`; bool: `True`/`False`; cert: `Checked`;
* scalar char: Haskell `show` (`'a'`, `'\\n'`, `'\\''`, `'\\233'`);
* array of chars: the raw characters, no quotes, no escapes;
* other arrays: `[a, b]`; an empty array: `empty(ROW)` with its row type.

Decision on empty arrays (docs/reference.md §9): the original printed the whole runtime type of
an empty array produced by e.g. `filter` (`empty(*[int])`) but the row type of an `empty`
literal (`empty(int)`). Its output thus depended on where a value came from, which no
optimising compiler can reproduce; we always print the non-unique row type of the
flattened component: `empty(int)`, `empty([real])`.

`write_values(types, values)` is the inverse of `read_values`: it writes values in the
*input* syntax (strings in quotes, chars and reals exactly), one value per line.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_EVEN, Context, Decimal

import numpy as np

from l0.types import Basic, BasicType, TupleType, Type, flatten
from l0.values.model import Value

# Note [Haskell real rounding]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# GHC's `printf "%.6f"` rounds the *shortest round-trip digits* of a double (Python's
# `repr`) half-to-even, and prints all of them for big numbers; C/Python `%.6f` round the
# exact binary value. `Decimal(repr(x)).quantize(1e-6, ROUND_HALF_EVEN)` emulates GHC
# exactly. The two agree unless (a) `repr(x)` has exactly 7 decimals ending in 5 (a tie of
# the short digits), or (b) |x| is so large that its binary value has more integer digits
# than its shortest form (1e23 prints as 100000000000000000000000.000000, whereas Python
# shows 99999999999999991611392.000000). For |x| < 1e8 (an ulp below 1e-8): if `repr(x)`
# has at most 6 decimals, or 7 not ending in 5, x is too close to it to reach a rounding
# boundary on the other side; if
# it has 8 or more, no boundary k.dddddd5 lies between x and `repr(x)`, for that boundary
# would round to x as well and be a shorter representation. Arrays are therefore formatted
# with Python's fast `%.6f`, and only values that may be ties or are huge (detected with
# numpy) take the exact path.

_MICRO = Decimal("0.000001")
# Enough digits for the largest double (309 integer digits) plus 6 decimals.
_CTX = Context(prec=400, rounding=ROUND_HALF_EVEN)
# Below this, rint(x * 1e7) is exactly the 7-decimal digits of a tie (ulp(x * 1e7) < 1/4).
_FAST_LIMIT = 1e8


def format_real(x: float) -> str:
    """One real as GHC's `printf "%.6f"` prints it (Note [Haskell real rounding])."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return format(Decimal(repr(float(x))).quantize(_MICRO, context=_CTX), "f")


def _format_reals(a: np.ndarray) -> list[str]:
    """Format a flat float64 array, fast except where a tie or a huge value is possible."""
    values = a.tolist()
    out = ["%.6f" % v for v in values]  # noqa: UP031 - C's %.6f, the fastest spelling
    with np.errstate(invalid="ignore", over="ignore"):
        y = a * 1e7
        r = np.rint(y)
        # For a tie, |y - rint(y)| is a few ulps of y at most: 1e-12 * |y| is generous.
        near = np.flatnonzero(np.abs(y - r) <= 1e-12 * (np.abs(y) + 1.0))
        ties = near[np.abs(np.fmod(r[near], 10.0)) == 5.0]
        # NaN fails the comparison, so it lands here with infinities and huge values.
        unusual = np.flatnonzero(~(np.abs(a) < _FAST_LIMIT))
    for i in np.union1d(ties, unusual).tolist():
        out[i] = format_real(values[i])
    return out


_ASCII_NAMES = (
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "a", "b", "t", "n", "v",
    "f", "r", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB",
    "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US",
)  # fmt: skip


def _lit_char(c: int) -> str:
    """Haskell's `showLitChar` (without the `\\&` protection, see `show_string`)."""
    if c > 0x7F:
        return f"\\{c}"
    if c == 0x7F:
        return "\\DEL"
    if c == 0x5C:
        return "\\\\"
    if c >= 0x20:
        return chr(c)
    return "\\" + _ASCII_NAMES[c]


def show_char(c: int) -> str:
    """A char as Haskell `show`s it: `'a'`, `'\\n'`, `'\\''`, `'\\233'`, `'\\DEL'`."""
    if c == 0x27:
        return "'\\''"
    return "'" + _lit_char(c) + "'"


def show_string(codes: Sequence[int]) -> str:
    """A string as Haskell `show`s it, in double quotes; readable by `read_values`."""
    parts = ['"']
    prev = ""
    for c in codes:
        piece = '\\"' if c == 0x22 else _lit_char(c)
        # `\&` separates a numeric escape from a following digit and `\SO` from `H`.
        if (prev[1:].isdigit() and prev.startswith("\\") and piece[:1].isdigit()) or (
            prev == "\\SO" and piece == "H"
        ):
            parts.append("\\&")
        parts.append(piece)
        prev = piece
    parts.append('"')
    return "".join(parts)


def _chars_raw(row: np.ndarray) -> str:
    """A row of code points as the raw text the original printed."""
    data = np.ascontiguousarray(row, dtype="<u4").tobytes()
    try:
        return data.decode("utf-32-le", errors="surrogatepass")
    except UnicodeDecodeError:  # not a code point: cannot come from L0 text
        return "".join(chr(c) if 0 <= c <= 0x10FFFF else "\ufffd" for c in row.tolist())


def _row_type_text(kind: Basic, rank: int) -> str:
    """The row type of a `rank`-dimensional array of `kind`, non-unique: `[int]` for rank 2."""
    return "[" * (rank - 1) + kind.value + "]" * (rank - 1)


def _group(items: list[str], dims: Sequence[int]) -> str:
    """Nest `items` (row-major) into brackets for the array shape `dims` (all > 0)."""
    for d in reversed(dims[1:]):
        items = ["[" + ", ".join(items[i : i + d]) + "]" for i in range(0, len(items), d)]
    return "[" + ", ".join(items) + "]"


def _scalar_strings(kind: Basic, flat: np.ndarray) -> list[str]:
    if kind is Basic.INT:
        return [str(v) for v in flat.tolist()]
    if kind is Basic.REAL:
        return _format_reals(flat.astype(np.float64, copy=False))
    if kind is Basic.BOOL:
        return ["True" if v else "False" for v in flat.tolist()]
    return ["Checked"] * flat.size  # cert: rows of chars are printed by `char_row`


def _format_array(
    kind: Basic,
    rank: int,
    v: Value,
    empty: Callable[[int], str],
    char_row: Callable[[np.ndarray], str],
) -> str:
    """Print an array; `empty(rank)` prints an empty sub-array, `char_row` a row of chars."""
    a = np.asarray(v)
    if a.ndim != rank:
        raise ValueError(f"a value of rank {rank} was expected, got an array of shape {a.shape}")
    shape = a.shape
    if 0 in shape:
        k = shape.index(0)
        if k == 0:
            return empty(rank)
        return _group([empty(rank - k)] * math.prod(shape[:k]), shape[:k])
    if kind is Basic.CHAR:
        rows = a.reshape(-1, shape[-1])
        items = [char_row(row) for row in rows]
        return items[0] if rank == 1 else _group(items, shape[:-1])
    return _group(_scalar_strings(kind, a.reshape(-1)), shape)


def _format_scalar(kind: Basic, v: Value) -> str:
    if kind is Basic.INT:
        return str(int(v))
    if kind is Basic.REAL:
        return format_real(float(v))
    if kind is Basic.BOOL:
        return "True" if v else "False"
    if kind is Basic.CHAR:
        return show_char(int(v))
    return "Checked"


def format_value(t: Type, v: Value) -> str:
    """Print one flattened value of type `t` (a basic type or an array of one) as l0c did."""
    if isinstance(t, BasicType):
        return _format_scalar(t.kind, v)
    if isinstance(t, TupleType) or not isinstance(t.elem, BasicType):
        raise ValueError(f"format_value needs a flattened type, got {t}")
    kind = t.elem.kind
    return _format_array(
        kind, t.rank, v, lambda r: f"empty({_row_type_text(kind, r)})", _chars_raw
    )


def printed_components(t: Type) -> list[Type | None]:
    """The printed items of a value of type `t`: its flattened components, with `None`
    where the original printed the `Checked` of an array of tuples (docs/reference.md §6.3)."""
    if isinstance(t, BasicType):
        return [t]
    if isinstance(t, TupleType):
        return [c for e in t.elems for c in printed_components(e)]
    comps = flatten(t)
    if isinstance(t.elem, TupleType) and len(comps) != 1:
        # An array of tuples is a certificate plus a tuple of arrays ([{int}] is just [int]).
        # `[{}]` has no arrays left and prints `Checked` alone: untested in the original.
        return [None, *comps]
    return list(comps)


def format_result(t: Type, values: Sequence[Value]) -> str:
    """Print `main`'s result of L0 type `t`, given as its flattened values (one per
    component of `flatten(t)`), on one line without the final newline (docs/reference.md §6.3)."""
    items = printed_components(t)
    if sum(c is not None for c in items) != len(values):
        raise ValueError(f"a value of type {t} has {len(flatten(t))} components, got {len(values)}")
    it = iter(values)
    printed = ["Checked" if c is None else format_value(c, next(it)) for c in items]
    if len(printed) == 1:
        return printed[0]
    return "{" + ", ".join(printed) + "}"


def _write_real(x: float) -> str:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return repr(float(x))


def _write_value(t: Type, v: Value) -> str:
    if isinstance(t, BasicType):
        if t.kind is Basic.REAL:
            return _write_real(float(v))
        return _format_scalar(t.kind, v)
    if isinstance(t, TupleType) or not isinstance(t.elem, BasicType):
        raise ValueError(f"write_values needs flattened types, got {t}")
    kind = t.elem.kind
    a = np.asarray(v)
    if kind is Basic.REAL and a.ndim == t.rank and a.size:
        items = [_write_real(x) for x in a.reshape(-1).tolist()]
        return _group(items, a.shape)

    def empty(rank: int) -> str:
        return '""' if kind is Basic.CHAR and rank == 1 else f"empty({_row_type_text(kind, rank)})"

    return _format_array(kind, t.rank, a, empty, lambda row: show_string(row.tolist()))


def write_values(types: Sequence[BasicType | Type], values: Sequence[Value]) -> str:
    """Write `values` of the flattened `types` in the input syntax of `read_values`, one a
    line, so that reading the text back gives equal values (reals exactly, via `repr`).

    Arrays with a zero dimension come back with all inner sizes 0: `(2, 0)` round-trips,
    `(0, 3)` becomes `(0, 0)` (the syntax cannot say how long the rows of no rows are)."""
    if len(types) != len(values):
        raise ValueError(f"{len(types)} types but {len(values)} values")
    return "".join(_write_value(t, v) + "\n" for t, v in zip(types, values, strict=True))


__all__ = ["format_real", "format_result", "format_value", "show_char", "write_values"]
