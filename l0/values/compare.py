"""Comparing `main`'s result with an expected output, reals within a tolerance.

An expected output (`X.out`, `output { ... }` in a test block) is text: either what
`l0-run` prints (`{[1, 2], 0.600000}`: one line, a tuple in braces, reals with six
decimals) or the values one after another in the input syntax, as Futhark's tests
write them (`[1, 2] 0.6`). `output_mismatch` reads it as values of `main`'s result
type (`l0.values.reader`) and compares them with the values `main` returned, not
with their printed form, so `output { [0.6, 0.8] }` matches a result printed
`[0.600000, 0.800000]` and `1e-7` is not taken for `0.000000`:

* shapes must be equal, and ints, bools and chars exactly so;
* a real `a` matches an expected `e` when `|a - e| <= atol + rtol * |e|` (`Tolerance`;
  NaN matches NaN, an infinity only itself).

An expected text equal to the printed result with all whitespace removed (how the
2014 runner compared) always matches. Arrays of chars print raw, without quotes: in
the printed form of a tuple such a component may be written raw too (`{hi, 0.5}`),
and is then compared as printed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from l0.diagnostics import L0Error
from l0.types import CERT, CHAR, REAL, ArrayType, Type
from l0.values.model import Value
from l0.values.printer import format_result, format_value, printed_components, show_char
from l0.values.reader import read_values


@dataclass(frozen=True)
class Tolerance:
    """How far a real may be from the expected one: `atol + rtol * |expected|`. The
    defaults accept the six decimals `l0-run` prints (an error of at most 5e-7)."""

    rtol: float = 1e-5
    atol: float = 1e-6


DEFAULT_TOLERANCE = Tolerance()


def squash(text: str) -> str:
    """`text` without whitespace: the 2014 runner compared outputs so."""
    return re.sub(r"\s+", "", text)


def output_mismatch(expected: str, ret: Type, actual: Sequence[Value],
                    tolerance: Tolerance = DEFAULT_TOLERANCE) -> str | None:
    """Why `actual` (the flattened result of `main`, of type `ret`) does not match the
    expected output text, or `None` when it does."""
    printed = format_result(ret, actual)
    if squash(printed) == squash(expected):
        return None
    wrong = f"expected {_short(expected)}, got {_short(printed)}"
    components = printed_components(ret)
    try:
        values = _read_expected(expected, components, actual)
    except L0Error as err:
        return f"{wrong} (the expected output is not a value of type {ret}: {err.message})"
    results = [c for c in components if c is not None]
    for n, (t, e, a) in enumerate(zip(results, values, actual, strict=True), 1):
        problem = _value_mismatch(t, e, a, tolerance)
        if problem is not None:
            where = f" (component {n}: {problem})" if len(actual) > 1 else f" ({problem})"
            return wrong + where
    return None


def _read_expected(expected: str, components: list[Type | None],
                   actual: Sequence[Value]) -> list[Value]:
    """The expected values of the result's components (`printed_components`, without
    the `Checked` of arrays of tuples). In the printed form of a tuple, an array of
    chars may be written raw, as `l0-run` prints it: it then stands for the actual
    value if it prints the same."""
    types = [CERT if c is None else c for c in components]
    parts = _tuple_parts(expected) if len(types) > 1 else None
    if parts is None or len(parts) != len(types):
        read = read_values(expected, types, "<expected output>")
        return [v for c, v in zip(components, read, strict=True) if c is not None]
    values, results = [], iter(actual)
    for t, part in zip(components, parts, strict=True):
        if t is None:
            read_values(part, [CERT], "<expected output>")
            continue
        value = next(results)
        raw = isinstance(t, ArrayType) and t.elem == CHAR and not part.strip().startswith(
            ('"', "empty("))
        if raw and squash(part) == squash(format_value(t, value)):
            values.append(value)
        else:
            values.extend(read_values(part, [t], "<expected output>"))
    return values


def _tuple_parts(text: str) -> list[str] | None:
    """The components of the printed form of a tuple, `{a, b}`; `None` for other text."""
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")):
        return None
    parts, depth, start, i = [], 0, 1, 1
    body = stripped[:-1]
    while i < len(body):
        c = body[i]
        if c in "\"'":  # a char or string literal: its commas are not separators
            i += 1
            while i < len(body) and body[i] != c:
                i += 2 if body[i] == "\\" else 1
        elif c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
        i += 1
    parts.append(body[start:])
    return parts


def _value_mismatch(t: Type, expected: Value, actual: Value, tol: Tolerance) -> str | None:
    e, a = np.asarray(expected), np.asarray(actual)
    if e.shape != a.shape:
        return f"shape {_shape(a)} where {_shape(e)} was expected"
    real = (t.elem if isinstance(t, ArrayType) else t) == REAL
    if real:
        close = np.isclose(a, e, rtol=tol.rtol, atol=tol.atol, equal_nan=True)
    else:
        close = np.asarray(a == e)
    if bool(np.all(close)):
        return None
    index = tuple(int(i) for i in np.argwhere(~close)[0])
    at = f"at {list(index)}: " if index else ""
    got, want = a[index], e[index]
    if real:
        return (f"{at}{float(got)!r} is not within the tolerance of {float(want)!r} "
                f"(rtol {tol.rtol}, atol {tol.atol})")
    char = (t.elem if isinstance(t, ArrayType) else t) == CHAR
    return f"{at}{_item(got, char)} where {_item(want, char)} was expected"


def _item(v: Value, char: bool) -> str:
    item = v.item() if hasattr(v, "item") else v
    return show_char(int(item)) if char else str(item)


def _shape(a: np.ndarray) -> str:
    return "x".join(str(d) for d in a.shape) or "scalar"


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
