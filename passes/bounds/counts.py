"""Values that count iterations where a check runs (for `bounds`).

An `int` parameter is an opaque value to the range analysis: it may be negative, and
near 2^63 a form such as `numX - 1` wraps (Note [Overflow] in `ranges`). But where a
SOAC over `iota(v)` runs, or has run to its end, `v` counted its iterations: the iota
checked that it is not negative, and no feasible run reaches 2^50 iterations. Such a
value is as good as a size there (Note [Iterated sizes] in `pattern`, Note [Counted
values] in `ranges`).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.ir import BlockArgument, Operation, SSAValue

from l0.dialects import soac
from l0.passes.analysis.constants import constant_int


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


def _or_leaves(cond: SSAValue) -> list[SSAValue]:
    """The disjuncts of `cond` (through `arith.ori`)."""
    op = cond.owner
    if isinstance(op, arith.OrIOp):
        return _or_leaves(op.lhs) + _or_leaves(op.rhs)
    return [cond]


def _zero_test(v: SSAValue) -> SSAValue | None:
    """`m` for a condition `m == 0` or `0 == m`."""
    op = v.owner
    if not isinstance(op, arith.CmpiOp) or op.predicate.value.data != 0:
        return None
    if constant_int(op.rhs) == 0:
        return op.lhs
    return op.rhs if constant_int(op.lhs) == 0 else None


def _checked_whenever_built(iota: soac.IotaOp, running: Callable[[SSAValue], bool]) -> bool:
    """Whether `iota(n)` exists, where `running` tells the counts known not to be 0,
    only with `n >= 0`: its size check, if any is left, is its own plain one, or one
    weakened when it left a loop or lambda (`0 <= n || m == 0`, after which the iota is
    built, and a SOAC runs over it, whatever `n` when m is 0) whose count m is not 0."""
    work = list(iota.certs)
    while work:
        cert = work.pop()
        owner = cert.owner
        if isinstance(owner, soac.ConjoinOp):
            work.extend(owner.certs)
        elif isinstance(owner, soac.AssertOp):
            others = _or_leaves(owner.cond)[1:]
            if not all((m := _zero_test(leaf)) is not None and running(m) for leaf in others):
                return False
        elif not isinstance(owner, soac.CheckedOp):
            return False
    return True


def iterated_before(v: SSAValue, op: Operation,
                    running: Callable[[SSAValue], bool] = lambda _: False) -> bool:
    """Whether a SOAC over `iota(v)` runs to its end before `op` (in a block enclosing
    `op`, before it: it ran whenever `op` runs; one in a branch, or after, says nothing),
    the iota checked (`_checked_whenever_built`, `running` as there)."""
    for use in v.uses:
        iota = use.operation
        if not isinstance(iota, soac.IotaOp) or iota.n is not v \
                or not _checked_whenever_built(iota, running):
            continue
        for row_use in iota.result.uses:
            soac_op = row_use.operation
            over_iota = any(source is iota.result for _, source in soac.row_arguments(soac_op))
            if over_iota and soac_op.results and available_before(soac_op.results[0], op):
                return True
    return False
