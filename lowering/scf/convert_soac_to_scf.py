"""The `convert-soac-to-scf` pass: `msoac` ops become loops, parallel where they may be.

Each SOAC becomes loops over the rows of its inputs with its lambda *inlined* into the
body (no call per element; thesis 2.2 gives the meaning of each SOAC). The SOAC levels
that run in parallel become `scf.parallel` (index bounds, an i64 induction variable
cast from it); a SOAC nested inside a parallel loop (in the lambda of an outer SOAC)
becomes a sequential `scf.for` with an i64 induction variable, a thread's inner work
(`docs/lowering.md`):

* `map`: row i of each input is a load (one-dimensional inputs) or a view; each
  yielded value is stored into, or copied into row i of, its destination (nothing is
  copied when the lambda computed the row in place: it yields its destination view).
  One `scf.parallel` over the rows; a perfect nest of two maps one two-dimensional
  `scf.parallel` over the elements. An allocated result is carried by a sequential
  loop: allocated once row 0 is known, and each later row is checked against row 0's
  shape ("irregular array" at the map's `loc`);
* `reduce` whose lambda is its operator (`msoac.OPERATOR_ATTR`, one scalar
  accumulator): `scf.parallel` + `scf.reduce`, which the sequential back end runs as
  the strict left fold; redomap (its operator is `combine`) and tuple operators, with
  scalar accumulators: blocked, each chunk folded from the neutral elements in
  parallel, the partials combined in chunk order; a reduce or redomap with array
  accumulators too, each chunk into a buffer of its own, when its lambdas write only
  their accumulators and what they allocate (Note [Array accumulators]); other folds
  (lambdas writing shared arrays, neutral elements that are views, and every fold
  nested in a parallel loop) carry the accumulators in `scf.for`, strictly left to
  right (a reassociating vectorisation happens only under `fast_math`, in LLVM);
* `scan`: blocked over chunks (total per chunk, carry-ins, scan per chunk from its
  carry-in); as a sequential loop storing each accumulator when nested or not
  blockable;
* `filter`: per chunk the predicate into a flag per row and a count, an exclusive scan
  of the counts, then per chunk the kept rows copied from the chunk's offset (nested:
  count then fill, sequentially);
* `partition` (two complementary filters): the filter's loops, the filling loop writing
  each row to the buffers of its class (Note [Partition]);
* `iota`, `replicate`: a loop storing into the destination.

The chunks of the blocked forms: Note [Parallel width] in `l0.lowering.loop_ir.parallel_loops`
(one chunk on the sequential back end: the same loops as before, the same results).
Contiguous destinations and unit-stride loads keep the loops vectorisable by LLVM.

Before:
    msoac.map ins(%a : memref<?xf64>) outs(%o : memref<?xf64>) {
    ^bb0(%x: f64):
      %y = arith.mulf %x, %x : f64
      msoac.yield %y : f64
    }
After:
    "scf.parallel"(%c0, %n, %c1) ({
    ^bb0(%ii: index):
      %x = memref.load %a[%ii] : memref<?xf64>
      %y = arith.mulf %x, %x : f64
      memref.store %y, %o[%ii] : memref<?xf64>
      scf.reduce
    })
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    StringAttr,
    UnitAttr,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import Rewriter

from l0.dialects import msoac
from l0.dialects.memref_types import rank_of, row_of
from l0.dialects.soac import CertType
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.checks import check_row
from l0.lowering.loop_ir.parallel_loops import (
    INTERLEAVED_ATTR,
    MAP_LOC_ATTR,
    ceil_div,
    chunk_bounds,
    chunk_count,
    mark_blocked_reduction,
    nested_in_parallel,
    parallel_for,
)
from l0.lowering.loop_ir.profile import site_name, tag_untagged
from l0.lowering.loop_ir.versions import in_flat_version, lower_thresholds
from l0.lowering.scf.accumulate_in_place import accumulate_in_place
from l0.lowering.scf.commutative import interleavable
from l0.lowering.scf.partition_concat import Concatenation, concatenations
from l0.passes.analysis.walk import walk_ops

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------


def inline_lambda(block: Block, b: CodeBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
    """Move the ops of a lambda to `b`, its arguments bound to `args`; return the
    values its `msoac.yield` yielded (the yield itself is dropped)."""
    term = block.last_op
    assert isinstance(term, msoac.YieldOp)
    bound: dict[SSAValue, SSAValue] = dict(zip(block.args, args, strict=True))
    values = [bound.get(v, v) for v in term.values]
    Rewriter.erase_op(term)
    Rewriter.inline_block(block, b.ip, list(args))
    return values


def rows(b: CodeBuilder, arrays: Sequence[SSAValue], i: SSAValue) -> list[SSAValue]:
    """Row `i` of each array: an element, or a view."""
    return [b.row(a, [i]) for a in arrays]


def store_row(b: CodeBuilder, v: SSAValue, out: SSAValue, i: SSAValue) -> None:
    """Row `i` of `out` := `v` (a store, or a copy of an array; certificates are true)."""
    if isinstance(v.type, MemRefType):
        b.copy(v, b.row(out, [i]))
    elif isinstance(v.type, CertType):
        b.store(b.bool(True), out, [i])
    else:
        b.store(v, out, [i])


def _memref(v: SSAValue) -> MemRefType:
    assert isinstance(v.type, MemRefType)
    return v.type


def empty_result(b: CodeBuilder, t: MemRefType) -> SSAValue:
    """The result of an allocating output when there are no rows: every dimension 0."""
    zero = b.i64(0)
    return b.alloc(t, [zero] * t.get_num_dims())


def allocated_row(b: CodeBuilder, out: SSAValue, v: SSAValue, i: SSAValue, n: SSAValue,
                  loc: str) -> SSAValue:
    """Write row `i` (the array `v`) of an allocated result carried as `out`: at row 0
    the result is allocated with `n` rows of `v`'s shape; every row is checked against
    row 0's shape. Returns the result to carry on."""
    t = _memref(out)
    dims = b.dims(v)
    first = b.cmpi("eq", i, b.i64(0))
    (res,) = b.if_(first, [t], lambda then: [then.alloc(t, [n, *dims])], lambda other: [out])
    expected = [b.dim(res, k) for k in range(1, t.get_num_dims())]
    check_row(b, i, dims, expected, loc)
    b.copy(v, b.row(res, [i]))
    return res


def _loc(op: msoac.MapOp | msoac.ScanOp) -> str:
    return op.loc.data if op.loc is not None else ""


# ---------------------------------------------------------------------------------------
# Patterns
# ---------------------------------------------------------------------------------------


@dataclass
class LowerMap(RewritePattern):
    """`msoac.map` -> `scf.for` storing or copying each yielded row."""

    wide_nests: bool = False
    """Also nests whose inner lambda reads the outer rows (Note [Perfect nests of two
    maps])."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: msoac.MapOp, rewriter: PatternRewriter) -> None:
        b = CodeBuilder.before(op)
        inputs, outs = list(op.inputs), list(op.outs)
        n = b.dim(inputs[0], 0)
        # The flattened copy of a versioned nest spans outer x inner elements.
        wide = self.wide_nests or in_flat_version(op)
        inner = None if nested_in_parallel(op) else perfect_inner_map(op, wide)
        if inner is not None:
            _map_nest(b, op, inner, n)
            rewriter.erase(op)
            return
        carried = [empty_result(b, _memref(r)) for r in op.allocated]
        block = op.body.block
        loc = _loc(op)

        def body(lb: CodeBuilder, i: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
            dests = [lb.row(o, [i]) for o in outs if rank_of(o.type) >= 2]
            ys = inline_lambda(block, lb, [*rows(lb, inputs, i), *dests])
            it = iter(dests)
            for o, y in zip(outs, ys, strict=False):
                if rank_of(o.type) == 1:
                    store_row(lb, y, o, i)
                    continue
                d = next(it)
                if y is not d:
                    lb.copy(y, d)
            rest = ys[len(outs):]
            return [allocated_row(lb, a, y, i, n, loc) for a, y in zip(acc, rest, strict=True)]

        if not carried and not nested_in_parallel(op):
            par = parallel_for(b, b.i64(0), n, lambda lb, i: _no_carry(body(lb, i, [])))
            if loc:  # for reports on the loop (simd-map's, l0-run -v)
                par.attributes[MAP_LOC_ATTR] = StringAttr(loc)
            rewriter.erase(op)
            return
        results = b.for_(b.i64(0), n, carried, body)
        rewriter.replace(op, [], results)


_SHAPE_QUERIES = (arith.ConstantOp, arith.IndexCastOp, memref.DimOp)


def perfect_inner_map(op: msoac.MapOp, wide: bool = True) -> msoac.MapOp | None:
    """The inner map of a perfect nest of two maps (one two-dimensional parallel loop),
    or None: the outer lambda does nothing but one inner map into its destination rows,
    which it yields (and shape queries); the inner map's inputs are rows of the outer
    inputs or arrays from outside the nest, its destinations are the outer lambda's, in
    order; every destination has rank 2 or more and nothing is allocated. The inner
    lambda may use the outer rows as arrays (Note [Perfect nests of two maps])."""
    if op.allocated or not op.outs:
        return None
    if any(rank_of(v.type) < 2 for v in op.outs):
        return None
    block = op.body.block
    maps = [o for o in block.ops if isinstance(o, msoac.MapOp)]
    if len(maps) != 1:
        return None
    inner, term = maps[0], block.last_op
    assert isinstance(term, msoac.YieldOp)
    if any(o is not inner and o is not term and not isinstance(o, _SHAPE_QUERIES)
           for o in block.ops):
        return None
    k = len(op.inputs)
    rows_, dests = list(block.args[:k]), list(block.args[k:])
    if inner.allocated or list(inner.outs) != dests or list(term.values) != dests:
        return None
    if not inner.inputs or any(
            v not in rows_ and (v.owner is block or (isinstance(v.owner, Operation)
                                                     and v.owner.parent is block))
            for v in inner.inputs):
        return None
    if not wide and not _plain_nest(op, inner):
        return None
    return inner


def _plain_nest(op: msoac.MapOp, inner: msoac.MapOp) -> bool:
    """Whether the nest maps the outer rows of two-dimensional inputs element by element
    and the inner lambda does not see the rows as arrays: the nests every target takes
    as one loop (the wider ones only where `wide_nests` says: on the cpu, a matrix
    product's inner map over another matrix's rows vectorises better as a loop of its
    own, Note [Perfect nests of two maps])."""
    block = op.body.block
    if any(rank_of(v.type) != 2 for v in [*op.inputs, *op.outs]):
        return False
    if list(inner.inputs) != list(block.args[:len(op.inputs)]):
        return False
    return not any(v.owner is block or (isinstance(v.owner, Operation)
                                        and v.owner.parent is block)
                   for o in walk_ops(inner.body) for v in o.operands)


# Note [Perfect nests of two maps]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# `distribute` (docs/passes.md) leaves maps like `map(fn (x, s) => map(fn (j) =>
# f(x, s, j), iota(m)), xs, ss)`: one inner map, over an array from outside the nest
# or a row of an outer input, whose body reads the outer element freely. Such a nest
# is one two-dimensional `scf.parallel` over (i, j): the body binds the outer rows it
# reads (a load, or a view of row i), recomputes the outer lambda's shape queries,
# and then runs the inner lambda on element j (of row i, for an outer input's row)
# into destination [i, j]. The rows of the inner map's inputs and destinations are
# taken from the outer arrays directly (`a[i, j]`), as the nest of two maps over
# rows always was. A kernel (gpu) or region (multicore) then spans n x m iterations
# where it spanned n.


def _map_nest(b: CodeBuilder, op: msoac.MapOp, inner: msoac.MapOp, n: SSAValue) -> None:
    """A perfect nest of two maps -> one two-dimensional `scf.parallel` over (row, column)
    (Note [Perfect nests of two maps])."""
    outer = op.body.block
    term = outer.last_op
    source: dict[SSAValue, SSAValue] = dict(zip(outer.args, [*op.inputs, *op.outs],
                                                strict=True))
    inputs, outs = list(inner.inputs), list(inner.outs)
    first = inputs[0]
    m = b.dim(source[first], 1) if first in source else b.dim(first, 0)
    block = Block(arg_types=[b.index(0).type] * 2)
    lb = CodeBuilder.at_end(block)
    i, j = (lb.to_i64(a) for a in block.args)
    # The outer rows the inner lambda (or a shape query) reads as values of their own.
    for arg in outer.args:
        if any(u.operation is not inner and u.operation is not term for u in arg.uses):
            row = lb.row(source[arg], [i])
            for use in list(arg.uses):
                if use.operation is not inner and use.operation is not term:
                    use.operation.operands[use.index] = row
    for query in list(outer.ops):
        if query is not inner and query is not term:
            query.detach()
            lb.add(query)
    xs = [lb.row(source[v], [i, j]) if v in source else lb.row(v, [j]) for v in inputs]
    dests = [lb.row(source[out], [i, j]) for out in outs if rank_of(out.type) >= 2]
    ys = inline_lambda(inner.body.block, lb, [*xs, *dests])
    it = iter(dests)
    for y, o in zip(ys, outs, strict=True):
        if rank_of(o.type) >= 2:
            d = next(it)
            if y is not d:
                lb.copy(y, d)
            continue
        if isinstance(y.type, CertType):
            y = lb.bool(True)
        if isinstance(y.type, MemRefType):
            lb.copy(y, lb.row(source[o], [i, j]))
        else:
            lb.store(y, source[o], [i, j])
    lb.add(scf.ReduceOp())
    zero, one = b.index(0), b.index(1)
    b.add(scf.ParallelOp([zero, zero], [b.to_index(n), b.to_index(m)], [one, one],
                         Region(block)))


def _no_carry(carried: Sequence[SSAValue]) -> None:
    assert not carried


@dataclass
class LowerReduce(RewritePattern):
    """`msoac.reduce` -> `scf.for` carrying the accumulators (a left fold)."""

    interleave: bool = False
    """A parallel reduction whose chunks may be interleaved (`interleavable`) has its
    threads fold interleaved chunks (Note [Interleaved chunks] in
    `l0.lowering.scf.segment_reductions`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: msoac.ReduceOp, rewriter: PatternRewriter) -> None:
        b = CodeBuilder.before(op)
        inputs = list(op.inputs)
        n = b.dim(inputs[0], 0)
        block = op.body.block

        def body(lb: CodeBuilder, i: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
            return inline_lambda(block, lb, [*acc, *rows(lb, inputs, i)])

        interleaved = self.interleave and interleavable(op)
        if _parallel_reduction(op):
            rewriter.replace(op, [], [_reduce_parallel(b, op, n, interleaved)])
            return
        # Note [Accumulators updated in place]: each fold starts from its own copies.
        owned = accumulate_in_place(op.body, len(op.neutral))
        if _blocked_reduction(op):
            rewriter.replace(op, [], _reduce_blocked(b, op, n, owned, interleaved))
            return
        results = b.for_(b.i64(0), n, _starts(b, op, owned), body)
        rewriter.replace(op, [], results)


def _starts(b: CodeBuilder, op: msoac.ReduceOp, owned: Sequence[int]) -> list[SSAValue]:
    """The accumulators a fold of `op` starts from: its neutral elements, a copy of its
    own of each accumulator its lambda updates in place (positions `owned`)."""
    return [_own_copy(b, z) if i in owned else z for i, z in enumerate(op.neutral)]


def _parallel_reduction(op: msoac.ReduceOp) -> bool:
    """Whether `op` becomes `scf.parallel` + `scf.reduce`: its lambda is the operator
    (`msoac.OPERATOR_ATTR`) on one scalar accumulator of its one input's element type
    (`scf.reduce` combines each value on its own, so a tuple operator stays a fold)."""
    if msoac.OPERATOR_ATTR not in op.attributes or nested_in_parallel(op):
        return False
    if len(op.neutral) != 1 or len(op.inputs) != 1:
        return False
    t = op.neutral[0].type
    return not isinstance(t, MemRefType) and rank_of(op.inputs[0].type) == 1 and \
        _memref(op.inputs[0]).element_type == t


def _reduce_parallel(b: CodeBuilder, op: msoac.ReduceOp, n: SSAValue,
                     interleaved: bool = False) -> SSAValue:
    """`scf.parallel` over the rows yielding each to `scf.reduce`, whose region is the
    lambda (the operator): run in order it is the left fold from the neutral element.
    `interleaved` marks it (`INTERLEAVED_ATTR`): its threads may take interleaved rows."""
    block = Block(arg_types=[b.index(0).type])
    inner = CodeBuilder.at_end(block)
    x = inner.load(op.inputs[0], [inner.to_i64(block.args[0])])
    lam = op.body.block
    term = lam.last_op
    assert isinstance(term, msoac.YieldOp)
    (y,) = term.values
    Rewriter.replace_op(term, scf.ReduceReturnOp(y))
    op.body.detach_block(lam)
    inner.add(scf.ReduceOp([x], [Region(lam)]))
    par = b.add(scf.ParallelOp([b.index(0)], [b.to_index(n)], [b.index(1)], Region(block),
                               [op.neutral[0]]))
    if interleaved:
        par.attributes[INTERLEAVED_ATTR] = UnitAttr()
    return par.res[0]


def _blocked_reduction(op: msoac.ReduceOp) -> bool:
    """Whether `op` becomes the blocked reduction: outermost, its combining operator
    known (redomap's `combine`, or a tuple operator), and its accumulators scalars (one
    partial result per chunk) or arrays the lambda may fold into a buffer per chunk
    (Note [Array accumulators])."""
    if nested_in_parallel(op) or op.operator() is None:
        return False
    if any(isinstance(z.type, CertType) for z in op.neutral):
        return False
    if not any(isinstance(z.type, MemRefType) for z in op.neutral):
        return True
    operator = op.operator()
    assert operator is not None
    k = len(op.neutral)
    accs = [a.type for a in operator.block.args[:k]]
    partials = [a.type for a in operator.block.args[k:]]
    return all(_identity(z.type) for z in op.neutral if isinstance(z.type, MemRefType)) \
        and accs == [z.type for z in op.neutral] \
        and all(p == z.type or _views_row(p, z.type)
                for p, z in zip(partials, op.neutral, strict=True)) \
        and _writes_only_own(op.body, k) and _writes_only_own(operator, k)


def _parts_type(t: Attribute) -> MemRefType:
    """The buffer of partial results for an accumulator of type `t`: one row each."""
    if isinstance(t, MemRefType):
        return MemRefType(t.element_type, [DYNAMIC_INDEX] * (1 + t.get_num_dims()))
    return MemRefType(t, [DYNAMIC_INDEX])


def _views_row(p: Attribute, t: Attribute) -> bool:
    """Whether a row of `_parts_type(t)` can be cast to `p`: the same view, or one with
    dynamic strides and offset."""
    if not isinstance(t, MemRefType) or not isinstance(p, MemRefType):
        return False
    row = row_of(_parts_type(t))
    if p == row:
        return True
    layout = p.layout
    return p.element_type == t.element_type and p.get_num_dims() == t.get_num_dims() \
        and isinstance(layout, StridedLayoutAttr) and isinstance(layout.offset, NoneAttr) \
        and all(isinstance(d, NoneAttr) for d in layout.strides.data) \
        and all(d == DYNAMIC_INDEX for d in p.get_shape())


# Note [Array accumulators]
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# A reduction whose accumulator is an array (`reduce(fn ([real] a, [real] b) =>
# map(op +, zip(a, b)), replicate(n, 0.0), rows)`, a histogram) is blocked like a scalar
# one when it has more than one chunk: each chunk folds its rows starting from a copy of
# its own of the neutral element when the lambda may update its accumulator in place
# (else from the neutral element itself, which then no chunk writes), and copies its
# result into row c of a [C, shape] buffer of partials; the partials are then combined
# with the operator in chunk order. (The copy is one allocation per chunk that memory
# planning leaves in the parallel loop: the fold consumes it.) A redomap (the `map`
# fused into that `reduce`: `combine` is the operator, the lambda the fold mapping each
# row) is blocked the same way: the chunks fold with the lambda, the partials are
# combined with `combine`, each partial a buffer of its own. This is only sound when
# the lambda and the operator write nothing but their accumulators and what they
# allocate themselves: a lambda writing into a free array, or into a row of its input,
# shared by the chunks, keeps the sequential fold (`_writes_only_own`). A partial
# whose shape is not the neutral element's (an operator whose neutral element is not
# one, e.g. an empty array) cannot be stored as a row: then the whole fold runs again
# sequentially, which gives the left fold's result. With one chunk (`cpu`, short
# inputs, inside a thread) it is the sequential fold itself.

_VIEWS = (memref.SubviewOp, memref.CastOp, memref.ReinterpretCastOp)
_READS = (memref.LoadOp, memref.DimOp, memref.ExtractStridedMetaDataOp, *_VIEWS)


def _identity(t: Attribute) -> bool:
    return isinstance(t, MemRefType) and isinstance(t.layout, NoneAttr) \
        and all(d == DYNAMIC_INDEX for d in t.get_shape())


def _writes_only_own(lam: Region, accumulators: int) -> bool:
    """Whether the lambda `lam` only reads arrays other than its first `accumulators`
    arguments and the buffers it allocates (Note [Array accumulators]): every use of an
    array rooted in a free value or an input row is a load, a size, a view, the source of
    a copy or an input of a nested SOAC."""
    args: list[SSAValue] = list(lam.block.args)

    def shared(v: SSAValue) -> bool:
        if v in args:
            return args.index(v) >= accumulators
        owner = v.owner
        if not _defined_in(v, lam):
            return True
        return isinstance(owner, _VIEWS) and shared(owner.operands[0])

    for inner in walk_ops(lam):
        for k, v in enumerate(inner.operands):
            if not isinstance(v.type, MemRefType) or not shared(v):
                continue
            if isinstance(inner, _READS) or (isinstance(inner, memref.CopyOp) and k == 0):
                continue
            ins = getattr(inner, "inputs", None)
            outs = getattr(inner, "outs", ())
            if ins is not None and v in ins and v not in outs:
                continue
            return False
    return True


def _defined_in(v: SSAValue, region: Region) -> bool:
    owner = v.owner
    cur: Operation | None = owner if isinstance(owner, Operation) else owner.parent_op()
    parent = region.parent_op()
    if isinstance(owner, Block) and owner.parent is region:
        return True
    while cur is not None:
        if cur.parent_region() is region:
            return True
        if cur is parent:
            return False
        cur = cur.parent_op()
    return False


def _reduce_blocked(b: CodeBuilder, op: msoac.ReduceOp, n: SSAValue,
                    owned: Sequence[int], interleaved: bool = False) -> list[SSAValue]:
    """The blocked reduction (Note [Parallel width]): with C chunks, each chunk folded
    with the lambda from the neutral elements, in parallel, into its partial results;
    then the partials combined with the operator in chunk order. With one chunk it is
    the left fold from the neutral elements (copies of its own of those in `owned`,
    Note [Accumulators updated in place]), and nothing is combined. Array
    accumulators: Note [Array accumulators]. `interleaved`: chunk c of scalar
    accumulators folds rows c, c + C, c + 2C, ... (Note [Interleaved chunks] in
    `l0.lowering.scf.segment_reductions`)."""
    count = chunk_count(b, n, op)
    if not any(isinstance(z.type, MemRefType) for z in op.neutral):
        return _scalar_partials(b, op, n, count, interleaved)
    types = [z.type for z in op.neutral]

    def sequential(sb: CodeBuilder) -> list[SSAValue]:
        return _fold_rows(sb, op.body, _starts(sb, op, owned), list(op.inputs), sb.i64(0), n)

    def blocked(pb: CodeBuilder) -> list[SSAValue]:
        return _array_partials(pb, op, n, count, sequential)

    return b.if_(b.cmpi("sgt", count, b.i64(1)), types, blocked, sequential)


def _scalar_partials(b: CodeBuilder, op: msoac.ReduceOp, n: SSAValue,
                     count: SSAValue, interleaved: bool = False) -> list[SSAValue]:
    inputs = list(op.inputs)
    operator = op.operator()
    assert operator is not None
    parts = [b.alloc(MemRefType(z.type, [DYNAMIC_INDEX]), [count]) for z in op.neutral]

    def chunk(cb: CodeBuilder, c: SSAValue) -> None:
        if interleaved:
            folded = _fold_interleaved(cb, op.body, op.neutral, inputs, c, n, count)
        else:
            lo, hi = chunk_bounds(cb, c, n, count)
            folded = _fold_rows(cb, op.body, op.neutral, inputs, lo, hi)
        for v, m in zip(folded, parts, strict=True):
            cb.store(v, m, [c])

    chunks = parallel_for(b, b.i64(0), count, chunk)

    def combine(lb: CodeBuilder, c: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        return inline_lambda(operator.clone().block, lb, [*acc, *[lb.load(m, [c]) for m in parts]])

    results = b.for_(b.i64(1), count, [b.load(m, [b.i64(0)]) for m in parts], combine)
    loop = results[0].owner
    assert isinstance(loop, Operation)
    mark_blocked_reduction(chunks, loop)
    return results


def _own_copy(b: CodeBuilder, v: SSAValue) -> SSAValue:
    """A fresh buffer (identity layout) holding a copy of the array `v`."""
    t = _memref(v)
    fresh = b.alloc(MemRefType(t.element_type, [DYNAMIC_INDEX] * t.get_num_dims()), b.dims(v))
    b.copy(v, fresh)
    return fresh


def _array_partials(b: CodeBuilder, op: msoac.ReduceOp, n: SSAValue, count: SSAValue,
                    sequential: Callable[[CodeBuilder], list[SSAValue]]) -> list[SSAValue]:
    """More than one chunk, some accumulators arrays (Note [Array accumulators])."""
    inputs = list(op.inputs)
    operator = op.operator()
    assert operator is not None
    shapes = [b.dims(z) if isinstance(z.type, MemRefType) else [] for z in op.neutral]
    parts = [b.alloc(_parts_type(z.type), [count, *s])
             for z, s in zip(op.neutral, shapes, strict=True)]
    k = len(op.neutral)
    # The operator takes the second partial as a row view or as a buffer of its own.
    second = [a.type for a in operator.block.args[k:]]
    views = [t != z.type for t, z in zip(second, op.neutral, strict=True)]
    fits = b.alloc(MemRefType(i1, [DYNAMIC_INDEX]), [count])
    # A lambda that never writes its accumulator can start every chunk from the shared
    # neutral element; one that may needs a copy per chunk.
    updates = not _writes_only_own(op.body, 0)

    def chunk(cb: CodeBuilder, c: SSAValue) -> None:
        lo, hi = chunk_bounds(cb, c, n, count)
        own = [_own_copy(cb, z) if s and updates else z
               for z, s in zip(op.neutral, shapes, strict=True)]
        folded = _fold_rows(cb, op.body, own, inputs, lo, hi)
        same = cb.all_of([cb.cmpi("eq", d, e) for v, s in zip(folded, shapes, strict=True)
                          for d, e in zip(cb.dims(v) if s else [], s, strict=True)])
        cb.store(same, fits, [c])

        def keep(kb: CodeBuilder) -> list[SSAValue]:
            for v, m, s in zip(folded, parts, shapes, strict=True):
                if s:
                    kb.copy(v, kb.row(m, [c]))
                else:
                    kb.store(v, m, [c])
            return []

        cb.if_(same, [], keep)

    parallel_for(b, b.i64(0), count, chunk)

    def all_fit(lb: CodeBuilder, c: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        return [lb.andi(acc[0], lb.load(fits, [c]))]

    (fit,) = b.for_(b.i64(0), count, [b.bool(True)], all_fit)

    def partial(pb: CodeBuilder, c: SSAValue, as_view: Sequence[bool]) -> list[SSAValue]:
        out: list[SSAValue] = []
        for m, s, view, t in zip(parts, shapes, as_view, second, strict=True):
            v = pb.row(m, [c])
            out.append(v if not s else pb.cast(v, t) if view else _own_copy(pb, v))
        return out

    def combined(cb: CodeBuilder) -> list[SSAValue]:
        def step(lb: CodeBuilder, c: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
            return inline_lambda(operator.clone().block, lb, [*acc, *partial(lb, c, views)])

        first = partial(cb, cb.i64(0), [False] * k)
        return cb.for_(cb.i64(1), count, first, step)

    return b.if_(fit, [z.type for z in op.neutral], combined, sequential)


class LowerScan(RewritePattern):
    """`msoac.scan` -> `scf.for` carrying the accumulators, storing each one."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: msoac.ScanOp, rewriter: PatternRewriter) -> None:
        b = CodeBuilder.before(op)
        inputs, outs = list(op.inputs), list(op.outs)
        n = b.dim(inputs[0], 0)
        if _blocked_scan(op):
            _scan_blocked(b, op, n)
            rewriter.erase(op)
            return
        k = len(op.neutral)
        carried = [*op.neutral, *[empty_result(b, _memref(r)) for r in op.allocated]]
        block = op.body.block
        loc = _loc(op)

        def body(lb: CodeBuilder, i: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
            ys = inline_lambda(block, lb, [*acc[:k], *rows(lb, inputs, i)])
            scalars = iter(outs)
            allocated = iter(acc[k:])
            results: list[SSAValue] = []
            for y in ys:
                if isinstance(y.type, MemRefType):
                    results.append(allocated_row(lb, next(allocated), y, i, n, loc))
                else:
                    store_row(lb, y, next(scalars), i)
            return [*ys, *results]

        results = b.for_(b.i64(0), n, carried, body)
        rewriter.replace(op, [], results[k:])


def _blocked_scan(op: msoac.ScanOp) -> bool:
    """Whether `op` becomes the blocked scan: outermost, its accumulators scalars, and
    either it has an `operator` (a chunk's total is folded from the neutral elements),
    or its accumulators are of its inputs' element types (the lambda is the operator,
    and a chunk's total starts from its first row)."""
    if op.allocated or nested_in_parallel(op):
        return False
    if op.operator is not None:
        return all(not isinstance(z.type, MemRefType) for z in op.neutral)
    if len(op.neutral) != len(op.inputs):
        return False
    return all(not isinstance(z.type, MemRefType) and rank_of(a.type) == 1
               and _memref(a).element_type == z.type
               for z, a in zip(op.neutral, op.inputs, strict=True))


def _fold_rows(b: CodeBuilder, lam: Region, accs: Sequence[SSAValue],
               inputs: Sequence[SSAValue], lo: SSAValue, hi: SSAValue,
               outs: Sequence[SSAValue] = ()) -> list[SSAValue]:
    """Fold rows [lo, hi) into `accs` with a copy of the lambda `lam`; with `outs`,
    store every accumulator at its row (a scan)."""

    def body(lb: CodeBuilder, i: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        ys = inline_lambda(lam.clone().block, lb, [*acc, *rows(lb, inputs, i)])
        for y, o in zip(ys, outs, strict=False):
            lb.store(y, o, [i])
        return ys

    return b.for_(lo, hi, list(accs), body)


def _fold_interleaved(b: CodeBuilder, lam: Region, accs: Sequence[SSAValue],
                      inputs: Sequence[SSAValue], c: SSAValue, n: SSAValue,
                      count: SSAValue) -> list[SSAValue]:
    """Fold rows c, c + count, c + 2 count, ... below n into `accs` with a copy of the
    lambda `lam`, counted by trips (Note [Stepped loops without overflow] in
    `l0.lowering.loop_ir.parallel_loops`). The GPU's kernel takes `count` as its thread
    count (`l0.lowering.gpu.host`), so thread t then folds rows t, t + P, ..."""
    trips = ceil_div(b, b.maxsi(b.subi(n, c), b.i64(0)), count)

    def body(lb: CodeBuilder, t: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        i = lb.addi(c, lb.muli(t, count))
        return inline_lambda(lam.clone().block, lb, [*acc, *rows(lb, inputs, i)])

    return b.for_(b.i64(0), trips, list(accs), body)


def _scan_blocked(b: CodeBuilder, op: msoac.ScanOp, n: SSAValue) -> None:
    """The blocked scan (Note [Parallel width]): with C chunks, (1) the total of each
    chunk but the last, in parallel, folding from its first row (or, with an
    `operator`, from the neutral elements: the fold also maps each row); (2) the
    carry-in of each chunk, an exclusive scan of the totals from the neutral elements
    with the operator; (3) each chunk scanned from its carry-in, in parallel. With one
    chunk, (1) and (2) are skipped and (3) is the sequential scan."""
    inputs, outs = list(op.inputs), list(op.outs)
    types: list[Attribute] = [z.type for z in op.neutral]
    count = chunk_count(b, n, op)
    carry = [b.alloc(MemRefType(t, [DYNAMIC_INDEX]), [count]) for t in types]
    lam = op.body
    operator = lam if op.operator is None else op.operator

    def totals(tb: CodeBuilder) -> list[SSAValue]:
        # carry[c + 1] := the total of chunk c, for every chunk but the last.
        def chunk(cb: CodeBuilder, c: SSAValue) -> None:
            lo, hi = chunk_bounds(cb, c, n, count)
            if op.operator is None:
                total = _fold_rows(cb, lam, rows(cb, inputs, lo), inputs,
                                   cb.addi(lo, cb.i64(1)), hi)
            else:
                total = _fold_rows(cb, lam, list(op.neutral), inputs, lo, hi)
            for t, m in zip(total, carry, strict=True):
                cb.store(t, m, [cb.addi(c, cb.i64(1))])

        parallel_for(tb, tb.i64(0), tb.subi(count, tb.i64(1)), chunk)

        # carry[c] := neutral (+) total 0 (+) ... (+) total c-1.
        def inclusive(lb: CodeBuilder, c: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
            chunk_totals = [lb.load(m, [c]) for m in carry]
            new = inline_lambda(operator.clone().block, lb, [*acc, *chunk_totals])
            for v, m in zip(new, carry, strict=True):
                lb.store(v, m, [c])
            return new

        tb.for_(tb.i64(1), count, list(op.neutral), inclusive)
        return []

    for z, m in zip(op.neutral, carry, strict=True):
        b.store(z, m, [b.i64(0)])
    b.if_(b.cmpi("sgt", count, b.i64(1)), [], totals)

    def scan_chunk(cb: CodeBuilder, c: SSAValue) -> None:
        lo, hi = chunk_bounds(cb, c, n, count)
        _fold_rows(cb, lam, [cb.load(m, [c]) for m in carry], inputs, lo, hi, outs)

    parallel_for(b, b.i64(0), count, scan_chunk)


class LowerFilter(RewritePattern):
    """`msoac.filter` -> a loop computing and counting the flags, then a filling loop."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: msoac.FilterOp, rewriter: PatternRewriter) -> None:
        b = CodeBuilder.before(op)
        inputs = list(op.inputs)
        n = b.dim(inputs[0], 0)
        flags = b.alloc(MemRefType(i1, [DYNAMIC_INDEX]), [n])
        if not nested_in_parallel(op):
            rewriter.replace(op, [], _filter_blocked(b, op, n, flags))
            return
        total = _count_kept(b, op, flags, b.i64(0), n)
        outs = [b.alloc(_memref(r), [total, *b.dims(a)[1:]])
                for r, a in zip(op.outputs, inputs, strict=True)]
        _fill_kept(b, inputs, outs, flags, b.i64(0), n, b.i64(0))
        rewriter.replace(op, [], outs)


def _count_kept(b: CodeBuilder, op: msoac.FilterOp | msoac.PartitionOp, flags: SSAValue,
                lo: SSAValue,
                hi: SSAValue) -> SSAValue:
    """A loop over rows [lo, hi) of `op`'s inputs storing the predicate in `flags`; the
    number of rows kept."""
    inputs = list(op.inputs)
    block = op.body.clone().block

    def step(lb: CodeBuilder, i: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        (keep,) = inline_lambda(block, lb, rows(lb, inputs, i))
        lb.store(keep, flags, [i])
        return [lb.addi(acc[0], lb.val(_extui(keep)))]

    (kept,) = b.for_(lo, hi, [b.i64(0)], step)
    return kept


def _fill_kept(b: CodeBuilder, inputs: Sequence[SSAValue], outs: Sequence[SSAValue],
               flags: SSAValue, lo: SSAValue, hi: SSAValue, first: SSAValue) -> None:
    """A loop copying the rows [lo, hi) of `inputs` whose flag is set to `outs`, from
    row `first` of `outs` on."""

    def step(lb: CodeBuilder, i: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        j = acc[0]

        def kept(then: CodeBuilder) -> list[SSAValue]:
            for a, o in zip(inputs, outs, strict=True):
                store_row(then, then.row(a, [i]), o, j)
            return [then.addi(j, then.i64(1))]

        return lb.if_(lb.load(flags, [i]), [i64], kept, lambda other: [j])

    b.for_(lo, hi, [first], step)


def _counted_chunks(b: CodeBuilder, op: msoac.FilterOp | msoac.PartitionOp, n: SSAValue,
                    flags: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
    """The counting pass of a blocked filter or partition: in parallel, each chunk
    evaluates the predicate into `flags` and counts what it keeps; then an exclusive
    scan of the counts. The chunk count, each chunk's first kept row (`offsets`) and
    the number of kept rows."""
    count = chunk_count(b, n, op)
    offsets = b.alloc(MemRefType(i64, [DYNAMIC_INDEX]), [count])

    def count_chunk(cb: CodeBuilder, c: SSAValue) -> None:
        lo, hi = chunk_bounds(cb, c, n, count)
        cb.store(_count_kept(cb, op, flags, lo, hi), offsets, [c])

    parallel_for(b, b.i64(0), count, count_chunk)

    def exclusive(lb: CodeBuilder, c: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        kept = lb.load(offsets, [c])
        lb.store(acc[0], offsets, [c])
        return [lb.addi(acc[0], kept)]

    (total,) = b.for_(b.i64(0), count, [b.i64(0)], exclusive)
    return count, offsets, total


def _filter_blocked(b: CodeBuilder, op: msoac.FilterOp, n: SSAValue,
                    flags: SSAValue) -> list[SSAValue]:
    """The blocked filter (Note [Parallel width]): in parallel, each chunk evaluates the
    predicate into `flags` and counts what it keeps; an exclusive scan of the counts
    gives each chunk's first output row (and the total, the result's size); in
    parallel, each chunk copies its kept rows from there."""
    inputs = list(op.inputs)
    count, offsets, total = _counted_chunks(b, op, n, flags)
    outs = [b.alloc(_memref(r), [total, *b.dims(a)[1:]])
            for r, a in zip(op.outputs, inputs, strict=True)]

    def fill_chunk(cb: CodeBuilder, c: SSAValue) -> None:
        lo, hi = chunk_bounds(cb, c, n, count)
        _fill_kept(cb, inputs, outs, flags, lo, hi, cb.load(offsets, [c]))

    parallel_for(b, b.i64(0), count, fill_chunk)
    return outs


class LowerPartition(RewritePattern):
    """`msoac.partition` -> the filter's loops, the filling loop writing each row to
    the buffers of its class: one pass computing and counting the flags, one pass
    writing (Note [Partition])."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: msoac.PartitionOp, rewriter: PatternRewriter) -> None:
        b = CodeBuilder.before(op)
        inputs = list(op.inputs)
        n = b.dim(inputs[0], 0)
        flags = b.alloc(MemRefType(i1, [DYNAMIC_INDEX]), [n])
        concats = concatenations(op)
        if concats is not None:
            _partition_into(b, op, n, flags, concats, rewriter)
            return
        if not nested_in_parallel(op):
            rewriter.replace(op, [], _partition_blocked(b, op, n, flags))
            return
        total = _count_kept(b, op, flags, b.i64(0), n)
        kept, rejected = _partition_outputs(b, op, n, total)
        _fill_classes(b, inputs, kept, rejected, flags, b.i64(0), n, b.i64(0), b.i64(0))
        rewriter.replace(op, [], [*kept, *rejected])


def _partition_into(b: CodeBuilder, op: msoac.PartitionOp, n: SSAValue, flags: SSAValue,
                    concats: Sequence[Concatenation], rewriter: PatternRewriter) -> None:
    """The partition writing each input's concatenation of its classes, a buffer of n
    rows: the kept rows first, the others from row `total` on (Note [Partition into
    its concatenation] in `l0.lowering.scf.partition_concat`)."""
    dests = [b.alloc(c.buffer.memref.type, [n]) for c in concats]
    inputs = list(op.inputs)
    if nested_in_parallel(op):
        total = _count_kept(b, op, flags, b.i64(0), n)
        _fill_classes(b, inputs, dests, dests, flags, b.i64(0), n, b.i64(0), total)
    else:
        total = _fill_blocked(b, op, n, flags, lambda _total: (dests, dests), into_one=True)
    rest = b.subi(n, total)
    for c, dest in zip(concats, dests, strict=True):
        # The classes' sizes: their `memref.dim`s stay (a lowering that follows the ops
        # after the SOAC's place may hold the first), of views of the two halves.
        kept = b.subview(dest, [0], [total], c.views[0].result.type)
        rejected = b.subview(dest, [total], [rest], c.views[1].result.type)
        for copy in c.copies:
            rewriter.erase(copy)
        for view in c.views:
            rewriter.erase(view)
        for dims, half in ((c.kept_dims, kept), (c.rejected_dims, rejected)):
            for dim in dims:
                dim.operands[0] = half
        rewriter.replace(c.buffer, [], [dest])
    rewriter.erase(op)


# Note [Partition]
# ~~~~~~~~~~~~~~~~
# Two filters with complementary predicates read their input twice each (flags, then
# the kept rows) and evaluate the predicate twice per row. As one partition, the flags
# pass counts the kept rows (per chunk, as the blocked filter does); the rejected rows
# before chunk c are then its start minus the kept rows before it, so the one writing
# pass sends each row to its class, at the next free row of the class's buffers: each
# class keeps the input order, as the two filters did.


def _partition_outputs(b: CodeBuilder, op: msoac.PartitionOp, n: SSAValue,
                       total: SSAValue) -> tuple[list[SSAValue], list[SSAValue]]:
    """The buffers of the kept (`total` rows) and the rejected (the other rows) class."""
    inputs = list(op.inputs)
    rest = b.subi(n, total)
    kept = [b.alloc(_memref(r), [total, *b.dims(a)[1:]])
            for r, a in zip(op.kept, inputs, strict=True)]
    rejected = [b.alloc(_memref(r), [rest, *b.dims(a)[1:]])
                for r, a in zip(op.rejected, inputs, strict=True)]
    return kept, rejected


def _fill_classes(b: CodeBuilder, inputs: Sequence[SSAValue], kept: Sequence[SSAValue],
                  rejected: Sequence[SSAValue], flags: SSAValue, lo: SSAValue,
                  hi: SSAValue, first_kept: SSAValue, first_rejected: SSAValue) -> None:
    """A loop copying the rows [lo, hi) of `inputs` to `kept` (flag set) or `rejected`,
    from rows `first_kept` and `first_rejected` of them on."""

    def step(lb: CodeBuilder, i: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        j, k = acc

        def copy_row(cb: CodeBuilder, outs: Sequence[SSAValue], at: SSAValue) -> SSAValue:
            for a, o in zip(inputs, outs, strict=True):
                store_row(cb, cb.row(a, [i]), o, at)
            return cb.addi(at, cb.i64(1))

        return lb.if_(lb.load(flags, [i]), [i64, i64],
                      lambda then: [copy_row(then, kept, j), k],
                      lambda other: [j, copy_row(other, rejected, k)])

    b.for_(lo, hi, [first_kept, first_rejected], step)


def _partition_blocked(b: CodeBuilder, op: msoac.PartitionOp, n: SSAValue,
                       flags: SSAValue) -> list[SSAValue]:
    """The blocked partition (Note [Parallel width], Note [Partition]): the blocked
    filter's counting pass and scan, then in parallel each chunk writes its rows to
    their classes."""
    outputs: list[SSAValue] = []

    def buffers(total: SSAValue) -> tuple[list[SSAValue], list[SSAValue]]:
        kept, rejected = _partition_outputs(b, op, n, total)
        outputs.extend([*kept, *rejected])
        return kept, rejected

    _fill_blocked(b, op, n, flags, buffers, into_one=False)
    return outputs


def _fill_blocked(b: CodeBuilder, op: msoac.PartitionOp, n: SSAValue, flags: SSAValue,
                  buffers: Callable[[SSAValue], tuple[list[SSAValue], list[SSAValue]]],
                  into_one: bool) -> SSAValue:
    """The counting pass and scan, then the writing pass into `buffers(total)`, the
    kept and the rejected classes' buffers (with `into_one`, the same buffers, the
    rejected rows from row `total` on); the number of kept rows."""
    inputs = list(op.inputs)
    count, offsets, total = _counted_chunks(b, op, n, flags)
    kept, rejected = buffers(total)

    def fill_chunk(cb: CodeBuilder, c: SSAValue) -> None:
        lo, hi = chunk_bounds(cb, c, n, count)
        first = cb.load(offsets, [c])
        first_rejected = cb.subi(lo, first)
        if into_one:
            first_rejected = cb.addi(total, first_rejected)
        _fill_classes(cb, inputs, kept, rejected, flags, lo, hi, first, first_rejected)

    parallel_for(b, b.i64(0), count, fill_chunk)
    return total


def _extui(v: SSAValue) -> Operation:
    return arith.ExtUIOp(v, i64)


class LowerIota(RewritePattern):
    """`msoac.iota` -> a loop storing i at i."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: msoac.IotaOp, rewriter: PatternRewriter) -> None:
        b = CodeBuilder.before(op)

        def body(lb: CodeBuilder, i: SSAValue) -> None:
            lb.store(i, op.out, [i])

        _fill_loop(b, op, b.dim(op.out, 0), body)
        rewriter.erase(op)


class LowerReplicate(RewritePattern):
    """`msoac.replicate` -> a loop storing (or copying) the value into every row."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: msoac.ReplicateOp, rewriter: PatternRewriter) -> None:
        b = CodeBuilder.before(op)

        def body(lb: CodeBuilder, i: SSAValue) -> None:
            store_row(lb, op.value, op.out, i)

        _fill_loop(b, op, b.dim(op.out, 0), body)
        rewriter.erase(op)


def _fill_loop(b: CodeBuilder, op: Operation, n: SSAValue,
               body: Callable[[CodeBuilder, SSAValue], None]) -> None:
    """A loop over rows [0, n) with no carried values: parallel unless nested."""
    if not nested_in_parallel(op):
        parallel_for(b, b.i64(0), n, body)
        return

    def step(lb: CodeBuilder, i: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        body(lb, i)
        return []

    b.for_(b.i64(0), n, [], step)


def _lower_named(patterns: GreedyRewritePatternApplier, soac_op: Operation) -> None:
    """Lower `soac_op`, naming the parallel loops made for it after it (Note [Names of
    parallel sites] in `l0.lowering.loop_ir.profile`): they are made where it stood."""
    name = site_name(soac_op, soac_op.name.partition(".")[2])
    block, before, after = soac_op.parent_block(), soac_op.prev_op, soac_op.next_op
    patterns.match_and_rewrite(soac_op, PatternRewriter(soac_op))
    assert block is not None
    made: list[Operation] = []
    cur = before.next_op if before is not None else block.first_op
    while cur is not None and cur is not after:
        made.append(cur)
        cur = cur.next_op
    tag_untagged(made, (scf.ParallelOp,), name)


_LOWERED = frozenset((msoac.MapOp, msoac.ReduceOp, msoac.ScanOp, msoac.FilterOp,
                      msoac.PartitionOp, msoac.IotaOp, msoac.ReplicateOp))
"""The op classes the pass lowers, tested by exact class (l0's op classes have no
subclasses; Note [Class tests by class] in `l0.passes.cores.common_subexpressions`)."""


@dataclass(frozen=True)
class ConvertSoacToScfPass(ModulePass):
    """Lower msoac ops (bufferised SOACs) to loops with inlined lambdas: scf.parallel
    (+ scf.reduce) for the parallel SOAC levels, scf.for for what is nested in them.

    A `soac.threshold` (the choice between the versions of a nest, multicore's `-O`)
    becomes the comparison with its run-time parameter, and the perfect nests of the
    flattened version are two-dimensional loops as with `wide_nests`
    (`l0.lowering.loop_ir.versions`).

    Runs after `bufferise`; the result has no msoac op left: func + scf + arith +
    math + memref (+ `soac.assert`), the input level of the CPU back ends
    (`docs/backend.md`; `multicore` runs `convert-parallel-to-omp` next). The module
    docstring of `l0.lowering.scf.convert_soac_to_scf` shows the loop each op becomes.
    """

    name = "convert-soac-to-scf"

    interleave: bool = False
    """A parallel reduction whose operator commutes and whose lambda cannot fail folds
    interleaved chunks (the GPU back ends: coalesced loads, Note [Interleaved chunks] in
    `l0.lowering.scf.segment_reductions`)."""

    wide_nests: bool = False
    """Make a two-dimensional loop of every perfect nest of two maps, also those whose
    inner lambda reads the outer rows or maps arrays from outside the nest (what
    `distribute` leaves; the gpu's lowering), not only maps of maps over rows."""

    profile: bool = False
    """The thresholds of versioned nests note the sizes they compare (`l0 autotune`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Outer SOACs first: lowering one moves (never copies) the SOACs nested in its
        # lambda into the new loop, where they are lowered in turn. (xDSL's greedy
        # walker would revisit the lambdas' yields, which the lowering erases.)
        patterns = GreedyRewritePatternApplier(
            [LowerMap(self.wide_nests), LowerReduce(self.interleave), LowerScan(), LowerFilter(),
             LowerPartition(), LowerIota(), LowerReplicate()],
            dce_enabled=False,
        )
        # The blocked forms clone lambdas, and the SOACs in the clones are new: repeat
        # until none is left.
        while todo := [o for o in walk_ops(op) if type(o) in _LOWERED]:
            for soac_op in todo:
                if soac_op.get_toplevel_object() is op:  # not in an erased SOAC
                    _lower_named(patterns, soac_op)
        # the versions of nests (`l0.lowering.loop_ir.versions`)
        lower_thresholds(op, record=self.profile)
