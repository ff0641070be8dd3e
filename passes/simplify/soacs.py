"""SOAC rules of `simplify`: `map`, `reduce`, `scan`, `filter` and `redomap` over small
arrays of known constants are evaluated at compile time (thesis 5.3, constant folding,
carried over to the second-order array combinators; Note [Unrolling constant SOACs]).

Note [Unrolling constant SOACs]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A *known constant array* is `iota(c)`, `replicate(c, v)` or `empty` with `c` and `v`
constants, or a literal `[e1, ..., en]` of constants or of such arrays (its rows).
A SOAC whose inputs are all known constant arrays of at most `MAX_UNROLL_ELEMENTS`
rows is evaluated the way the interpreter runs it: the lambda is cloned once per row,
its parameters bound to the row's constants, into a scratch function; `reduce`,
`scan` and `redomap` (its `inner` lambda) thread the accumulators through the clones
as a strict left fold from the neutral elements, `map` and `filter` apply the lambda
to each row. The scratch function is simplified with every rule of `simplify`, and
only when everything the SOAC computes (the mapped elements, the accumulators, the
predicates) has become a constant is the SOAC replaced: by those constants, or by a
literal (`soac.array`) of them, or by a literal of the kept rows for `filter`
(`soac.empty` when there are none). Otherwise nothing changes, so the rule never
makes a program bigger.

Nothing is unrolled when:
* the lambda contains an op that may fail or print (`l0.passes.analysis.effects.has_effects`:
  `soac.assert`, `soac.trace`, unguarded division, calls of such functions, ...),
  since the clones would run it a different number of times or in another order
  than the interpreter would, or report another location;
* the lambda reads a value from outside that is not a known constant (a
  parameter, a value computed at run time);
* an input may be consumed (Note [Using an array again] in
  `l0.passes.analysis.consumption`);
* the inputs have different lengths (the SOAC's certificate reports that at run
  time), an input is longer than `MAX_UNROLL_ELEMENTS`, or the unrolled lambda
  would have more than `MAX_UNROLL_OPS` ops (a nested SOAC counted as if unrolled
  over `MAX_UNROLL_ELEMENTS` rows, which bounds the work of nested evaluations);
* a result element or accumulator is an array (only scalars are folded).

The SOAC's certificates are dropped with it: the asserts that produce them stay
where they are and still fail there (`dce` keeps every `soac.assert`).

Note [SOACs over empty]
~~~~~~~~~~~~~~~~~~~~~~~
A SOAC with an input `soac.empty` has no rows (its other inputs have none either, or
its zip check, an assert of its own, fails first), so its lambda never runs, whatever
it holds or reads: a `map`, `scan`, `scanomap` or `filter` gives arrays with every
dimension 0 (`soac.empty` of each result type, as the interpreter's empty results),
a `reduce` or `redomap` with scalar accumulators its neutral elements (not with
arrays: the result would alias the neutral element). Such SOACs appear when fusion
moves a consumer into both branches of an `if` one of which yields `empty`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import cast

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from l0.dialects import soac
from l0.passes.analysis.constants import constant_int
from l0.passes.analysis.effects import effectful_functions, has_effects
from l0.passes.analysis.scope import free_values

__all__ = ["MAX_UNROLL_ELEMENTS", "MAX_UNROLL_OPS", "SOAC_OPS", "EmptySoac",
           "UnrollConstantSoac"]

MAX_UNROLL_ELEMENTS = 64
"""The longest input array a SOAC is evaluated over at compile time."""

MAX_UNROLL_OPS = 4096
"""The most lambda ops (rows times ops per lambda, a nested SOAC counting as unrolled
over `MAX_UNROLL_ELEMENTS` rows) one evaluation may clone."""

SOAC_OPS = (soac.MapOp, soac.ReduceOp, soac.ScanOp, soac.FilterOp, soac.RedomapOp,
            soac.ScanomapOp)

_DEPTH = 8

# A row of a known constant array: an index of `iota` (a plain int) or a value.
Row = int | SSAValue


def _materialisable(v: SSAValue, depth: int = _DEPTH) -> bool:
    """Whether `v` is a known constant: a scalar constant or a known constant array."""
    if depth <= 0:
        return False
    op = v.owner
    match op:
        case arith.ConstantOp() | soac.CheckedOp() | soac.EmptyOp():
            return True
        case soac.IotaOp():
            return constant_int(op.n) is not None and not op.certs
        case soac.ReplicateOp():
            return (constant_int(op.n) is not None and not op.certs
                    and _materialisable(op.value, depth - 1))
        case soac.ArrayOp():
            return all(_materialisable(e, depth - 1) for e in op.elems)
        case _:
            return False


_CONSTANT_ARRAYS = frozenset({soac.EmptyOp, soac.IotaOp, soac.ReplicateOp, soac.ArrayOp})
"""The ops whose arrays `constant_rows` may know."""


def constant_rows(v: SSAValue) -> list[Row] | None:
    """The rows of the known constant array `v`, at most `MAX_UNROLL_ELEMENTS` of
    them, or None (Note [Unrolling constant SOACs])."""
    op = v.owner
    match op:
        case soac.EmptyOp():
            return []
        case soac.IotaOp():
            n = constant_int(op.n)
            if n is None or not 0 <= n <= MAX_UNROLL_ELEMENTS:
                return None
            return list(range(n))
        case soac.ReplicateOp():
            n = constant_int(op.n)
            if n is None or not 0 <= n <= MAX_UNROLL_ELEMENTS:
                return None
            return [op.value] * n if _materialisable(op.value) else None
        case soac.ArrayOp():
            if len(op.elems) > MAX_UNROLL_ELEMENTS:
                return None
            elems = list(op.elems)
            return cast(list[Row], elems) if all(_materialisable(e) for e in elems) else None
        case _:
            return None


def _cost(region: Region) -> int:
    """The ops one clone of `region` may grow to: a nested SOAC counts as if it were
    unrolled over `MAX_UNROLL_ELEMENTS` rows, so nested unrolling stays bounded."""
    total = 0
    for block in region.blocks:
        for o in block.ops:
            inner = sum(_cost(r) for r in o.regions)
            total += 1 + (MAX_UNROLL_ELEMENTS * inner if isinstance(o, SOAC_OPS) else inner)
    return total


class _Scratch:
    """A function without parameters into which constants and lambda clones are put,
    to be simplified on its own."""

    def __init__(self) -> None:
        self.block = Block()
        self.mapping: dict[SSAValue, SSAValue] = {}

    def materialise(self, v: SSAValue) -> SSAValue:
        """A copy of the known constant `v` in the scratch block (its operands first)."""
        known = self.mapping.get(v)
        if known is not None:
            return known
        op = v.owner
        assert isinstance(op, Operation)
        for operand in op.operands:
            self.materialise(operand)
        copy = op.clone(self.mapping)
        self.block.add_op(copy)
        return self.mapping[v]

    def row(self, r: Row) -> SSAValue:
        if isinstance(r, int):
            c = arith.ConstantOp.from_int_and_width(r, i64)
            self.block.add_op(c)
            return c.result
        return self.materialise(r)

    def apply(self, region: Region, args: Sequence[SSAValue]) -> list[SSAValue]:
        """Clone the lambda `region` applied to `args`; its results."""
        block = region.block
        mapping = dict(self.mapping)
        mapping.update(zip(block.args, args, strict=True))
        for o in block.ops:
            if isinstance(o, soac.YieldOp):
                return [mapping.get(v, v) for v in o.values]
            self.block.add_op(o.clone(mapping))
        raise AssertionError("a lambda without soac.yield")

    def evaluate(self, results: Sequence[SSAValue], walker: PatternRewriteWalker
                 ) -> list[Attribute] | None:
        """Simplify the scratch function returning `results`: the constants they fold
        to, or None unless every one does."""
        ret = func.ReturnOp(*results)
        self.block.add_op(ret)
        f = func.FuncOp("scratch", ((), [v.type for v in results]), Region(self.block))
        ModuleOp([f])  # a symbol table of its own while it is simplified
        walker.rewrite_region(f.body)
        out: list[Attribute] = []
        for v in ret.arguments:
            c = v.owner
            if not isinstance(c, arith.ConstantOp):
                return None
            out.append(c.value)
        return out


def _scalar(t: Attribute) -> bool:
    return not isinstance(t, TensorType)


def _array(values: Sequence[Attribute], t: Attribute, loc: str | None
           ) -> tuple[list[Operation], SSAValue]:
    """Ops building the 1-D array of type `t` holding the constants `values`."""
    if not values:
        e = soac.EmptyOp(t)
        return [e], e.result
    consts: list[Operation] = [arith.ConstantOp(v) for v in values]  # type: ignore[arg-type]  # the evaluated scalars: int or float attributes
    lit = soac.ArrayOp([c.results[0] for c in consts], t, loc)
    return [*consts, lit], lit.result


def _replace_by_arrays(op: soac.MapOp | soac.ScanOp | soac.ScanomapOp,
                       columns: Sequence[Sequence[Attribute]], loc: str | None,
                       rewriter: PatternRewriter) -> None:
    """Replace `op` by arrays of constants, `columns[i]` for its output number i."""
    ops: list[Operation] = []
    new: list[SSAValue] = []
    for column, out in zip(columns, op.outputs, strict=True):
        built, v = _array(column, out.type, loc)
        ops += built
        new.append(v)
    rewriter.replace(op, ops, new)


class EmptySoac(RewritePattern):
    """A SOAC over `soac.empty`: empty results, or the neutral elements (Note [SOACs
    over empty])."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        inputs = cast(Sequence[SSAValue], getattr(op, "inputs", ()))
        if not any(isinstance(v.owner, soac.EmptyOp) for v in inputs):
            return
        if isinstance(op, soac.ReduceOp | soac.RedomapOp):
            if any(isinstance(n.type, TensorType) for n in op.neutral):
                return
            rewriter.replace(op, [], list(op.neutral))
            return
        empties = [soac.EmptyOp(t) for t in op.result_types]  # one per output
        rewriter.replace(op, empties, [e.result for e in empties])


class UnrollConstantSoac(RewritePattern):
    """`reduce(op +, 0, map(sq, iota(4)))` -> `14`: a SOAC over small known constant
    arrays evaluated at compile time (Note [Unrolling constant SOACs])."""

    def __init__(self, module: ModuleOp, walker: Callable[[], PatternRewriteWalker],
                 consumed: Callable[[SSAValue], bool]) -> None:
        self.module = module
        self.walker = walker
        self.consumed = consumed

    @cached_property
    def effectful(self) -> set[str]:
        return effectful_functions(self.module)

    def _rows(self, op: Operation, inputs: Sequence[SSAValue]) -> list[list[Row]] | None:
        """The rows of each input, row by row (a list per row), if the SOAC may be
        unrolled."""
        per_input: list[list[Row]] = []
        for a in inputs:
            rows = constant_rows(a)
            if rows is None or self.consumed(a):
                return None
            per_input.append(rows)
        n = len(per_input[0])
        if any(len(rows) != n for rows in per_input):
            return None  # the size check fails at run time
        if n * sum(_cost(r) for r in op.regions) > MAX_UNROLL_OPS:
            return None
        if has_effects(op, self.effectful):
            return None
        if not all(_materialisable(v) for v in free_values(op, own_operands=False)):
            return None
        return [[rows[j] for rows in per_input] for j in range(n)]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        # Every input must be one of `constant_rows`'s arrays: most SOACs have none
        # among their operands, which is cheap to see (their `inputs` are not).
        if not any(type(v.owner) in _CONSTANT_ARRAYS for v in op.operands):
            return
        match op:
            case soac.MapOp():
                self.map(op, rewriter)
            case soac.ReduceOp() | soac.ScanOp():
                self.fold(op, op.body, op.neutral, op.inputs, rewriter)
            case soac.RedomapOp() | soac.ScanomapOp():
                self.fold(op, op.inner, op.neutral, op.inputs, rewriter)
            case soac.FilterOp():
                self.filter(op, rewriter)
            case _:
                pass

    def map(self, op: soac.MapOp, rewriter: PatternRewriter) -> None:
        y = op.body.block.last_op
        if not isinstance(y, soac.YieldOp) or not all(_scalar(v.type) for v in y.values):
            return
        rows = self._rows(op, op.inputs)
        if rows is None:
            return
        scratch = _Scratch()
        results: list[SSAValue] = []
        for row in rows:
            results += scratch.apply(op.body, [scratch.row(r) for r in row])
        values = scratch.evaluate(results, self.walker())
        if values is None:
            return
        k = len(op.outputs)
        loc = op.loc.data if op.loc is not None else None
        _replace_by_arrays(op, [values[i::k] for i in range(k)], loc, rewriter)

    def fold(self, op: soac.ReduceOp | soac.ScanOp | soac.RedomapOp | soac.ScanomapOp,
             body: Region, neutral: Sequence[SSAValue], inputs: Sequence[SSAValue],
             rewriter: PatternRewriter) -> None:
        """Reduce, scan, redomap and scanomap: a strict left fold from the neutral
        elements."""
        if not all(_scalar(n.type) and _materialisable(n) for n in neutral):
            return
        rows = self._rows(op, inputs)
        if rows is None:
            return
        scratch = _Scratch()
        accs = [scratch.materialise(n) for n in neutral]
        steps: list[SSAValue] = list(accs)
        for row in rows:
            accs = scratch.apply(body, accs + [scratch.row(r) for r in row])
            steps += accs
        values = scratch.evaluate(steps, self.walker())
        if values is None:
            return
        k = len(neutral)
        if not isinstance(op, soac.ScanOp | soac.ScanomapOp):
            consts = [arith.ConstantOp(v) for v in values[-k:]]  # type: ignore[arg-type]  # the evaluated scalars: int or float attributes
            rewriter.replace(op, consts, [c.result for c in consts])
            return
        # inclusive: the neutral elements are not among the results
        _replace_by_arrays(op, [values[k + i::k] for i in range(k)], None, rewriter)

    def filter(self, op: soac.FilterOp, rewriter: PatternRewriter) -> None:
        rows = self._rows(op, op.inputs)
        if rows is None:
            return
        scratch = _Scratch()
        preds: list[SSAValue] = []
        for row in rows:
            preds += scratch.apply(op.body, [scratch.row(r) for r in row])
        values = scratch.evaluate(preds, self.walker())
        if values is None:
            return
        keep = [row for row, p in zip(rows, values, strict=True)
                if isinstance(p, IntegerAttr) and p.value.data != 0]
        ops: list[Operation] = []
        new: list[SSAValue] = []
        for i, out in enumerate(op.outputs):
            if not keep:
                e = soac.EmptyOp(out.type)
                ops.append(e)
                new.append(e.result)
                continue
            elems: list[SSAValue] = []
            for row in keep:
                r = row[i]
                if isinstance(r, int):
                    c = arith.ConstantOp.from_int_and_width(r, i64)
                    ops.append(c)
                    r = c.result
                elems.append(r)
            lit = soac.ArrayOp(elems, out.type)
            ops.append(lit)
            new.append(lit.result)
        rewriter.replace(op, ops, new)
