"""The index arithmetic that splits rows into chunks and blocks (Note [Chunk bounds
without overflow] in `l0.lowering.loop_ir.parallel_loops`), built as the lowering builds it,
compiled by the JIT and compared with Python's unbounded integers: the same
boundaries as floor(c*n/C), also where c*n leaves 64 bits (n near 2^63); and the
stepped loops of grid-stride and tile loops (Note [Stepped loops without overflow]),
which stop at a bound within a step of 2^63.

The programs that run these formulas over huge row counts are in `test_multicore.py`
and `test_gpu_sim.py` (`reduce(op +, 0, iota(n))`); this test reaches every n and C,
including those whose programs would take too long to run.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import FunctionType, ModuleOp, i64
from xdsl.ir import Block, Region

from l0.lowering.backends.jit import JitModule
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import ceil_div, chunk_bounds, stepped_for

INT_MAX = 2**63 - 1


def _function(name: str, arity: int, body) -> func.FuncOp:  # type: ignore[no-untyped-def]
    block = Block(arg_types=[i64] * arity)
    b = CodeBuilder.at_end(block)
    results = body(b, *block.args)
    b.add(func.ReturnOp(*results))
    return func.FuncOp(name, FunctionType.from_lists([i64] * arity, [i64] * len(results)),
                       Region(block))


def _stepped(b: CodeBuilder, lo, hi, step):  # type: ignore[no-untyped-def]
    """(trips, first value, last value) of `stepped_for(lo, hi, step)` (-1: none)."""
    cells = [b.val(memref.AllocaOp.get(i64, shape=[])) for _ in range(3)]
    for cell, init in zip(cells, (0, -1, -1), strict=True):
        b.store(b.i64(init), cell, [])

    def body(tb: CodeBuilder, v):  # type: ignore[no-untyped-def]
        trips = tb.load(cells[0], [])
        first = tb.load(cells[1], [])
        tb.store(tb.addi(trips, tb.i64(1)), cells[0], [])
        tb.store(tb.select(tb.cmpi("eq", trips, tb.i64(0)), v, first), cells[1], [])
        tb.store(v, cells[2], [])

    stepped_for(b, lo, hi, step, body)
    return [b.load(cell, []) for cell in cells]


@pytest.fixture(scope="module")
def formulas() -> JitModule:
    module = ModuleOp([
        _function("bounds", 3, lambda b, c, n, count: list(chunk_bounds(b, c, n, count))),
        _function("ceil_div", 2, lambda b, n, d: [ceil_div(b, n, d)]),
        _function("stepped", 3, _stepped),
    ])
    module.verify()
    return JitModule(module)


ROWS = [0, 1, 2, 4095, 8192, 100_000, 2**46, 2**46 + 3, 2**62, 2**62 + 12345,
        INT_MAX - 1, INT_MAX]
COUNTS = [1, 2, 3, 7, 1024, 2**18]


@pytest.mark.parametrize("n", ROWS)
def test_chunks_are_floor_c_n_over_count_without_overflow(formulas: JitModule,
                                                           n: int) -> None:
    bounds = formulas.function("bounds")
    for count in COUNTS:
        chunks = range(count) if count <= 8 else [0, 1, count // 3, count - 2, count - 1]
        for c in chunks:
            assert bounds(c, n, count) == (c * n // count, (c + 1) * n // count), (c, n, count)
        assert bounds(count - 1, n, count)[1] == n  # the last chunk ends at the last row


@pytest.mark.parametrize("n", [0, 1, 255, 256, 257, 2**46, INT_MAX - 255, INT_MAX])
def test_grid_sizes_are_ceilings_without_overflow(formulas: JitModule, n: int) -> None:
    ceil_div = formulas.function("ceil_div")
    assert ceil_div(n, 256) == -(-n // 256)
    assert ceil_div(-5, 256) <= 0  # a negative trip count stays at most 0 (then clamped)


STEPS = [1, 32, 256, 2**28]


@pytest.mark.parametrize("hi", [0, 1, 31, 32, 33, 1000, INT_MAX - 32, INT_MAX - 1, INT_MAX])
def test_stepped_loops_stop_at_their_bound_without_overflow(formulas: JitModule,
                                                            hi: int) -> None:
    # Note [Stepped loops without overflow]: a grid-stride loop (step: the thread count)
    # or a tile loop (step 32) whose bound is within a step of 2^63 stops there, where
    # v + step would wrap; its values are those of range(lo, hi, step).
    stepped = formulas.function("stepped")
    for step in STEPS:
        starts = {hi, max(0, hi - 1), max(0, hi - step), max(0, hi - 3 * step - 1)}
        for lo in starts | ({0, 5} if hi <= 1000 else set()):
            want = range(lo, hi, step)
            got = stepped(lo, hi, step)
            assert got == ((len(want), want[0], want[-1]) if want else (0, -1, -1)), \
                (lo, hi, step)
