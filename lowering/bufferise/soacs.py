"""Bufferisation of the SOACs: `soac.map/reduce/redomap/scan/scanomap/filter` -> `msoac`
ops.

Inputs become memrefs (rows are bound to the lambda as scalars or views, never
copies). Outputs are decided here:

* a `map` result of scalars, and a `scan` (or `scanomap`) result of scalar
  accumulators, is a fresh one-dimensional buffer allocated before the op (its
  destination);
* a `map` result of arrays gets a destination of the full shape when
  `shapes.row_shape` knows the row shape beforehand, and passes the view of row i on
  to the lambda (Note [Destinations] in `convert.py`); otherwise the op allocates it
  when row 0 is known (an `allocated` result);
* `scan` with array accumulators and `filter` allocate their results themselves;
* `reduce` (and `redomap`, whose meaning is the left fold with its inner lambda) only
  carries accumulators; redomap's outer lambda (the operator combining partial folds)
  is kept as the `combine` region (scalar or array accumulators);
* `scanomap` is the `msoac.scan` of its inner lambda, carrying its outer lambda as the
  scan's `operator` when every accumulator is a scalar (a blocked parallel scan).

An op that was itself given a destination by its parent writes there.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import MemRefType, UnitAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue

from l0.dialects import msoac, soac
from l0.dialects.memref_types import Kind, rank_of, row_of
from l0.lowering.bufferise.arrays import fresh, metadata, reinterpret
from l0.lowering.bufferise.convert import Converter, handles
from l0.lowering.bufferise.readonly import replicated_rows
from l0.lowering.bufferise.rows_in_place import can_take_destination
from l0.lowering.bufferise.shapes import materialise, row_shape
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.checks import enclosing_loc


def takes_destination(v: SSAValue, block: Block) -> bool:
    """Whether the op computing `v` can compute it into a given buffer, in `block` (the
    lambda), with the lambda's yield as its only use (Note [Destinations])."""
    if not isinstance(v, OpResult) or v.op.parent_block() is not block:
        return False
    if len(list(v.uses)) != 1:
        return False
    return can_take_destination(v)


def _identity(cv: Converter, v: SSAValue) -> MemRefType:
    t = cv.type_of(v, Kind.IDENTITY)
    assert isinstance(t, MemRefType)
    return t


def _bind(cv: Converter, b: CodeBuilder, olds: Sequence[BlockArgument],
          news: Sequence[SSAValue]) -> None:
    """Bind lambda arguments; certificates (stored as i1 in arrays) are `Checked`."""
    for o, n in zip(olds, news, strict=True):
        if isinstance(o.type, soac.CertType) and not isinstance(n.type, soac.CertType):
            n = b.val(soac.CheckedOp())
        cv.set(o, n)


def _lambda(cv: Converter, block: Block, arg_types: Sequence[Attribute], bound: int,
            yields: Sequence[SSAValue], yield_types: Sequence[Attribute] | None = None,
            ) -> tuple[Region, Block]:
    """Convert the lambda `block` into a new block with `arg_types`; its first `bound`
    arguments are bound to `block`'s. Yields `yields` (coerced to `yield_types`)."""
    new = Block(arg_types=list(arg_types))
    b = CodeBuilder.at_end(new)
    _bind(cv, b, list(block.args)[:bound], new.args[:bound])
    cv.block(block, b)
    values = [cv.get(y) for y in yields]
    if yield_types is not None:
        values = [cv.coerce(b, v, t) for v, t in zip(values, yield_types, strict=True)]
    b.add(msoac.YieldOp(*values))
    return Region(new), new


# ---------------------------------------------------------------------------------------
# map
# ---------------------------------------------------------------------------------------


def _map_destination(cv: Converter, b: CodeBuilder, op: soac.MapOp, r: OpResult,
                     y: SSAValue, n: SSAValue) -> SSAValue | None:
    """The buffer result `r` is written into, or None if the op must allocate it."""
    given = cv.dest_for.get(r)
    if given is not None:
        return given
    if rank_of(r.type) == 1:
        return b.alloc(_identity(cv, r), [n])
    shape = row_shape(y, op)
    if shape is None:
        return None
    zero = b.i64(0)
    # Clamped: a negative size fails inside the lambda, at its own check, if it runs.
    dims = [b.maxsi(materialise(b, item, cv.get), zero) for item in shape]
    return b.alloc(_identity(cv, r), [n, *dims])


@handles(soac.MapOp)
def _map(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.MapOp)
    if op in cv.views and op.results[0] not in cv.dest_for:
        cv.set(op.results[0], _replicated_rows_view(cv, op, b))
        return
    inputs = [cv.get(v) for v in op.inputs]
    n = b.dim(inputs[0], 0)
    block = op.body.block
    term = block.last_op
    assert term is not None
    yields = list(term.operands)
    to_outs: list[int] = []
    outs: list[SSAValue] = []
    to_alloc: list[int] = []
    for j, (r, y) in enumerate(zip(op.results, yields, strict=True)):
        dest = _map_destination(cv, b, op, r, y, n)
        if dest is None:
            to_alloc.append(j)
        else:
            to_outs.append(j)
            outs.append(dest)
    # Copies of a result of scalars, stored by the map itself (Note [Copies of map results]).
    copied = [(j, c) for j in to_outs for c in _copies_to_compute(cv, op, j)]
    copies = [fresh(cv, b, c.result, [n]) for _, c in copied]
    for (_, c), buf in zip(copied, copies, strict=True):
        cv.computed_copies[c] = buf
    row_types = [row_of(_memref(v)) for v in inputs]
    dest_types = [row_of(_memref(o)) for o in outs if rank_of(o.type) >= 2]
    new = Block(arg_types=[*row_types, *dest_types])
    b_in = CodeBuilder.at_end(new)
    _bind(cv, b_in, block.args, new.args[: len(inputs)])
    dests = iter(new.args[len(inputs):])
    in_row: dict[int, SSAValue] = {}  # result -> its row, computed in place
    for j, o in zip(to_outs, outs, strict=True):
        if rank_of(o.type) >= 2:
            d = next(dests)
            root = cv.in_place.get(yields[j])
            if takes_destination(yields[j], block):
                cv.dest_for[yields[j]] = d
            elif root is not None:
                cv.dest_for[root] = d
                in_row[j] = d
    cv.block(block, b_in)
    # A row computed in place is yielded as the view itself: nothing left to copy.
    b_in.add(msoac.YieldOp(*[in_row[j] if j in in_row else cv.get(yields[j])
                             for j in [*to_outs, *(j for j, _ in copied), *to_alloc]]))
    allocated = [_identity(cv, op.results[j]) for j in to_alloc]
    new_op = b.add(msoac.MapOp(inputs, [*outs, *copies], allocated, Region(new),
                               enclosing_loc(op)))
    for j, o in zip(to_outs, outs, strict=True):
        cv.set(op.results[j], o)
    for j, r in zip(to_alloc, new_op.allocated, strict=True):
        cv.set(op.results[j], r)


# Note [Copies of map results]
# `uu = copy(b)` where `b` is the result of a map of scalars in the same block (a
# tridiagonal solve's `copy(b)` of its diagonal, computed by the coefficients' map)
# copies the elements the map has just stored. The map stores each element into the
# copy's buffer too (one more output, yielding the same value), and the copy is
# nothing more: no second pass over the array, no `memref.copy` call per row. The
# value is the same: nothing can change `b` in between (an in-place update would
# consume `b`, and the copy would read the update's result instead). The copy's buffer
# is its own (or its destination row, Note [Rows computed in place]), allocated before
# the map instead of at the copy, in the same block. A copy `Note [Copy elision]` makes
# free (`b` used by nothing else, no destination) is left to it.


def _copies_to_compute(cv: Converter, op: soac.MapOp, j: int) -> list[soac.CopyOp]:
    """The copies of result `j` of `op` (a map of scalars) that `op` can compute as
    extra outputs (Note [Copies of map results])."""
    r = op.results[j]
    if rank_of(r.type) != 1:
        return []
    users = [u.operation for u in r.uses]
    copies = [c for c in users if isinstance(c, soac.CopyOp)
              and c.parent_block() is op.parent_block()]
    if len(users) == 1 and copies and copies[0].result not in cv.dest_for:
        return []  # the copy is `b` itself (Note [Copy elision])
    return copies


def _replicated_rows_view(cv: Converter, op: soac.MapOp, b: CodeBuilder) -> SSAValue:
    """`map(fn row => replicate(k, row), a)` as a view of `a` whose second dimension
    has stride 0 (only when nobody consumes it, `readonly.py`)."""
    found = replicated_rows(op)
    assert found is not None
    k, j = found
    a = cv.get(op.inputs[j])
    offset, sizes, strides = metadata(b, a)
    t = cv.type_of(op.results[0], Kind.ANY)
    assert isinstance(t, MemRefType)
    return reinterpret(b, a, offset, [sizes[0], cv.get(k), *sizes[1:]],
                       [strides[0], b.i64(0), *strides[1:]], t)


def _memref(v: SSAValue) -> MemRefType:
    assert isinstance(v.type, MemRefType)
    return v.type


# ---------------------------------------------------------------------------------------
# Folds: reduce, redomap, scan
# ---------------------------------------------------------------------------------------


def _fold_parts(cv: Converter,
                op: soac.ReduceOp | soac.ScanOp | soac.RedomapOp | soac.ScanomapOp,
                block: Block, b: CodeBuilder) -> tuple[list[Attribute], list[SSAValue],
                                                       list[SSAValue], Region]:
    """Accumulator types, neutral values, inputs and the converted lambda of a fold."""
    k = len(op.neutral)
    acc_types = [cv.type_of(a) for a in block.args[:k]]
    neutral = cv.coerced(b, op.neutral, acc_types)
    inputs = [cv.get(v) for v in op.inputs]
    row_types = [row_of(_memref(v)) for v in inputs]
    term = block.last_op
    assert term is not None
    region, _ = _lambda(cv, block, [*acc_types, *row_types], len(block.args),
                        list(term.operands), acc_types)
    return acc_types, neutral, inputs, region


def _reduce(cv: Converter, op: soac.ReduceOp | soac.RedomapOp, block: Block,
            b: CodeBuilder) -> None:
    acc_types, neutral, inputs, region = _fold_parts(cv, op, block, b)
    combine = _combine(cv, op, acc_types)
    new = b.add(msoac.ReduceOp(neutral, inputs, acc_types, region, combine))
    if isinstance(op, soac.ReduceOp):
        # The lambda is the associative operator itself (not redomap's fused fold), so
        # partial results may be combined with it: a parallel reduction.
        new.attributes[msoac.OPERATOR_ATTR] = UnitAttr()
    for o, r in zip(op.results, new.outputs, strict=True):
        cv.set(o, cv.coerce(b, r, cv.type_of(o)))


def _combine(cv: Converter, op: soac.ReduceOp | soac.RedomapOp,
             acc_types: Sequence[Attribute]) -> Region | None:
    """Redomap's outer lambda, the operator combining partial folds (a parallel fold
    keeps one partial result per chunk). Kept for array accumulators too, as buffers of
    the accumulators' types: `convert-soac-to-scf` decides whether the fold may run
    blocked (Note [Array accumulators] there) and otherwise ignores it."""
    if not isinstance(op, soac.RedomapOp):
        return None
    block = op.outer.block
    term = block.last_op
    assert term is not None
    region, _ = _lambda(cv, block, [*acc_types, *acc_types], len(block.args),
                        list(term.operands), list(acc_types))
    return region


@handles(soac.ReduceOp)
def _reduce_op(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.ReduceOp)
    _reduce(cv, op, op.body.block, b)


@handles(soac.RedomapOp)
def _redomap(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    # The meaning of redomap is the left fold with its inner lambda (docs/ir.md); the
    # outer lambda, kept as `combine`, only matters to a parallel implementation.
    assert isinstance(op, soac.RedomapOp)
    _reduce(cv, op, op.inner.block, b)


@handles(soac.ScanOp)
def _scan(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.ScanOp)
    _scan_into(cv, op, op.body.block, b)


@handles(soac.ScanomapOp)
def _scanomap(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    # The meaning of scanomap is the inclusive scan of the fold with its inner lambda;
    # the outer lambda (the operator) lets the scan run blocked in parallel.
    assert isinstance(op, soac.ScanomapOp)
    _scan_into(cv, op, op.inner.block, b)


def _scan_into(cv: Converter, op: soac.ScanOp | soac.ScanomapOp, block: Block,
               b: CodeBuilder) -> None:
    n = b.dim(cv.get(op.inputs[0]), 0)
    outs: list[SSAValue] = []
    for r in op.results:
        if rank_of(r.type) == 1:
            given = cv.dest_for.get(r)
            outs.append(given if given is not None else b.alloc(_identity(cv, r), [n]))
    acc_types, neutral, inputs, region = _fold_parts(cv, op, block, b)
    operator = None
    if isinstance(op, soac.ScanomapOp) and len(outs) == len(acc_types):
        # Only scalar accumulators are combined in parallel (`convert-soac-to-scf`).
        outer = op.outer.block
        term = outer.last_op
        assert term is not None
        operator, _ = _lambda(cv, outer, [*acc_types, *acc_types], len(outer.args),
                              list(term.operands), acc_types)
    arrays = [r for r in op.results if rank_of(r.type) > 1]
    new = b.add(msoac.ScanOp(neutral, inputs, outs, [_identity(cv, r) for r in arrays],
                             region, enclosing_loc(op), operator))
    scalars = iter(outs)
    allocated = iter(new.allocated)
    for r in op.results:
        cv.set(r, next(scalars) if rank_of(r.type) == 1 else next(allocated))


# ---------------------------------------------------------------------------------------
# filter
# ---------------------------------------------------------------------------------------


@handles(soac.FilterOp)
def _filter(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.FilterOp)
    inputs = [cv.get(v) for v in op.inputs]
    block = op.body.block
    term = block.last_op
    assert term is not None
    region, _ = _lambda(cv, block, [row_of(_memref(v)) for v in inputs], len(block.args),
                        list(term.operands))
    types = [_identity(cv, r) for r in op.results]
    new = b.add(msoac.FilterOp(inputs, types, region))
    for o, r in zip(op.results, new.outputs, strict=True):
        cv.set(o, r)
