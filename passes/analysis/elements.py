"""What is the same for every element of a map, and which ops of its lambda may fail.

A rewrite that runs a map's lambda in pieces, one piece for all elements before the
next (the `interchange` of a loop with a map, the `distribute` of a map into several),
keeps the meaning when each piece's failures are reported in the order the original
reports them: the smallest failing element first. A check whose values are the same
for every element fails, if at all, for element 0, wherever it stands; a check of
values that differ between elements may fail for some elements only. These are the
questions both passes ask.
"""

from __future__ import annotations

from xdsl.dialects import func, scf
from xdsl.ir import Operation, OpResult, SSAValue

from l0.dialects import soac
from l0.passes.analysis.effects import local_effects
from l0.passes.analysis.scope import defined_outside, free_values
from l0.passes.analysis.shapes import Dim, Item, Norm, Val, row_shape
from l0.passes.analysis.speculation import Speculation
from l0.passes.analysis.walk import walk_ops


def same_everywhere(v: SSAValue, op: soac.MapOp) -> bool:
    """Whether `v` is the same for every element of the map `op`: defined outside it, or
    computed in its lambda by ops without regions from such values alone."""
    if defined_outside(v, op):
        return True
    if not isinstance(v, OpResult) or v.op.regions or v.op.parent_op() is not op:
        return False
    return all(same_everywhere(x, op) for x in v.op.operands)


def shape_before_map(items: list[Item] | tuple[Item, ...], op: soac.MapOp) -> bool:
    """Whether a row shape (`l0.passes.analysis.shapes`) is the same for every element
    of the map `op`."""
    for item in items:
        if isinstance(item, Dim) and not same_everywhere(item.array, op):
            return False
        if isinstance(item, Val) and not same_everywhere(item.value, op):
            return False
        if isinstance(item, Norm) and not shape_before_map(item.shape, op):
            return False
    return True


def regular(v: SSAValue, op: soac.MapOp) -> bool:
    """Whether the array `v` of `op`'s lambda has the same shape for every element (so
    a map of its values is a regular array)."""
    shape = row_shape(v, op)
    return shape is not None and shape_before_map(shape, op)


def fails_where_it_stands(op: Operation, speculation: Speculation) -> bool:
    """Whether `op` itself may fail or print where it is: a check, a trace, a call of a
    function that may fail or print, or a scalar op that fails by itself. An op a
    certificate guards (indexing, an update, `iota`, a zip) does not: its check is a
    `soac.assert` of its own."""
    if isinstance(op, func.CallOp):
        return speculation.why_may_fail_locally(op) is not None or speculation.prints(op)
    return local_effects(op, speculation.failing)


SOACS = (soac.MapOp, soac.ReduceOp, soac.ScanOp, soac.FilterOp, soac.RedomapOp,
         soac.ScanomapOp)
"""The second-order array combinators: the parallel work a lambda may hold."""

_LAMBDAS = (soac.MapOp, soac.FilterOp)
"""SOACs whose lambda arguments are exactly rows of their inputs, in order."""


class ElementDependence:
    """Which values of the map `op`'s lambda (at any depth) may differ between its
    elements, and so which ops run, or fail, for some elements and not others.

    A value varies when it is computed from the element (the lambda's arguments) or
    from a value that varies; a loop or branch that uses a varying value makes its
    results and its blocks' arguments vary, except that a map's (or filter's) argument
    varies only with its own input. An op runs the same way for every element when no
    region around it, inside the map, depends on a varying value for whether or how
    often it runs (a branch's condition, a loop's bounds, a SOAC's input sizes)."""

    def __init__(self, op: soac.MapOp) -> None:
        self.op = op
        self.varying: set[SSAValue] = set(op.body.block.args)
        for inner in walk_ops(op):
            if inner is op:
                continue
            if not inner.regions:
                if any(v in self.varying for v in inner.operands):
                    self.varying.update(inner.results)
                continue
            free = free_values(inner)
            if not any(v in self.varying for v in free):
                continue
            self.varying.update(inner.results)
            if isinstance(inner, _LAMBDAS):
                args = inner.body.block.args
                for arg, array in zip(args, inner.inputs, strict=False):
                    if array in self.varying:
                        self.varying.add(arg)
                continue
            for region in inner.regions:
                for block in region.blocks:
                    self.varying.update(block.args)

    def runs_alike(self, inner: Operation) -> bool:
        """Whether `inner` (nested in the map) runs, and as often, for every element."""
        parent = inner.parent_op()
        while parent is not None and parent is not self.op:
            if isinstance(parent, scf.IfOp) and parent.cond in self.varying:
                return False
            if isinstance(parent, scf.ForOp) and any(
                    v in self.varying for v in (parent.lb, parent.ub, parent.step)):
                return False
            if isinstance(parent, scf.WhileOp):
                return False
            if isinstance(parent, SOACS) and not all(
                    regular(array, self.op) for array in parent.inputs[:1]):
                return False
            parent = parent.parent_op()
        return parent is self.op

    def fails_alike(self, inner: Operation) -> bool:
        """Whether `inner`, an op that may fail, fails for every element or for none:
        it runs alike (`runs_alike`) and its values do not vary."""
        used = free_values(inner) if inner.regions else inner.operands
        return self.runs_alike(inner) and not any(v in self.varying for v in used)
