"""Whole-function arguments: the components of an array of tuples must agree in shape."""

from __future__ import annotations

import numpy as np
import pytest

from l0.diagnostics import L0Error, Loc
from l0.types import INT, REAL, ArrayType, TupleType
from l0.values import check_arguments, read_arguments

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
