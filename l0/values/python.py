"""Arguments from Python (`l0.compile(...).f(...)`): checked and converted to run-time values.

The API takes what `l0.api` documents: Python scalars, numpy arrays (or nested lists),
tuples as Python tuples and an array of tuples as a tuple of its component arrays. Every
back end gets its arguments from `from_python`, so all accept and refuse the same values,
and they accept what the value reader (`reader.py`) accepts, no more:

* `int`: Python ints and numpy integers within 64 bits (the reader refuses larger ones
  too); no bools, no floats;
* `real`: ints and floats (Python or numpy), no bools; `bool`: bools only;
* `char`: one-character strings; in arrays also strings as rows and code points (arrays of
  chars come back as code points);
* arrays: the parameter's rank, regular (`irregular array`), components of an array of
  tuples with the same outer shape (`arguments.check_arguments`, for the reader).

Wrong kinds of values raise `TypeError`, wrong values (range, shape) `ValueError`; the
message starts with the argument's name, given by the caller as `what`.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from l0.types import ArrayType, Basic, BasicType, TupleType, Type, flatten
from l0.values.model import DTYPES, INT_MAX, INT_MIN, Value

_MAX_CODE_POINT = 0x10FFFF
# numpy dtype kinds each element type accepts (`b` bool, `i`/`u` integers, `f` floats).
_KINDS = {Basic.INT: "iu", Basic.REAL: "iuf", Basic.BOOL: "b", Basic.CHAR: "iu"}


def from_python(t: Type, v: Any, what: str) -> list[Value]:
    """The flattened run-time values (`l0.types.flatten` order) of the Python value `v`
    for a parameter of source type `t`; `what` names it in messages."""
    if isinstance(t, TupleType):
        parts = _tuple_parts(t, v, len(t.elems), what, f"a tuple of {len(t.elems)}")
        return [x for k, (e, ve) in enumerate(zip(t.elems, parts, strict=True), 1)
                for x in from_python(e, ve, f"{what}, component {k}")]
    if isinstance(t, ArrayType):
        if isinstance(t.elem, BasicType):
            return [_array(t, v, what)]
        # An array's components are arrays (of each tuple component, flattened).
        comps = cast(list[ArrayType], flatten(t))
        if len(comps) == 1:
            return [_array(comps[0], v, what)]
        parts = _tuple_parts(t, v, len(comps), what, f"a tuple of {len(comps)} arrays")
        arrays = [_array(c, p, f"{what}, array {k}")
                  for k, (c, p) in enumerate(zip(comps, parts, strict=True), 1)]
        # Compiled code indexes all components with the bounds of the first.
        shapes = [a.shape[: t.rank] for a in arrays]
        if any(s != shapes[0] for s in shapes):
            found = ", ".join("x".join(map(str, s)) for s in shapes)
            raise ValueError(f"{what}: the arrays of a {t} must have the same outer shape, "
                             f"got {found}")
        return arrays
    return [_scalar(t, v, what)]


def _tuple_parts(t: Type, v: Any, n: int, what: str, shape: str) -> Any:
    if not isinstance(v, tuple | list) or len(v) != n:
        raise TypeError(f"{what}: expected {t} ({shape}), got {_describe(v)}")
    return v


def _describe(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"array of {_dtype_name(v.dtype)}"
    if isinstance(v, tuple | list):
        return f"{type(v).__name__} of {len(v)}"
    return f"{type(v).__name__} {_short(v)}"


def _short(v: Any) -> str:
    shown = repr(v)
    return shown if len(shown) <= 30 else shown[:27] + "..."


def _dtype_name(dtype: np.dtype[Any]) -> str:
    return {"U": "str", "S": "bytes", "O": "object"}.get(dtype.kind, dtype.name)


def _scalar(t: BasicType, v: Any, what: str) -> Value:
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    kind = t.kind
    # bool is a subclass of int in Python, not in L0.
    is_bool = isinstance(v, bool | np.bool_)
    is_int = isinstance(v, int | np.integer) and not is_bool
    if kind is Basic.INT and is_int:
        return _in_int_range(int(v), what)
    if kind is Basic.REAL and (is_int or isinstance(v, float | np.floating)):
        try:
            return float(v)
        except OverflowError:
            raise ValueError(f"{what}: {_short(v)} is too large for a real") from None
    if kind is Basic.BOOL and is_bool:
        return bool(v)
    if kind is Basic.CHAR and isinstance(v, str) and len(v) == 1:
        return ord(v)
    hint = " (a one-character string)" if kind is Basic.CHAR else ""
    raise TypeError(f"{what}: expected {t}{hint}, got {_describe(v)}")


def _in_int_range(n: int, what: str) -> int:
    if not INT_MIN <= n <= INT_MAX:
        raise ValueError(f"{what}: {_short(n)} does not fit in an int (64 bits)")
    return n


def _array(t: ArrayType, v: Any, what: str) -> np.ndarray:
    """`v` as an array of the flattened array type `t` (basic elements), checked."""
    assert isinstance(t.elem, BasicType)
    kind = t.elem.kind
    given = v
    if kind is Basic.CHAR:
        v = _code_points(v, t.rank)
    if isinstance(v, str | bytes) or np.isscalar(v) or v is None:
        raise TypeError(f"{what}: expected {t}, got {_describe(given)}")
    try:
        arr = np.asarray(v)
    except ValueError:  # numpy refuses ragged nested lists
        raise ValueError(f"{what}: irregular array (rows of different shapes) for {t}") from None
    if not isinstance(given, np.ndarray) and arr.size == 0 and arr.ndim <= t.rank:
        # `[]` has no element type, and inner sizes of `[]` or `[[]]` are 0 (the reader's rule).
        return np.empty(arr.shape + (0,) * (t.rank - arr.ndim), dtype=DTYPES[kind])
    if arr.ndim != t.rank:
        if arr.dtype.kind == "O" and arr.ndim < t.rank:
            raise ValueError(f"{what}: irregular array (rows of different shapes) for {t}")
        got = "array" if isinstance(given, np.ndarray) else type(given).__name__
        raise TypeError(f"{what}: expected {t} (rank {t.rank}), got {got} of rank {arr.ndim}")
    if arr.dtype.kind == "O":
        arr = _from_objects(t, arr, what)
    if arr.dtype.kind not in _KINDS[kind]:
        got = (_describe(given) if isinstance(given, np.ndarray)
               else f"{type(given).__name__} of {_dtype_name(arr.dtype)} values")
        raise TypeError(f"{what}: expected {t}, got {got}")
    # Only these integer arrays can hold values out of range.
    if kind is Basic.CHAR or arr.dtype == np.uint64 and kind is Basic.INT:
        _check_range(arr, kind, what)
    return arr.astype(DTYPES[kind], copy=False)


def _check_range(arr: np.ndarray, kind: Basic, what: str) -> None:
    if arr.size == 0 or arr.dtype.kind not in "iu":
        return
    low, high = (0, _MAX_CODE_POINT) if kind is Basic.CHAR else (INT_MIN, INT_MAX)
    lo, hi = int(arr.min()), int(arr.max())
    if lo < low or hi > high:
        name = "a code point" if kind is Basic.CHAR else "an int (64 bits)"
        raise ValueError(f"{what}: element {lo if lo < low else hi} does not fit in {name}")


def _from_objects(t: ArrayType, arr: np.ndarray, what: str) -> np.ndarray:
    """An object array (Python ints beyond 64 bits, mixed types) checked element by element."""
    assert isinstance(t.elem, BasicType)
    elem = BasicType(t.elem.kind)
    out: np.ndarray = np.empty(arr.shape, dtype=DTYPES[t.elem.kind])
    for index, x in np.ndenumerate(arr):
        if t.elem.kind is Basic.CHAR and isinstance(x, int | np.integer):
            x = _scalar(BasicType(Basic.INT), x, what)
            if not 0 <= x <= _MAX_CODE_POINT:
                raise ValueError(f"{what}: element {x} does not fit in a code point")
        else:
            x = _scalar(elem, x, f"{what}, element {list(index)}")
        out[index] = x
    return out


def _code_points(v: Any, rank: int) -> Any:
    """Chars in `v` (a `[..[char]..]` of rank `rank`) as code points: a string is a row
    (or, where one char is expected, that char); other values are left to the checks."""
    if isinstance(v, str):
        if rank == 0 and len(v) == 1:
            return ord(v)
        if rank == 1:
            return [ord(c) for c in v]
        return v
    if isinstance(v, np.ndarray) and v.dtype.kind != "U":
        return v
    if isinstance(v, np.ndarray | list | tuple) and rank > 0:
        items = v.tolist() if isinstance(v, np.ndarray) else v
        return [_code_points(x, rank - 1) for x in items]
    return v
