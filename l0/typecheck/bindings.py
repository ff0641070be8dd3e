"""Binding forms: `let`, let-with and `loop` (docs/reference.md §2.5, 4.5, 4.6).

Each is a generator driven by `Checker.check`: it checks what precedes the body,
binds names, yields the body, receives the body's `Res`, checks the occurrences of
the names whose scope ends (4.5 rule 9) and returns the `Res` of the whole form.
A binding form is a sequence point: what comes before the body is `seq`-uenced
before it, so a let's right-hand side may observe what its body consumes.

Let-with (4.5 rules 1 and 8, and docs/reference.md §9). `let b = a with [is] <- v in body`:
`a` must be unique; `v` must not alias `a`; `v` is sequenced before the consumption
of `a`, but the indices are not: they are siblings of the consumption and the body,
so observing in them an array that the body (or the update itself) consumes is a
use-after-consume. The update consumes the alias set *recorded* for `a` (env Note
[Self alias]); `a` is then marked consumed so that any later mention of it in the
body is an error.

Note [Parameter update]
For a function or lambda parameter `a` the recorded set lacks `a` itself, and the
original consumed exactly that set, with two observable effects: (1) the indices
may read `a` (`fun int f(*[int] v) = let v[v[0]] = 1 in 0` is accepted, the let-bound
variant rejected; 4.5 rule 8), and (2) nothing recorded that `a` was consumed, so
`(let a[1] = 5 in 0) + a[1]` was accepted too and read the array after the update
had happened in place. We reproduce (1), which is safe since indices are computed
before the update, but not (2): for a parameter the update consumes `a` as well, and
only the observations of `a` in its own indices are forgiven.

Loops (4.6) are checked as a call of a synthesized tail-recursive function whose
parameters are the free variables of the body (non-unique), the merge pattern and
the loop variable. One pass over the body suffices: it is checked with outer
variables non-unique (env Note [Uniqueness floor]) and the merge variables typed
as the initial value; the merge components the body consumes become the unique
parameters and results. Then
* the body's type must fit the merge pattern's (`parameter-mismatch`: the body's
  value is the argument of the recursive call);
* unique results must not alias non-unique parameters or each other (rule 5);
* the initial value must fit the pattern (a consumed component needs a unique
  initial value, which the loop consumes);
* the free variables the body observes, and the bound, are arguments too, so
  consuming in the initial value what they observe is a conflict
  (`loop (a) = for i < size(0, a) do ...` consuming `a`: bind the size first);
* after the loop, the pattern's unique components alias nothing and the others
  alias the loop's non-consumed arguments.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

from l0.diagnostics import Loc
from l0.syntax import ast as A
from l0.typecheck import errors
from l0.typecheck.aliases import EMPTY, Als, keys_of, none_for, result_als
from l0.typecheck.arrays import peel
from l0.typecheck.calls import apply_args, check_return_alias
from l0.typecheck.consumption import Occ, concat, seq
from l0.typecheck.env import Env, Kind, VarBinding, flat_keys
from l0.typecheck.result import Res
from l0.types import INT, ArrayType, TupleType, Type, set_unique, similar, subtype

if TYPE_CHECKING:
    from l0.typecheck.checker import Binder, Checker

Bound = list[tuple[A.PId, Type, Als]]


def match_pattern(pat: A.Pattern, t: Type, als: Als) -> Bound:
    """The variables `pat` binds, with their types and aliases; sets every pattern
    node's `type` (`invalid-pattern`, `dup-pattern`)."""
    out: Bound = []
    seen: dict[str, Loc] = {}
    work: list[tuple[A.Pattern, Type, Als]] = [(pat, t, als)]
    while work:
        p, pt, pa = work.pop()
        p.type = pt
        if isinstance(p, A.PId):
            if p.name in seen:
                raise errors.dup_pattern(p.loc, p.name, seen[p.name])
            seen[p.name] = p.loc
            out.append((p, pt, pa))
        elif isinstance(p, A.PTuple):
            if not isinstance(pt, TupleType) or len(pt.elems) != len(p.elems):
                raise errors.invalid_pattern(p.loc, len(p.elems), pt)
            parts = pa if isinstance(pa, tuple) and len(pa) == len(p.elems) else none_for(pt)
            assert isinstance(parts, tuple)
            work.extend(reversed(list(zip(p.elems, pt.elems, parts, strict=True))))
    return out


def _bind_all(ck: Checker, bound: Bound, kind: Kind) -> tuple[list[VarBinding], list[int]]:
    bindings = [ck.env.bind(p.name, t, a, kind) for p, t, a in bound]
    return bindings, [k for b in bindings for k in flat_keys(b.keys)]


def let_pat(ck: Checker, e: A.LetPat) -> Generator[A.Exp, Res, Res]:
    assert e.pat is not None and e.value is not None and e.body is not None
    val = ck.check(e.value)
    bound = match_pattern(e.pat, val.type, val.als)
    mark = ck.env.mark()
    _, keys = _bind_all(ck, bound, Kind.LET)
    body = yield e.body
    ck.leave(body.occ, keys)
    ck.env.undo(mark)
    return Res(body.type, body.als, seq(val.occ, body.occ))


def let_with(ck: Checker, e: A.LetWith) -> Generator[A.Exp, Res, Res]:
    assert e.src is not None and e.value is not None and e.body is not None
    env = ck.env
    src = e.src
    b = env.lookup(src.name, src.loc)
    st = env.view_type(b)
    src.type = st
    ck.check_certs(e.certs)
    ck.check_certs(e.idx_certs)
    occ = Occ()
    for i in e.indices:
        occ = concat(occ, ck.check_operand(i, "array index", (INT,)).occ)
    if not (isinstance(st, ArrayType) and st.unique) and isinstance(st, ArrayType | TupleType):
        raise errors.not_unique_source(src.loc, src.name, _not_unique_hint(env, b, st))
    k = len(e.indices)
    slice_t: Type
    if k == 0:
        slice_t = st
    elif isinstance(st, ArrayType) and k <= st.rank:
        slice_t = peel(st, k)
    else:
        rank = st.rank if isinstance(st, ArrayType) else 0
        raise errors.indexing_error(src.loc, src.name, rank, k)
    val = ck.check(e.value)
    if not similar(val.type, slice_t):
        raise errors.unexpected_type(
            e.value.loc, f"value written into '{src.name}'", (slice_t,), val.type
        )
    if isinstance(b.keys, int) and b.keys in keys_of(val.als):
        raise errors.bad_let_with_value(e.value.loc, src.name)
    consumed = env.recorded_als(b)
    if isinstance(b.keys, int) and b.keys not in consumed:
        # Note [Parameter update]
        u = occ.uses.get(b.keys)
        if u is not None:
            u.obs = []
        consumed = consumed | {b.keys}
    mark = env.mark()
    consume = Occ().consume(consumed, src.loc, src.name)
    env.mark_consumed(b, src.loc)
    dest = env.bind(e.dest, st, none_for(st), Kind.LET)
    body = yield e.body
    ck.leave(body.occ, flat_keys(dest.keys))
    env.undo(mark)
    return Res(body.type, body.als, concat(occ, seq(val.occ, concat(consume, body.occ))))


def _not_unique_hint(env: Env, b: VarBinding, seen: Type) -> str:
    if env.below_floor(b) and b.type != seen:
        return " (variables bound outside a lambda or loop body cannot be consumed inside it)"
    if b.kind is Kind.PARAM:
        return " (declare the parameter unique with '*', or update a copy)"
    if b.kind is Kind.MERGE:
        return " (its initial value is not unique; start the loop from a copy)"
    return " (only unique arrays, such as results of iota, copy or map, can be updated in place)"


def do_loop(ck: Checker, e: A.DoLoop) -> Generator[A.Exp, Res, Res]:
    assert e.pat is not None and e.init is not None and e.bound is not None
    assert e.body is not None and e.rest is not None
    env = ck.env
    init = ck.arg(e.init)
    bound = ck.check_operand(e.bound, "loop bound", (INT,))

    # The body of the synthesized function.
    mark = env.mark()
    floor = env.enter_barrier()
    first_key = env.key_count()
    params = match_pattern(e.pat, init.type, none_for(init.type))
    merge, merge_keys = _bind_all(ck, params, Kind.MERGE)
    env.bind(e.var, INT, EMPTY, Kind.MERGE)
    body = ck.check(e.body)
    consumed = {k for k, u in ck.leave(body.occ, merge_keys) if u.cons}
    env.undo(mark)
    env.leave_barrier(floor)

    by_pid = {p: b for (p, _, _), b in zip(params, merge, strict=True)}
    ptype = _merge_type(e.pat, init.type, by_pid, consumed)
    tail = tail_of(e.body)
    if not subtype(body.type, ptype):
        raise errors.loop_body_mismatch(tail.loc, ptype, body.type)

    merge_names = {k: b.name for b in merge for k in flat_keys(b.keys)}

    def nonunique(k: int) -> str | None:
        if k < first_key:
            return f"'{env.key_names[k]}', which is bound outside the loop"
        if k in merge_names and k not in consumed:
            return f"merge variable '{merge_names[k]}', which the loop body does not consume"
        return None

    check_return_alias(ptype, body.als, nonunique, "the loop body", tail.loc)
    if not subtype(init.type, ptype):
        raise errors.loop_init_mismatch(init.loc, ptype, init.type)

    # The call: free variables (observed by the body), the bound and the initial value.
    free = body.occ
    call_occ, keep = apply_args(ck, [ptype], [init])
    ck.validate(bound.occ)
    nonconsumed = keep | frozenset(free.uses)
    occ = concat(concat(free, bound.occ), call_occ)

    # The rest sees the pattern bound to the loop's result.
    after = result_als(ptype, nonconsumed)
    mark = env.mark()
    _, keys = _bind_all(ck, match_pattern(e.pat, ptype, after), Kind.LET)
    rest = yield e.rest
    ck.leave(rest.occ, keys)
    env.undo(mark)
    return Res(rest.type, rest.als, seq(occ, rest.occ))


def _merge_type(
    p: A.Pattern, t: Type, by_pid: dict[A.PId, VarBinding], consumed: set[int]
) -> Type:
    """The loop's parameter (and result) type: consumed components unique, others not."""
    if isinstance(p, A.PId):
        b = by_pid[p]
        return _by_keys(b.type, b.keys, consumed)
    if isinstance(p, A.PWild):
        return set_unique(t, False)
    assert isinstance(t, TupleType)
    return TupleType(
        tuple(
            _merge_type(pe, te, by_pid, consumed)
            for pe, te in zip(p.elems, t.elems, strict=True)
        )
    )


def _by_keys(t: Type, keys: object, consumed: set[int]) -> Type:
    if isinstance(t, ArrayType) and isinstance(keys, int):
        return ArrayType(t.elem, t.rank, keys in consumed)
    if isinstance(t, TupleType) and isinstance(keys, tuple):
        parts = zip(t.elems, keys, strict=True)
        return TupleType(tuple(_by_keys(et, ek, consumed) for et, ek in parts))
    return t


def tail_of(e: A.Exp) -> A.Exp:
    """The expression whose value `e` returns (through lets and loops): where errors
    about a function's or loop's result point."""
    while True:
        if isinstance(e, A.LetPat | A.LetWith) and e.body is not None:
            e = e.body
        elif isinstance(e, A.DoLoop) and e.rest is not None:
            e = e.rest
        else:
            return e

BINDERS: dict[type, Binder] = {A.LetPat: let_pat, A.LetWith: let_with, A.DoLoop: do_loop}
