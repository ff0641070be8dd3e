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

Both preserve semantics exactly; the dead carried values stay (LLVM removes them).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter


def forward_invariant_carries(root: Operation) -> bool:
    """Replace carried values yielded unchanged by their initial values; whether any was."""
    changed = False
    for loop in [op for op in root.walk() if isinstance(op, scf.ForOp)]:
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
    """Inline the taken branch of every `scf.if` on a constant; whether any was."""
    changed = False
    for op in [op for op in root.walk() if isinstance(op, scf.IfOp)]:
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


def _constant_bool(v: SSAValue) -> bool | None:
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp):
        value = v.op.value
        if isinstance(value, IntegerAttr):
            return bool(value.value.data)
    return None

