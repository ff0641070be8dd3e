"""The flattened version's nests on threads: a loop of several dimensions made one.

`convert-parallel-to-omp` runs the first dimension of an `scf.parallel` on the
threads and the others sequentially inside each iteration. In the flattened copy of a
versioned nest (Note [Versions of a nest] in `l0.passes.cores.versions`) a perfect
nest is a two-dimensional loop over outer x inner elements whose outer size is, by
the choice that runs it, below the thread count: run by its first dimension it would
leave threads idle, which is what the flattened version is for. So such a loop
becomes, before the conversion, one loop over all its iterations (`collapse`):

    scf.parallel (%i, %j) = (0, 0) to (%n, %m) step (1, 1) { body(i, j) }
  becomes
    scf.parallel (%k) = (0) to (%n * %m) step (1) { body(k / m, k % m) }

The iterations keep their row-major order, so the lowest failing iteration is still
the lowest failing (i, j), the error the sequential nest reports; the static schedule
gives each thread a contiguous range of (i, j). Only loops starting at 0 with unit
steps are collapsed (what `convert-soac-to-scf` makes of a nest); others stay as
they are. An empty dimension makes an empty product: no iteration, as before.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.ir import Block, Region, SSAValue

from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.memory.memory_plan import constant_int


def _collapsible(par: scf.ParallelOp) -> bool:
    return (len(par.lowerBound) >= 2 and not par.initVals
            and all(constant_int(v) == 0 for v in par.lowerBound)
            and all(constant_int(v) == 1 for v in par.step))


def collapse(par: scf.ParallelOp) -> scf.ParallelOp:
    """`par` as a one-dimensional loop over its iterations in row-major order (module
    docstring), or `par` itself where it is not collapsible."""
    if not _collapsible(par):
        return par
    b = CodeBuilder.before(par)
    sizes = list(par.upperBound)
    total = sizes[0]
    for size in sizes[1:]:
        total = b.val(arith.MuliOp(total, size))
    body = par.body.block
    flat = Block(arg_types=[body.args[0].type])
    fb = CodeBuilder.at_end(flat)
    rest: SSAValue = flat.args[0]
    indices: list[SSAValue] = []
    for size in reversed(sizes[1:]):  # the last dimension varies fastest
        indices.append(fb.val(arith.RemUIOp(rest, size)))
        rest = fb.val(arith.DivUIOp(rest, size))
    indices.append(rest)
    for arg, index in zip(body.args, reversed(indices), strict=True):
        arg.replace_all_uses_with(index)
    for op in list(body.ops):
        op.detach()
        flat.add_op(op)
    new = scf.ParallelOp([b.index(0)], [total], [b.index(1)], Region(flat))
    new.attributes |= par.attributes
    b.add(new)
    par.detach()
    par.erase()
    return new
