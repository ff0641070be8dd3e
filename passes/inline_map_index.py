"""`inline-map-index`: `b[i]` of `b = map(f, a)` with a cheap `f` becomes `f(a[i])` (thesis 9.2).

Fusion never duplicates work, so one indexing of a map's output is enough to keep the map
from fusing with its other consumer (`let b = map(f, a) in reduce(min, b[0], b)`).
Recomputing the one element instead, `f(a[0])`, removes that hindrance at the price of
a constant amount of work, when `f` is cheap and the indexing does not run repeatedly.
Like size-hindrance removal this is not an optimisation by itself: it is run before
fusion to let fusion apply more often. When every use of the map is an indexing it
recomputes, the map is dead: its work has moved into its consumers, as if fused into
each (the thesis's R1, figure 42, misses exactly that).

Legality, beyond cheapness (Note [The work of one element]):
* the indexing runs at most once per element of `b` for one run of the map's block
  (Note [Where an element may be recomputed]), and inside maps, only where the map's
  other uses let it go or fuse (Note [Recomputing where it pays]);
* the indexing yields an element, not a row: a recomputed row could be a view of an
  input of the map, changing what aliases what;
* no op between the map and the indexing may consume an array the lambda reads (an
  input, or a free array it indexes) or an alias of one
  (`l0.passes.analysis.consumption`): the recomputation reads it after the map has.
The certificates of the original indexing guard the new ones: `b[i, j]` is in bounds
iff `a[i]` is and `j` is within the rows the lambda builds, as the certificates of the
map (and of its inner maps) prove the sizes of `b` and of its inputs equal; so the new
indexings take the maps' certificates as well.

Note [The work of one element]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An element `b[i1, ..., ik]` of `b = map(f, a1, ..., an)` is recomputed from the rows
`a1[i1], ..., an[i1]`: the ops of `f`, except the inner maps that build the rows `f`
yields; when the output's row is one of those, `b[i1, i2, ...]` is that inner map's
element `[i2, ...]`, recomputed the same way one level down (a map of maps is indexed
through all its levels, its row part run once and its element part once). The cost is
the number of ops cloned at all levels (terminators excluded); the element is cheap when
the cost is at most `max_ops` and every cloned op runs in constant time without
allocating or consuming: `arith`, `math`, `scf.if`, `soac.index`/`size`/`assert`/
`checked`/`conjoin` (no SOAC other than the inner maps indexed through, no loop, call,
let-with, copy or trace). An inner map skipped is one whose results only the lambda's
yield uses. The transcendental functions of `math` (`exp`, `log`, `sin`, `pow`, ...)
cost `transcendental_weight` each (Note [Transcendental functions]).

Note [Where an element may be recomputed]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Recomputing `b[i]` where the map's block runs it once costs the work of one element.
Inside a loop the recomputation would run once per iteration, and inside a SOAC lambda
once per row: with an arbitrary index (`map(fn j => b[0], xs)`, `b[idx[j]]`) that
multiplies the work without bound (9.2: "we must also be careful not to inline into a
loop"). It is bounded when the indexing is inside maps only (and branches), each a map
over `iota(n)` whose iteration variable is one of the indices, and every other index is
defined outside the outermost of those maps (or is a constant): then distinct runs of
the indexing read distinct elements, so each element of `b` is recomputed at most once
per run of the consumer, the work fusing `b` into that consumer would do
(`map(fn j => map(fn i => b[i, j], iota(m)), iota(n))`). Never inside a loop, a
reduction, scan or filter lambda, or a map over anything else than `iota`.

Note [Recomputing where it pays]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Once per consumer element, a recomputation costs as much as the map's own work, so it
must buy something: that the map can go, or fuse. Inside maps the rule therefore fires
only when every use of the map is an element indexing it recomputes, a `size` (which
`simplify` folds to its input's), or an input array of a SOAC (which `fuse` can then
take: `reduce(op +, 0, b)` beside `map(fn i => b[i] * 2, iota(n))`). A map also
returned, indexed in a loop or read as a row is built anyway, and recomputing its
elements elsewhere would only add work. Where the map's block runs the indexing once,
one element is recomputed once, and the rule fires as the thesis's 9.2 does.

Note [The only reader]
~~~~~~~~~~~~~~~~~~~~~~
When the indexing is the map's only use, and it reads each element at most once per
run of the map's block (it runs once, or inside maps where Note [Where an element may
be recomputed] holds), recomputing costs no more than the map: the map computes every
element once, the consumer at most once those it reads, and the map goes (when it can
neither fail nor print: else `dce` keeps it, and recomputing would only add work). So then the
element is recomputed whatever it weighs (`max_ops` and the transcendental weight do
not apply; the ops must still be of the cheap kinds, Note [The work of one element]).
Only the row part of a map of maps would run more often: the outer lambda's ops, once
per row in the map, would run once per element of the consumer. So when the
recomputation runs inside maps and goes through levels, the scalars the outer lambda
computes for its inner map (`beta * log(x)` of LocVolCalib's volatility) are left in a
one-dimensional map over the rows, `rows = map(outer ops, a)`, and the consumer reads
`rows[i]`: each still computed once per row (the map of maps of numX x numY elements
becomes a map of numX). LocVolCalib's volatility, whose consumers `fuse` has merged
into one map over the grid reading `myVarX[i, j]` once, is so recomputed there by
default: an `exp` per point, as before, and a `log` per row, as before, without the
numX x numY array (Note [Transcendental functions]).

Note [Transcendental functions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An `exp` or a `log` costs tens of arithmetic operations. In LocVolCalib (R1) the
volatility `exp(2 * (beta * log(x) + y - ...))` is read by four consumer maps (explicit
x, and implicit x's `a`, `b` and `c`); recomputed in each, it costs four `exp`s and four
`log`s per point instead of one `exp` per point and one `log` per row, to save building
and reading a numX x numY array that stays in cache. On the CPU that made R1 about 1.5
times slower (benchmarks/README.md, R1's miss 1). So inside maps, where an element is
recomputed once per consumer element, each transcendental `math` op weighs
`transcendental_weight` ops (default 8: the volatility weighs at least 2 x 8 + 4 > 16,
and is kept, while cheap arithmetic, or one `exp` among a few ops, is recomputed);
where the indexing runs once it weighs 1, one element costing nothing measurable.
`inline-map-index{transcendental-weight=1}` recomputes the volatility. The cost model is
per target (Note [One pipeline per target] in `l0.passes.pipeline`): the cpu and
multicore `-O` keep the default 8; the gpu's `-O` runs the pass with weight 1, since on a
GPU writing an element to memory and reading it back costs more than an `exp` (20 to 30
instructions), and every map left unfused is a kernel launch and a trip through memory.
Once its four consumers are one, the volatility has one reader, and is recomputed
whatever its weight, on every target (Note [The only reader]).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue, Use
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.dialects.soac.types import array_of, is_value_type
from l0.passes.analysis.consumption import (
    FOLDS,
    LOOPS,
    SOACS,
    Consumption,
    consumed_operands,
    is_array,
)
from l0.passes.analysis.effects import has_effects
from l0.passes.analysis.scope import defined_outside, free_values
from l0.passes.analysis.walk import contains_op
from l0.passes.cores.rewrite_walker import RewriteWalker

_CHEAP_OPS = (
    soac.CheckedOp,
    soac.AssertOp,
    soac.ConjoinOp,
    soac.SizeOp,
    soac.IndexOp,
    soac.YieldOp,
    scf.IfOp,
    scf.YieldOp,
)
"""Ops other than `arith`/`math` ones a cheap lambda may contain: constant time, no
allocation, no consumption, and no visible effect beyond a check the map has already
passed for the same row (so running it again cannot fail)."""

_ARITHMETIC_MATH = frozenset({
    "math.absf", "math.absi", "math.copysign", "math.ceil", "math.floor", "math.round",
    "math.roundeven", "math.trunc", "math.fma", "math.ipowi", "math.sqrt",
    "math.ctlz", "math.cttz", "math.ctpop", "math.isnan", "math.isinf", "math.isfinite",
})
"""The `math` ops that are not transcendental: a few machine instructions each
(Note [Transcendental functions]); every other `math` op weighs more."""


# ---------------------------------------------------------------------------------------
# The work of one element (Note [The work of one element])
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CostModel:
    """What an element may cost to be recomputed (Note [The work of one element])."""

    max_ops: int
    transcendental_weight: int

    per_consumer_element: bool
    """Whether the element is recomputed once per element of a consumer (inside maps)
    rather than once (Note [Transcendental functions])."""

    def weight(self, op: Operation) -> int | str:
        """What `op` alone costs, or why it may not be recomputed."""
        dialect = op.name.split(".", 1)[0]
        if dialect not in ("arith", "math") and not isinstance(op, _CHEAP_OPS):
            return f"the lambda contains '{op.name}'"
        if isinstance(op, soac.YieldOp | scf.YieldOp):
            return 0
        if (self.per_consumer_element and dialect == "math"
                and op.name not in _ARITHMETIC_MATH):
            return self.transcendental_weight
        return 1


def yielded(lam: soac.MapOp, output: int) -> SSAValue:
    """What the lambda of `lam` yields for `output`."""
    done = lam.body.block.last_op
    assert isinstance(done, soac.YieldOp)
    return done.values[output]


def row_map(lam: soac.MapOp, output: int, depth: int) -> soac.MapOp | None:
    """The inner map, among the top-level ops of `lam`'s lambda, whose result is the row
    yielded for `output`, when an indexing of depth `depth` goes through it."""
    v = yielded(lam, output)
    if depth < 2 or not isinstance(v, OpResult) or not isinstance(v.op, soac.MapOp):
        return None
    return v.op if v.op.parent_block() is lam.body.block else None


def builds_yielded_row(op: Operation) -> bool:
    """Whether `op` is an inner map whose results only the lambda's yield uses: it is
    not recomputed (its element is, through `row_map`, or nothing is)."""
    return isinstance(op, soac.MapOp) and all(
        isinstance(use.operation, soac.YieldOp)
        and use.operation.parent_block() is op.parent_block()
        for r in op.results for use in r.uses)


def element_cost(lam: soac.MapOp, output: int, depth: int, model: CostModel) -> int | str:
    """The ops cloned to recompute an element of output `output` of `lam` indexed with
    `depth` indices, weighted (`CostModel.weight`), or why it may not be recomputed."""
    inner = row_map(lam, output, depth)
    total = 0
    for top in lam.body.block.ops:
        if top is inner or builds_yielded_row(top):
            continue
        for op in top.walk():
            w = model.weight(op)
            if isinstance(w, str):
                return w
            total += w
    if inner is not None:
        row = yielded(lam, output)
        assert isinstance(row, OpResult)
        rest = element_cost(inner, row.index, depth - 1, model)
        if isinstance(rest, str):
            return rest
        total += rest
    return total


def only_reader(index: soac.IndexOp, producer: soac.MapOp) -> bool:
    """Whether `index` is the only use of `producer`, which can then go: it can neither
    fail nor print (Note [The only reader])."""
    uses = [use for r in producer.results for use in r.uses]
    return len(uses) == 1 and uses[0].operation is index and \
        not has_effects(producer, frozenset())


# ---------------------------------------------------------------------------------------
# Where the indexing runs (Note [Where an element may be recomputed])
# ---------------------------------------------------------------------------------------


def iteration_variables(lam: soac.MapOp) -> list[BlockArgument]:
    """The lambda parameters of `lam` bound to the rows of an `iota`: the index of the
    row, distinct on every run."""
    return [arg for arg, a in zip(lam.body.block.args, lam.inputs, strict=True)
            if isinstance(a, OpResult) and isinstance(a.op, soac.IotaOp)]


def _invariant(v: SSAValue, outermost: Operation) -> bool:
    """Whether `v` has one value for a whole run of `outermost`."""
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp):
        return True
    return defined_outside(v, outermost)


def enclosing(op: Operation, home: Block | None) -> list[Operation] | None:
    """The ops around `op` inside block `home`, innermost first (None: `op` is not in
    `home`)."""
    found: list[Operation] = []
    while op.parent_block() is not home:
        parent = op.parent_op()
        if parent is None:
            return None
        found.append(parent)
        op = parent
    return found


def placement_problem(index: soac.IndexOp, producer: soac.MapOp) -> str | bool:
    """Why recomputing `index` where it is could run one element of `producer` more
    than once per run of the producer's block; else whether it runs inside maps, once
    per element of a consumer (False: once)."""
    around = enclosing(index, producer.parent_block())
    if around is None:
        return "the indexing is not in the scope of the map"
    maps: list[soac.MapOp] = []
    for op in around:
        if isinstance(op, soac.MapOp):
            maps.append(op)
        elif isinstance(op, LOOPS + SOACS):
            return f"the indexing runs repeatedly inside '{op.name}'"
    if not maps:
        return False
    indices = list(index.indices)
    for m in maps:
        if not any(v in indices for v in iteration_variables(m)):
            return ("the indexing runs repeatedly inside 'soac.map' (no index is the "
                    "map's position in an iota)")
    ours = {v for m in maps for v in iteration_variables(m)}
    if not all(v in ours or _invariant(v, maps[-1]) for v in indices):
        return "an index varies inside the enclosing maps other than as their position"
    return True


# ---------------------------------------------------------------------------------------
# The rewrite
# ---------------------------------------------------------------------------------------


def arrays_read(producer: soac.MapOp) -> list[SSAValue]:
    """The arrays the lambda of `producer` reads: its inputs and the free arrays it
    indexes (or its inner maps take)."""
    return [v for v in free_values(producer) if is_array(v)]


@dataclass
class InlineMapIndex(RewritePattern):
    """`soac.index %b[%i, ...]` of `%b` = output j of a cheap `soac.map` -> the lambda's
    ops applied to `soac.index %a[%i]` of every input `%a`, through the inner maps that
    build its rows, indexed further by the rest."""

    max_ops: int
    transcendental_weight: int
    consumption: Consumption
    pays: dict[soac.MapOp, bool] = field(default_factory=dict[soac.MapOp, bool])
    """`removes_hindrance`, memoised: a rewrite only removes uses of a map."""

    def problem(self, op: soac.IndexOp, producer: soac.MapOp, output: int) -> str | None:
        """Why `op` may not be recomputed from the inputs of `producer` (None: it may)."""
        legal = self.legality(op, producer, output)
        if isinstance(legal, str):
            return legal
        if legal and not self.removes_hindrance(producer):
            return ("the map has a use that is neither such an indexing nor an input of a "
                    "SOAC: recomputing would not remove it")
        return None

    def legality(self, op: soac.IndexOp, producer: soac.MapOp, output: int) -> str | bool:
        """Why `op` may not be recomputed from the inputs of `producer`; else whether the
        recomputation runs once per element of a consumer (Note [Where an element may
        be recomputed])."""
        if is_array(op.result):
            return "the indexing yields a row, not an element"
        where = placement_problem(op, producer)
        if isinstance(where, str):
            return where
        model = CostModel(self.max_ops, self.transcendental_weight, where)
        cost = element_cost(producer, output, len(op.indices), model)
        if isinstance(cost, str):
            return cost  # not of the cheap kinds
        if cost > model.max_ops and not only_reader(op, producer):
            return f"the element costs {cost} ops, more than {model.max_ops}"
        read = arrays_read(producer)
        if self.consumption.consumed_between(read, producer, op) is not None:
            return "an array the map reads may be consumed before the indexing"
        if self._consumed_by_enclosing(read, op, producer):
            return "an array the map reads may be consumed by an enclosing map"
        return where

    def removes_hindrance(self, producer: soac.MapOp) -> bool:
        """Whether every use of `producer` is an element indexing this rule recomputes,
        a size, or an input array of a SOAC (Note [Recomputing where it pays])."""
        known = self.pays.get(producer)
        if known is None:
            known = self.pays[producer] = all(
                self._removable_use(use, producer) for r in producer.results for use in r.uses)
        return known

    def _removable_use(self, use: Use, producer: soac.MapOp) -> bool:
        user = use.operation
        if isinstance(user, soac.SizeOp):
            return True
        if isinstance(user, soac.IndexOp):
            b = user.array
            assert isinstance(b, OpResult)
            return not isinstance(self.legality(user, producer, b.index), str)
        if isinstance(user, SOACS):
            v = user.operands[use.index]
            return v in user.inputs and not (isinstance(user, FOLDS) and v in user.neutral)
        return False

    def _keeps_row_part(self, op: soac.IndexOp, producer: soac.MapOp, output: int) -> bool:
        """Whether the outer lambda's ops stay per row, in a map of their own (Note [The
        only reader]): the element is recomputed inside maps only because the indexing
        is the map's only reader, through an inner map that uses scalars they compute."""
        if not row_part_values(producer, output, len(op.indices)):
            return False
        model = CostModel(self.max_ops, self.transcendental_weight, True)
        cost = element_cost(producer, output, len(op.indices), model)
        return isinstance(cost, int) and cost > self.max_ops and \
            placement_problem(op, producer) is True

    def _row_part(self, e: Element, certs: list[SSAValue], mapping: dict[SSAValue, SSAValue],
                  new_ops: list[Operation], rewriter: PatternRewriter
                  ) -> tuple[Element, list[SSAValue]]:
        """Put a map computing the outer lambda's scalars for each row before the
        producer, map them to its elements at row `e.indices[0]` and return the element
        of the inner map left to recompute, with the certificates that guard it (Note
        [The only reader])."""
        lam = e.lam
        values = row_part_values(lam, e.output, len(e.indices))
        rows = row_part_map(lam, e.output, values)
        rewriter.insert(rows, InsertPoint.after(lam))
        self.consumption.place([rows], lam)
        first = e.indices[0]
        all_certs = certs + list(lam.certs)
        for v, r in zip(values, rows.results, strict=True):
            element = soac.IndexOp(r, [first], v.type, all_certs)
            new_ops.append(element)
            mapping[v] = element.result
        inner = row_map(lam, e.output, len(e.indices))
        assert inner is not None
        used = set(free_values(inner))
        for arg, a in zip(lam.body.block.args, lam.inputs, strict=True):
            if arg in used:
                row = soac.IndexOp(a, [first], arg.type, all_certs)
                new_ops.append(row)
                mapping[arg] = row.result
        inner_output = yielded(lam, e.output)
        assert isinstance(inner_output, OpResult)
        return Element(inner, inner_output.index, list(e.indices[1:]), e.type), all_certs

    def _consumed_by_enclosing(self, read: list[SSAValue], op: Operation,
                               producer: soac.MapOp) -> bool:
        """Whether a map around `op` (inside the producer's block) may consume one of
        `read`: one of its earlier rows would have changed what a later one recomputes."""
        aliases: set[SSAValue] = set()
        for v in read:
            if self.consumption.may_be_consumed(v):
                aliases |= self.consumption.closure(v)
        return bool(aliases) and any(
            self.consumption.closure(v) & aliases
            for outer in enclosing(op, producer.parent_block()) or ()
            for v in consumed_operands(outer))

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.IndexOp, rewriter: PatternRewriter) -> None:
        b = op.array
        if not isinstance(b, OpResult) or not isinstance(b.op, soac.MapOp) or not op.indices:
            return
        if self.problem(op, b.op, b.index) is not None:
            return
        new_ops: list[Operation] = []
        mapping: dict[SSAValue, SSAValue] = {}
        element = Element(b.op, b.index, list(op.indices), op.result.type)
        certs = list(op.certs)
        if self._keeps_row_part(op, b.op, b.index):
            element, certs = self._row_part(element, certs, mapping, new_ops, rewriter)
        value = recompute(element, certs, mapping, new_ops)
        self.consumption.place(new_ops, op)
        rewriter.replace(op, new_ops, [value])
        for new in new_ops:  # maps indexed anew have uses `removes_hindrance` did not see
            if isinstance(new, soac.IndexOp) and isinstance(new.array, OpResult) \
                    and isinstance(new.array.op, soac.MapOp):
                self.pays.pop(new.array.op, None)


@dataclass(frozen=True)
class Element:
    """Element `indices` of output `output` of the map `lam`, of type `type`."""

    lam: soac.MapOp
    output: int
    indices: Sequence[SSAValue]
    type: Attribute


def row_part_values(lam: soac.MapOp, output: int, depth: int) -> list[SSAValue]:
    """The scalars the ops of `lam`'s lambda compute for the inner map that builds the
    row of `output` (none when there is no such map, or one of them is not a plain
    value: an array or a certificate, which a map cannot yield)."""
    inner = row_map(lam, output, depth)
    if inner is None:
        return []
    block = lam.body.block
    values: list[SSAValue] = [v for v in free_values(inner)
              if isinstance(v, OpResult) and v.op.parent_block() is block]
    return values if all(is_value_type(v.type) for v in values) else []


def row_part_map(lam: soac.MapOp, output: int, values: list[SSAValue]) -> soac.MapOp:
    """A map over `lam`'s inputs running its lambda's ops but the inner maps that build
    its rows, yielding `values` (Note [The only reader])."""
    block = lam.body.block
    new = Block(arg_types=[a.type for a in block.args])
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, new.args, strict=True))
    inner = row_map(lam, output, 2)
    for body_op in block.ops:
        if isinstance(body_op, soac.YieldOp) or body_op is inner or builds_yielded_row(body_op):
            continue
        new.add_op(body_op.clone(mapping))
    new.add_op(soac.YieldOp(*[mapping[v] for v in values]))
    loc = None if lam.loc is None else lam.loc.data
    return soac.MapOp(list(lam.inputs), [array_of(v.type) for v in values], Region(new),
                      list(lam.certs), loc)


def recompute(e: Element, certs: list[SSAValue], mapping: dict[SSAValue, SSAValue],
              new_ops: list[Operation]) -> SSAValue:
    """Append to `new_ops` the ops computing `e` and return its value (Note [The work
    of one element]). `mapping` maps the values of the enclosing lambdas already
    recomputed to their clones; `certs` guard the indexing, and the certificates of
    `e.lam` and of its inner maps join them."""
    first, rest = e.indices[0], list(e.indices[1:])
    certs = certs + [mapping.get(c, c) for c in e.lam.certs]
    block = e.lam.body.block
    for arg, a in zip(block.args, e.lam.inputs, strict=True):
        row = soac.IndexOp(mapping.get(a, a), [first], arg.type, certs)
        new_ops.append(row)
        mapping[arg] = row.result
    inner = row_map(e.lam, e.output, len(e.indices))
    for body_op in block.ops:
        if isinstance(body_op, soac.YieldOp) or body_op is inner or builds_yielded_row(body_op):
            continue
        new_ops.append(body_op.clone(mapping))
    v = yielded(e.lam, e.output)
    if inner is not None:
        assert isinstance(v, OpResult)
        return recompute(Element(inner, v.index, rest, e.type), certs, mapping, new_ops)
    value = mapping.get(v, v)
    if rest:  # a row the lambda yields without building it: index it further
        element = soac.IndexOp(value, rest, e.type, certs)
        new_ops.append(element)
        value = element.result
    return value


@dataclass(frozen=True)
class InlineMapIndexPass(ModulePass):
    """Recompute `b[i]` of `b = map(f, a)` as `f(a[i])` when `f` is cheap (thesis 9.2).

    Removes an indexing that keeps a map from fusing with its other consumers, and, when
    every use of the map is such an indexing, the map itself (its work moves into its
    consumers). Fires on an element indexing (`soac.index` with a scalar result) of an
    output of `soac.map` whose element is cheap to recompute: for a map of maps
    `b[i, j]` runs the outer lambda on `a[i]` and the inner one on the `j`th row of its
    inputs, and the ops of all levels together (Note [The work of one element]) weigh at
    most `max_ops`, each `arith`, `math`, `scf.if`, `soac.index`/`size`/`assert`/
    `checked`/`conjoin` (no other SOAC, loop, call, allocation, let-with or trace); a
    transcendental `math` op (`exp`, `log`, ...) weighs `transcendental_weight`.

    Where: where the map's block runs the indexing once, or inside maps over `iota`
    each of whose positions is an index (the others not varying inside them), so that an
    element is recomputed at most once per run of the consumer, as fusion into it would
    (Note [Where an element may be recomputed]); there, only when every other use of the
    map is such an indexing, a size or an input of a SOAC, so that the map can go or
    fuse (Note [Recomputing where it pays]). Never inside a loop, a reduction, scan or
    filter lambda, or a map whose position is not an index (recomputing there multiplies
    the work), nor when an array the lambda reads may be consumed between the map and
    the indexing or by a map around it. The new indexings of the inputs carry the
    certificates of the original one and of the maps.

    When the indexing is the map's only use, the element is recomputed whatever it
    weighs (the consumer computes at most the elements the map would, and the map
    goes); through a map of maps inside maps, the scalars the outer lambda computes
    for its rows then stay per row, in a one-dimensional map of their own (Note [The
    only reader]).

    Options: `max_ops` (default 16), the most an element may weigh;
    `transcendental_weight` (default 8), the weight of one transcendental function
    (`exp`, `log`, `sin`, `powf`, ...) recomputed inside maps (1 where the indexing runs
    once): 8 keeps LocVolCalib's volatility (an exp and a log, figure 42) from being
    recomputed in its consumers while there are several, which is slower on the CPU
    (a log per point); 1 recomputes it (the gpu target's `-O`: Note [One pipeline per
    target] in `l0.passes.pipeline`). Once `fuse` has merged them into one map reading
    it once per point, it is recomputed there, its log per row.

        %b = soac.map(%x = %a : tensor<?xi64>) <%z> -> tensor<?xi64> {
          %y = arith.addi %x, %one : i64
          soac.yield %y : i64
        }
        %e = soac.index %b[%i] <%c> : tensor<?xi64> -> i64
      becomes
        %r = soac.index %a[%i] <%c, %z> : tensor<?xi64> -> i64
        %e = arith.addi %r, %one : i64
    """

    name = "inline-map-index"

    REWRITES = (soac.IndexOp,)
    """The ops the pass rewrites: without them it changes nothing, and returns at once
    (Note [Passes known to change nothing] in `l0.passes.pipeline`)."""

    max_ops: int = 16
    transcendental_weight: int = 8

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not contains_op(op, self.REWRITES):
            return  # the rule rewrites indexing only
        pattern = InlineMapIndex(self.max_ops, self.transcendental_weight, Consumption(op))
        RewriteWalker(pattern).rewrite_module(op)
