"""`l0.values.compare`: expected outputs against `main`'s values, reals within a tolerance."""

from __future__ import annotations

import numpy as np
import pytest

from l0.syntax.parser import parse_type
from l0.values.compare import Tolerance, output_mismatch

PAIRS = "[{int, real}]"  # printed as {Checked, [ints], [reals]}


@pytest.mark.parametrize("expected,type_,actual,problem", [
    ("{Checked, [1], [0.5]}", PAIRS, [np.array([1]), np.array([0.5000001])], None),
    ("{Checked, [1], [0.6]}", PAIRS, [np.array([1]), np.array([0.5])],
     "(component 2: at [0]: 0.5 is not within the tolerance of 0.6 (rtol 1e-05, atol 1e-06))"),
    ("{Checked, [2], [0.5]}", PAIRS, [np.array([1]), np.array([0.5])],
     "(component 1: at [0]: 1 where 2 was expected)"),
    ("NaN", "real", [float("nan")], None),
    ("Infinity", "real", [float("inf")], None),
    ("Infinity", "real", [1e308], "1e+308 is not within the tolerance of inf"),
    ("-0.000000", "real", [0.0], None),
    ("{'a', 1.0}", "{char, real}", [97, 1.0000001], None),
    ("{'b', 1.0}", "{char, real}", [97, 1.0], "(component 1: 'a' where 'b' was expected)"),
    ('{"ab", 1.0}', "{[char], real}", [np.array([97, 98], np.int32), 1.0000001], None),
    ("{ab, 1.0}", "{[char], real}", [np.array([97, 98], np.int32), 1.0000001], None),
    ("{ab, 1.5}", "{[char], real}", [np.array([97, 98], np.int32), 1.0],
     "(component 2: 1.0 is not within the tolerance of 1.5"),
    ("{a,b, 1.0}", "{[char], real}", [np.array([97, 44, 98], np.int32), 1.0],
     "the expected output is not a value of type {[char], real}"),  # raw, with a comma
    ("empty(real)", "[real]", [np.zeros(0)], None),
    ("[1.0]", "[real]", [np.zeros(0)], "(shape 0 where 1 was expected)"),
    ("[[1.0, 2.0]]", "[[real]]", [np.array([[1.0], [2.0]])], "(shape 2x1 where 1x2 was expected)"),
    ("[True, False]", "[bool]", [np.array([True, True])],
     "(at [1]: True where False was expected)"),
    ("[1, 2] 0.5", "{[int], real}", [np.array([1, 2]), 0.5000001], None),
    ("7", "int", [8], "expected 7, got 8 (8 where 7 was expected)"),
    ("7.0", "int", [7], "(the expected output is not a value of type int: expected a value of "
     "type int for parameter 1, found `7.0`)"),
])
def test_output_mismatch(expected: str, type_: str, actual: list, problem: str | None) -> None:
    found = output_mismatch(expected, parse_type(type_), actual)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found, found


def test_tolerances() -> None:
    real = parse_type("real")
    assert output_mismatch("100.0", real, [100.0005]) is None  # rtol 1e-5 of 100
    assert output_mismatch("100.0", real, [100.002]) is not None
    assert output_mismatch("100.0", real, [100.002], Tolerance(rtol=1e-4)) is None
    assert output_mismatch("0.0", real, [5e-7]) is None  # atol 1e-6
    assert output_mismatch("0.0", real, [5e-7], Tolerance(atol=0.0)) is not None
