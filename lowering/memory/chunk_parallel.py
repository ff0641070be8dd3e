"""The `chunk-parallel` pass: a parallel loop whose iterations allocate runs one chunk
of iterations per thread, a sequential loop inside each.

After `dealloc`, every buffer allocated in the body of an `scf.parallel` is freed in
that body (nothing can leave a parallel iteration but what it stores). `expand-allocs`
gives such a buffer one slice per *iteration* when its size is known before the loop;
but the loop nests inside a parallel body (LocVolCalib's time loop and tridiagonal
solves, one nest per strike) carry growing buffers whose sizes come from loop-carried
values, and each parallel iteration then allocates its own: 18 allocations per strike.

Here such a loop, `scf.parallel (%i) = (lb) to (ub) step (1)` whose body allocates
(at any depth), becomes

    scf.parallel (%c) = (0) to (C) {            // one chunk per thread
      scf.for %k = start(c) to start(c + 1) {   // its iterations, in order
        body(lb + k)
      }
    }

with C = max(1, min(width, ub - lb)) (width: `l0_parallel_width`, the thread count on
`multicore`, 1 on `cpu` and inside a thread; Note [Parallel width] in
`l0.lowering.loop_ir.parallel_loops`) and chunk c the rows [c*n/C, (c+1)*n/C). The iterations
of a chunk run one after the other on one thread, so `hoist-allocs` (which runs next)
treats them as any `scf.for`: invariant buffers are allocated once per chunk (and then
expanded by `expand-allocs`, a slice per chunk, not per iteration), growing buffers are
carried from one iteration to the next. Allocations then depend on the thread count,
not on the number of iterations.

Errors stay those of the sequential run: chunks are contiguous and in order, and a
chunk stops at its first failure, so the first failing chunk's failure is the smallest
failing iteration's (Note [Errors in threads] in `l0.lowering.llvm.omp`).

Only one-dimensional loops with unit step and no reductions are chunked (the forms
`convert-soac-to-scf` gives a map; a perfect map nest, two-dimensional, holds no
allocation), and only when they allocate: a loop that does not keeps its iterations
for the runtime's schedule and LLVM's vectoriser.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import chunked_rows, parallel_chunks
from l0.lowering.memory.memory_plan import constant_int
from l0.passes.analysis.walk import walk_ops


def allocates(par: scf.ParallelOp) -> bool:
    """Whether the body of `par` allocates, at any depth."""
    return any(isinstance(op, memref.AllocOp) for op in walk_ops(par.body))


def chunkable(par: scf.ParallelOp) -> bool:
    """One-dimensional, unit step, no reductions, an allocating body, and not already a
    loop over chunks (a blocked reduction's, whose iterations are threads: chunked again,
    its iterations would count as rows and it would seldom fork)."""
    return (len(par.lowerBound) == 1 and not par.initVals
            and constant_int(par.step[0]) == 1 and allocates(par)
            and chunked_rows(par.upperBound[0]) is None)


def chunk(par: scf.ParallelOp) -> None:
    """Rewrite `par` into a parallel loop over chunks of sequential loops (module
    docstring)."""
    b = CodeBuilder.before(par)
    lb = b.to_i64(par.lowerBound[0])
    body = par.body.block

    def run_chunk(cb: CodeBuilder, lo: SSAValue, hi: SSAValue) -> None:
        def iteration(ib: CodeBuilder, k: SSAValue, _: object) -> list[SSAValue]:
            term = body.last_op
            assert isinstance(term, scf.ReduceOp)
            Rewriter.inline_block(body, ib.ip, [ib.to_index(ib.addi(lb, k))])
            Rewriter.erase_op(term)
            return []

        cb.for_(lo, hi, [], iteration)

    parallel_chunks(b, par, run_chunk)
    Rewriter.erase_op(par)


def outermost_first(f: func.FuncOp) -> list[scf.ParallelOp]:
    return [op for op in walk_ops(f) if isinstance(op, scf.ParallelOp)]


@dataclass(frozen=True)
class ChunkParallelPass(ModulePass):
    """A one-dimensional `scf.parallel` whose body allocates becomes a parallel loop
    over C chunks (C: the parallel width, at most the trip count), each running its
    iterations in a sequential `scf.for`, so that memory planning allocates per chunk
    (per thread) instead of per iteration. Runs after `dealloc`, before `hoist-allocs`.

    Before:
        "scf.parallel"(%c0, %n, %c1) ({
        ^bb0(%i: index):
          %buf = memref.alloc(%m) : memref<?xf64>
          ...
          memref.dealloc %buf : memref<?xf64>
          scf.reduce
        })
    After:
        %w = func.call @l0_parallel_width() : () -> i64
        %C = max(1, min(%w, %n))
        "scf.parallel"(%c0, %C, %c1) ({
        ^bb0(%c: index):
          scf.for %k = c*n/C to (c+1)*n/C step 1 : i64 {
            %buf = memref.alloc(%m) : memref<?xf64>
            ...
          }
          scf.reduce
        })
    """

    name = "chunk-parallel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if not (isinstance(f, func.FuncOp) and f.body.blocks):
                continue
            for par in outermost_first(f):
                if par.parent is not None and chunkable(par):
                    chunk(par)
