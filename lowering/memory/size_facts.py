"""The `size-facts` pass: inside a loop over `m` rows, `m != 0`.

`soac.size` of an inner dimension is normalised: `size(1, a)` is `select(size(0, a) !=
0, dim1, 0)` (an array with no rows has no columns either). The row sizes a map over
`m` rows computes outside it are then `select(m != 0, n, 0)`, and the bounds checks in
the map's body compare indices with that select, not with `n`: two checks that say the
same (`i < n` for one array, `i < select(m != 0, n, 0)` for its transpose's rows) do not
merge, and LLVM keeps both (LocVolCalib's tridiagonal solves along x, over the rows
`u[j]` of an array `u` of `numY` rows: their size is `select(numY != 0, numX, 0)`, the
coefficients' `numX`). With two exits the backward loop is also no loop LLVM's
dependence analysis understands, so the value it stored in one iteration is loaded back
from memory in the next instead of staying in a register.

In the body of `scf.for %i = 0 to %m step s`, or of an `scf.parallel` from 0 to `%m`
(each dimension), with constant steps `s > 0`, an iteration runs only when `m > 0`.
The pass uses that fact where the body reads `m != 0`, `0 != m`, `0 < m`, `m > 0`
(through `arith.index_cast`s of `m`): those conditions are true there, and a `select`
on one is its first operand there. It also uses it in the pure ops before the loop
(arithmetic, `memref.dim`: no effect) whose results only the body uses, directly or
through other such ops: the select itself, or the trip count of an inner loop computed
from it (Note [Facts before the loop]). Other uses outside the body are left alone.

Runs after `forward-iota`, before `dealloc` and `chunk-parallel` (which makes the
parallel loops' bounds per-chunk values, `c*n/C` to `(c+1)*n/C`, that say nothing of `n`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass

from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.memory.memory_plan import SPECULATABLE, fold_alloc_dims
from l0.passes.analysis.walk import walk_ops

# Note [Facts before the loop]
# A value computed before a loop and used only in its body matters only when the body
# runs, so where the loop's running implies `m > 0` it may be computed as if `m > 0`
# held: its operand `select(m != 0, n, 0)` becomes `n`. This is sound only for ops
# without effects (their running before a loop that runs no iteration changes nothing
# but the value nobody reads), and only when every use of every result is such an op or
# is in the body. The bounds and size checks before the loop (`soac.assert`, moved there
# by the `bounds` pass) have effects: they keep the select.


@dataclass(frozen=True)
class SizeFactsPass(ModulePass):
    """In the body of a loop from 0 to `m`, `m != 0` (and `0 < m`) is true.

    For `scf.for` and `scf.parallel` loops from 0 with positive constant steps; also in
    the pure ops before the loop that only its body uses. Runs before `dealloc` (module
    docstring of `l0.lowering.memory.size_facts`).
    """

    name = "size-facts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if isinstance(f, func.FuncOp) and f.body.blocks:
                fold_alloc_dims(f)
                for loop in [o for o in walk_ops(f) if isinstance(o, scf.ForOp | scf.ParallelOp)]:
                    for bound in _positive_bounds(loop):
                        use_trip_fact(loop, bound)


def _positive_bounds(loop: scf.ForOp | scf.ParallelOp) -> list[SSAValue]:
    """The upper bounds that are positive when `loop` runs an iteration: those of the
    dimensions from 0 with a positive constant step."""
    if isinstance(loop, scf.ForOp):
        dims = [(loop.lb, loop.ub, loop.step)]
    else:
        dims = list(zip(loop.lowerBound, loop.upperBound, loop.step, strict=True))
    return [_uncast(ub) for lb, ub, step in dims
            if _constant(lb) == 0 and (_constant(step) or 0) > 0]


def use_trip_fact(loop: scf.ForOp | scf.ParallelOp, bound: SSAValue) -> None:
    """Replace, in `loop`'s body and in the pure ops before it that only the body uses,
    what `bound > 0` implies (module docstring)."""
    outer = loop.parent_block()
    assert outer is not None
    trues: dict[Block, SSAValue] = {}
    for block, ops in ((loop.body.block, list(walk_ops(loop.body.block))),
                       (outer, _only_for(loop))):
        for op in ops:
            for k, v in enumerate(op.operands):
                replacement = _under_fact(v, bound)
                if replacement == "true":
                    if block not in trues:  # at the block's start: it dominates `op`
                        trues[block] = CodeBuilder.at_start(block).bool(True)
                    op.operands[k] = trues[block]
                elif isinstance(replacement, SSAValue):
                    op.operands[k] = replacement


def _only_for(loop: Operation) -> list[Operation]:
    """The pure ops before `loop` in its block whose results only the body of `loop`
    and other such ops use (Note [Facts before the loop])."""
    block = loop.parent_block()
    assert block is not None
    chosen: set[Operation] = set()
    op = loop.prev_op
    while op is not None:
        if (isinstance(op, SPECULATABLE) and not op.regions and op.results
                and all(use.operation in chosen or _inside(use.operation, loop)
                        for r in op.results for use in r.uses)
                and any(True for r in op.results for _ in r.uses)):
            chosen.add(op)
        op = op.prev_op
    return [o for o in block.ops if o in chosen]


def _inside(op: Operation, loop: Operation) -> bool:
    return op is not loop and loop.is_ancestor(op)


def _under_fact(v: SSAValue, bound: SSAValue) -> SSAValue | str | None:
    """What `v` is where `bound > 0`: "true" for a condition that says so, the first
    operand of a select on such a condition; None if nothing is known."""
    if not isinstance(v, OpResult):
        return None
    op = v.op
    if isinstance(op, arith.CmpiOp) and _says_positive(op, bound):
        return "true"
    if (isinstance(op, arith.SelectOp) and isinstance(op.cond, OpResult)
            and isinstance(op.cond.op, arith.CmpiOp) and _says_positive(op.cond.op, bound)):
        return op.lhs
    return None


# arith.cmpi predicates: 0 eq, 1 ne, 2 slt, 3 sle, 4 sgt, 5 sge.
_NE, _SLT, _SGT = 1, 2, 4


def _says_positive(op: arith.CmpiOp, bound: SSAValue) -> bool:
    """Whether `op` is `bound != 0`, `0 != bound`, `0 < bound` or `bound > 0`."""
    pred = op.predicate.value.data
    lhs, rhs = _uncast(op.lhs), _uncast(op.rhs)
    if pred == _NE:
        return (lhs is bound and _constant(rhs) == 0) or (rhs is bound and _constant(lhs) == 0)
    if pred == _SLT:
        return rhs is bound and _constant(lhs) == 0
    if pred == _SGT:
        return lhs is bound and _constant(rhs) == 0
    return False


def _uncast(v: SSAValue) -> SSAValue:
    while isinstance(v, OpResult) and isinstance(v.op, arith.IndexCastOp):
        v = v.op.input
    return v


def _constant(v: SSAValue) -> int | None:
    v = _uncast(v)
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp):
        value = v.op.value
        if isinstance(value, IntegerAttr):
            return value.value.data
    return None

