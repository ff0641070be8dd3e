"""Tests of `l0.values`: reading `main`'s arguments, printing its result (reference §6.2, 6.3)."""

from __future__ import annotations

import copy
import math
import os
import pickle
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from l0.diagnostics import L0Error
from l0.types import (
    BOOL,
    CERT,
    CHAR,
    INT,
    REAL,
    ArrayType,
    BasicType,
    TupleType,
    Type,
    array_of,
    flatten,
)
from l0.values import (
    CHECKED,
    format_real,
    format_result,
    format_value,
    read_values,
    write_values,
)
from l0.values.fast_reader import try_fast_array
from l0.values.model import Checked
from l0.values.printer import _format_reals, show_char
from l0.values.reader import _read_values


def arr(elem: BasicType, rank: int = 1) -> ArrayType:
    return ArrayType(elem, rank)


def read_both(text: str, types: list[Any]) -> list[Any]:
    """Read with and without the fast path; both must agree (on the values or the error)."""
    outcomes: list[Any] = []
    for fast in (True, False):
        try:
            outcomes.append(_read_values(text, types, "<stdin>", fast=fast))
        except L0Error as err:
            outcomes.append(err)
    first, second = outcomes
    if isinstance(first, L0Error) or isinstance(second, L0Error):
        assert isinstance(first, L0Error) and isinstance(second, L0Error), (text, outcomes)
        assert (str(first), first.kind) == (str(second), second.kind)
        raise first
    for a, b in zip(first, second, strict=True):
        assert_same(a, b)
    return first


def assert_same(a: Any, b: Any) -> None:
    """Equal values, with equal dtypes and shapes; NaN equals NaN, -0.0 differs from 0.0."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
        assert a.shape == b.shape and a.dtype == b.dtype, (a, b)
        for x, y in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist(), strict=True):
            assert_same(x, y)
        return
    assert type(a) is type(b), (a, b)
    if isinstance(a, float):
        assert (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        ), (a, b)
    else:
        assert a == b


def read_error(text: str, types: list[Any]) -> L0Error:
    """The error both paths report for `text` (they must report the same)."""
    errors = []
    for fast in (True, False):
        with pytest.raises(L0Error) as info:
            _read_values(text, types, "<stdin>", fast=fast)
        errors.append(info.value)
    assert str(errors[0]) == str(errors[1])
    assert errors[0].kind == "value-error"
    return errors[0]


# -- CHECKED -------------------------------------------------------------------


def test_checked_is_a_singleton_that_survives_copies() -> None:
    assert repr(CHECKED) == "Checked"
    assert Checked() is CHECKED
    assert copy.deepcopy(CHECKED) is CHECKED
    assert copy.copy(CHECKED) is CHECKED
    assert pickle.loads(pickle.dumps(CHECKED)) is CHECKED


# -- reading: what is accepted ---------------------------------------------------


def test_read_scalars() -> None:
    text = "42 -7 2.5 -2.5e-3 1e5 1. .5 Infinity -Infinity NaN True False 'a' Checked"
    types = [INT, INT] + [REAL] * 8 + [BOOL, BOOL, CHAR, CERT]
    vals = read_both(text, types)
    assert vals[:7] == [42, -7, 2.5, -2.5e-3, 1e5, 1.0, 0.5]
    assert vals[7] == math.inf and vals[8] == -math.inf and math.isnan(vals[9])
    assert vals[10:] == [True, False, 97, CHECKED]
    assert type(vals[0]) is int and type(vals[2]) is float and type(vals[10]) is bool


def test_ints_cover_exactly_the_64_bit_range() -> None:
    assert read_both("9223372036854775807 -9223372036854775808 -0009", [INT, INT, INT]) == [
        2**63 - 1,
        -(2**63),
        -9,
    ]
    big = read_both("[-9223372036854775808, 1]", [arr(INT)])[0]
    assert big.tolist() == [-(2**63), 1] and big.dtype == np.int64


@pytest.mark.parametrize(
    ("text", "types", "where"),
    [
        ("9223372036854775808", [INT], "1:1"),
        ("1 -9223372036854775809", [INT, INT], "1:3"),
        ("[1,\n 18446744073709551617]", [arr(INT)], "2:2"),
        ("[[1], [99999999999999999999999]]", [arr(INT, 2)], "1:8"),
        ("9" * 5000, [INT], "1:1"),  # past Python's limit for int(str)
    ],
)
def test_ints_outside_64_bits_are_errors(text: str, types: list[Any], where: str) -> None:
    with pytest.raises(L0Error) as info:
        read_both(text, types)
    assert str(info.value).startswith(f"<stdin>:{where}: error: integer `")
    assert "out of the 64-bit range" in str(info.value)


# 19 and 20 digits: the longest ints that fit, and the shortest that may not. The fast
# path leaves every int of 19 or more digits to the careful reader (numpy saturates
# instead of failing): with 20 as its limit, the 19-digit errors below would read as
# 9223372036854775807.
@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ("1000000000000000000", 10**18),
        ("9223372036854775807", 2**63 - 1),
        ("-9223372036854775808", -(2**63)),
        ("00000000000000000001", 1),
        ("-09223372036854775807", -(2**63) + 1),
        ("9223372036854775808", None),
        ("9999999999999999999", None),
        ("-9223372036854775809", None),
        ("10000000000000000000", None),
        ("18446744073709551615", None),
        ("-99999999999999999999", None),
    ],
)
@pytest.mark.parametrize(
    ("layout", "types"),
    [("{} 2", [INT, INT]), ("[{}, 2]", [arr(INT)]), ("[2, {}]", [arr(INT)]),
     ("[[2], [{}]]", [arr(INT, 2)])],
    ids=["scalars", "first", "last", "rank-2"],
)
def test_ints_of_19_and_20_digits_read_alike_on_both_paths(
    literal: str, value: int | None, layout: str, types: list[Any]
) -> None:
    text = layout.format(literal)
    if value is None:
        err = read_error(text, types)
        assert f"integer `{literal}` is out of the 64-bit range" in str(err)
        return
    flat = [np.asarray(v).reshape(-1).tolist() for v in read_both(text, types)]
    assert sorted(sum(flat, [])) == sorted([value, 2])


def test_reals_overflowing_to_infinity_are_errors() -> None:
    assert read_both("1e-999 1.7976931348623157e308", [REAL, REAL]) == [0.0, 1.7976931348623157e308]
    for text, where in [("1e999", "1:1"), ("[1.0, -2e400]", "1:7")]:
        with pytest.raises(L0Error) as info:
            read_both(text, [arr(REAL)] if text.startswith("[") else [REAL])
        assert str(info.value).startswith(f"<stdin>:{where}: error: real `"), str(info.value)


@pytest.mark.parametrize(
    ("literal", "code"),
    [
        (r"'\n'", 10), (r"'\t'", 9), (r"'\\'", 92), (r"'\''", 39), (r"'\"'", 34), ("'\"'", 34),
        (r"'\0'", 0), (r"'\65'", 65), (r"'\x41'", 65), (r"'\o101'", 65), (r"'\^A'", 1),
        (r"'\SOH'", 1), (r"'\SO'", 14), (r"'\DEL'", 127), (r"'\233'", 233), ("'é'", 233),
        ("'𝄞'", 0x1D11E), (r"'\1114111'", 0x10FFFF),
    ],
)  # fmt: skip
def test_read_char_escapes(literal: str, code: int) -> None:
    assert read_both(literal, [CHAR]) == [code]


def test_read_strings_and_char_arrays() -> None:
    a, b, c, d = read_both(
        r'"ab" "a\nb\233\&4\SO\&H" ["xy", "zw"] [' + "'a', 'b']",
        [arr(CHAR), arr(CHAR), arr(CHAR, 2), arr(CHAR)],
    )
    assert a.dtype == np.int32 and a.tolist() == [97, 98]
    assert b.tolist() == [97, 10, 98, 233, ord("4"), 14, ord("H")]
    assert c.tolist() == [[120, 121], [122, 119]]
    assert d.tolist() == [97, 98]


def test_read_arrays_of_every_kind() -> None:
    ints, reals, bools, certs, cube = read_both(
        "[1, -2, 3] [[1.5, 2.0], [3.0, -4e1]] [True, False] [Checked] [[[1], [2]], [[3], [4]]]",
        [arr(INT), arr(REAL, 2), arr(BOOL), arr(CERT), arr(INT, 3)],
    )
    assert ints.dtype == np.int64 and ints.tolist() == [1, -2, 3]
    assert reals.dtype == np.float64 and reals.tolist() == [[1.5, 2.0], [3.0, -40.0]]
    assert bools.dtype == np.bool_ and bools.tolist() == [True, False]
    assert certs.dtype == object and certs.tolist() == [CHECKED]
    assert cube.shape == (2, 2, 1)


def test_read_empty_arrays() -> None:
    vals = read_both(
        '[] empty(int) empty([real]) [[], []] [empty(int)] empty(*[int]) "" [[ ]] empty(cert)',
        [arr(INT), arr(INT), arr(REAL, 2), arr(INT, 2), arr(INT, 2), arr(INT, 2), arr(CHAR),
         arr(REAL, 2), arr(CERT)],
    )  # fmt: skip
    shapes = [v.shape for v in vals]
    assert shapes == [(0,), (0,), (0, 0), (2, 0), (1, 0), (0, 0), (0,), (1, 0), (0,)]
    assert [v.dtype for v in vals[:3]] == [np.int64, np.int64, np.float64]


def test_values_span_lines_and_comments() -> None:
    text = "// header\n[1,   // first\n 2,\n\n 3]\n5 // five\n  // trailing comment\n\n"
    a, b = read_both(text, [arr(INT), INT])
    assert a.tolist() == [1, 2, 3] and b == 5
    assert read_both('"a//b" 1 // c', [arr(CHAR), INT])[0].tolist() == [97, 47, 47, 98]
    assert read_both("", []) == []
    assert read_both("  // nothing\n", []) == []


@pytest.mark.parametrize(
    ("text", "types", "where", "found"),
    [
        ("[1, 2] 5\n// c\n  6 7", [arr(INT), INT], "3:3", "`6`"),
        ("garbage", [], "1:1", "`garbage`"),
        ("1\n[1, 2]", [INT], "2:1", "`[`"),
    ],
)
def test_values_left_over_are_errors(
    text: str, types: list[Any], where: str, found: str
) -> None:
    with pytest.raises(L0Error) as info:
        read_both(text, types)
    assert info.value.kind == "value-error"
    assert str(info.value).startswith(
        f"<stdin>:{where}: error: unexpected {found} after the last argument"
    ), str(info.value)


def test_the_l0c_one_line_per_parameter_format_reads() -> None:
    # The input of docs/reference.md §8 (one value per line, as the 2014 test suite wrote them).
    a, b = read_both("[1.0, 2.0, 3.0]\n[1, 2, 3]\n", [arr(REAL), arr(INT)])
    assert a.tolist() == [1.0, 2.0, 3.0] and b.tolist() == [1, 2, 3]


# -- reading: errors -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "types", "where", "message"),
    [
        ("1", [INT, arr(INT)], "1:2",
         "expected a value of type [int] for parameter 2, found end of input"),
        ("", [INT], "1:1", "expected a value of type int for parameter 1, found end of input"),
        ("2", [REAL], "1:1", "expected a value of type real for parameter 1, found `2` "
         "(an int; write `2.0` for a real)"),
        ("[1.0,\n 2]", [arr(REAL)], "2:2", "expected a value of type real in the array for "
         "parameter 1, found `2` (an int; write `2.0` for a real)"),
        ("2.0", [INT], "1:1", "expected a value of type int for parameter 1, found `2.0`"),
        ("[True, 1]", [arr(BOOL)], "1:8",
         "expected a value of type bool in the array for parameter 1, found `1`"),
        ("[[1, 2], [3, 4, 5]]", [arr(INT, 2)], "1:10",
         "irregular array: row 1 has 3 elements, expected 2"),
        ("[[1, 2],\n [3]]", [arr(INT, 2)], "2:2",
         "irregular array: row 1 has 1 element, expected 2"),
        ("[[[1], [2]], [[3]]]", [arr(INT, 3)], "1:14",
         "irregular array: row 1 has 1 element, expected 2"),
        ("[[[1], [2]], [[3], [4, 5]]]", [arr(INT, 3)], "1:20",
         "irregular array: row 1 has 2 elements, expected 1"),
        ("[[1], []]", [arr(INT, 2)], "1:7", "irregular array: row 1 has 0 elements, expected 1"),
        ('["ab", "c"]', [arr(CHAR, 2)], "1:8",
         "irregular array: row 1 has 1 element, expected 2"),
        ("[1 2]", [arr(INT)], "1:4",
         "expected `,` or `]` in the array for parameter 1, found `2`"),
        ("[1, 2", [arr(INT)], "1:6",
         "expected `,` or `]` in the array for parameter 1, found end of input"),
        ("[1,, 2]", [arr(INT)], "1:4",
         "expected a value of type int in the array for parameter 1, found `,`"),
        ("[1, 2,]", [arr(INT)], "1:7",
         "expected a value of type int in the array for parameter 1, found `]`"),
        ("[[1]]", [arr(INT)], "1:2",
         "expected a value of type int in the array for parameter 1, found `[`"),
        ("[1]", [arr(INT, 2)], "1:2",
         "expected a value of type [int] in the array for parameter 1, found `1`"),
        ("1.5.3", [REAL], "1:1", "malformed number `1.5.3`"),
        ("[12abc]", [arr(INT)], "1:2", "malformed number `12abc`"),
        ("- 3", [INT], "1:1", "expected a number after `-` (write negative numbers as `-3`)"),
        ("$", [INT], "1:1", "unexpected character `$` in the input"),
        ("(1, 2.0)", [INT, REAL], "1:1", "expected a value of type int for parameter 1, found "
         "`(` (tuples are given one component at a time, without `(` or `{`)"),
        ("{1, 2.0}", [INT, REAL], "1:1", "expected a value of type int for parameter 1, found "
         "`{` (tuples are given one component at a time, without `(` or `{`)"),
        ("true", [BOOL], "1:1", "expected a value of type bool for parameter 1, found `true`"),
        ("Checked", [arr(CERT)], "1:1",
         "expected a value of type [cert] for parameter 1, found `Checked`"),
        ('"ab"', [arr(INT)], "1:1",
         'expected a value of type [int] for parameter 1, found `"ab"`'),
        ("'ab'", [CHAR], "1:1", "character literal `'ab'` has more than one character"),
        ("''", [CHAR], "1:1", "unterminated or empty character literal"),
        ('"ab', [arr(CHAR)], "1:1", "unterminated string literal"),
        (r"'\q'", [CHAR], "1:2", r"invalid escape sequence '\q'"),
        (r'"a\qb"', [arr(CHAR)], "1:3", r"invalid escape sequence '\q'"),
        (r"'\1114112'", [CHAR], "1:2", r"character escape '\1114112' is out of range"),
        ("empty(real)", [arr(INT)], "1:1", "expected a value of type [int] for parameter 1, "
         "found `empty(real)` of type [real]"),
        ("empty(int)", [arr(INT, 2)], "1:1", "expected a value of type [[int]] for parameter 1, "
         "found `empty(int)` of type [int]"),
        ("[empty(real)]", [arr(INT, 2)], "1:2", "expected a value of type [int] in the array "
         "for parameter 1, found `empty(real)` of type [real]"),
        ("empty([int)", [arr(INT, 2)], "1:11",
         "expected `]` in the type of `empty(...)`, found `)`"),
        ("empty int", [arr(INT)], "1:7", "expected `(` after `empty`, found `int`"),
        ("empty({int})", [arr(INT)], "1:7", "expected a type in `empty(...)`, found `{`"),
    ],
)  # fmt: skip
def test_read_errors_are_located(text: str, types: list[Any], where: str, message: str) -> None:
    err = read_error(text, types)
    assert str(err) == f"<stdin>:{where}: error: {message}"


def test_error_locations_use_the_source_name() -> None:
    with pytest.raises(L0Error) as info:
        read_values("\n\n  [1, x]", [arr(INT)], "input.txt")
    assert str(info.value.loc) == "input.txt:3:7"


# -- printing ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "shown"),
    [
        (3.0, "3.000000"), (-0.0, "-0.000000"), (0.000266, "0.000266"), (-1e-9, "-0.000000"),
        # Ties of the shortest digits round half to even (docs/reference.md §6.3, observed in GHC).
        (5.0e-7, "0.000000"), (1.5e-6, "0.000002"), (2.5e-6, "0.000002"),
        (3.5e-6, "0.000004"), (0.0078125, "0.007812"), (1.0000005, "1.000000"),
        (-2.5e-6, "-0.000002"), (123456.0000015, "123456.000002"),
        # Big values print their shortest digits, not their binary expansion.
        (1e21, "1000000000000000000000.000000"), (1e23, "100000000000000000000000.000000"),
        (math.inf, "Infinity"), (-math.inf, "-Infinity"), (math.nan, "NaN"),
    ],
)  # fmt: skip
def test_real_printing_rounds_like_haskell_printf(x: float, shown: str) -> None:
    assert format_real(x) == shown
    assert format_value(REAL, x) == shown
    assert format_value(arr(REAL), np.array([x, 1.0])) == f"[{shown}, 1.000000]"


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=20))
def test_vectorised_real_printing_matches_the_exact_rule(xs: list[float]) -> None:
    assert _format_reals(np.array(xs, dtype=np.float64)) == [format_real(x) for x in xs]


@given(st.lists(st.integers(-(10**15), 10**15), max_size=20), st.integers(0, 12))
def test_vectorised_real_printing_on_ties(ks: list[int], scale: int) -> None:
    # Values whose shortest digits end in a 5 at or near the 7th decimal.
    xs = [(2 * k + 1) * 5 * 10.0 ** -(scale + 1) for k in ks]
    assert _format_reals(np.array(xs, dtype=np.float64)) == [format_real(x) for x in xs]


@pytest.mark.parametrize(
    ("c", "shown"),
    [
        (97, "'a'"), (10, r"'\n'"), (9, r"'\t'"), (39, r"'\''"), (34, "'\"'"), (92, r"'\\'"),
        (0, r"'\NUL'"), (7, r"'\a'"), (14, r"'\SO'"), (27, r"'\ESC'"), (127, r"'\DEL'"),
        (233, r"'\233'"), (0x1D11E, r"'\119070'"), (32, "' '"),
    ],
)  # fmt: skip
def test_scalar_chars_print_as_haskell_show(c: int, shown: str) -> None:
    assert show_char(c) == shown
    assert format_value(CHAR, c) == shown
    assert read_values(shown, [CHAR]) == [c]


def test_printing_scalars_and_arrays() -> None:
    assert format_value(INT, -12) == "-12"
    assert format_value(INT, np.int64(7)) == "7"
    assert format_value(BOOL, np.bool_(True)) == "True"
    assert format_value(CERT, CHECKED) == "Checked"
    assert format_value(arr(INT), np.array([1, 2])) == "[1, 2]"
    assert format_value(arr(BOOL), np.array([True, False])) == "[True, False]"
    assert format_value(arr(CERT), np.array([CHECKED], dtype=object)) == "[Checked]"
    identity = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert (
        format_value(arr(REAL, 2), identity)
        == "[[1.000000, 0.000000], [0.000000, 1.000000]]"
    )


def test_char_arrays_print_raw() -> None:
    text = np.array([ord(c) for c in "a'b\"\n\\é"], dtype=np.int32)
    assert format_value(arr(CHAR), text) == "a'b\"\n\\é"
    rows = np.array([[ord(c) for c in "abc"], [ord(c) for c in "def"]], dtype=np.int32)
    assert format_value(arr(CHAR, 2), rows) == "[abc, def]"


def test_empty_arrays_print_their_row_type() -> None:
    assert format_value(arr(INT), np.zeros(0, np.int64)) == "empty(int)"
    assert format_value(arr(REAL, 2), np.zeros((0, 0))) == "empty([real])"
    assert format_value(arr(CHAR), np.zeros(0, np.int32)) == "empty(char)"
    assert format_value(ArrayType(INT, 1, unique=True), np.zeros(0, np.int64)) == "empty(int)"
    assert format_value(arr(INT, 2), np.zeros((2, 0), np.int64)) == "[empty(int), empty(int)]"
    assert (
        format_value(arr(BOOL, 3), np.zeros((1, 2, 0), np.bool_))
        == "[[empty(bool), empty(bool)]]"
    )


def _tuple(*ts: Type) -> TupleType:
    return TupleType(tuple(ts))


@pytest.mark.parametrize(
    ("t", "values", "shown"),
    [
        (INT, [5], "5"),
        (_tuple(INT), [5], "5"),
        (_tuple(), [], "{}"),
        (_tuple(arr(INT), BOOL), [np.array([1, 2]), True], "{[1, 2], True}"),
        (_tuple(INT, _tuple(INT, INT)), [1, 2, 3], "{1, 2, 3}"),
        (_tuple(arr(REAL), arr(REAL)), [np.array([1.0]), np.array([2.0])],
         "{[1.000000], [2.000000]}"),
        (array_of(_tuple(INT, REAL)), [np.array([1, 2]), np.array([0.5, 1.0])],
         "{Checked, [1, 2], [0.500000, 1.000000]}"),
        # [{int}] flattens to a single array: no certificate (docs/reference.md §7, map3).
        (array_of(_tuple(INT)), [np.array([2, 3, 4])], "[2, 3, 4]"),
        # Nested arrays of tuples: one Checked in front of all the arrays.
        (array_of(_tuple(INT, array_of(_tuple(REAL, BOOL)))),
         [np.array([1]), np.array([[0.5]]), np.array([[True]])],
         "{Checked, [1], [[0.500000]], [[True]]}"),
        (_tuple(INT, array_of(_tuple(BOOL, CHAR))),
         [7, np.array([True]), np.array([97], dtype=np.int32)],
         "{7, Checked, [True], a}"),
        (_tuple(CHAR, arr(CHAR)), [ord("x"), np.array([104, 105], dtype=np.int32)], "{'x', hi}"),
        (arr(INT), [np.zeros(0, np.int64)], "empty(int)"),
    ],
)  # fmt: skip
def test_format_result_flattens_as_l0c(t: Type, values: list[Any], shown: str) -> None:
    assert format_result(t, values) == shown


def test_format_result_checks_the_number_of_values() -> None:
    with pytest.raises(ValueError):
        format_result(_tuple(INT, INT), [1])


# -- round trips --------------------------------------------------------------------

_KINDS = [INT, REAL, BOOL, CHAR, CERT]


@st.composite
def typed_values(draw: st.DrawFn, kinds: list[BasicType] = _KINDS) -> tuple[Any, Any]:
    """A flattened type and a value of it (arrays of canonical shape)."""
    kind = draw(st.sampled_from(kinds))
    rank = draw(st.integers(0, 3))
    elems = {
        INT: st.integers(-(2**63), 2**63 - 1),
        REAL: st.floats(allow_nan=True, allow_infinity=True),
        BOOL: st.booleans(),
        CHAR: st.integers(0, 0x10FFFF),
        CERT: st.just(CHECKED),
    }[kind]
    if rank == 0:
        return kind, draw(elems)
    shape = draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank))
    if 0 in shape:  # the inner sizes of an empty array cannot be written
        shape = shape[: shape.index(0)] + [0] * (rank - shape.index(0))
    flat = draw(st.lists(elems, min_size=math.prod(shape), max_size=math.prod(shape)))
    dtype = {INT: np.int64, REAL: np.float64, BOOL: np.bool_, CHAR: np.int32, CERT: object}
    a = np.empty(len(flat), dtype=dtype[kind])
    a[:] = flat
    return arr(kind, rank), a.reshape(shape)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(typed_values(), max_size=4))
def test_write_values_round_trips_through_read_values(pairs: list[tuple[Any, Any]]) -> None:
    types = [t for t, _ in pairs]
    values = [v for _, v in pairs]
    back = read_both(write_values(types, values), types)
    for v, w in zip(values, back, strict=True):
        if isinstance(v, float) and math.isnan(v):
            assert math.isnan(w)
        elif isinstance(v, np.ndarray) and v.dtype == np.float64:
            assert v.shape == w.shape
            for x, y in zip(v.reshape(-1).tolist(), w.reshape(-1).tolist(), strict=True):
                assert (math.isnan(x) and math.isnan(y)) or (
                    x == y and math.copysign(1, x) == math.copysign(1, y)
                )
        else:
            assert_same(v, w)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(typed_values([INT, REAL, BOOL, CERT, CHAR]), max_size=4))
def test_printed_values_read_back(pairs: list[tuple[Any, Any]]) -> None:
    # Printed char *arrays* are raw text, not input syntax: only scalar chars here.
    pairs = [(t, v) for t, v in pairs if not (isinstance(t, ArrayType) and t.elem == CHAR)]
    types = [t for t, _ in pairs]
    text = "\n".join(format_value(t, v) for t, v in pairs)
    back = read_both(text, types)
    for (t, v), w in zip(pairs, back, strict=True):
        if t == REAL or (isinstance(t, ArrayType) and t.elem == REAL):
            # Printed reals are rounded to 6 decimals.
            expected = np.vectorize(lambda x: float(format_real(x)), otypes=[float])(v)
            assert np.array_equal(np.asarray(w), expected, equal_nan=True)
        else:
            assert_same(v, w)


# -- the fast path agrees with the careful reader ----------------------------------


def _render(v: np.ndarray, show: Callable[[Any], str], rng: random.Random) -> str:
    """`v` in input syntax with random spacing, newlines and comments."""
    gaps = ["", " ", "  ", "\n", "\t", " // note\n", "\n\n  "]

    def go(x: Any) -> str:
        if isinstance(x, list):
            sep = rng.choice(gaps) + "," + rng.choice(gaps)
            return "[" + rng.choice(gaps) + sep.join(go(y) for y in x) + rng.choice(gaps) + "]"
        return show(x)

    return go(v.tolist())


@settings(max_examples=200)
@given(typed_values([INT, REAL, BOOL]), st.randoms(use_true_random=False))
def test_fast_path_reads_layouts_like_the_careful_reader(
    pair: tuple[Any, Any], rng: random.Random
) -> None:
    t, v = pair
    if not isinstance(t, ArrayType):
        return
    show = {INT: str, REAL: lambda x: repr(float(x)), BOOL: str}[t.elem]
    text = _render(v, show, rng).replace("inf", "Infinity").replace("nan", "NaN")
    (w,) = read_both(text, [t])
    assert w.shape == v.shape


@settings(max_examples=300)
@given(
    typed_values([INT, REAL, BOOL]),
    st.integers(0, 10**6),
    st.sampled_from(["", "[", "]", ",", " ", "-", ".", "e", "1", "x", "True", "//", "'", '"']),
    st.booleans(),
)
def test_fast_path_and_careful_reader_agree_on_broken_input(
    pair: tuple[Any, Any], where: int, insert: str, delete: bool
) -> None:
    t, v = pair
    text = write_values([t], [v])
    i = where % (len(text) + 1)
    broken = text[:i] + insert + text[i + (1 if delete else 0) :]
    try:
        read_both(broken, [t])
    except L0Error:
        pass  # both paths raised the same error (checked by read_both)


def test_fast_path_is_taken_for_plain_numeric_arrays() -> None:
    from l0.types import Basic

    got = try_fast_array("[[1, 2], [3, 4]] 5", 0, Basic.INT, 2)
    assert got is not None and got[0].tolist() == [[1, 2], [3, 4]] and got[1] == 16
    assert try_fast_array("[[1, 2], []]", 0, Basic.INT, 2) is None  # empty rows: careful path
    assert try_fast_array("[1, 2.0]", 0, Basic.INT, 1) is None
    assert try_fast_array("[1, 2,]", 0, Basic.INT, 1) is None


# -- the finpar data sets -----------------------------------------------------------

# finpar's data sets: $L0_FINPAR_DIR, else shared/finpar beside the repository.
FINPAR = Path(
    os.environ.get("L0_FINPAR_DIR")
    or Path(__file__).resolve().parents[3] / "shared" / "finpar"
)
_I, _R = INT, REAL
# The flattened parameters of each benchmark's `main`, in the order of its input.data.
FINPAR_INPUTS: dict[str, list[Any]] = {
    # OUTER, NUM_X, NUM_Y, NUM_T, s0, t, alpha, nu, beta
    "LocVolCalib": [_I, _I, _I, _I, _R, _R, _R, _R, _R],
    # contract, paths, dates, underlyings, models, Sobol bits; direction vectors; market
    # data md_c, md_vols, md_drifts, md_starts, md_detval, md_disc; Brownian-bridge
    # indices and data.
    "OptionPricing": [_I] * 6 + [arr(_I, 2), arr(_R, 3), arr(_R, 3), arr(_R, 3), arr(_R, 2),
                                 arr(_R, 2), arr(_R, 2), arr(_I, 2), arr(_R, 2)],
    # population, iterations, #quotes, quotes, Gauss-Hermite dim, coefs, weights, Sobol
    # bits, Sobol direction vector (ints: Sobol numbers are built with xor).
    "InterestCalib": [_I, _I, _I, arr(_R, 2), _I, arr(_R), arr(_R), _I, arr(_I)],
}  # fmt: skip
FINPAR_OUTPUTS: dict[str, list[Any]] = {
    "LocVolCalib": [arr(_R)],
    "OptionPricing": [arr(_R)],
    # a, b, sigma, nu, rho, log-likelihood; per swaption [calibrated, Black, % difference]
    "InterestCalib": [_R] * 6 + [arr(_R, 2)],
}
_DATASETS = sorted(p.parent for p in FINPAR.glob("*/*/input.data")) if FINPAR.exists() else []


@pytest.mark.skipif(not _DATASETS, reason="finpar data sets not present")
@pytest.mark.parametrize("folder", _DATASETS, ids=lambda p: f"{p.parent.name}-{p.name}")
def test_finpar_datasets_read(folder: Path) -> None:
    bench = folder.parent.name
    inputs = read_both((folder / "input.data").read_text(), FINPAR_INPUTS[bench])
    outputs = read_both((folder / "output.data").read_text(), FINPAR_OUTPUTS[bench])
    if bench == "LocVolCalib":
        assert inputs[4:] == [0.03, 5.0, 0.2, 0.6, 0.5]
        assert outputs[0].shape == (inputs[0],)  # one result per strike (OUTER)
    elif bench == "OptionPricing":
        dates, und, bits = inputs[2], inputs[3], inputs[5]
        assert inputs[6].shape == (dates * und, bits)
        assert inputs[7].shape == (1, und, und)
        assert inputs[8].shape == inputs[9].shape == (1, dates, und)
        assert inputs[13].shape == inputs[14].shape == (3, dates)
        assert outputs[0].shape == (1,)
    else:
        assert inputs[3].shape == (inputs[2], 4)
        assert inputs[5].shape == inputs[6].shape == (inputs[4],)
        assert inputs[8].shape == (inputs[7],)
        assert inputs[8][0] == 536870912
        assert outputs[6].shape[1] == 3


@pytest.mark.skipif(not _DATASETS, reason="finpar data sets not present")
def test_finpar_empty_row_reads_as_a_zero_width_array() -> None:
    text = (FINPAR / "OptionPricing" / "Medium" / "input.data").read_text()
    detval = read_values(text, FINPAR_INPUTS["OptionPricing"])[11]
    assert detval.shape == (1, 0) and detval.dtype == np.float64


# -- size -----------------------------------------------------------------------------


def test_a_million_reals_read_and_print() -> None:
    # Not a timed assertion: it only has to finish (about a second on a slow machine).
    x = np.random.default_rng(0).standard_normal(10**6) * 100
    text = format_value(arr(REAL), x)
    (back,) = read_values(text, [arr(REAL)])
    assert back.shape == x.shape
    assert np.allclose(back, x, atol=5e-7, rtol=0)
    matrix = np.arange(10**6, dtype=np.int64).reshape(1000, 1000)
    (m,) = read_values(format_value(arr(INT, 2), matrix), [arr(INT, 2)])
    assert np.array_equal(m, matrix)


def test_flatten_order_is_what_read_values_expects() -> None:
    t = _tuple(INT, array_of(_tuple(REAL, array_of(BOOL))))
    types = flatten(t)
    vals = read_values("1 [2.0] [[True]]", types)
    assert [getattr(v, "shape", None) for v in vals] == [None, (1,), (1, 1)]
