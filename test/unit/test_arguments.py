"""Whole-function arguments: the components of an array of tuples must agree in shape."""

from __future__ import annotations

import numpy as np
import pytest

from l0.diagnostics import L0Error, Loc
from l0.types import INT, REAL, ArrayType, TupleType
from l0.values import (
    CHECKED,
    check_arguments,
    from_ir_results,
    read_arguments,
    to_ir_arguments,
)

PAIRS = ArrayType(TupleType((INT, REAL)), 1)
NESTED = TupleType((INT, ArrayType(TupleType((INT, ArrayType(REAL, 1))), 2)))


def test_equal_components_are_accepted() -> None:
    values = read_arguments("[1, 2] [1.0, 2.0]", [PAIRS])
    assert [v.tolist() for v in values] == [[1, 2], [1.0, 2.0]]


def test_unequal_components_are_rejected() -> None:
    with pytest.raises(L0Error) as info:
        read_arguments("[1, 2, 3] [1.0, 2.0]", [PAIRS])
    assert info.value.kind == "value-error"
    assert "argument 1" in info.value.message and "found 3, 2" in info.value.message


def test_nested_arrays_of_tuples_compare_their_outer_dimensions() -> None:
    ok = [7, np.zeros((2, 3), np.int64), np.zeros((2, 3, 5))]
    check_arguments([NESTED], ok, Loc("<t>", 1, 1))
    bad = [7, np.zeros((2, 3), np.int64), np.zeros((2, 4, 5))]
    with pytest.raises(L0Error):
        check_arguments([NESTED], bad, Loc("<t>", 1, 1))


def test_plain_arrays_may_differ() -> None:
    arr = ArrayType(INT, 1)
    values = read_arguments("[1, 2, 3] [4]", [arr, arr])
    assert len(values) == 2


def test_ir_arguments_get_a_cert_per_array_of_tuples() -> None:
    arr = ArrayType(INT, 1)
    a, b, c = np.arange(2), np.zeros(2), np.arange(3)
    ir = to_ir_arguments([PAIRS, INT, arr], [a, b, 5, c])
    assert ir[0] is CHECKED and ir[1:] == [a, b, 5, c]
    nested = to_ir_arguments([NESTED], [7, "x", "y"])
    assert nested == [CHECKED, 7, "x", "y"]
    assert to_ir_arguments([INT, arr], [1, c]) == [1, c]


def test_ir_results_drop_the_leading_cert() -> None:
    assert from_ir_results(PAIRS, [CHECKED, "a", "b"]) == ["a", "b"]
    assert from_ir_results(ArrayType(INT, 1), ["a"]) == ["a"]


def test_api_calls_functions_with_cert_parameters() -> None:
    import l0

    src = (
        "fun [{int,int}] swap([{int,int}] xs) = map(fn {int,int} ({int,int} p) =>"
        " let {a, b} = p in {b, a}, xs)\n"
        "fun [{int,int}] main([{int,int}] xs) = swap(xs)\n"
    )
    for backend in ("interp", "cpu"):
        for optimise in (False, True):
            prog = l0.compile(src, backend=backend, optimise=optimise)
            a, b = prog.swap((np.array([1, 3]), np.array([2, 4])))
            assert a.tolist() == [2, 4] and b.tolist() == [1, 3]
            assert prog.run_main("[1, 3] [2, 4]") == "{Checked, [2, 4], [1, 3]}"
