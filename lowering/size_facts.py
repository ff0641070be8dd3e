"""The `size-facts` pass: inside a loop over `m` rows, `m != 0`.

`soac.size` of an inner dimension is normalised: `size(1, a)` is `select(size(0, a) !=
0, dim1, 0)` (an array with no rows has no columns either). The row sizes a map over
`m` rows computes outside it are then `select(m != 0, n, 0)`, and the bounds checks in
the map's body compare indices with that select, not with `n`: two checks that say the
same (`i < n` for one array, `i < select(m != 0, n, 0)` for its transpose's rows) do not
merge, and LLVM keeps both in LocVolCalib's backward loops.

In the body of `scf.for %i = 0 to %m step s` (a constant `s > 0`), an iteration runs only
when `m > 0`. The pass uses that fact where the body reads `m != 0`, `0 != m`, `0 < m`,
`m > 0` (through `arith.index_cast`s of `m`): those conditions are true there, and a
`select` on one is its first operand there. Uses outside the body are left alone.

Not in the CPU pipeline (`l0.lowering.pipeline`): on LocVolCalib Small it makes the
checks of the backward loops compare with one size, as intended, but the program is
not measurably faster (1861 ms of CPU with it against 1835 ms without, the variants run
alternately in one process: within the loaded machine's noise; docs/lowering.md).
`l0-opt -p ...,size-facts` runs it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import OpResult, SSAValue
from xdsl.passes import ModulePass

from l0.lowering.builder import CodeBuilder
from l0.lowering.memory_plan import fold_alloc_dims


@dataclass(frozen=True)
class SizeFactsPass(ModulePass):
    """In the body of a loop from 0 to `m`, `m != 0` (and `0 < m`) is true."""

    name = "size-facts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if isinstance(f, func.FuncOp) and f.body.blocks:
                fold_alloc_dims(f)
                for loop in [o for o in f.walk() if isinstance(o, scf.ForOp)]:
                    use_trip_fact(loop)


def use_trip_fact(loop: scf.ForOp) -> None:
    """Replace, in `loop`'s body, what its running implies (module docstring)."""
    if _constant(loop.lb) != 0 or (_constant(loop.step) or 0) <= 0:
        return
    bound = _uncast(loop.ub)
    body = loop.body.block
    true: SSAValue | None = None
    for op in list(body.walk()):
        for k, v in enumerate(op.operands):
            replacement = _under_fact(v, bound)
            if replacement is None:
                continue
            if replacement == "true":
                if true is None:
                    true = CodeBuilder.at_start(body).bool(True)
                op.operands[k] = true
            else:
                op.operands[k] = replacement


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

