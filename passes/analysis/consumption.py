"""Where arrays may be consumed: a conservative view for passes that add uses of arrays.

A pass that makes an op use an array it did not use before (`size-hindrance` turning
`size(0, b)` into `size(0, a)`, `inline-map-index` reading `a[i]` instead of `b[i]`)
must not put that use after a consumption of the array or of an alias of it (thesis
6.1.1; `verify-uniqueness` checks it). This module over-approximates both sides:
`alias_closure(v)` is every value `v` may share memory with, followed back to fresh
arrays and parameters, and `Consumption.consumed_between` reports a consuming op that
may run between two points, taking the textual order of the function for the order of
execution (so an op in the other branch of an `if` counts too).

Consuming ops (docs/ir.md), over-approximated: the source of `soac.update`, every array
passed to a call or to a loop, and every array operand of a SOAC whose lambda contains
an update, a call or a loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from l0.dialects import soac
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

SOACS = (soac.MapOp, soac.ReduceOp, soac.ScanOp, soac.FilterOp, soac.RedomapOp)
"""The second-order array combinators: ops whose lambda runs once per row."""

LOOPS = (scf.ForOp, scf.WhileOp)


def is_array(v: SSAValue) -> bool:
    return isinstance(v.type, TensorType)


def alias_sources(v: SSAValue) -> list[SSAValue]:
    """Values whose memory `v` may share, one step back (over-approximated)."""
    if isinstance(v, BlockArgument):
        owner = v.block.parent_op()
        if isinstance(owner, scf.ForOp):
            return [owner.iter_args[v.index - 1]] if v.index > 0 else []
        if owner is None or isinstance(owner, func.FuncOp):
            return []
        return [x for x in owner.operands if is_array(x)]  # a lambda's rows and accumulators
    assert isinstance(v, OpResult)
    op = v.op
    match op:
        case soac.IndexOp() | soac.TransposeOp() | soac.ReshapeOp() | soac.SplitOp():
            return [op.array]
        case soac.UpdateOp():
            return [op.array]  # updated in place
        case soac.ReplicateOp():
            return [op.value]
        case soac.TraceOp():
            return [op.inputs[v.index]]
        case scf.IfOp():
            return [r.block.last_op.operands[v.index] for r in op.regions
                    if r.blocks and r.block.last_op is not None]
        case scf.ForOp():
            last = op.body.block.last_op
            yielded = [last.operands[v.index]] if last is not None else []
            return [op.iter_args[v.index], *yielded]
        case func.CallOp() | scf.WhileOp():
            return [x for x in op.operands if is_array(x)]
        case _:
            return []  # a fresh array


def alias_closure(v: SSAValue) -> frozenset[SSAValue]:
    """`v` and every value it may alias, back to fresh arrays and parameters."""
    seen: set[SSAValue] = set()
    stack = [v]
    while stack:
        x = stack.pop()
        if x in seen or not is_array(x):
            continue
        seen.add(x)
        stack.extend(alias_sources(x))
    return frozenset(seen)


def consumed_operands(op: Operation) -> list[SSAValue]:
    """The arrays `op` may consume."""
    match op:
        case soac.UpdateOp():
            return [op.array]
        case func.CallOp() | scf.ForOp() | scf.WhileOp():
            return [x for x in op.operands if is_array(x)]
        case soac.MapOp() | soac.ReduceOp() | soac.ScanOp() | soac.FilterOp() | soac.RedomapOp():
            inner = (o for r in op.regions for top in r.block.ops for o in top.walk())
            if any(isinstance(o, soac.UpdateOp | func.CallOp | scf.ForOp | scf.WhileOp)
                   for o in inner):
                return [x for x in op.operands if is_array(x)]
            return []
        case _:
            return []


def _definition_point(v: SSAValue) -> tuple[Operation | None, bool]:
    """Where `v` comes into existence: (op, whether the op's own regions come after it).
    A result exists after its op and its regions; a block argument at the start of its
    block, inside the op that owns the region; a parameter at the start (None)."""
    if isinstance(v, OpResult):
        return v.op, False
    assert isinstance(v, BlockArgument)
    owner = v.block.parent_op()
    return (None, True) if isinstance(owner, func.FuncOp) else (owner, True)


@dataclass
class Consumption:
    """The consuming ops of a module, in textual order, with memoised alias closures.

    A pass that inserts ops gives them the position of the op they replace (`place`);
    an op with no position makes `position` renumber the module. New ops must not
    consume anything (so that `consumers` stays right)."""

    root: Operation
    positions: dict[Operation, int] = field(default_factory=dict)
    consumers: list[tuple[Operation, list[frozenset[SSAValue]]]] = field(default_factory=list)
    closures: dict[SSAValue, frozenset[SSAValue]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._number()
        for op in self.positions:
            consumed = consumed_operands(op)
            if consumed:
                self.consumers.append((op, [self.closure(v) for v in consumed]))

    def _number(self) -> None:
        self.positions = {op: i for i, op in enumerate(self.root.walk())}

    def position(self, op: Operation) -> int:
        if op not in self.positions:
            self._number()
        return self.positions[op]

    def place(self, new_ops: list[Operation], replaced: Operation) -> None:
        """Give `new_ops`, inserted just before `replaced`, the position of `replaced`."""
        pos = self.position(replaced)
        for new in new_ops:
            for op in new.walk():
                self.positions[op] = pos

    def closure(self, v: SSAValue) -> frozenset[SSAValue]:
        found = self.closures.get(v)
        if found is None:
            found = self.closures[v] = alias_closure(v)
        return found

    def consumed_between(self, values: list[SSAValue], after: Operation | None,
                         before: Operation, *, regions_after: bool = False) -> Operation | None:
        """A consumer of one of `values` (or of an alias) that may run after `after`
        (None: from the start of the function; `after`'s own regions count only with
        `regions_after`) and before `before`, not counting the loops and lambdas
        `before` is in (they consume after the uses in their body). None if none."""
        aliases: set[SSAValue] = set()
        for v in values:
            aliases |= self.closure(v)
        if not aliases:
            return None
        start = -1 if after is None else self.position(after)
        end = self.position(before)
        for op, consumed in self.consumers:
            pos = self.positions[op]
            if not start < pos < end or op.is_ancestor(before):
                continue
            if after is not None and not regions_after and after.is_ancestor(op):
                continue
            if any(c & aliases for c in consumed):
                return op
        return None

    def consumed_before_use(self, values: list[SSAValue], use: Operation) -> Operation | None:
        """A consumer of one of `values` that may run between its definition and `use`."""
        for v in values:
            point, regions_after = _definition_point(v)
            found = self.consumed_between([v], point, use, regions_after=regions_after)
            if found is not None:
                return found
        return None
