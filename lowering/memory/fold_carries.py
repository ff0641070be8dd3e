"""Folds that show the memory planning passes which buffers die where.

`dealloc` makes every loop carry an ownership flag beside each memref, and a loop that
updates an array in place (tridag's `let u[i] = ...`) carries the array itself, yielding
it unchanged. At run time the flag is the initial constant and the array is the initial
buffer, but the IR says only "some buffer the loop returns, freed if some flag says so":
too weak for `hoist-allocs` to see that the buffer allocated before the loop is freed,
unconditionally, after it.

* `forward_invariant_carries`: a carried value the body yields unchanged (the block
  argument itself) is the loop's initial value, in the body and after the loop.
* `fold_constant_ifs`: an `scf.if` on a constant condition is the branch it takes.
* `fold_agreeing_ifs`: an `scf.if` result that both branches yield alike (one value
  from outside, or equal constants: the ownership flag of a literal built in either
  branch) is that value.

Both preserve semantics exactly; the dead carried values stay (LLVM removes them).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from l0.passes.analysis.walk import walk_ops


def forward_invariant_carries(root: Operation) -> bool:
    """Replace carried values yielded unchanged by their initial values; whether any was."""
    changed = False
    for loop in [op for op in walk_ops(root) if isinstance(op, scf.ForOp)]:
        body = loop.body.block
        term = body.last_op
        assert isinstance(term, scf.YieldOp)
        for arg, init, res, y in zip(body.args[1:], loop.iter_args, loop.results,
                                     term.operands, strict=True):
            if y is arg:
                arg.replace_all_uses_with(init)
                res.replace_all_uses_with(init)
                changed = True
    return changed


def fold_constant_ifs(root: Operation) -> bool:
    """Inline the taken branch of every `scf.if` on a constant, innermost first (Note
    [Folding nested ifs]); whether any was."""
    changed = False
    for op in [op for op in root.walk(region_first=True) if isinstance(op, scf.IfOp)]:
        cond = _constant_bool(op.cond)
        if cond is None:
            continue
        region = op.true_region if cond else op.false_region
        if region.blocks:
            block = region.block
            term = block.last_op
            assert isinstance(term, scf.YieldOp)
            for res, y in zip(op.results, term.operands, strict=True):
                res.replace_all_uses_with(y)
            Rewriter.erase_op(term)
            Rewriter.inline_block(block, InsertPoint.before(op))
        Rewriter.erase_op(op)
        changed = True
    return changed


# Note [Folding nested ifs]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# Folding an `if` erases it with the branch it does not take, and everything nested in
# that branch. Visited outermost first, an `if` nested in the erased branch would come
# next, detached, and inlining its branch "before" it has nowhere to go (`if False then
# (if True then 1 else 2) else x`). Visited innermost first (`walk(region_first=True)`),
# every `if` is folded while it is still in place: one in a branch that is later
# erased goes with that branch, one in a branch that is later taken is inlined into it
# first and then moves with it. The cost is folding a few ifs that are thrown away.


def fold_agreeing_ifs(root: Operation) -> bool:
    """Replace `scf.if` results both branches yield alike by that value; whether any was."""
    changed = False
    for op in [op for op in walk_ops(root) if isinstance(op, scf.IfOp)]:
        if not op.false_region.blocks:
            continue
        then_y = op.true_region.block.last_op
        else_y = op.false_region.block.last_op
        assert isinstance(then_y, scf.YieldOp) and isinstance(else_y, scf.YieldOp)
        for res, a, b in zip(op.results, then_y.operands, else_y.operands, strict=True):
            if not res.uses:
                continue
            same = _outside(a, op) if a is b else _equal_constants(a, b, op)
            if same is not None:
                res.replace_all_uses_with(same)
                changed = True
    return changed


def _outside(v: SSAValue, op: Operation) -> SSAValue | None:
    """`v` if it is defined outside `op` (so usable in its place)."""
    owner = v.op if isinstance(v, OpResult) else v.owner.parent_op()
    while owner is not None:
        if owner is op:
            return None
        owner = owner.parent_op()
    return v


def _equal_constants(a: SSAValue, b: SSAValue, op: scf.IfOp) -> SSAValue | None:
    """A copy, placed before `op`, of the constant both `a` and `b` are, if they are."""
    if not (isinstance(a, OpResult) and isinstance(b, OpResult)):
        return None
    ca, cb = a.op, b.op
    if not (isinstance(ca, arith.ConstantOp) and isinstance(cb, arith.ConstantOp)):
        return None
    if ca.value != cb.value or a.type != b.type:
        return None
    const = arith.ConstantOp(ca.value)
    Rewriter.insert_op(const, InsertPoint.before(op))
    return const.result


def _constant_bool(v: SSAValue) -> bool | None:
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp):
        value = v.op.value
        if isinstance(value, IntegerAttr):
            return bool(value.value.data)
    return None

