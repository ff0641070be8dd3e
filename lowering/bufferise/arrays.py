"""Bufferisation of the array ops: access, in-place update, views, fresh arrays.

* `index`: a load, or a view of the row (no copy);
* `update` (let-with): a store into its source, or a copy of the new row into the
  source's row; its result *is* the source buffer. Uniqueness typing (thesis 6.1.1,
  checked on the IR by `verify-uniqueness`) guarantees that the source and every alias
  of it are dead afterwards, so this is never observable, and `let a[i] = v` is O(1);
* `transpose`, `split`, `reshape` of a contiguous array: views (a new descriptor over
  the same buffer); a `reshape` of a non-contiguous view copies it first;
* `iota`, `replicate`, `copy`, `concat`, array literals, `empty`: fresh buffers
  (`memref.alloc`), written by `msoac.iota`/`msoac.replicate`, `memref.copy` or stores.
  An op given a destination (Note [Destinations] in `convert.py`) writes there instead.
  `copy` of a fresh array nothing else uses is that array (Note [Copy elision]);
* `size`: `memref.dim`, normalised (Note [Empty arrays and irregularity] in
  `l0.interp.soac`: a dimension after an empty one is 0).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Operation, OpResult, SSAValue

from l0.dialects import msoac, soac
from l0.dialects.memref_types import (
    Kind,
    element_type,
    kind_of,
    memref_type,
    rank_of,
    row_kind,
)
from l0.lowering.bufferise.convert import Converter, handles
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.checks import check_concat, check_row, enclosing_loc, normalised


def _mtype(t: object) -> MemRefType:
    assert isinstance(t, MemRefType)
    return t


def fresh(cv: Converter, b: CodeBuilder, result: SSAValue, dims: Sequence[SSAValue]) -> SSAValue:
    """The buffer `result` is computed into: its destination if it has one, else a new
    identity-layout buffer of shape `dims`."""
    dest = cv.dest_for.get(result)
    if dest is not None:
        return dest
    t = result.type
    assert isinstance(t, TensorType)
    return b.alloc(_mtype(cv.type_of(result, Kind.IDENTITY)), dims)


# ---------------------------------------------------------------------------------------
# Access
# ---------------------------------------------------------------------------------------


@handles(soac.SizeOp)
def _size(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.SizeOp)
    a = cv.get(op.array)
    k = op.dim.data
    dims = [b.dim(a, j) for j in range(k + 1)]
    cv.set(op.result, normalised(b, dims)[k])


@handles(soac.IndexOp)
def _index(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.IndexOp)
    a = cv.get(op.array)
    idx = [cv.get(i) for i in op.indices]
    if not idx:
        cv.set(op.result, a)
        return
    if isinstance(op.result.type, soac.CertType):
        cv.set(op.result, b.val(soac.CheckedOp()))
        return
    cv.set(op.result, b.row(a, idx))


@handles(soac.UpdateOp)
def _update(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.UpdateOp)
    a = cv.get(op.array)
    idx = [cv.get(i) for i in op.indices]
    if isinstance(op.value.type, TensorType):
        if idx:
            b.copy(cv.get(op.value), b.row(a, idx))
        else:
            b.copy(cv.get(op.value), a)
    elif isinstance(op.value.type, soac.CertType):
        b.store(b.bool(True), a, idx)
    else:
        b.store(cv.get(op.value), a, idx)
    cv.set(op.result, a)


# ---------------------------------------------------------------------------------------
# Views
# ---------------------------------------------------------------------------------------


def metadata(b: CodeBuilder, a: SSAValue) -> tuple[SSAValue, list[SSAValue], list[SSAValue]]:
    """Offset, sizes and strides of `a` (index values)."""
    md = b.add(memref.ExtractStridedMetaDataOp(a))
    return md.offset, list(md.sizes), list(md.strides)


def reinterpret(b: CodeBuilder, a: SSAValue, offset: SSAValue | int,
                 sizes: Sequence[SSAValue], strides: Sequence[SSAValue | int],
                 t: MemRefType) -> SSAValue:
    return b.val(memref.ReinterpretCastOp.from_dynamic(
        a, [offset], [b.to_index(s) for s in sizes],
        [s if isinstance(s, int) else b.to_index(s) for s in strides], t))


@handles(soac.TransposeOp)
def _transpose(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.TransposeOp)
    a = cv.get(op.array)
    k, n = op.k.data, op.n.data
    if n == 0:
        cv.set(op.result, a)
        return
    offset, sizes, strides = metadata(b, a)
    # The sizes `soac.size` reports move (Note [Empty arrays and irregularity] in
    # `l0.interp.soac`): a size after an empty dimension may be anything in the buffer,
    # and moving the empty one inwards must not bring it out
    # (`transpose(replicate(0, [1, 2]))` has no rows, not two empty ones).
    sizes = normalised(b, [b.to_i64(s) for s in sizes])
    for lst in (sizes, strides):
        moved = lst.pop(k)
        lst.insert(k + n, moved)
    t = _mtype(cv.type_of(op.result, Kind.ANY))
    view = reinterpret(b, a, offset, sizes, strides, t)
    if op in cv.manifest:  # read over and over: copy it once (`manifest.py`)
        dense = fresh(cv, b, op.result, sizes)
        b.copy(view, dense)
        view = dense
    cv.set(op.result, view)


@handles(soac.SplitOp)
def _split(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.SplitOp)
    a = cv.get(op.array)
    at = cv.get(op.at)
    dims = b.dims(a)
    rest = dims[1:]
    t = memref_type(element_type(_mtype(a.type)), len(dims), row_kind(kind_of(_mtype(a.type))))
    zeros = [0] * len(rest)
    first = b.subview(a, [0, *zeros], [at, *rest], t)
    second = b.subview(a, [at, *zeros], [b.subi(dims[0], at), *rest], t)
    cv.set(op.first, b.cast(first, cv.type_of(op.first)))
    cv.set(op.second, b.cast(second, cv.type_of(op.second)))


def _row_major(b: CodeBuilder, dims: Sequence[SSAValue]) -> list[SSAValue | int]:
    strides: list[SSAValue | int] = [1] * len(dims)
    acc: SSAValue | None = None
    for k in range(len(dims) - 1, 0, -1):
        acc = dims[k] if acc is None else b.muli(acc, dims[k])
        strides[k - 1] = acc
    return strides


def _contiguous(b: CodeBuilder, a: SSAValue) -> SSAValue:
    """Whether `a` is laid out row-major without gaps (any layout if it is empty)."""
    _, sizes, strides = metadata(b, a)
    dims = [b.to_i64(s) for s in sizes]
    one = b.i64(1)
    zero = b.i64(0)
    conds = [b.cmpi("eq", b.product(dims), zero)]
    ok: list[SSAValue] = []
    want = one
    for k in range(len(dims) - 1, -1, -1):
        st = b.to_i64(strides[k])
        ok.append(b.ori(b.cmpi("eq", dims[k], one), b.cmpi("eq", st, want)))
        if k:
            want = b.muli(want, dims[k])
    conds.append(b.all_of(ok))
    return b.ori(conds[0], conds[1])


@handles(soac.ReshapeOp)
def _reshape(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.ReshapeOp)
    a = cv.get(op.array)
    dims = [cv.get(d) for d in op.shape]
    t = _mtype(cv.type_of(op.result))
    if kind_of(_mtype(a.type)) is Kind.IDENTITY:
        view = reinterpret(b, a, 0, dims, _row_major(b, dims), _mtype(cv.type_of(
            op.result, Kind.IDENTITY)))
        cv.set(op.result, b.cast(view, t))
        return
    inner = _mtype(cv.type_of(op.result, Kind.INNER))

    def as_view(then: CodeBuilder) -> list[SSAValue]:
        offset, _, _ = metadata(then, a)
        return [then.cast(reinterpret(then, a, offset, dims, _row_major(then, dims), inner),
                          inner)]

    def copied(other: CodeBuilder) -> list[SSAValue]:
        src = _mtype(a.type)
        buf = other.alloc(memref_type(element_type(src), src.get_num_dims(), Kind.IDENTITY),
                          other.dims(a))
        other.copy(a, buf)
        return [reinterpret(other, buf, 0, dims, _row_major(other, dims), inner)]

    (res,) = b.if_(_contiguous(b, a), [inner], as_view, copied)
    cv.set(op.result, b.cast(res, t))


# ---------------------------------------------------------------------------------------
# Fresh arrays
# ---------------------------------------------------------------------------------------


@handles(soac.CopyOp)
def _copy(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.CopyOp)
    done = cv.computed_copies.get(op)
    if done is not None:  # the map computing the array filled it (Note [Copies of map results])
        cv.set(op.result, done)
        return
    a = cv.get(op.array)
    if _copy_elidable(cv, op, a):
        cv.set(op.result, cv.coerce(b, a, cv.type_of(op.result, Kind.IDENTITY)))
        return
    out = fresh(cv, b, op.result, b.dims(a))
    b.copy(a, out)
    cv.set(op.result, out)


# Note [Copy elision]
# `copy(x)` where x is a fresh array (its buffer allocated here, by `memref.alloc` or as
# a SOAC's allocated result, so no parameter, view or other value shares it) that
# nothing else uses is x itself: no one can observe the difference, as after an
# in-place update. x must be defined in the copy's own block: a copy in a loop of an
# array from before the loop runs once per iteration, and each needs its own array.
# A copy given a destination (a map's row) still copies into it.


def _copy_elidable(cv: Converter, op: soac.CopyOp, a: SSAValue) -> bool:
    """Whether `op` may be its operand's buffer `a` itself (Note [Copy elision])."""
    source = op.array
    if op.result in cv.dest_for or len(list(source.uses)) != 1:
        return False
    if not isinstance(source, OpResult) or source.op.parent_block() is not op.parent_block():
        return False
    owner = a.owner
    fresh_buffer = isinstance(owner, memref.AllocOp) or (
        isinstance(owner, msoac.MapOp | msoac.ScanOp | msoac.FilterOp)
        and a in owner.results)
    t = a.type
    return fresh_buffer and isinstance(t, MemRefType) and kind_of(t) == Kind.IDENTITY


@handles(soac.IotaOp)
def _iota(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.IotaOp)
    out = fresh(cv, b, op.result, [cv.get(op.n)])
    b.add(msoac.IotaOp(out))
    cv.set(op.result, out)


@handles(soac.ReplicateOp)
def _replicate(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.ReplicateOp)
    v = cv.get(op.value)
    if isinstance(op.value.type, soac.CertType):
        v = b.bool(True)
    n = cv.get(op.n)
    if op in cv.views and op.result not in cv.dest_for:
        cv.set(op.result, _replicated_view(cv, b, op, v, n))
        return
    inner = b.dims(v) if isinstance(v.type, MemRefType) else []
    out = fresh(cv, b, op.result, [n, *inner])
    b.add(msoac.ReplicateOp(v, out))
    cv.set(op.result, out)


def _replicated_view(cv: Converter, b: CodeBuilder, op: soac.ReplicateOp, v: SSAValue,
                     n: SSAValue) -> SSAValue:
    """`replicate(n, v)` as a view whose rows are all `v` (outer stride 0): only for
    arrays nobody consumes (`readonly.py`)."""
    t = _mtype(cv.type_of(op.result, Kind.ANY))
    if not isinstance(v.type, MemRefType):
        one = b.alloc(memref_type(v.type, 1, Kind.IDENTITY), [b.i64(1)])
        b.store(v, one, [b.i64(0)])
        return reinterpret(b, one, 0, [n], [b.i64(0)], t)
    offset, sizes, strides = metadata(b, v)
    return reinterpret(b, v, offset, [n, *sizes], [b.i64(0), *strides], t)


@handles(soac.EmptyOp)
def _empty(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.EmptyOp)
    zero = b.i64(0)
    cv.set(op.result, fresh(cv, b, op.result, [zero] * rank_of(op.result.type)))


@handles(soac.ArrayOp)
def _array(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.ArrayOp)
    elems = [cv.get(e) for e in op.elems]
    n = b.i64(len(elems))
    first = elems[0]
    if not isinstance(first.type, MemRefType):
        out = fresh(cv, b, op.result, [n])
        for i, e in enumerate(elems):
            if isinstance(e.type, soac.CertType):
                e = b.bool(True)
            b.store(e, out, [b.i64(i)])
        cv.set(op.result, out)
        return
    loc = enclosing_loc(op)
    row0 = b.dims(first)
    out = fresh(cv, b, op.result, [n, *row0])
    for i, e in enumerate(elems):
        dims = row0 if i == 0 else b.dims(e)
        if i:
            check_row(b, i, dims, row0, loc)
        b.copy(e, b.row(out, [b.i64(i)]))
    cv.set(op.result, out)


@handles(soac.ConcatOp)
def _concat(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.ConcatOp)
    x, y = cv.get(op.a), cv.get(op.b)
    dx, dy = b.dims(x), b.dims(y)
    check_concat(b, dx[0], dy[0], dx[1:], dy[1:], enclosing_loc(op))
    # An empty operand adopts the other's rows (as the interpreter does).
    x_empty = b.cmpi("eq", dx[0], b.i64(0))
    rows = [b.select(x_empty, q, p) for p, q in zip(dx[1:], dy[1:], strict=True)]
    n = b.addi(dx[0], dy[0])
    out = fresh(cv, b, op.result, [n, *rows])
    t = memref_type(element_type(_mtype(out.type)), len(dx), Kind.INNER)
    zeros = [0] * len(rows)
    b.copy(x, b.subview(out, [0, *zeros], [dx[0], *rows], t))
    b.copy(y, b.subview(out, [dx[0], *zeros], [dy[0], *rows], t))
    cv.set(op.result, out)
