"""The `tile-parallel` pass: a parallel loop over rows whose body loops over columns runs
the columns in tiles, every row of a chunk per tile, so that what a tile of columns reads
stays in cache while the rows sweep over it.

Note [Tiling the column loop]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A matrix product `map(fn row => map(fn col => redomap(...), cols), rows)` comes out of
`convert-soac-to-scf` as

    scf.parallel (%i) = (lb) to (ub) {       // rows
      prefix(i)                              // subviews of row i: no effects
      scf.for %j = jl to jh { body(i, j) }   // columns, each a loop over row i and col j
    }

Every row walks over every column: with n x n int matrices each row reads all of the
other matrix (8 MB at n = 1000), from L3 or memory, n times; two threads doing so at
once share that bandwidth, and the second thread gains little (matmul 1000 on two
cores: multicore/cpu 0.69). Here the loop becomes

    scf.parallel (%c) = (0) to (C) {                    // one chunk of rows per thread
      scf.for %jt = jl to jh step T {                   // a tile of T columns
        scf.for %k = start(c) to start(c + 1) {         // every row of the chunk
          prefix(lb + k)
          scf.for %j = jt to min(jt + T, jh) { body(lb + k, j) }
        }
      }
    }

(C = max(1, min(width, ub - lb)) chunks as in `chunk-parallel`: the thread count on
`multicore`, 1 on `cpu`; Note [Parallel width] in `l0.lowering.loop_ir.parallel_loops`.
The tile loop counts its tiles and the end of a tile is jt + min(T, jh - jt), so that
nothing wraps near 2^63: Note [Stepped loops without overflow] there.) A tile
of T = 32 columns of 1000 ints is 256 KB, which stays in a core's L2 cache while the
rows of the chunk pass over it: the other matrix is read from L3 once per chunk, not once
per row. It helps the sequential back end as much (the same IR, one chunk).

Why the order may change: the iterations of an `scf.parallel` are independent, so the
column loops of different rows may interleave; the columns of one row still run in
order. What may not change is which error is reported (the smallest failing row's), so
only bodies that cannot fail are tiled: their ops are free of effects, loads, stores and
structured control flow (no check, call or allocation). Only a body whose column loop
holds a loop is tiled: a straight-line column (an elementwise 2-D map) reads nothing
that the next row reuses, and keeps its long vectorised loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import is_side_effect_free

from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import defined_inside, parallel_chunks, stepped_for
from l0.lowering.memory.memory_plan import constant_int
from l0.passes.analysis.walk import walk_ops

TILE = 32
"""Columns per tile (Note [Tiling the column loop])."""

_CONTROL = (scf.ForOp, scf.WhileOp, scf.IfOp, scf.YieldOp, scf.ConditionOp, scf.ReduceOp)
_MEMORY = (memref.LoadOp, memref.StoreOp)


def cannot_fail(op: Operation) -> bool:
    """Whether `op` and everything in it only computes, loads, stores and loops."""
    return all(isinstance(o, (*_CONTROL, *_MEMORY))
               or (not o.regions and is_side_effect_free(o))
               for o in walk_ops(op))


def _computable_before(v: SSAValue, par: scf.ParallelOp, chain: list[Operation]) -> bool:
    """Whether `v` can be computed before `par`: defined outside it, or by effect-free
    ops of its body over such values (appended to `chain` in order, to be cloned)."""
    if not defined_inside(v, par):
        return True
    owner = v.owner
    if not isinstance(owner, Operation) or owner.parent_block() is not par.body.block \
            or owner.regions or not is_side_effect_free(owner):
        return False
    if not all(_computable_before(u, par, chain) for u in owner.operands):
        return False
    if owner not in chain:
        chain.append(owner)
    return True


@dataclass
class Tileable:
    """A parallel loop of the form of Note [Tiling the column loop]."""

    par: scf.ParallelOp
    columns: scf.ForOp
    chain: list[Operation]
    """The ops of the body that compute the column loop's bounds, to clone before."""


def tileable(par: scf.ParallelOp) -> Tileable | None:
    """`par` as a `Tileable`, or None when it is not of the form (module docstring)."""
    if len(par.lowerBound) != 1 or par.initVals or constant_int(par.step[0]) != 1:
        return None
    ops = list(par.body.block.ops)
    if len(ops) < 2 or not isinstance(ops[-1], scf.ReduceOp):
        return None
    columns = ops[-2]
    if not isinstance(columns, scf.ForOp) or columns.results \
            or constant_int(columns.step) != 1:
        return None
    if any(o.regions or not is_side_effect_free(o) for o in ops[:-2]):
        return None
    if not cannot_fail(columns) or not any(
            isinstance(o, scf.ForOp | scf.WhileOp) for o in walk_ops(columns.body)):
        return None
    chain: list[Operation] = []
    if not all(_computable_before(v, par, chain) for v in (columns.lb, columns.ub)):
        return None
    return Tileable(par, columns, chain)


def tile(t: Tileable) -> None:
    """Rewrite `t.par` into chunks of rows over tiles of columns (module docstring)."""
    par, columns = t.par, t.columns
    b = CodeBuilder.before(par)
    mapping: dict[SSAValue, SSAValue] = {}
    for op in t.chain:
        copy = b.add(op.clone(value_mapper=mapping))
        for old, new in zip(op.results, copy.results, strict=True):
            mapping[old] = new
    col_type = columns.lb.type
    first = b.to_i64(mapping.get(columns.lb, columns.lb))
    last = b.to_i64(mapping.get(columns.ub, columns.ub))
    lb = b.to_i64(par.lowerBound[0])
    body = par.body.block

    def as_column(cb: CodeBuilder, v: SSAValue) -> SSAValue:
        return cb.to_index(v) if isinstance(col_type, IndexType) else v

    def run_chunk(cb: CodeBuilder, lo: SSAValue, hi: SSAValue) -> None:
        def run_tile(tb: CodeBuilder, jt: SSAValue) -> None:
            # min(jt + T, last) as jt + min(T, last - jt): jt + T may leave 64 bits
            # (Note [Stepped loops without overflow]).
            end = tb.addi(jt, tb.val(arith.MinSIOp(tb.subi(last, jt), tb.i64(TILE))))

            def row(rb: CodeBuilder, k: SSAValue, _: object) -> list[SSAValue]:
                # Built once: the body moves into the row loop.
                term = body.last_op
                assert isinstance(term, scf.ReduceOp)
                start, stop = as_column(rb, jt), as_column(rb, end)
                Rewriter.inline_block(body, rb.ip, [rb.to_index(rb.addi(lb, k))])
                columns.operands[0], columns.operands[1] = start, stop
                Rewriter.erase_op(term)
                return []

            tb.for_(lo, hi, [], row)

        stepped_for(cb, first, last, cb.i64(TILE), run_tile)

    parallel_chunks(b, par, run_chunk)
    Rewriter.erase_op(par)


@dataclass(frozen=True)
class TileParallelPass(ModulePass):
    """A one-dimensional `scf.parallel` over rows whose body is effect-free ops and a
    column loop that cannot fail and holds a loop becomes chunks of rows, each running
    the columns in tiles of 32 over all its rows (cpu and multicore back ends; runs
    after `reuse-freed`).

    Before:
        "scf.parallel"(%c0, %n, %c1) ({
        ^bb0(%i: index):
          %row = memref.subview %x[%i, 0] ...
          scf.for %j = %c0_i64 to %m step %c1_i64 : i64 {
            %s = scf.for %k = ... iter_args(%acc = %z) -> (i64) : i64 { ... }
            memref.store %s, ...
          }
          scf.reduce
        })
    After:
        %w = func.call @l0_parallel_width() : () -> i64
        %C = max(1, min(%w, %n))
        "scf.parallel"(%c0, %C, %c1) ({
        ^bb0(%c: index):
          scf.for %t = %c0_i64 to ceil(%m / 32) step %c1_i64 : i64 {
            %jt = 32 * %t
            scf.for %k = c*n/C to (c+1)*n/C step 1 : i64 {
              %row = memref.subview %x[%k, 0] ...
              scf.for %j = %jt to %jt + min(32, %m - %jt) step %c1_i64 : i64 { ... }
            }
          }
          scf.reduce
        })
    """

    name = "tile-parallel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if not (isinstance(f, func.FuncOp) and f.body.blocks):
                continue
            for par in [o for o in walk_ops(f) if isinstance(o, scf.ParallelOp)]:
                if par.parent is not None and (t := tileable(par)) is not None:
                    tile(t)
