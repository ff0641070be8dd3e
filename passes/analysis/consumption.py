"""Which arrays may be consumed, and where: the uniqueness facts every pass relies on.

A pass that makes an op use an array it did not use before (`simplify` folding
`size(0, map(f, a))` to `size(0, a)`, `size-hindrance`, `inline-map-index`, `fuse`), or
that moves, merges or erases an op producing an array (`hoist`, `cse`, `rebind`), must
not make a use see memory that a consumption has changed (thesis 6.1.1;
`verify-uniqueness` checks the result). This module answers, conservatively:

* `consumes(op)`: whether `op` or an op nested in it is a consumption point (the
  source of a `soac.update`, an array passed to a unique parameter);
* `may_be_consumed(v)`: whether `v`, or any value that may share memory with it, is
  consumed anywhere in the function (Note [Using an array again]);
* `why_result_consumed(op)`: why an array `op` makes must stay fresh on every run;
* `Consumption.consumed_between(values, after, before)`: a consuming op that may run
  between two points, taking the textual order of the function for the order of
  execution (so an op in the other branch of an `if` counts too). Consuming ops are
  over-approximated there (`consumed_operands`): the source of `soac.update`, every
  array passed to a call or to a loop, and every array operand of a SOAC whose lambda
  contains an update, a call or a loop.

All of them follow aliases with one step, `alias_sources` (Note [Unknown ops alias]).

Note [Using an array again]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
Several rules replace a use of an array by a use of another, earlier one: `size(0, b)`
for `b = map(f, a)` becomes `size(0, a)`, `copy(a)[i]` becomes `a[i]`. That is only
sound if `a` still holds its value where the new use is, i.e. nothing consumed it in
between (an in-place update would have changed it), and `verify-uniqueness` must keep
accepting the program. `may_be_consumed(a)` answers conservatively for the whole
function: it follows every value that may share memory with `a` (rows, views, loop
merge values, lambda parameters bound to its rows, results of non-unique calls, ...)
and reports whether any of them reaches a consumption point (the source of a
`soac.update`, an argument to a unique parameter). A rule that would make a fresh
array share memory with an old one checks the new sharer too.

Note [Unknown ops alias]
~~~~~~~~~~~~~~~~~~~~~~~~
`alias_sources(v)` lists the values whose memory `v` may share, one step back. Ops
known to build a new array (`map`, `copy`, `iota`, a literal, ...) give none; views
(`index`, `transpose`, `reshape`, `split`), `update` (in place), `replicate`, `trace`,
branches and loops give the operands their result is made of. Any other op, one this
module does not know (a new dialect's op, `reduce` with an array accumulator, a
`while`), may return any of its operands or anything its regions yield: answering
"fresh" there would let a pass read an array after it was updated in place.

Note [Consumption queries in linear time]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The positional queries number every op of the module; a pass that rewrites after each
query (`fuse` fusing a chain of a thousand maps) would renumber a thousand times. Most
arrays are never consumed, and `may_be_consumed` answers that per value, from its uses
alone, and stays true across rewrites that only move consumptions (the class
docstring): `consumed_between` asks it first, and numbers the ops only for an array
that some op may consume.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, TensorType
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from l0.dialects import soac
from l0.passes.analysis.walk import walk_ops

SOACS = (soac.MapOp, soac.ReduceOp, soac.ScanOp, soac.FilterOp, soac.RedomapOp,
         soac.ScanomapOp)
"""The second-order array combinators: ops whose lambda runs once per row."""

FOLDS = (soac.ReduceOp, soac.ScanOp, soac.RedomapOp, soac.ScanomapOp)
"""The SOACs with accumulators: their lambda's first parameters carry a value on."""

LOOPS = (scf.ForOp, scf.WhileOp)

FRESH = (
    soac.CopyOp, soac.MapOp, soac.ScanOp, soac.ScanomapOp, soac.FilterOp, soac.ArrayOp,
    soac.ConcatOp, soac.IotaOp, soac.EmptyOp, soac.SizeOp,
)
"""Ops whose results never share memory with their operands."""

_SEARCH_LIMIT = 4000


def is_array(v: SSAValue) -> bool:
    return isinstance(v.type, TensorType)


# ---------------------------------------------------------------------------------------
# Consumption points
# ---------------------------------------------------------------------------------------


def _callee(call: func.CallOp) -> func.FuncOp | None:
    """The function `call` calls, looked up in the enclosing module (cheaper than
    `SymbolTable.lookup_symbol`, which rebuilds the table on every lookup)."""
    module = call.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    if module is None:
        return None
    name = call.callee.string_value()
    for f in module.ops:
        if isinstance(f, func.FuncOp) and f.sym_name.data == name:
            return f
    return None


def is_unique_param(call: func.CallOp, index: int) -> bool:
    """Whether argument `index` of `call` goes to a unique (consumed) parameter; an
    unknown callee is assumed to consume everything."""
    callee = _callee(call)
    if callee is None:
        return True
    attrs = callee.arg_attrs.data if callee.arg_attrs is not None else ()
    if index >= len(attrs):
        return False
    a = attrs[index]
    return isinstance(a, DictionaryAttr) and soac.UNIQUE_ATTR in a.data


def consumes_operand(op: Operation, index: int) -> bool:
    """Whether `op` itself consumes its operand number `index`."""
    if isinstance(op, soac.UpdateOp):
        return index == 0
    if isinstance(op, func.CallOp):
        return is_array(op.operands[index]) and is_unique_param(op, index)
    return False


def consumes(op: Operation) -> bool:
    """Whether `op` or an op nested in it is a consumption point."""
    return any(consumes_operand(inner, i)
               for inner in walk_ops(op) for i in range(len(inner.operands)))


def consumed_operands(op: Operation) -> list[SSAValue]:
    """The arrays `op` may consume, over-approximated (see the module docstring)."""
    # Exact classes, not `match` on class patterns: op classes are ABCs, slow to test
    # with `isinstance` (never subclassed), and this is asked of every op.
    kind = type(op)
    if kind is soac.UpdateOp:
        return [op.array]  # type: ignore[attr-defined]  # kind is UpdateOp (tested by class)
    if kind in _LOOPS_AND_CALLS:
        return [x for x in op.operands if is_array(x)]
    if kind in _SOAC_CLASSES:
        for r in op.regions:
            for top in r.block.ops:
                for o in walk_ops(top):
                    if type(o) in _CONSUMING_INSIDE:
                        return [x for x in op.operands if is_array(x)]
    return []


_LOOPS_AND_CALLS = frozenset({func.CallOp, scf.ForOp, scf.WhileOp})
_SOAC_CLASSES = frozenset(SOACS)
_CONSUMING_INSIDE = frozenset({soac.UpdateOp, *_LOOPS_AND_CALLS})
"""Ops inside a SOAC's lambda that make it consume its input arrays."""


# ---------------------------------------------------------------------------------------
# Aliases (Note [Unknown ops alias])
# ---------------------------------------------------------------------------------------


def lambda_args_for(op: Operation, index: int) -> list[BlockArgument]:
    """The lambda parameters of the SOAC `op` bound to its operand number `index`."""
    accs = len(op.neutral) if isinstance(op, FOLDS) else 0
    n_inputs = len(op.inputs) if isinstance(op, SOACS) else 0
    if index >= accs + n_inputs:
        return []  # a certificate
    if isinstance(op, soac.RedomapOp | soac.ScanomapOp):
        if index < accs:
            return [op.inner.block.args[index], op.outer.block.args[index],
                    op.outer.block.args[index + accs]]
        return [op.inner.block.args[index]]
    return [op.regions[0].block.args[index]]


def _yielded(op: Operation, index: int | None = None) -> Iterator[SSAValue]:
    """What the regions of `op` yield (only value `index` of each, if given)."""
    for region in op.regions:
        y = region.block.last_op if region.blocks else None
        if y is None:
            continue
        if index is None:
            yield from y.operands
        elif index < len(y.operands):
            yield y.operands[index]


def _argument_sources(v: BlockArgument) -> list[SSAValue]:
    owner = v.block.parent_op()
    if owner is None or isinstance(owner, func.FuncOp):
        return []  # a parameter
    if isinstance(owner, scf.ForOp):
        if v.index == 0:
            return []  # the induction variable
        y = v.block.last_op
        return [owner.iter_args[v.index - 1]] + ([y.operands[v.index - 1]] if y else [])
    if isinstance(owner, SOACS):
        bound = [o for i, o in enumerate(owner.operands) if v in lambda_args_for(owner, i)]
        if isinstance(owner, FOLDS) and v.index < len(owner.neutral):
            y = v.block.last_op  # an accumulator: also the previous iteration's value
            bound += list(y.operands) if y else []
        return bound
    return [*owner.operands, *_yielded(owner)]


def alias_sources(v: SSAValue) -> list[SSAValue]:
    """The values whose memory `v` may share, one step back ([] for a fresh array or a
    parameter); an unknown op may return any operand (Note [Unknown ops alias])."""
    if isinstance(v, BlockArgument):
        return _argument_sources(v)
    assert isinstance(v, OpResult)
    op = v.op
    if isinstance(op, FRESH):
        return []
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
            return list(_yielded(op, v.index))
        case scf.ForOp():
            return [op.iter_args[v.index], *_yielded(op, v.index)]
        case func.CallOp():
            return list(op.arguments)
        case _:
            return [*op.operands, *_yielded(op)]


def alias_closure(v: SSAValue) -> frozenset[SSAValue]:
    """`v` and every array it may alias, back to fresh arrays and parameters."""
    found = _closure([v], alias_sources, limit=None)
    assert found is not None
    return frozenset(found)


def _sharers(use_op: Operation, index: int) -> list[SSAValue] | None:
    """The values that may share memory with operand `index` of `use_op` after it, or
    None if the use consumes it."""
    if consumes_operand(use_op, index):
        return None
    if isinstance(use_op, soac.UpdateOp):
        return []  # an index or the value written, copied in
    if isinstance(use_op, scf.ForOp):
        k = index - 3
        if k < 0:
            return []
        return [use_op.body.block.args[k + 1], use_op.results[k]]
    if isinstance(use_op, scf.YieldOp):
        parent = use_op.parent_op()
        if isinstance(parent, scf.ForOp):
            return [parent.results[index], parent.body.block.args[index + 1]]
        return [parent.results[index]] if parent is not None else []
    if isinstance(use_op, soac.YieldOp):
        parent = use_op.parent_op()
        if isinstance(parent, soac.ReduceOp | soac.RedomapOp):
            return list(parent.results)
        return []
    if isinstance(use_op, SOACS):
        return list(lambda_args_for(use_op, index))
    if isinstance(use_op, (*FRESH, func.ReturnOp)):
        return []
    return list(use_op.results)


def _closure(start: list[SSAValue], step: Callable[[SSAValue], list[SSAValue] | None],
             limit: int | None = _SEARCH_LIMIT) -> set[SSAValue] | None:
    """The arrays reachable from `start` by `step` (a step giving None adds nothing);
    None when the search grows past `limit` (the caller then assumes the worst)."""
    seen = {v for v in start if is_array(v)}
    work = list(seen)
    while work:
        if limit is not None and len(seen) > limit:
            return None
        for s in step(work.pop()) or ():
            if is_array(s) and s not in seen:
                seen.add(s)
                work.append(s)
    return seen


# ---------------------------------------------------------------------------------------
# Consumed anywhere (Note [Using an array again])
# ---------------------------------------------------------------------------------------


def may_be_consumed(v: SSAValue) -> bool:
    """Whether `v`, or a value that may share memory with it, may be consumed anywhere
    in its function. Conservative: True when unsure."""
    if not is_array(v):
        return False
    back = _closure([v], alias_sources)
    if back is None:
        return True
    consumed = False

    def forward(x: SSAValue) -> list[SSAValue] | None:
        nonlocal consumed
        out: list[SSAValue] = []
        for use in x.uses:
            sharers = _sharers(use.operation, use.index)
            if sharers is None:
                consumed = True
                return None
            out.extend(sharers)
        return out

    return _closure(list(back), forward) is None or consumed


def carried_param(use_op: Operation, index: int) -> BlockArgument | None:
    """The parameter that operand `index` of the terminator `use_op` is carried into on
    the next iteration (a loop merge value, a fold accumulator), if any."""
    parent = use_op.parent_op()
    if isinstance(use_op, scf.YieldOp) and isinstance(parent, scf.ForOp):
        return parent.body.block.args[index + 1]
    if isinstance(use_op, soac.YieldOp) and isinstance(parent, FOLDS):
        region = use_op.parent_region()
        assert region is not None
        return region.block.args[index]
    return None


def why_result_consumed(op: Operation,
                        consumed: Callable[[SSAValue], bool] = may_be_consumed) -> str | None:
    """Why an array result of `op` must stay fresh on every run of its region
    (thesis 6.1.1), or None."""
    for r in op.results:
        if not is_array(r):
            continue
        if consumed(r):
            return "its result may be consumed"
        for use in r.uses:
            param = carried_param(use.operation, use.index)
            if param is not None and consumed(param):
                return "its result is carried into a parameter that the body consumes"
    return None


# ---------------------------------------------------------------------------------------
# The analysis object
# ---------------------------------------------------------------------------------------


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
    """The consumption facts of the functions under `root`, memoised.

    `may_be_consumed` is memoised per value: sound while the passes using it never make
    an array consumed that was not (they only remove consumptions or move them between
    values already sharing memory) and check both sides before making a value share
    memory with another. The positional queries number the ops in textual order and
    list the consuming ops when first asked; a pass that inserts ops gives them the
    position of the op they replace (`place`), and an op with no position makes
    `position` renumber. New ops must not consume anything."""

    root: Operation
    positions: dict[Operation, int] = field(default_factory=dict[Operation, int])
    closures: dict[SSAValue, frozenset[SSAValue]] = field(
        default_factory=dict[SSAValue, frozenset[SSAValue]])
    consumed: dict[SSAValue, bool] = field(default_factory=dict[SSAValue, bool])

    # -- anywhere -----------------------------------------------------------------------

    def may_be_consumed(self, v: SSAValue) -> bool:
        known = self.consumed.get(v)
        if known is None:
            known = self.consumed[v] = may_be_consumed(v)
        return known

    # -- between two points -------------------------------------------------------------

    @cached_property
    def consumers(self) -> list[tuple[Operation, list[frozenset[SSAValue]]]]:
        """The consuming ops, in textual order, with the alias closures they consume."""
        if not self.positions:
            self._number()
        found: list[tuple[Operation, list[frozenset[SSAValue]]]] = []
        for op in self.positions:
            consumed = consumed_operands(op)
            if consumed:
                found.append((op, [self.closure(v) for v in consumed]))
        return found

    def _number(self) -> None:
        self.positions = {op: i for i, op in enumerate(walk_ops(self.root))}

    def position(self, op: Operation) -> int:
        if op not in self.positions:
            self._number()
        return self.positions[op]

    def place(self, new_ops: list[Operation], replaced: Operation) -> None:
        """Give `new_ops`, inserted just before `replaced`, the position of `replaced`."""
        pos = self.position(replaced)
        for new in new_ops:
            for op in walk_ops(new):
                self.positions[op] = pos

    def forget_order(self) -> None:
        """Forget the positions, the consuming ops and the alias closures, after a rewrite
        that moved, merged or replaced ops (`fuse`); `may_be_consumed` stays known (see
        the class docstring). Each is recomputed when next asked."""
        self.positions = {}
        self.__dict__.pop("consumers", None)
        self.closures.clear()

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
        `before` is in (they consume after the uses in their body). None if none.

        Values that are never consumed anywhere need no positions: asking about them
        costs no walk of the function (Note [Consumption queries in linear time])."""
        if not any(self.may_be_consumed(v) for v in values):
            return None
        aliases: set[SSAValue] = set()
        for v in values:
            aliases |= self.closure(v)
        if not aliases:
            return None
        consumers = self.consumers
        start = -1 if after is None else self.position(after)
        end = self.position(before)
        for op, consumed in consumers:
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
