"""The `partition-filters` pass: two filters that split one input become one partition.

An LSD radix sort splits its keys by a bit, `filter(bit = 0, ks)` and `filter(bit = 1,
ks)`; each filter reads the input twice (the flags, then the kept rows) and evaluates
its predicate once per row. When two `msoac.filter`s of one block filter the same
inputs by complementary predicates (every row is kept by exactly one of them), they
become one `msoac.partition` (Futhark's `partition`) at the first one's place, the
first filter's predicate and result being the partition's kept class, the second's
result its rejected class: one counting pass and one writing pass
(`convert-soac-to-scf`, Note [Partition] there), the same rows in the same order.

Complementary predicates are recognised on the lambdas' code (Note [Complementary
predicates]). The second filter moves up to the first, so it fires only when that
cannot change what the second reads (Note [Moving the second filter]).

Before:
    %z = msoac.filter ins(%ks : memref<?xi64>) -> memref<?xi64> {
    ^bb0(%k: i64):
      %0 = arith.andi %k, %c1 : i64
      %1 = arith.cmpi eq, %0, %c0 : i64
      msoac.yield %1 : i1
    }
    %o = msoac.filter ins(%ks : memref<?xi64>) -> memref<?xi64> {
    ^bb0(%k: i64):
      %0 = arith.andi %k, %c1 : i64
      %1 = arith.cmpi ne, %0, %c0 : i64
      msoac.yield %1 : i1
    }
After:
    %z, %o = msoac.partition ins(%ks : memref<?xi64>) -> memref<?xi64>, memref<?xi64> {
    ^bb0(%k: i64):
      %0 = arith.andi %k, %c1 : i64
      %1 = arith.cmpi eq, %0, %c0 : i64
      msoac.yield %1 : i1
    }
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i1
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import Commutative, MemoryEffectKind, get_effects

from l0.dialects import msoac, soac
from l0.passes.analysis.walk import walk_ops

# Note [Complementary predicates]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Both lambdas may only read memory (a row's elements), check (`soac.assert`) and
# compute, without regions (no nested SOACs): nothing writes memory in either lambda
# or between the filters (Note [Moving the second filter]), so the same load gives the
# same value in both. The partition runs the first lambda, checks included: it fails
# at the row, with the message, where the first filter would. The second filter runs
# after the first in the program, so its checks can only fail if the first filter's
# all passed: each must require a condition one of the first lambda's checks requires
# (its message and location may differ), and then it never fails. The same holds for
# ops that fail where they stand (a `loc` attribute: a shift by a negative amount): one
# of the second lambda fails only if the same op, on the same operands, of the first
# does, so `loc` is left out of the comparison.
#
# The yielded values q1, q2 are compared as expressions: two values are the same when
# they are the same value from outside the lambdas, the same argument (by position),
# or results of the same op (name, attributes, properties, result index) on the same
# operands (in either order for a commutative op: `andi %k, %c1` and `andi %c1, %k`).
# q2 is the complement of q1 when
#
# * one is `xori x, true` and the other x;
# * both compare the same operands with negated predicates (`eq`/`ne`, `slt`/`sge`,
#   `olt`/`uge`, ...: a float predicate negates to its unordered opposite, NaN
#   included);
# * both compare the same 0-or-1 value (an `andi` with 1, an `extui` of an i1) with
#   constants, and each of 0 and 1 satisfies exactly one of them (`(k >> b) & 1 = 0`
#   and `(k >> b) & 1 = 1`, how a radix sort splits by a bit).

# Note [Moving the second filter]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The partition sits where the first filter was, so the second filter's work moves up
# past the ops between the two. It reads its inputs (the first filter's too) and the
# values its lambda captures: every captured value must be defined before the first
# filter, and no op in between may write or free memory (or have effects we cannot
# see), so the inputs hold the same rows at both places. The first filter's result may
# be read in between: it is the partition's, computed at the same place.

_CMPI_NEGATION = {"eq": "ne", "slt": "sge", "sle": "sgt", "ult": "uge", "ule": "ugt"}
_CMPF_NEGATION = {"false": "true", "oeq": "une", "ogt": "ule", "oge": "ult", "olt": "uge",
                  "ole": "ugt", "one": "ueq", "ord": "uno"}


def _negations(table: dict[str, str], names: list[str]) -> dict[int, int]:
    both = {**table, **{v: k for k, v in table.items()}}
    return {names.index(a): names.index(b) for a, b in both.items()}


_NEGATE = {
    arith.CmpiOp.name: _negations(_CMPI_NEGATION, arith.CMPI_COMPARISON_OPERATIONS),
    arith.CmpfOp.name: _negations(_CMPF_NEGATION, arith.CMPF_COMPARISON_OPERATIONS),
}


@dataclass
class _Lambdas:
    """Expression equality between two lambdas (Note [Complementary predicates])."""

    first: Block
    second: Block
    known: dict[tuple[SSAValue, SSAValue], bool] = field(default_factory=dict)

    def same(self, x: SSAValue, y: SSAValue) -> bool:
        if x is y:
            return True
        if isinstance(x, BlockArgument) and isinstance(y, BlockArgument):
            return x.owner is self.first and y.owner is self.second and x.index == y.index
        if not (isinstance(x, OpResult) and isinstance(y, OpResult)):
            return False
        key = (x, y)
        if key not in self.known:
            self.known[key] = False  # no cycles in SSA; a guard all the same
            a, b = x.op, y.op
            self.known[key] = (
                a.parent_block() is self.first and b.parent_block() is self.second
                and x.index == y.index and a.name == b.name
                and _unlocated(a) == _unlocated(b) and a.properties == b.properties
                and [r.type for r in a.results] == [r.type for r in b.results]
                and self._same_operands(a, b)
            )
        return self.known[key]

    def _same_operands(self, a: Operation, b: Operation) -> bool:
        """The same operands, in either order for a commutative op of two."""
        if len(a.operands) != len(b.operands):
            return False
        if all(self.same(p, q) for p, q in zip(a.operands, b.operands, strict=True)):
            return True
        return (a.has_trait(Commutative) and len(a.operands) == 2
                and self.same(a.operands[0], b.operands[1])
                and self.same(a.operands[1], b.operands[0]))

    def complementary(self, p: SSAValue, q: SSAValue) -> bool:
        return (self._negates(p, q) or self._negates(q, p) or self._negated_compare(p, q)
                or self._split_bit(p, q))

    def _negates(self, p: SSAValue, q: SSAValue) -> bool:
        """q is `xori p, true` (either operand order)."""
        if not isinstance(q, OpResult) or not isinstance(q.op, arith.XOrIOp):
            return False
        x, y = q.op.lhs, q.op.rhs
        return ((_constant(y) in (1, -1) and self._same_across(p, x))
                or (_constant(x) in (1, -1) and self._same_across(p, y)))

    def _same_across(self, p: SSAValue, x: SSAValue) -> bool:
        """`p` of one lambda and `x` of the other are the same, whichever is which."""
        if _in_block(p, self.first):
            return self.same(p, x)
        return _Lambdas(self.second, self.first).same(p, x)

    def _negated_compare(self, p: SSAValue, q: SSAValue) -> bool:
        if not (isinstance(p, OpResult) and isinstance(q, OpResult)):
            return False
        a, b = p.op, q.op
        if a.name != b.name or a.name not in _NEGATE:
            return False
        assert isinstance(a, arith.CmpiOp | arith.CmpfOp)
        assert isinstance(b, arith.CmpiOp | arith.CmpfOp)
        return (_NEGATE[a.name].get(a.predicate.value.data) == b.predicate.value.data
                and a.attributes == b.attributes and _other_props(a) == _other_props(b)
                and self.same(a.lhs, b.lhs) and self.same(a.rhs, b.rhs))

    def _split_bit(self, p: SSAValue, q: SSAValue) -> bool:
        first, second = _bit_test(p), _bit_test(q)
        if first is None or second is None:
            return False
        (x, keeps_x), (y, keeps_y) = first, second
        return self.same(x, y) and keeps_x.isdisjoint(keeps_y) and keeps_x | keeps_y == {0, 1}


def _unlocated(op: Operation) -> dict[str, object]:
    """The op's attributes but the place it reports a failure at (`loc`)."""
    return {k: v for k, v in op.attributes.items() if k != "loc"}


def _failing(block: Block) -> list[SSAValue]:
    """The results of the lambda's ops that may fail at run time where they stand (those
    with a `loc` attribute, as a shift by a negative amount)."""
    return [o.results[0] for o in block.ops if "loc" in o.attributes and o.results]


def _other_props(op: Operation) -> dict[str, object]:
    return {k: v for k, v in op.properties.items() if k != "predicate"}


def _in_block(v: SSAValue, block: Block) -> bool:
    if isinstance(v, BlockArgument):
        return v.owner is block
    return isinstance(v, OpResult) and v.op.parent_block() is block


def _constant(v: SSAValue) -> int | None:
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp):
        value = v.op.value
        if isinstance(value, IntegerAttr):
            return value.value.data
    return None


def _zero_or_one(v: SSAValue) -> bool:
    """`v` is 0 or 1: an `andi` with the constant 1, or an `extui` of an i1."""
    if not isinstance(v, OpResult):
        return False
    if isinstance(v.op, arith.AndIOp):
        return 1 in (_constant(v.op.lhs), _constant(v.op.rhs))
    if isinstance(v.op, arith.ExtUIOp):
        return v.op.input.type == i1
    return False


def _bit_test(p: SSAValue) -> tuple[SSAValue, set[int]] | None:
    """(v, which of 0 and 1 satisfy p) when p is `v == c` or `v != c` with v 0 or 1."""
    if not isinstance(p, OpResult) or not isinstance(p.op, arith.CmpiOp):
        return None
    cmp = p.op
    predicate = arith.CMPI_COMPARISON_OPERATIONS[cmp.predicate.value.data]
    if predicate not in ("eq", "ne"):
        return None
    for v, c in ((cmp.lhs, _constant(cmp.rhs)), (cmp.rhs, _constant(cmp.lhs))):
        if c is not None and _zero_or_one(v):
            equal = {0, 1} & {c}
            return v, equal if predicate == "eq" else {0, 1} - equal
    return None


def _plain(block: Block) -> bool:
    """Every op of the lambda but its yield and its checks at most reads memory, and
    none has a region."""
    return all(isinstance(o, msoac.YieldOp | soac.AssertOp) or (not o.regions and _reads(o))
               for o in block.ops)


def _reads(op: Operation) -> bool:
    effects = get_effects(op)
    return effects is not None and all(e.kind == MemoryEffectKind.READ for e in effects)


def _checked(block: Block) -> list[SSAValue]:
    """The conditions the lambda's checks require."""
    return [o.cond for o in block.ops if isinstance(o, soac.AssertOp)]


def _yielded(f: msoac.FilterOp) -> SSAValue:
    last = f.body.block.last_op
    assert isinstance(last, msoac.YieldOp)
    return last.values[0]


def complementary(f: msoac.FilterOp, g: msoac.FilterOp) -> bool:
    """Every row is kept by exactly one of `f` and `g`, judged on their lambdas' code
    (Note [Complementary predicates])."""
    a, b = f.body.block, g.body.block
    if not (_plain(a) and _plain(b)):
        return False
    lambdas = _Lambdas(a, b)
    checked, failing = _checked(a), _failing(a)
    return (all(any(lambdas.same(x, y) for x in checked) for y in _checked(b))
            and all(any(lambdas.same(x, y) for x in failing) for y in _failing(b))
            and lambdas.complementary(_yielded(f), _yielded(g)))


def _writes(op: Operation) -> bool:
    effects = get_effects(op)
    return effects is None or any(
        e.kind in (MemoryEffectKind.WRITE, MemoryEffectKind.FREE) for e in effects)


def movable_up(first: msoac.FilterOp, second: msoac.FilterOp) -> bool:
    """`second` computes the same at `first`'s place (Note [Moving the second
    filter])."""
    between: list[Operation] = []
    op = first.next_op
    while op is not None and op is not second:
        between.append(op)
        op = op.next_op
    if op is None or any(_writes(o) for o in between):
        return False
    defined_between = {r for o in between for r in o.results}
    captured = (v for o in walk_ops(second.body) for v in o.operands)
    return not any(v in defined_between for v in captured)


def _partner(first: msoac.FilterOp) -> msoac.FilterOp | None:
    """The first later filter of the block that pairs with `first`."""
    op = first.next_op
    while op is not None:
        if (isinstance(op, msoac.FilterOp) and list(op.inputs) == list(first.inputs)
                and complementary(first, op) and movable_up(first, op)):
            return op
        op = op.next_op
    return None


def partition(first: msoac.FilterOp, second: msoac.FilterOp) -> msoac.PartitionOp:
    """Replace the two filters by one partition at `first`'s place."""
    body = first.body.clone()
    types = [r.type for r in (*first.outputs, *second.outputs)]
    new = msoac.PartitionOp(list(first.inputs), types, body)
    new.attributes.update(first.attributes)
    Rewriter.insert_op(new, InsertPoint.before(first))
    half = len(first.inputs)
    for old, v in zip(first.outputs, new.outputs[:half], strict=True):
        old.replace_all_uses_with(v)
    for old, v in zip(second.outputs, new.outputs[half:], strict=True):
        old.replace_all_uses_with(v)
    Rewriter.erase_op(first)
    Rewriter.erase_op(second)
    return new


@dataclass(frozen=True)
class PartitionFiltersPass(ModulePass):
    """Two filters of one block over the same inputs with complementary predicates
    become one `msoac.partition` (one counting pass, one writing pass).

    Runs after `bufferise`, before `convert-soac-to-scf`. See the module docstring of
    `l0.lowering.scf.partition_filters`.
    """

    name = "partition-filters"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for first in [o for o in walk_ops(op) if isinstance(o, msoac.FilterOp)]:
            if first.parent is None:  # paired already, as a second filter
                continue
            second = _partner(first)
            if second is not None:
                partition(first, second)
