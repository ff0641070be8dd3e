"""Values that count iterations where a check runs (for `bounds`).

An `int` parameter is an opaque value to the range analysis: it may be negative, and
near 2^63 a form such as `numX - 1` wraps (Note [Overflow] in `ranges`). But where a
SOAC over `iota(v)` runs, or has run to its end, `v` counted its iterations: the iota
checked that it is not negative, and no feasible run reaches 2^50 iterations. Such a
value is as good as a size there (Note [Iterated sizes] in `pattern`, Note [Counted
values] in `ranges`).
"""

from __future__ import annotations

from xdsl.ir import BlockArgument, Operation, SSAValue

from l0.dialects import soac


def available_before(v: SSAValue, op: Operation) -> bool:
    """Whether `v` is visible just before `op`: defined in a block enclosing `op`, before
    it (or as an argument of that block)."""
    home = v.block if isinstance(v, BlockArgument) else v.owner.parent_block()
    node: Operation | None = op
    while node is not None and node.parent_block() is not home:
        node = node.parent_op()
    if node is None:
        return False
    owner = v.owner
    return isinstance(v, BlockArgument) or (
        isinstance(owner, Operation) and owner is not node and owner.is_before_in_block(node))


def iterated_before(v: SSAValue, op: Operation) -> bool:
    """Whether a SOAC over `iota(v)` runs to its end before `op` (in a block enclosing
    `op`, before it: it ran whenever `op` runs; one in a branch, or after, says nothing)."""
    for use in v.uses:
        iota = use.operation
        if not isinstance(iota, soac.IotaOp) or iota.n is not v:
            continue
        for row_use in iota.result.uses:
            soac_op = row_use.operation
            over_iota = any(source is iota.result for _, source in soac.row_arguments(soac_op))
            if over_iota and soac_op.results and available_before(soac_op.results[0], op):
                return True
    return False
