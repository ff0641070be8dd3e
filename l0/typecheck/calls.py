"""Calls and returns: argument checking, consumption by unique parameters, and the
rules on unique results (docs/reference.md §4.3 calls, 4.4, 4.5 rules 1 and 5).

Everything function-like goes through here: calls of user functions and builtins,
SOAC applications of named functions, sections and lambdas, and the synthesized
function of a `loop` (4.6).

Each argument's own occurrences are validated, then sequenced before what the call
does with it: a component passed to a unique (`*`) parameter consumes the
argument's aliases, any other component observes them. The arguments are siblings,
so passing `a` twice where one parameter consumes it is an error. The aliases of the
call's result are those of the arguments it did not consume (`aliases.result_als`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from l0.diagnostics import Loc
from l0.syntax.ast import Exp, Param
from l0.typecheck import errors
from l0.typecheck.aliases import Als, keys_of, none_for
from l0.typecheck.consumption import Occ, concat, seq
from l0.typecheck.env import Kind, leaf_keys
from l0.typecheck.result import Arg, Res
from l0.types import ArrayType, TupleType, Type, similar, subtype

if TYPE_CHECKING:
    from l0.typecheck.checker import Checker

SHARED_HINT = " (variables bound outside a lambda or loop body are not unique inside it)"


def check_arg_types(
    fname: str, params: Sequence[Type], names: Sequence[str | None], args: Sequence[Arg]
) -> None:
    """Each argument's type must be a subtype of its parameter's (`parameter-mismatch`)."""
    for i, (p, a) in enumerate(zip(params, args, strict=True)):
        if subtype(a.type, p):
            continue
        hint = ""
        if similar(a.type, p):
            hint = SHARED_HINT if a.shared else " (a unique parameter needs a unique argument)"
        name = names[i] if i < len(names) else None
        raise errors.argument_mismatch(a.loc, fname, i, name, p, a.type, hint)


def apply_args(
    ck: Checker, params: Sequence[Type], args: Sequence[Arg]
) -> tuple[Occ, frozenset[int]]:
    """Occurrences of passing `args` to `params`, and the keys of what was not consumed."""
    occ = Occ()
    keep: set[int] = set()
    for p, a in zip(params, args, strict=True):
        ck.validate(a.occ)
        diet = Occ()
        _diet(p, a.als, diet, keep, a.loc, a.what)
        occ = concat(occ, seq(a.occ, diet))
    return occ, frozenset(keep)


def _diet(p: Type, als: Als, out: Occ, keep: set[int], loc: Loc, what: str | None) -> None:
    if isinstance(p, TupleType) and isinstance(als, tuple) and len(als) == len(p.elems):
        for pe, ae in zip(p.elems, als, strict=True):
            _diet(pe, ae, out, keep, loc, what)
        return
    keys = keys_of(als)
    if not keys:
        return
    if isinstance(p, ArrayType) and p.unique:
        out.consume(keys, loc, what)
    else:
        out.observe(keys, loc, what)
        keep |= keys


def check_body(
    ck: Checker, fname: str, params: Sequence[Param], body: Exp, *, barrier: bool
) -> tuple[Res, dict[int, str], int]:
    """Check the body of function `fname` with its parameters bound (`dup-param`; env
    Note [Self alias]); with `barrier`, outer variables are not unique in it (env Note
    [Uniqueness floor]). Returns the body's result, the keys of the non-unique array
    components of the parameters (with their names), and the first key allocated for
    the parameters: smaller keys belong to variables bound outside."""
    seen: set[str] = set()
    for p in params:
        if p.name in seen:
            raise errors.dup_param(p.loc, fname, p.name)
        seen.add(p.name)
    env = ck.env
    mark = env.mark()
    floor = env.enter_barrier() if barrier else env.floor
    first_key = env.key_count()
    bound = [env.bind(p.name, p.type, none_for(p.type), Kind.PARAM) for p in params]
    res = ck.check(body)
    leaves = [(t, k, b.name) for b in bound for t, k in leaf_keys(b.type, b.keys)]
    ck.leave(res.occ, [k for _, k, _ in leaves])
    env.undo(mark)
    env.leave_barrier(floor)
    nonunique = {k: name for t, k, name in leaves if not (isinstance(t, ArrayType) and t.unique)}
    return res, nonunique, first_key


def check_return_alias(
    ret: Type,
    body_als: Als,
    nonunique: Callable[[int], str | None],
    fname: str,
    loc: Loc,
) -> None:
    """4.5 rule 5: a unique result component aliases no non-unique parameter (as
    `nonunique(key)` describes it) and no other component of the result."""
    pairs: list[tuple[bool, frozenset[int]]] = []
    if not _pairs(ret, body_als, pairs):
        return  # shapes differ: the return type check reports it
    seen_any: set[int] = set()
    seen_unique: set[int] = set()
    for unique, keys in pairs:
        if unique:
            if keys & seen_any:
                raise errors.unique_return_aliased(loc, fname)
            for k in sorted(keys):
                desc = nonunique(k)
                if desc is not None:
                    raise errors.return_aliased(loc, fname, desc)
            seen_unique |= keys
        elif keys & seen_unique:
            raise errors.unique_return_aliased(loc, fname)
        seen_any |= keys


def _pairs(ret: Type, als: Als, out: list[tuple[bool, frozenset[int]]]) -> bool:
    if isinstance(ret, TupleType):
        if not isinstance(als, tuple) or len(als) != len(ret.elems):
            return False
        return all(_pairs(r, a, out) for r, a in zip(ret.elems, als, strict=True))
    out.append((isinstance(ret, ArrayType) and ret.unique, keys_of(als)))
    return True
