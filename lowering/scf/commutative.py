"""Which reduction operators commute: a fold may then take its elements in any order.

The segmented reduction of the GPU back ends (`segment-reductions{interleave=true}`,
Note [Interleaved chunks] in `l0.lowering.scf.segment_reductions`) lets thread t of a
row fold elements t, t + C, t + 2C, ... instead of a contiguous chunk, which changes
which elements each partial result holds, not only how the partials are grouped: it
needs an operator that is associative (as every chunked reduction does, thesis 2.3)
and commutative. `commutative_operator` recognises the operators that are, from the
operator's lambda (one accumulator, its body one op on its two parameters):

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
order and its first for the other), tuple operators, and anything else.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType
from xdsl.ir import Block, Operation, Region, SSAValue

_INTEGER_OPS = (arith.AddiOp, arith.MuliOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp,
                arith.MinSIOp, arith.MaxSIOp, arith.MinUIOp, arith.MaxUIOp)
_REAL_OPS = (arith.AddfOp, arith.MulfOp)
_ORDERINGS = ("slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def commutative_operator(operator: Region) -> bool:
    """Whether the lambda `operator` (parameters a, b; one result) is one of the
    commutative and associative operators of the module docstring."""
    if not operator.blocks:
        return False
    block = operator.block
    if len(block.args) != 2 or block.args[0].type != block.args[1].type:
        return False
    a, b = block.args
    term = block.last_op
    if term is None or len(term.operands) != 1:
        return False
    result = term.operands[0]
    element = a.type
    if isinstance(element, IntegerType):
        return _integer_op(block, result, a, b)
    if isinstance(element, Float32Type | Float64Type):
        op = result.owner
        return (isinstance(op, _REAL_OPS) and _body_is(block, [op])
                and _on_both(list(op.operands), a, b))
    return False


def _integer_op(block: Block, result: SSAValue, a: SSAValue, b: SSAValue) -> bool:
    op = result.owner
    if isinstance(op, _INTEGER_OPS):
        return _body_is(block, [op]) and _on_both(list(op.operands), a, b)
    # min or max: a comparison of a and b choosing one of them.
    if isinstance(op, arith.SelectOp):
        chosen = [op.lhs, op.rhs]
    elif isinstance(op, scf.IfOp) and len(op.results) == 1 and op.false_region.blocks:
        arms = [op.true_region.block, op.false_region.block]
        if any(len(list(arm.ops)) != 1 for arm in arms):
            return False
        chosen = [arm.last_op.operands[0] for arm in arms if arm.last_op is not None]
    else:
        return False
    cond = op.operands[0].owner
    return (isinstance(cond, arith.CmpiOp) and _body_is(block, [cond, op])
            and arith.CMPI_COMPARISON_OPERATIONS[cond.predicate.value.data] in _ORDERINGS
            and _on_both([cond.lhs, cond.rhs], a, b) and _on_both(chosen, a, b))


def _on_both(operands: Sequence[SSAValue], a: SSAValue, b: SSAValue) -> bool:
    """Whether `operands` are a and b, in either order."""
    values = list(operands)
    return len(values) == 2 and ((values[0] is a and values[1] is b)
                                 or (values[0] is b and values[1] is a))


def _body_is(block: Block, ops: list[Operation]) -> bool:
    """Whether `block` holds exactly `ops` (in order) and its terminator."""
    body = list(block.ops)[:-1]
    return body == ops
