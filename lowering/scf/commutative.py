"""Which reduction operators commute: a fold may then take its elements in any order.

The reductions of the GPU back ends (the segmented ones, `segment-reductions{interleave=true}`,
and the plain ones, `convert-soac-to-scf{interleave=true}`: Note [Interleaved chunks] in
`l0.lowering.scf.segment_reductions`) let thread t fold elements t, t + C, t + 2C, ...
instead of a contiguous chunk, which changes
which elements each partial result holds, not only how the partials are grouped: it
needs an operator that is associative (as every chunked reduction does, thesis 2.3)
and commutative. `commutative_operator` recognises the operators that are, from the
operator's lambda (per accumulator, one op on the accumulator's two parameters; a
tuple operator, such as horizontally fused sibling folds, when every component is):

* on integers (`i64`, and `i1` for `&&` and `||`): `+`, `*`, `&`, `|`, `^`, min and max
  (`minsi` and its kin, or `if a < b then a else b` and the other orders and
  comparisons, as an `scf.if` or an `arith.select`): exact, so the result is the
  sequential fold's whatever the order;
* on reals: `+` and `*`. IEEE addition and multiplication commute exactly, but do not
  associate: like the contiguous chunks before them, interleaved chunks reassociate
  the sum, so a result may differ from the left fold in its last bits. The order is
  still fixed by the row's length and the chunk count (no atomics, nothing depends on
  timing), so a run gives the same bits every time.

Not recognised, so folded in contiguous chunks: subtraction and division, a real min
or max written with a comparison (`if a < b then a else b` is not commutative on NaN:
`a < NaN` and `NaN < a` are both false, so it returns its second argument for one
order and its first for the other), components that read each other (a tuple operator
such as an affine map's composition), and anything else.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType
from xdsl.ir import Operation, Region, SSAValue

from l0.dialects import msoac
from l0.lowering.scf.segment_forms import may_fail

_INTEGER_OPS = (arith.AddiOp, arith.MuliOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp,
                arith.MinSIOp, arith.MaxSIOp, arith.MinUIOp, arith.MaxUIOp)
_REAL_OPS = (arith.AddfOp, arith.MulfOp)
_ORDERINGS = ("slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def commutative_operator(operator: Region) -> bool:
    """Whether the lambda `operator` (parameters a1..ak, b1..bk; k results) is, in each
    component i, one of the commutative and associative operators of the module
    docstring applied to ai and bi (horizontally fused sibling folds are such tuples);
    its body nothing else."""
    if not operator.blocks:
        return False
    block = operator.block
    term = block.last_op
    k = len(block.args) // 2
    if term is None or k == 0 or len(block.args) != 2 * k or len(term.operands) != k:
        return False
    used: list[Operation] = []
    for i, result in enumerate(term.operands):
        a, b = block.args[i], block.args[k + i]
        ops = _component(result, a, b) if a.type == b.type else None
        if ops is None:
            return False
        used.extend(ops)
    body = list(block.ops)[:-1]
    return len(body) == len(used) and all(any(o is u for u in used) for o in body)


def interleavable(fold: Operation) -> bool:
    """Whether the chunks of `fold` may be interleaved (Note [Interleaved chunks]): a
    reduction whose operator commutes (`commutative_operator`) and whose lambda cannot
    fail (a failure must stay in the lowest thread that meets a failing element)."""
    if not isinstance(fold, msoac.ReduceOp):
        return False
    operator = fold.operator()
    return operator is not None and commutative_operator(operator) and not may_fail(fold.body)


def _component(result: SSAValue, a: SSAValue, b: SSAValue) -> list[Operation] | None:
    """The ops computing `result` from a and b by a commutative operator, or None."""
    op = result.owner
    if not isinstance(op, Operation):
        return None
    if isinstance(a.type, Float32Type | Float64Type):
        ok = isinstance(op, _REAL_OPS) and _on_both(list(op.operands), a, b)
        return [op] if ok else None
    if not isinstance(a.type, IntegerType):
        return None
    if isinstance(op, _INTEGER_OPS):
        return [op] if _on_both(list(op.operands), a, b) else None
    # min or max: a comparison of a and b choosing one of them.
    if isinstance(op, arith.SelectOp):
        chosen = [op.lhs, op.rhs]
    elif isinstance(op, scf.IfOp) and len(op.results) == 1 and op.false_region.blocks:
        arms = [op.true_region.block, op.false_region.block]
        if any(len(list(arm.ops)) != 1 for arm in arms):
            return None
        chosen = [arm.last_op.operands[0] for arm in arms if arm.last_op is not None]
    else:
        return None
    cond = op.operands[0].owner
    if not isinstance(cond, arith.CmpiOp):
        return None
    ok = (arith.CMPI_COMPARISON_OPERATIONS[cond.predicate.value.data] in _ORDERINGS
          and _on_both([cond.lhs, cond.rhs], a, b) and _on_both(chosen, a, b))
    return [cond, op] if ok else None


def _on_both(operands: Sequence[SSAValue], a: SSAValue, b: SSAValue) -> bool:
    """Whether `operands` are a and b, in either order."""
    values = list(operands)
    return len(values) == 2 and ((values[0] is a and values[1] is b)
                                 or (values[0] is b and values[1] is a))
