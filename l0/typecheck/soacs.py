"""SOACs and their functional arguments (docs/reference.md §2.4, 2.6, 4.3, 4.7).

A SOAC applies its function argument (a named function, possibly curried, an
operator section or a lambda) to values it supplies: rows of its arrays, and
accumulators. This is checked as a call (`calls.py`): the supplied values are the
arguments, so a lambda parameter declared `*` consumes the array (or neutral
element) the values come from, and the SOAC's result aliases what a call's result
would (4.4, 4.7). `filter` supplies non-unique rows: it cannot consume.

Note [FunArg annotations]
After checking, every functional argument (`ast.FunName`, `ast.OpSection`,
`ast.Lambda`) carries, and the internaliser can rely on:

* `param_types`: one type per parameter the SOAC fills, in order, *after*
  currying. The curried values (`FunName.curried`, `OpSection.curried`, each with
  its `.type` set) are passed first, then these.
  - `FunName`: the declared types of the function's remaining parameters
    (`params[len(curried):]`); builtins: `toReal` [int], `trunc sqrt log exp` [real].
  - `OpSection`: the operand types the SOAC supplies: `op +` on ints is
    [int, int], `op - (10)` is [int] (computing `10 - y`), `op < (0)` is [int]
    (computing `0 < y`), `op not` is [bool], `op ~` is [int] or [real]. The
    operands of a binary section are always of one basic type.
  - `Lambda`: the declared parameter types.
* `ret_type`: the result type of one application: the function's declared return
  type, a lambda's declared `ret` (a `TupleType` for the T-SOACs' `fn {...}`), the
  operator's result (`bool` for `= < <= && ||`, else the operand type).
* `shim`: True when the SOAC supplies *one* tuple per application that is unpacked
  into the parameters (tuple shimming, 2.4): then the value has type
  `TupleType(param_types)` (up to uniqueness) and component i goes to parameter i.
  Shimming applies only when the SOAC supplies exactly one value and the function
  has a different number of parameters (after currying), equal to the tuple's arity.

What each SOAC supplies (before shimming), which is also what `param_types`
matches one to one when `shim` is False:

| SOAC | supplied values |
|---|---|
| `map(f, a)`, `filter(f, a)` | [row of a]: one value (a row of `zip(...)` is a tuple) |
| `reduce(f, x, a)`, `scan(f, x, a)` | [acc, row]: never shimmed; acc (x's type) may be a tuple |
| `redomap(g, f, x, a)` | g: [acc, acc]; f: [acc, row] |
| `mapT(f, a1..ak)`, `filterT` | [row of a1, ..., row of ak] |
| `reduceT(f, {x1..xn}, a1..an)`, `scanT` | [acc1, ..., accn, row of a1, ..., row of an] |
| `redomapT(g, f, {x1..xn}, a1..ak)` | g: [acc1..accn, acc1..accn]; f: [acc1..accn, rows] |

Result types: `map` gives `[U]`, unique iff U is basic or unique; `filter` the type
of its array; `reduce` U; `scan` `*[U]` (fresh: no aliases); `redomap` g's result.
`mapT` gives `{[T1], ...}`, `filterT` the tuple of its arrays' types, `reduceT` the
lambda's tuple, `scanT` `{*[U1], ...}`, `redomapT` g's result tuple.

Differences from the original, deliberate:
* a lambda's non-unique result aliases the free variables its body returns, not
  only the SOAC's inputs (`reduce(fn [int] ([int] x, [int] y) => a, ...)` is `a`);
* the occurrences of a lambda's body count where the SOAC is: a lambda that reads
  `a` cannot be a sibling of an expression consuming `a` (the original dropped the
  body's occurrences, accepting e.g. `reduce(fn ... => ... a[0] ..., 0, f(a))`);
* a named function's shim test uses its parameters *after* currying (the original
  compared against all its parameters and silently dropped the curried arguments);
* `redomap`'s outer function combines partial results, so passing them consumes
  nothing outside (the original passed the neutral element to it twice).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from l0.diagnostics import Loc
from l0.syntax import ast as A
from l0.typecheck import errors
from l0.typecheck.aliases import (
    EMPTY,
    Als,
    broadcast,
    has_unique,
    keys_of,
    none_for,
    result_als,
    unique_or_basic,
)
from l0.typecheck.arrays import require_array
from l0.typecheck.bindings import tail_of
from l0.typecheck.builtins import BINOP_OPERANDS, TRACE, UNARY_SECTION_OPERANDS, binop_result
from l0.typecheck.calls import apply_args, check_arg_types, check_body, check_return_alias
from l0.typecheck.consumption import Occ, concat
from l0.typecheck.result import Arg, Res
from l0.types import (
    BOOL,
    ArrayType,
    TupleType,
    Type,
    array_of,
    row_type,
    set_unique,
    similar,
    subtype,
)

if TYPE_CHECKING:
    from l0.typecheck.checker import Checker, Handler


@dataclass(slots=True)
class Applied:
    """One application of a functional argument: its result type, the aliases of its
    result, and the occurrences of supplying the arguments (and of the lambda body)."""

    ret: Type
    als: Als
    occ: Occ


def apply_fun(ck: Checker, fun: A.Fun | None, supplied: Sequence[Arg], soac: str) -> Applied:
    """Check `fun` applied to the values `soac` supplies; annotate it (Note [FunArg
    annotations])."""
    assert fun is not None
    if isinstance(fun, A.Lambda):
        return _lambda(ck, fun, supplied, soac)
    if isinstance(fun, A.OpSection):
        return _section(ck, fun, supplied, soac)
    return _named(ck, fun, supplied, soac)


def _fit(n: int, supplied: Sequence[Arg]) -> tuple[list[Arg] | None, bool]:
    """The arguments for `n` parameters: the supplied ones, or the components of a
    single supplied tuple (shimming)."""
    if n == len(supplied):
        return list(supplied), False
    if len(supplied) == 1:
        s = supplied[0]
        if isinstance(s.type, TupleType) and len(s.type.elems) == n:
            parts = s.als if isinstance(s.als, tuple) else none_for(s.type)
            assert isinstance(parts, tuple)
            return [Arg(t, a, Occ(), s.loc) for t, a in zip(s.type.elems, parts, strict=True)], True
    return None, False


def _params_for(params: Sequence[Type], shim: bool) -> list[Type]:
    """What the supplied values are passed to: the parameters, or their tuple."""
    return [TupleType(tuple(params))] if shim else list(params)


def _named(ck: Checker, fun: A.FunName, supplied: Sequence[Arg], soac: str) -> Applied:
    if fun.name == TRACE:
        raise errors.type_error(fun.loc, f"trace cannot be the function of {soac}")
    sig = ck.env.funs.get(fun.name)
    if sig is None:
        raise errors.unknown_function(fun.loc, fun.name)
    fname = f"function '{fun.name}'"
    curried = [ck.arg(c) for c in fun.curried]
    if len(curried) > len(sig.params):
        raise errors.arity_mismatch(fun.loc, fname, len(sig.params), len(curried))
    for i, c in enumerate(curried):
        if has_unique(sig.params[i]):
            raise errors.curried_consumption(c.loc, fun.name, sig.param_names[i])
    rest = sig.params[len(curried) :]
    args, shim = _fit(len(rest), supplied)
    if args is None:
        raise errors.soac_arity(fun.loc, fname, len(rest), len(supplied), soac)
    check_arg_types(fname, sig.params, sig.param_names, curried + args)
    occ, keep = apply_args(
        ck, sig.params[: len(curried)] + _params_for(rest, shim), curried + list(supplied)
    )
    fun.param_types, fun.ret_type, fun.shim = list(rest), sig.ret, shim
    return Applied(sig.ret, result_als(sig.ret, keep), occ)


def _section(ck: Checker, fun: A.OpSection, supplied: Sequence[Arg], soac: str) -> Applied:
    op = fun.op
    what = f"'op {op}'"
    curried = [ck.arg(c) for c in fun.curried]
    if op in UNARY_SECTION_OPERANDS:
        if curried:
            raise errors.type_error(fun.loc, f"operator section {what} cannot be curried")
        args, shim = _fit(1, supplied)
        if args is None:
            raise errors.soac_arity(fun.loc, what, 1, len(supplied), soac)
        t = args[0].type
        ck.require(t, fun.loc, f"operand of {what}", UNARY_SECTION_OPERANDS[op])
        ret = t
    else:
        need = 2 - len(curried)
        args, shim = _fit(need, supplied) if need >= 0 else (None, False)
        if args is None:
            raise errors.type_error(
                fun.loc,
                f"operator section {what} needs 2 operands, but gets {len(curried)} curried "
                f"and {len(supplied)} from {soac}",
            )
        operands = curried + args
        allowed = BINOP_OPERANDS[op]
        for a in operands:
            ck.require(a.type, fun.loc, f"operand of {what}", allowed)
        if operands[0].type != operands[1].type:
            raise errors.unify_error(
                fun.loc, f"operands of {what}", operands[0].type, operands[1].type
            )
        ret = binop_result(op, operands[0].type)
    params = [a.type for a in args]
    occ, _ = apply_args(
        ck, [c.type for c in curried] + _params_for(params, shim), curried + list(supplied)
    )
    fun.param_types, fun.ret_type, fun.shim = params, ret, shim
    return Applied(ret, EMPTY, occ)


def _lambda(ck: Checker, fun: A.Lambda, supplied: Sequence[Arg], soac: str) -> Applied:
    assert fun.ret is not None and fun.body is not None
    fname = "the anonymous function"
    ptypes = [p.type for p in fun.params]
    args, shim = _fit(len(ptypes), supplied)
    if args is None:
        raise errors.type_error(
            fun.loc,
            f"anonymous function defined with {len(ptypes)} parameter(s), "
            f"but {soac} supplies {len(supplied)} argument(s)",
        )
    check_arg_types(fname, ptypes, [p.name for p in fun.params], args)
    occ, keep = apply_args(ck, _params_for(ptypes, shim), supplied)

    # The body: a function of its own, in which outer variables are not unique.
    body, param_keys, first_key = check_body(ck, fname, fun.params, fun.body, barrier=True)
    names = ck.env.key_names

    def nonunique(k: int) -> str | None:
        if k in param_keys:
            return f"non-unique parameter '{param_keys[k]}'"
        if k < first_key:
            return f"'{names[k]}', which is bound outside the anonymous function"
        return None

    tail = tail_of(fun.body)
    check_return_alias(fun.ret, body.als, nonunique, fname, tail.loc)
    if not subtype(body.type, fun.ret):
        raise errors.return_type_error(tail.loc, fname, fun.ret, body.type)
    fun.param_types, fun.ret_type, fun.shim = ptypes, fun.ret, shim
    # A non-unique result may also be a free variable the body returns.
    free = frozenset(k for k in keys_of(body.als) if k < first_key)
    # What the body observes of the enclosing scope counts where the SOAC is.
    return Applied(fun.ret, result_als(fun.ret, keep | free), concat(occ, body.occ))


# ----------------------------------------------------------------------------------
# The SOACs.


def _rows(ck: Checker, e: A.Exp | None, soac: str) -> tuple[Arg, ArrayType]:
    """The array argument of a SOAC, as the row values it supplies."""
    assert e is not None
    a = ck.arg(e)
    t = require_array(a.type, e.loc, f"array argument of {soac}")
    row = row_type(t)
    return replace(a, type=row, als=broadcast(row, keys_of(a.als))), t


def _value(t: Type, loc: Loc) -> Arg:
    """A value of type `t` that comes from no expression (partial results)."""
    return Arg(t, none_for(t), Occ(), loc)


def check_map(ck: Checker, e: A.Map) -> Res:
    row, _ = _rows(ck, e.array, "map")
    app = apply_fun(ck, e.fun, [row], "map")
    return Res(array_of(app.ret, unique_or_basic(app.ret)), keys_of(app.als), app.occ)


def check_filter(ck: Checker, e: A.Filter) -> Res:
    row, t = _rows(ck, e.array, "filter")
    keys = keys_of(row.als)
    row = replace(row, type=set_unique(row.type, False))
    app = apply_fun(ck, e.fun, [row], "filter")
    if not similar(app.ret, BOOL):
        assert e.fun is not None
        raise errors.type_error(
            e.fun.loc, f"function of filter must return bool, but returns {app.ret}"
        )
    return Res(t, keys, app.occ)


def _fold(ck: Checker, e: A.Reduce | A.Scan, soac: str) -> tuple[Applied, Type]:
    assert e.neutral is not None and e.array is not None
    ne = ck.arg(e.neutral)
    row, _ = _rows(ck, e.array, soac)
    ne_t, row_t = ne.type, row.type
    app = apply_fun(ck, e.fun, [ne, row], soac)
    _check_fold_types(soac, [(ne_t, e.neutral.loc)], [(row_t, e.array.loc)], [app.ret])
    return app, app.ret


def _check_fold_types(
    soac: str, accs: list[tuple[Type, Loc]], rows: list[tuple[Type, Loc]], rets: list[Type]
) -> None:
    """4.3: the initial values and the array elements must fit the function's result.

    An initial value must be a subtype of the result (`*t <= t`): over an empty array
    it *is* the result, so it must be unique wherever the result claims to be. The
    rows never become the result of a left fold (each step returns what the function
    returns, and passing a row to a parameter is checked as a call), so they need only
    be similar to it: `{[int], [int]}` rows fit a `{*[int], [int]}` accumulator."""
    for (t, loc), u in zip(accs, rets, strict=True):
        if not subtype(t, u):
            raise errors.type_error(
                loc, f"initial value of {soac} has type {t}, but its function returns {u}"
            )
    for (t, loc), u in zip(rows, rets, strict=True):
        if not similar(t, u):
            raise errors.type_error(
                loc,
                f"elements of the array given to {soac} have type {t}, "
                f"but its function returns {u}",
            )


def check_reduce(ck: Checker, e: A.Reduce) -> Res:
    app, u = _fold(ck, e, "reduce")
    return Res(u, app.als, app.occ)


def check_scan(ck: Checker, e: A.Scan) -> Res:
    app, u = _fold(ck, e, "scan")
    return Res(array_of(u, True), EMPTY, app.occ)


def check_redomap(ck: Checker, e: A.Redomap) -> Res:
    assert e.neutral is not None and e.inner is not None
    ne = ck.arg(e.neutral)
    row, _ = _rows(ck, e.array, "redomap")
    acc = ne.type
    outer = apply_fun(ck, e.outer, [_value(acc, ne.loc), _value(acc, ne.loc)], "redomap")
    inner = apply_fun(ck, e.inner, [ne, row], "redomap")
    _check_acc(e.inner.loc, "inner function of redomap", inner.ret, acc)
    assert e.outer is not None
    _check_acc(e.outer.loc, "outer function of redomap", outer.ret, acc)
    als = result_als(outer.ret, keys_of(inner.als))
    return Res(outer.ret, als, concat(outer.occ, inner.occ))


def _check_acc(loc: Loc, what: str, ret: Type, acc: Type) -> None:
    if not similar(ret, acc):
        raise errors.type_error(loc, f"{what} returns {ret}, but the accumulator has type {acc}")


# -- the tuple SOACs (2.6) ---------------------------------------------------------------


def _tuple_ret(fun: A.Fun | None, ret: Type, soac: str, arity: int | None = None) -> TupleType:
    assert fun is not None
    if not isinstance(ret, TupleType) or (arity is not None and len(ret.elems) != arity):
        want = "a tuple" if arity is None else f"a tuple of {arity} component(s)"
        raise errors.type_error(
            fun.loc, f"function of {soac} must return {want}, but returns {ret}"
        )
    return ret


def _tuple_als(als: Als, n: int) -> list[frozenset[int]]:
    if isinstance(als, tuple) and len(als) == n:
        return [keys_of(a) for a in als]
    return [keys_of(als)] * n


def check_map_t(ck: Checker, e: A.MapT) -> Res:
    ck.check_certs(e.certs)
    rows = [_rows(ck, a, "mapT")[0] for a in e.arrays]
    app = apply_fun(ck, e.fun, rows, "mapT")
    ret = _tuple_ret(e.fun, app.ret, "mapT")
    t = TupleType(tuple(array_of(c, unique_or_basic(c)) for c in ret.elems))
    return Res(t, tuple(_tuple_als(app.als, len(ret.elems))), app.occ)


def check_filter_t(ck: Checker, e: A.FilterT) -> Res:
    ck.check_certs(e.certs)
    pairs = [_rows(ck, a, "filterT") for a in e.arrays]
    keys = tuple(keys_of(r.als) for r, _ in pairs)
    rows = [replace(r, type=set_unique(r.type, False)) for r, _ in pairs]
    app = apply_fun(ck, e.fun, rows, "filterT")
    if not (similar(app.ret, TupleType((BOOL,))) or similar(app.ret, BOOL)):
        assert e.fun is not None
        raise errors.type_error(
            e.fun.loc, f"function of filterT must return {{bool}}, but returns {app.ret}"
        )
    return Res(TupleType(tuple(t for _, t in pairs)), keys, app.occ)


def _fold_t(ck: Checker, e: A.ReduceT | A.ScanT, soac: str) -> tuple[Applied, TupleType]:
    ck.check_certs(e.certs)
    if len(e.neutrals) != len(e.arrays):
        raise errors.type_error(
            e.loc,
            f"{soac} needs one array per initial value, but has {len(e.neutrals)} initial "
            f"value(s) and {len(e.arrays)} array(s)",
        )
    nes = [ck.arg(x) for x in e.neutrals]
    rows = [_rows(ck, a, soac)[0] for a in e.arrays]
    accs = [(n.type, n.loc) for n in nes]
    elems = [(r.type, r.loc) for r in rows]
    app = apply_fun(ck, e.fun, nes + rows, soac)
    ret = _tuple_ret(e.fun, app.ret, soac, len(nes))
    _check_fold_types(soac, accs, elems, list(ret.elems))
    return app, ret


def check_reduce_t(ck: Checker, e: A.ReduceT) -> Res:
    app, ret = _fold_t(ck, e, "reduceT")
    return Res(ret, app.als, app.occ)


def check_scan_t(ck: Checker, e: A.ScanT) -> Res:
    app, ret = _fold_t(ck, e, "scanT")
    t = TupleType(tuple(array_of(u, True) for u in ret.elems))
    return Res(t, none_for(t), app.occ)


def check_redomap_t(ck: Checker, e: A.RedomapT) -> Res:
    ck.check_certs(e.certs)
    nes = [ck.arg(x) for x in e.neutrals]
    rows = [_rows(ck, a, "redomapT")[0] for a in e.arrays]
    acc = TupleType(tuple(n.type for n in nes))
    partial = [_value(n.type, n.loc) for n in nes]
    outer = apply_fun(ck, e.outer, partial + [_value(n.type, n.loc) for n in nes], "redomapT")
    inner = apply_fun(ck, e.inner, nes + rows, "redomapT")
    assert e.outer is not None and e.inner is not None
    _check_acc(e.inner.loc, "inner function of redomapT", inner.ret, acc)
    _check_acc(e.outer.loc, "outer function of redomapT", outer.ret, acc)
    als = result_als(outer.ret, keys_of(inner.als))
    return Res(outer.ret, als, concat(outer.occ, inner.occ))


HANDLERS: dict[type, Handler] = {
    A.Map: check_map,
    A.Filter: check_filter,
    A.Reduce: check_reduce,
    A.Scan: check_scan,
    A.Redomap: check_redomap,
    A.MapT: check_map_t,
    A.FilterT: check_filter_t,
    A.ReduceT: check_reduce_t,
    A.ScanT: check_scan_t,
    A.RedomapT: check_redomap_t,
}
