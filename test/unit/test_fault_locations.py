"""Run-time faults are reported at the construct that failed, on every back end.

A `trunc` of NaN, an infinity or a real outside the `int` range and a shift by a
negative count fail without a `soac.assert` of their own: the location comes from the
arith op itself (Note [Locations of failing arith ops] in `l0.internalise.operators`).
Inside a `map` the error points at the `trunc`, not at the `map`; after `-O` too, where
fusion and CSE move and merge ops.

Recursion too deep for the stack is reported at the definition of the recursive
function, by the interpreter as by compiled code (Note [Locations of recursive
functions] in `l0.internalise.functions`); inside a parallel `map` too.
"""

from __future__ import annotations

import re

import pytest

from l0.api import CompiledProgram
from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error

SOURCE = """\
fun int main(int k, real x, [real] xs) =
  let ys = map(fn int (real y) =>
                 trunc(y * 2.0) + trunc(y * 2.0),
               xs) in
  let s = 1 << k in
  s + trunc(x) + reduce(op +, 0, ys)
"""

# input -> where it fails
FAULTS = {
    "shift": ("-1 1.0 [1.0]", "p.l0:5:11: error: shift by a negative amount: -1"),
    "trunc": ("1 -1e300 [1.0]", "p.l0:6:7: error: cannot convert"),
    "trunc-in-map": ("1 1.0 [1.0, 1e300]", "p.l0:3:18: error: cannot convert"),
}


@pytest.mark.parametrize("optimise", [False, True], ids=["O0", "O"])
@pytest.mark.parametrize("backend", ["interp", "cpu", "multicore", "gpu-sim"])
def test_arith_faults_are_located(backend: str, optimise: bool) -> None:
    prog = call_with_big_stack(
        lambda: CompiledProgram(SOURCE, "p.l0", backend, optimise=optimise, threads=2))
    assert prog.run_main("1 1.0 [1.0, 2.0]") == "15"
    for stdin, expected in FAULTS.values():
        with pytest.raises(L0Error) as info:
            prog.run_main(stdin)
        assert info.value.kind == "runtime-error"
        assert info.value.render().startswith(expected), (stdin, info.value.render())


RECURSIVE = """\
fun int f(int n) =
  if n = 0 then 0 else 1 + f(n - 1)

fun int g(int n) = if n = 0 then 0 else h(n - 1)
fun int h(int n) = 1 + g(n)

fun [int] main(int n, int m) = map(fn int (int i) => f(i * n) + g(i * m), iota(3))
"""


@pytest.mark.parametrize("optimise", [False, True], ids=["O0", "O"])
@pytest.mark.parametrize("backend", ["interp", "cpu", "multicore", "gpu-sim"])
def test_deep_recursion_is_located(backend: str, optimise: bool) -> None:
    prog = call_with_big_stack(
        lambda: CompiledProgram(RECURSIVE, "p.l0", backend, optimise=optimise, threads=2))
    assert prog.run_main("10 5") == "[0, 15, 30]"
    # the function whose frame found no room, at its definition (`main`'s, where the map's
    # body is inlined into it); g and h: whichever is left after inlining (LLVM's O3
    # inlines h into g, its level 0 nothing)
    for stdin, functions in (("100000000 0", {"f": "1:1"}),
                             ("0 100000000", {"g": "4:1", "h": "5:1"})):
        with pytest.raises(L0Error) as info:
            prog.run_main(stdin)
        assert info.value.kind == "runtime-error"
        found = re.match(r"p.l0:(\d+:\d+): error: stack overflow: recursion too deep "
                         r"in function (\w+)$", info.value.render())
        assert found is not None, info.value.render()
        where, name = found.groups()
        assert name in functions and where in (functions[name], "3:1"), info.value.render()


ALLOCATING = """\
fun [[int]] main(int n, int m) =
  let a = iota(n) in
  map(fn [int] (int i) =>
        replicate(m, i),
      a)
"""


@pytest.mark.parametrize("optimise", [False, True], ids=["O0", "O"])
def test_interpreter_out_of_memory_is_located(optimise: bool) -> None:
    """numpy's own errors for an array too big (`MemoryError`, or a `ValueError` beyond
    2^63 bytes) are located at the op whose generated line raised them (Note [Locating
    faults of generated code] in `l0.interp.core`)."""
    prog = call_with_big_stack(
        lambda: CompiledProgram(ALLOCATING, "p.l0", "interp", optimise=optimise))
    assert prog.run_main("2 2") == "[[0, 0], [1, 1]]"
    for stdin, where, message in (
            ("100000000000000 1", "2:11", "out of memory"),
            ("4611686018427387904 1", "2:11",
             "out of memory: the requested array size does not fit in 64 bits"),
            ("2 1000000000000000", "4:9", "out of memory")):
        with pytest.raises(L0Error) as info:
            prog.run_main(stdin)
        assert info.value.render() == f"p.l0:{where}: error: {message}"


@pytest.mark.parametrize("optimise", [False, True], ids=["O0", "O"])
@pytest.mark.parametrize("backend", ["cpu", "multicore", "gpu-sim"])
def test_compiled_out_of_memory_is_located(backend: str, optimise: bool) -> None:
    """A failed allocation is reported at the construct it was made for: bufferisation
    gives each `memref.alloc` its op's location (the `map`, whose result is allocated
    before it runs; the interpreter makes rows one by one)."""
    prog = call_with_big_stack(
        lambda: CompiledProgram(ALLOCATING, "p.l0", backend, optimise=optimise, threads=2))
    assert prog.run_main("2 2") == "[[0, 0], [1, 1]]"
    for stdin, message in (
            ("2 1000000000000000", "out of memory: cannot allocate 16000000000000000 bytes"),
            ("2 4611686018427387904",
             "out of memory: the requested array size does not fit in 64 bits")):
        with pytest.raises(L0Error) as info:
            prog.run_main(stdin)
        assert info.value.render() == f"p.l0:3:3: error: {message}"
