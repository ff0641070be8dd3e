"""Array expressions other than SOACs (thesis 4.1 and 4.2; docs/ir.md "The soac dialect").

An array of tuples is a tuple of arrays, so every array operation acts per component:
`split`, `reshape`, `transpose`, `concat`, `copy`, `replicate`, `empty` and indexing
emit one op per flattened component. `zip` emits no array op at all: its arrays are
taken apart, and an assert that their outer sizes agree yields a certificate that
travels with the zipped value (`Flat.certs`) to every op that uses it; `unzip` is free.

Every check the language requires is an explicit `soac.assert` whose certificate the
guarded op takes: bounds of indexing, `iota`/`replicate` counts, reshape element
counts, split points, the row shapes of `concat`. The sizes an array of tuples is
checked by are those of its first component (all components share outer dimensions).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import i32
from xdsl.ir import SSAValue

from l0.dialects import soac
from l0.internalise import checks
from l0.internalise.core import Ctx, const_value, handles
from l0.internalise.env import Flat, concat_flats, join_certs
from l0.internalise.types import add_dims, drop_dims, ir_types, rank_of, tensor_of
from l0.syntax import ast
from l0.types import ArrayType

_STRING = tensor_of(i32, 1)

# ----------------------------------------------------------------------------------
# Constructing arrays.


@handles(ast.ArrayLit)
def array_lit(ctx: Ctx, e: ast.ArrayLit) -> Flat:
    elems = [ctx.exp(x) for x in e.elems]
    width = len(elems[0].values)
    loc = str(e.loc)
    comps: list[SSAValue] = []
    for j in range(width):
        column = [el.values[j] for el in elems]
        result_type = add_dims(column[0].type, 1)
        comps.append(ctx.val(soac.ArrayOp(column, result_type, loc)))
    return Flat.of(comps, join_certs(*(el.certs for el in elems)))


@handles(ast.StringLit)
def string_lit(ctx: Ctx, e: ast.StringLit) -> Flat:
    if not e.value:
        return Flat.of([ctx.val(soac.EmptyOp(_STRING))])
    chars = [ctx.const_char(ord(c)) for c in e.value]
    return Flat.of([ctx.val(soac.ArrayOp(chars, _STRING, str(e.loc)))])


@handles(ast.Empty)
def empty(ctx: Ctx, e: ast.Empty) -> Flat:
    assert e.type is not None
    return Flat.of([ctx.val(soac.EmptyOp(t)) for t in ir_types(e.type)])


@handles(ast.Iota)
def iota(ctx: Ctx, e: ast.Iota) -> Flat:
    assert e.n is not None
    n = ctx.scalar(e.n)
    certs = checks.check_count(ctx, n, "iota", e.loc)
    return Flat.of([ctx.val(soac.IotaOp(n, certs))])


@handles(ast.Replicate)
def replicate(ctx: Ctx, e: ast.Replicate) -> Flat:
    assert e.n is not None and e.value is not None
    n = ctx.scalar(e.n)
    value = ctx.exp(e.value)
    certs = join_certs(checks.check_count(ctx, n, "replicate", e.loc), value.certs)
    return Flat.of([ctx.val(soac.ReplicateOp(n, v, certs)) for v in value.values])


@handles(ast.Copy)
def copy(ctx: Ctx, e: ast.Copy) -> Flat:
    """`copy(e)`: a fresh copy of every array component; scalars are values already."""
    assert e.operand is not None
    value = ctx.exp(e.operand)
    comps = [ctx.val(soac.CopyOp(v)) if rank_of(v.type) else v for v in value.values]
    return Flat.of(comps, value.certs)


# ----------------------------------------------------------------------------------
# zip and unzip.


@handles(ast.Zip)
def zip_(ctx: Ctx, e: ast.Zip) -> Flat:
    parts = [ctx.exp(a) for a in e.arrays]
    firsts = [p.values[0] for p in parts if p.values]
    cert = checks.check_same_sizes(ctx, firsts, "zip", e.loc)
    zipped = concat_flats(parts)
    return Flat.of(zipped.values, join_certs(zipped.certs, cert))


@handles(ast.Unzip)
def unzip(ctx: Ctx, e: ast.Unzip) -> Flat:
    assert e.operand is not None
    return ctx.exp(e.operand)


# ----------------------------------------------------------------------------------
# Indexing and sizes.


@handles(ast.Index)
def index(ctx: Ctx, e: ast.Index) -> Flat:
    assert e.array is not None
    array = ctx.env.lookup(e.array.name)
    given = ctx.cert_vars(e.certs) + ctx.cert_vars(e.idx_certs)
    indices = [ctx.scalar(i) for i in e.indices]
    base = checks.first_component(array.values, e.loc)
    bounds = checks.check_indices(ctx, base, indices, e.loc)
    certs = join_certs(given, array.certs, bounds)
    k = len(indices)
    return Flat.of(
        ctx.val(soac.IndexOp(a, indices, drop_dims(a.type, k), certs)) for a in array.values
    )


@handles(ast.Size)
def size(ctx: Ctx, e: ast.Size) -> Flat:
    assert e.array is not None
    array = ctx.exp(e.array)
    base = checks.first_component(array.values, e.loc)
    certs = join_certs(ctx.cert_vars(e.certs), array.certs)
    return Flat.of([ctx.val(soac.SizeOp(base, e.dim, certs))])


# ----------------------------------------------------------------------------------
# Reshaping.


def _known_nonneg(v: SSAValue) -> bool:
    known = const_value(v)
    return known is not None and known >= 0


def _product(ctx: Ctx, values: list[SSAValue]) -> SSAValue:
    if not values:
        return ctx.const_int(1)
    acc = values[0]
    for v in values[1:]:
        acc = ctx.binary(arith.MuliOp, acc, v)
    return acc


@handles(ast.Reshape)
def reshape(ctx: Ctx, e: ast.Reshape) -> Flat:
    """`reshape((d1..dm), a)`: regroup the outer dimensions of `a` (every component
    keeps its inner dimensions, which belong to the tuple elements)."""
    assert e.array is not None and isinstance(e.array.type, ArrayType)
    shape = [ctx.scalar(d) for d in e.shape]
    array = ctx.exp(e.array)
    outer = e.array.type.rank
    base = checks.first_component(array.values, e.loc)
    old_dims = [checks.size(ctx, base, d) for d in range(outer)]
    count = _product(ctx, old_dims)
    zero = ctx.const_int(0)
    ok = checks.all_of(
        ctx,
        [checks.cmp(ctx, "sle", zero, d) for d in shape if not _known_nonneg(d)]
        + [checks.cmp(ctx, "eq", _product(ctx, shape), count)],
    )
    msg = f"cannot reshape an array of {{0}} elements to shape {checks.shape_text(1, len(shape))}"
    cert = checks.emit_assert(ctx, ok, msg, e.loc, [count, *shape])
    certs = join_certs(ctx.cert_vars(e.certs), array.certs, [cert])
    comps = []
    for a in array.values:
        inner = [checks.size(ctx, a, d) for d in range(outer, rank_of(a.type))]
        dims = shape + inner
        result_type = add_dims(drop_dims(a.type, rank_of(a.type)), len(dims))
        comps.append(ctx.val(soac.ReshapeOp(a, dims, result_type, certs)))
    return Flat.of(comps)


@handles(ast.Transpose)
def transpose(ctx: Ctx, e: ast.Transpose) -> Flat:
    assert e.array is not None
    array = ctx.exp(e.array)
    certs = join_certs(ctx.cert_vars(e.certs), array.certs)
    return Flat.of(ctx.val(soac.TransposeOp(a, e.k, e.n, certs)) for a in array.values)


@handles(ast.Split)
def split(ctx: Ctx, e: ast.Split) -> Flat:
    """`split(i, a)`: `{a[0..i-1], a[i..]}`; requires `0 <= i <= size(0, a)`."""
    assert e.at is not None and e.array is not None
    at = ctx.scalar(e.at)
    array = ctx.exp(e.array)
    n = checks.size(ctx, checks.first_component(array.values, e.loc), 0)
    lo = checks.cmp(ctx, "sle", ctx.const_int(0), at)
    hi = checks.cmp(ctx, "sle", at, n)
    ok = ctx.binary(arith.AndIOp, lo, hi)
    msg = "split point {0} out of bounds for array of size {1}"
    cert = checks.emit_assert(ctx, ok, msg, e.loc, (at, n))
    certs = join_certs(ctx.cert_vars(e.certs), array.certs, [cert])
    ops = [soac.SplitOp(at, a, certs) for a in array.values]
    for op in ops:
        ctx.emit(op)
    return Flat.of([op.first for op in ops] + [op.second for op in ops])


def _check_rows(ctx: Ctx, a: SSAValue, b: SSAValue, e: ast.Concat) -> list[SSAValue]:
    """The rows of `a` and `b` have one shape (only when both have rows)."""
    rank = rank_of(a.type)
    if rank < 2:
        return []
    zero = ctx.const_int(0)
    a_dims = [checks.size(ctx, a, d) for d in range(1, rank)]
    b_dims = [checks.size(ctx, b, d) for d in range(1, rank)]
    same = checks.all_of(
        ctx, [checks.cmp(ctx, "eq", x, y) for x, y in zip(a_dims, b_dims, strict=True)]
    )
    # An empty array has no rows to disagree with (and reports inner sizes of 0).
    a_empty = checks.cmp(ctx, "eq", checks.size(ctx, a, 0), zero)
    b_empty = checks.cmp(ctx, "eq", checks.size(ctx, b, 0), zero)
    ok = checks.any_of(ctx, [a_empty, b_empty, same])
    msg = (
        f"cannot concatenate arrays with rows of shape {checks.shape_text(0, rank - 1)} "
        f"and {checks.shape_text(rank - 1, rank - 1)}"
    )
    return [checks.emit_assert(ctx, ok, msg, e.loc, a_dims + b_dims)]


@handles(ast.Concat)
def concat(ctx: Ctx, e: ast.Concat) -> Flat:
    assert e.a is not None and e.b is not None
    a = ctx.exp(e.a)
    b = ctx.exp(e.b)
    given = join_certs(ctx.cert_vars(e.certs), a.certs, b.certs)
    loc = str(e.loc)
    comps = []
    for x, y in zip(a.values, b.values, strict=True):
        certs = join_certs(given, _check_rows(ctx, x, y, e))
        comps.append(ctx.val(soac.ConcatOp(x, y, certs, loc)))
    return Flat.of(comps)

