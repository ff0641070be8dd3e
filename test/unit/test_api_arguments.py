"""Arguments of `l0.compile(...).f(...)`: checked like the value reader checks input, the
same on every back end, with messages naming the parameter; signatures for `help`."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import l0

SOURCE = """
fun int sum([int] a, int n) = reduce(op +, n, a)
fun real rsum([real] a, real x) = reduce(op +, x, a)
fun int rows([[int]] m) = size(0, m)
fun bool neg(bool b) = not b
fun int code(char c) = 1
fun [char] same([char] s) = s
fun [[char]] lines([[char]] s) = s
fun {int, [real]} tup({int, [real]} p) = p
fun [{int, real}] pairs([{int, real}] xs) = xs
fun int main([int] a) = reduce(op +, 0, a)
"""

BACKENDS = ("interp", "cpu")


@pytest.fixture(params=BACKENDS)
def prog(request: pytest.FixtureRequest) -> l0.api.CompiledProgram:
    return l0.compile(SOURCE, backend=request.param)


# (function, arguments, exception, words of the message)
REFUSED = [
    ("main", (np.array([1.9, 2.9]),), TypeError,
     "argument 'a' of main: expected [int], got array of float64"),
    ("main", (np.array([1e20]),), TypeError, "got array of float64"),
    ("main", ([1.5, 2],), TypeError, "argument 'a' of main: expected [int]"),
    ("main", ([1 << 70],), ValueError, "does not fit in an int"),
    ("main", (np.array([1 << 63], dtype=np.uint64),), ValueError, "does not fit in an int"),
    ("main", (np.array([True, False]),), TypeError, "got array of bool"),
    ("main", ([[1, 2], [3]],), ValueError, "irregular array"),
    ("main", ([[1, 2], [3, 4]],), TypeError, "rank 1"),
    ("main", (5,), TypeError, "argument 'a' of main"),
    ("sum", (np.arange(3), 3.7), TypeError, "argument 'n' of sum: expected int, got float 3.7"),
    ("sum", (np.arange(3), 3.0), TypeError, "argument 'n' of sum"),
    ("sum", (np.arange(3), True), TypeError, "expected int, got bool"),
    ("sum", (np.arange(3), 1 << 63), ValueError, "argument 'n' of sum: 9223372036854775808 does"),
    ("rsum", (np.ones(2), True), TypeError, "argument 'x' of rsum: expected real, got bool"),
    ("rsum", (np.ones(2), "1.0"), TypeError, "argument 'x' of rsum"),
    ("rsum", (np.array([True]), 0.0), TypeError, "argument 'a' of rsum: expected [real]"),
    ("rsum", (np.ones(2), 10**400), ValueError, "too large for a real"),
    ("rows", (np.arange(3),), TypeError, "argument 'm' of rows: expected [[int]] (rank 2)"),
    ("rows", ([[1], [2, 3]],), ValueError, "irregular array"),
    ("neg", (1,), TypeError, "argument 'b' of neg: expected bool, got int 1"),
    ("code", ("ab",), TypeError, "argument 'c' of code: expected char"),
    ("code", (97,), TypeError, "expected char"),
    ("same", ([-1],), ValueError, "code point"),
    ("lines", (["ab", "c"],), ValueError, "irregular array"),
    ("tup", ((1,),), TypeError, "argument 'p' of tup: expected {int, [real]}"),
    ("tup", ((1.5, [1.0]),), TypeError, "argument 'p' of tup, component 1: expected int"),
    ("pairs", ((np.arange(3), np.ones(2)),), ValueError, "must have the same outer shape"),
    ("pairs", ((np.ones(2), np.ones(2)),), TypeError, "argument 'xs' of pairs, array 1"),
    ("pairs", (np.arange(2),), TypeError, "argument 'xs' of pairs"),
]


@pytest.mark.parametrize(("fun", "args", "error", "words"), REFUSED,
                         ids=[f"{r[0]}-{i}" for i, r in enumerate(REFUSED)])
def test_wrong_arguments_are_refused(prog, fun, args, error, words) -> None:
    with pytest.raises(error) as info:
        getattr(prog, fun)(*args)
    assert words in str(info.value)


def test_accepted_arguments(prog) -> None:
    assert prog.main(np.arange(4, dtype=np.int8)) == 6
    assert prog.main(np.arange(4, dtype=np.uint32)) == 6
    assert prog.main([1, 2, 3]) == 6 and prog.main([]) == 0
    assert prog.sum(np.arange(3), np.int16(4)) == 7
    assert prog.sum(np.array([(1 << 63) - 1]), -1) == (1 << 63) - 2
    assert prog.rsum(np.arange(3), 1) == 4.0  # ints for reals
    assert prog.rsum(np.ones(2, dtype=np.float32), np.float32(0.5)) == 2.5
    assert prog.rows([[1, 2], [3, 4], [5, 6]]) == 3 and prog.rows([]) == 0
    assert prog.neg(np.bool_(False)) is True
    assert prog.code("x") == 1
    # [char] results are text: a str, rows of them a list of str
    assert prog.same("ab") == "ab" == prog.same(["a", "b"])
    assert prog.same(np.array([97, 98], dtype=np.int32)) == "ab"
    assert prog.same("é\x00") == "é\x00" and prog.same("") == ""
    assert prog.lines(["ab", "cd"]) == ["ab", "cd"]
    assert prog.lines(prog.lines(["ab", "cd"])) == ["ab", "cd"]
    n, xs = prog.tup((1, [1, 2.5]))
    assert n == 1 and xs.tolist() == [1.0, 2.5]
    a, b = prog.pairs(([1, 2], [0.5, 1.5]))
    assert a.tolist() == [1, 2] and b.tolist() == [0.5, 1.5]


def test_arguments_by_name(prog) -> None:
    assert prog.sum(a=np.arange(3), n=10) == 13
    assert prog.sum(np.arange(3), n=10) == 13
    with pytest.raises(TypeError, match="fun int sum"):
        prog.sum(np.arange(3), m=1)


@pytest.mark.parametrize("kwargs,message", [
    ({"m": 1}, "unexpected keyword argument 'm'$"),
    ({"nn": 1}, r"unexpected keyword argument 'nn' \(did you mean 'n'\?\)"),
])
def test_a_wrong_keyword_is_named(prog, kwargs, message) -> None:
    """The keyword that is wrong, not only the parameter that is then missing."""
    with pytest.raises(TypeError, match=message):
        prog.sum(np.arange(3), **kwargs)


@pytest.mark.parametrize("args", [(), (np.arange(2),), (np.arange(2), 1, 2)])
def test_wrong_number_of_arguments(prog, args) -> None:
    with pytest.raises(TypeError, match="sum"):
        prog.sum(*args)


def test_signature_and_docstring(prog) -> None:
    sig = inspect.signature(prog.sum)
    assert list(sig.parameters) == ["a", "n"]
    assert [p.annotation for p in sig.parameters.values()] == ["[int]", "int"]
    assert sig.return_annotation == "int"
    assert "fun int sum([int] a, int n)" in (prog.sum.__doc__ or "")
    assert prog.sum is prog.sum


def test_compile_documents_its_options() -> None:
    params = inspect.signature(l0.compile).parameters
    assert {"filename", "backend", "optimise", "fast_math"} <= set(params)
    doc = l0.compile.__doc__ or ""
    for option in ("filename", "backend", "optimise", "fast_math", "interp"):
        assert option in doc
