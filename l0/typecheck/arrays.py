"""Typing of array operations and certificates (docs/reference.md §4.3 and 4.4).

Indexing, `iota`, `replicate`, `size`, `reshape`, `transpose`, `split`, `concat`,
`copy`, `zip`, `unzip`, `empty`, `assert` and `conjoin`. Each handler gives the type
of 4.3 and the aliasing of 4.4: views of an array (rows, `transpose`, `reshape`,
`split`, `zip`, `unzip`) alias it; `copy`, `iota` and literals alias nothing.

One deliberate difference from the original: `unzip` yields unique components only
when its argument is unique. The original made them unique whenever the component
type was basic, so `let {x, y} = unzip(zip(a, b)) in let x[0] = 1 in ...` updated a
(possibly non-unique) parameter in place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from l0.diagnostics import Loc
from l0.syntax import ast as A
from l0.typecheck import errors
from l0.typecheck.aliases import EMPTY, broadcast, keys_of, none_for, unique_or_basic
from l0.typecheck.consumption import Occ, concat
from l0.typecheck.result import Res
from l0.types import BOOL, CERT, INT, ArrayType, TupleType, Type, array_of, row_type, set_unique

if TYPE_CHECKING:
    from l0.typecheck.checker import Checker, Handler


def peel(t: ArrayType, k: int) -> Type:
    """`t` with its `k` outermost dimensions removed (uniqueness kept, 4.3)."""
    if k == 0:
        return t
    if k == t.rank:
        return t.elem
    return ArrayType(t.elem, t.rank - k, t.unique)


def require_array(t: Type, loc: Loc, what: str) -> ArrayType:
    if not isinstance(t, ArrayType):
        raise errors.type_error(loc, f"{what} must be an array, but has type {t}")
    return t


def _array_operand(ck: Checker, e: A.Exp | None, what: str) -> tuple[Res, ArrayType]:
    """Check the array operand `e` of a builtin; its result and its (array) type."""
    assert e is not None
    r = ck.check(e)
    return r, require_array(r.type, e.loc, what)


def _int_operand(ck: Checker, e: A.Exp | None, what: str, occ: Occ) -> Occ:
    return concat(occ, ck.check_operand(e, what, (INT,)).occ)


def check_index(ck: Checker, e: A.Index) -> Res:
    assert e.array is not None
    arr = e.array
    b = ck.env.lookup(arr.name, arr.loc)
    t = ck.env.view_type(b)
    arr.type = t
    keys = keys_of(ck.env.var_als(b))
    occ = Occ()
    if keys:
        occ.observe(keys, arr.loc, arr.name)
    ck.check_certs(e.certs)
    ck.check_certs(e.idx_certs)
    for i in e.indices:
        occ = _int_operand(ck, i, "array index", occ)
    rank = t.rank if isinstance(t, ArrayType) else 0
    if len(e.indices) > rank or not isinstance(t, ArrayType):
        raise errors.indexing_error(e.loc, arr.name, rank, len(e.indices))
    rt = peel(t, len(e.indices))
    return Res(rt, broadcast(rt, keys), occ)


def check_iota(ck: Checker, e: A.Iota) -> Res:
    occ = _int_operand(ck, e.n, "argument of iota", Occ())
    return Res(ArrayType(INT, 1, True), EMPTY, occ)


def check_replicate(ck: Checker, e: A.Replicate) -> Res:
    assert e.value is not None
    occ = _int_operand(ck, e.n, "count of replicate", Occ())
    v = ck.check(e.value)
    t = array_of(v.type, unique_or_basic(v.type))
    return Res(t, keys_of(v.als), concat(occ, v.occ))


def check_size(ck: Checker, e: A.Size) -> Res:
    ck.check_certs(e.certs)
    r, t = _array_operand(ck, e.array, "argument of size")
    if not 0 <= e.dim < t.rank:
        raise errors.type_error(
            e.loc, f"size of dimension {e.dim} requested, but the array has rank {t.rank}"
        )
    return Res(INT, EMPTY, r.occ)


def check_reshape(ck: Checker, e: A.Reshape) -> Res:
    ck.check_certs(e.certs)
    occ = Occ()
    for d in e.shape:
        occ = _int_operand(ck, d, "dimension of reshape", occ)
    r, t = _array_operand(ck, e.array, "argument of reshape")
    rt = ArrayType(t.elem, len(e.shape), t.unique)
    return Res(rt, keys_of(r.als), concat(occ, r.occ))


def check_transpose(ck: Checker, e: A.Transpose) -> Res:
    ck.check_certs(e.certs)
    r, t = _array_operand(ck, e.array, "argument of transpose")
    k, n = e.k, e.n
    if k < 0 or k + n < 0 or max(k, k + n) >= t.rank:
        raise errors.type_error(
            e.loc,
            f"transpose({k}, {n}, ...) needs an array of rank at least {max(k, k + n) + 1}, "
            f"but the array has rank {t.rank}",
        )
    return Res(t, keys_of(r.als), r.occ)


def check_split(ck: Checker, e: A.Split) -> Res:
    ck.check_certs(e.certs)
    occ = _int_operand(ck, e.at, "split point", Occ())
    r, t = _array_operand(ck, e.array, "argument of split")
    keys = keys_of(r.als)
    return Res(TupleType((t, t)), (keys, keys), concat(occ, r.occ))


def check_concat(ck: Checker, e: A.Concat) -> Res:
    assert e.a is not None and e.b is not None
    ck.check_certs(e.certs)
    a = ck.check(e.a)
    ta = require_array(a.type, e.a.loc, "first argument of concat")
    b = ck.check(e.b)
    ck.require(b.type, e.b.loc, "second argument of concat", (ta,))
    assert isinstance(b.type, ArrayType)
    t = ArrayType(ta.elem, ta.rank, ta.unique and b.type.unique)
    # Aliases of the first argument only, as in the original (4.4).
    return Res(t, keys_of(a.als), concat(a.occ, b.occ))


def check_copy(ck: Checker, e: A.Copy) -> Res:
    assert e.operand is not None
    r = ck.check(e.operand)
    t = set_unique(r.type, True)
    return Res(t, none_for(t), r.occ)


def check_zip(ck: Checker, e: A.Zip) -> Res:
    occ = Occ()
    rows: list[Type] = []
    keys: set[int] = set()
    for i, x in enumerate(e.arrays, start=1):
        r = ck.check(x)
        t = require_array(r.type, x.loc, f"argument {i} of zip")
        rows.append(set_unique(row_type(t), False))
        keys |= keys_of(r.als)
        occ = concat(occ, r.occ)
    return Res(ArrayType(TupleType(tuple(rows)), 1, False), frozenset(keys), occ)


def check_unzip(ck: Checker, e: A.Unzip) -> Res:
    assert e.operand is not None
    r = ck.check(e.operand)
    t = r.type
    if not (isinstance(t, ArrayType) and t.rank == 1 and isinstance(t.elem, TupleType)):
        raise errors.type_error(
            e.operand.loc, f"argument of unzip must be an array of tuples, but has type {t}"
        )
    keys = keys_of(r.als)
    comps = tuple(array_of(c, t.unique and unique_or_basic(c)) for c in t.elem.elems)
    return Res(TupleType(comps), tuple(keys for _ in comps), r.occ)


def check_empty(ck: Checker, e: A.Empty) -> Res:
    if e.row is None:
        raise errors.type_error(e.loc, "empty needs a row type")
    return Res(array_of(e.row, False), EMPTY, Occ())


def check_assert(ck: Checker, e: A.Assert) -> Res:
    r = ck.check_operand(e.cond, "argument of assert", (BOOL,))
    return Res(CERT, EMPTY, r.occ)


def check_conjoin(ck: Checker, e: A.Conjoin) -> Res:
    occ = Occ()
    for c in e.certs:
        occ = concat(occ, ck.check_operand(c, "argument of conjoin", (CERT,)).occ)
    return Res(CERT, EMPTY, occ)


HANDLERS: dict[type, Handler] = {
    A.Index: check_index,
    A.Iota: check_iota,
    A.Replicate: check_replicate,
    A.Size: check_size,
    A.Reshape: check_reshape,
    A.Transpose: check_transpose,
    A.Split: check_split,
    A.Concat: check_concat,
    A.Copy: check_copy,
    A.Zip: check_zip,
    A.Unzip: check_unzip,
    A.Empty: check_empty,
    A.Assert: check_assert,
    A.Conjoin: check_conjoin,
}
