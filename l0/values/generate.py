"""Random values of L0 types, described as `TYPE[:DIMS]` (`l0 dataset -g`, `random input`).

`[[real]]:1000x1000` is a 1000 by 1000 array of reals, `int` one int: a basic type or an
array of one, with one dimension per rank. Ints are drawn uniformly from the given
bounds (both included), reals uniformly between theirs, bools evenly, chars among the
printable ASCII characters. The generator is numpy's, so one seed gives the same values
everywhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from l0.diagnostics import L0Error
from l0.types import ArrayType, Basic, BasicType, Type

INT_BOUNDS = (0, 100)
REAL_BOUNDS = (0.0, 1.0)


class GeneratorError(ValueError):
    """A malformed `TYPE[:DIMS]`; the message says what is wrong."""


def parse_generator(spec: str) -> tuple[Type, tuple[int, ...]]:
    """`TYPE[:DIMS]` as a type and its dimensions."""
    from l0.syntax.parser import parse_type

    type_text, _, dims_text = spec.partition(":")
    try:
        t = parse_type(type_text.strip(), "<type>")
    except L0Error as err:
        raise GeneratorError(f"{spec}: {err.message}") from None
    if not (isinstance(t, BasicType) or (isinstance(t, ArrayType)
                                         and isinstance(t.elem, BasicType))):
        raise GeneratorError(f"{spec}: only basic types and arrays of them can be generated "
                             "(generate a tuple one component at a time)")
    if _kind(t) is Basic.CERT:
        raise GeneratorError(f"{spec}: cert has only the value Checked")
    rank = t.rank if isinstance(t, ArrayType) else 0
    try:
        dims = tuple(int(d) for d in dims_text.split("x")) if dims_text.strip() else ()
    except ValueError:
        raise GeneratorError(f"{spec}: dimensions are written NxM..., "
                             f"found {dims_text!r}") from None
    if len(dims) != rank:
        raise GeneratorError(f"{spec}: type {t} needs {rank} dimension(s), found {len(dims)}")
    negative = [d for d in dims if d < 0]
    if negative:
        raise GeneratorError(f"{spec}: a dimension cannot be negative, found {negative[0]}")
    return ArrayType(t.elem, t.rank) if isinstance(t, ArrayType) else t, dims


def random_value(t: Type, dims: tuple[int, ...], rng: np.random.Generator,
                 ints: tuple[int, int] = INT_BOUNDS,
                 reals: tuple[float, float] = REAL_BOUNDS) -> Any:
    """A random value of type `t` (from `parse_generator`) with dimensions `dims`."""
    kind = _kind(t)
    arr: np.ndarray
    if kind is Basic.INT:
        arr = rng.integers(ints[0], ints[1], size=dims, endpoint=True, dtype=np.int64)
    elif kind is Basic.REAL:
        arr = rng.uniform(reals[0], reals[1], size=dims)
    elif kind is Basic.BOOL:
        arr = rng.integers(0, 1, size=dims, endpoint=True, dtype=np.uint8).astype(np.bool_)
    else:  # printable ASCII characters
        arr = rng.integers(32, 126, size=dims, endpoint=True, dtype=np.int32)
    if not dims:
        return arr.item()
    return arr


def _kind(t: Type) -> Basic | None:
    if isinstance(t, BasicType):
        return t.kind
    if isinstance(t, ArrayType) and isinstance(t.elem, BasicType):
        return t.elem.kind
    return None
