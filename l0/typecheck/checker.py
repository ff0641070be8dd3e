"""Term typing: the `Checker` and the typing of scalar expressions (docs/reference.md §4.3).

`Checker.check(e)` types an expression and returns a `result.Res`: its type (with
the uniqueness 4.3 gives it), its alias information (`aliases.Als`, 4.4) and its
occurrences (`consumption.Occ`, 4.5); it also stores the type in `e.type`, which is
how the internaliser sees the result.

Handlers are plain functions `handler(ck, e) -> Res` registered per AST class; they
live with their topic: scalars, `if` and calls here, array operations in
`arrays.py`, SOACs in `soacs.py`. Binding forms (`let`, let-with, `loop`) are
generators in `bindings.py`: they do their work up to the body, yield the body,
receive its `Res` and finish. `check` drives them with an explicit stack, so a chain
of thousands of lets does not recurse (Python's stack is the limit otherwise); only
genuinely nested expressions recurse.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any

from l0.diagnostics import Loc
from l0.syntax import ast as A
from l0.typecheck import arrays, bindings, errors, soacs
from l0.typecheck.aliases import EMPTY, Als, has_unique, keys_of, minus, result_als, union
from l0.typecheck.builtins import BINOP_OPERANDS, TRACE, binop_result
from l0.typecheck.calls import apply_args, check_arg_types
from l0.typecheck.consumption import Occ, Use, alt, concat, validate, validate_popped
from l0.typecheck.env import Env, FunSig
from l0.typecheck.result import Arg, Res
from l0.types import BOOL, CERT, CHAR, INT, REAL, ArrayType, TupleType, Type, similar

Handler = Callable[["Checker", Any], Res]
Binder = Callable[["Checker", Any], Generator[A.Exp, Res, Res]]


class Checker:
    """Types expressions of one program; `functions.check_program` drives it."""

    def __init__(self, funs: dict[str, FunSig], check_occurrences: bool) -> None:
        self.env = Env(funs)
        self.check_occurrences = check_occurrences
        self._handlers: dict[type, Handler] = {}
        self._binders: dict[type, Binder] = {}
        _register(self)

    # -- driving -----------------------------------------------------------------------

    def check(self, e: A.Exp) -> Res:
        """Type `e` (and everything in it); sets `e.type`."""
        stack: list[tuple[A.Exp, Generator[A.Exp, Res, Res]]] = []
        binders = self._binders
        while True:
            binder = binders.get(type(e))
            if binder is None:
                break
            gen = binder(self, e)
            stack.append((e, gen))
            e = next(gen)
        res = self._handlers[type(e)](self, e)
        e.type = res.type
        while stack:
            outer, gen = stack.pop()
            try:
                gen.send(res)
            except StopIteration as stop:
                res = stop.value
            else:
                raise AssertionError("a binder must yield exactly once")
            outer.type = res.type
        return res

    def arg(self, e: A.Exp) -> Arg:
        res = self.check(e)
        what: str | None = None
        shared = False
        if isinstance(e, A.Var):
            what = e.name
            b = self.env.vars.get(e.name)
            shared = b is not None and self.env.below_floor(b) and has_unique(b.type)
        return Arg(res.type, res.als, res.occ, e.loc, what, shared)

    # -- occurrence validation -----------------------------------------------------------

    def validate(self, occ: Occ) -> None:
        """Check a whole occurrence list (a call argument, an `if` branch)."""
        if self.check_occurrences:
            validate(occ, self.env.key_names)

    def leave(self, occ: Occ, keys: Sequence[int]) -> list[tuple[int, Use]]:
        """A scope binding `keys` ends: check their occurrences and take them out of
        `occ`; returns them."""
        popped = occ.pop(keys)
        if self.check_occurrences:
            validate_popped(popped, self.env.key_names)
        return popped

    # -- small typing helpers ------------------------------------------------------------

    def require(self, t: Type, loc: Loc, what: str, allowed: Sequence[Type]) -> None:
        if t in allowed:
            return
        if not any(similar(t, a) for a in allowed):
            raise errors.unexpected_type(loc, what, allowed, t)

    def check_operand(self, e: A.Exp | None, what: str, allowed: Sequence[Type]) -> Res:
        """Check `e`, which must have one of the types `allowed` (up to uniqueness)."""
        assert e is not None
        r = self.check(e)
        self.require(r.type, e.loc, what, allowed)
        return r

    def check_certs(self, certs: Sequence[A.Var]) -> None:
        """Certificate lists `<c1, ...>`: variables of type `cert` (no occurrences)."""
        for c in certs:
            b = self.env.lookup(c.name, c.loc)
            c.type = b.type
            self.require(b.type, c.loc, f"certificate '{c.name}'", (CERT,))


def unify(a: Type, b: Type) -> Type | None:
    """The common type of two similar types: unique only where both are (4.3 `if`)."""
    if not similar(a, b):
        return None
    return _unify(a, b)


def _unify(a: Type, b: Type) -> Type:
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return ArrayType(a.elem, a.rank, a.unique and b.unique)
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        return TupleType(tuple(_unify(x, y) for x, y in zip(a.elems, b.elems, strict=True)))
    return a


# ----------------------------------------------------------------------------------
# Literals and variables.


def _const(t: Type) -> Handler:
    def handler(ck: Checker, e: A.Exp) -> Res:
        return Res(t, EMPTY, Occ())

    return handler


def check_string(ck: Checker, e: A.StringLit) -> Res:
    return Res(ArrayType(CHAR, 1), EMPTY, Occ())


def check_var(ck: Checker, e: A.Var) -> Res:
    env = ck.env
    b = env.lookup(e.name, e.loc)
    als = env.var_als(b)
    occ = Occ()
    keys = keys_of(als)
    if keys:
        occ.observe(keys, e.loc, e.name)
    return Res(env.view_type(b), als, occ)


def check_tuple(ck: Checker, e: A.TupleLit) -> Res:
    occ = Occ()
    ts: list[Type] = []
    als: list[Als] = []
    for x in e.elems:
        r = ck.check(x)
        ts.append(r.type)
        als.append(r.als)
        occ = concat(occ, r.occ)
    return Res(TupleType(tuple(ts)), tuple(als), occ)


def check_array(ck: Checker, e: A.ArrayLit) -> Res:
    if not e.elems:
        raise errors.type_error(e.loc, "array literal needs at least one element")
    first = ck.check(e.elems[0])
    t = first.type
    keys = set(keys_of(first.als))
    occ = first.occ
    for i, x in enumerate(e.elems[1:], start=2):
        r = ck.check(x)
        u = unify(t, r.type)
        if u is None:
            raise errors.type_error(
                x.loc,
                f"element {i} of array literal has type {r.type}, "
                f"but the first element has type {first.type}",
            )
        t = u
        keys |= keys_of(r.als)
        occ = concat(occ, r.occ)
    # Unique iff all elements are unique arrays (4.3): constant arrays are not.
    unique = isinstance(t, ArrayType) and t.unique
    at = ArrayType(t.elem, t.rank + 1, unique) if isinstance(t, ArrayType) else ArrayType(t, 1)
    return Res(at, frozenset(keys), occ)


# ----------------------------------------------------------------------------------
# Operators.


def check_binop(ck: Checker, e: A.BinOp) -> Res:
    assert e.lhs is not None and e.rhs is not None
    allowed = BINOP_OPERANDS[e.op]
    lhs = ck.check_operand(e.lhs, f"left operand of '{e.op}'", allowed)
    rhs = ck.check_operand(e.rhs, f"right operand of '{e.op}'", allowed)
    if lhs.type != rhs.type:
        raise errors.unify_error(e.loc, f"operands of '{e.op}'", lhs.type, rhs.type)
    return Res(binop_result(e.op, lhs.type), EMPTY, concat(lhs.occ, rhs.occ))


def check_negate(ck: Checker, e: A.Negate) -> Res:
    r = ck.check_operand(e.operand, "operand of '-'", (INT, REAL))
    return Res(r.type, EMPTY, r.occ)


def check_not(ck: Checker, e: A.Not) -> Res:
    r = ck.check_operand(e.operand, "operand of 'not'", (BOOL,))
    return Res(BOOL, EMPTY, r.occ)


def check_if(ck: Checker, e: A.If) -> Res:
    assert e.cond is not None and e.then is not None and e.else_ is not None
    cond = ck.check_operand(e.cond, "condition of 'if'", (BOOL,))
    then = ck.check(e.then)
    else_ = ck.check(e.else_)
    t = unify(then.type, else_.type)
    if t is None:
        raise errors.unify_error(e.loc, "branches of 'if'", then.type, else_.type)
    ck.validate(then.occ)
    ck.validate(else_.occ)
    consumed = then.occ.consumed_keys() | else_.occ.consumed_keys()
    als = minus(union(then.als, else_.als), consumed)
    return Res(t, als, concat(cond.occ, alt(then.occ, else_.occ)))


def check_apply(ck: Checker, e: A.Apply) -> Res:
    if e.fname == TRACE:
        # `trace` takes any one value and returns it (docs/reference.md §3).
        if len(e.args) != 1:
            raise errors.type_error(
                e.loc, f"trace takes exactly one argument, but is given {len(e.args)}"
            )
        r = ck.check(e.args[0])
        return Res(r.type, r.als, r.occ)
    sig = ck.env.funs.get(e.fname)
    if sig is None:
        raise errors.unknown_function(e.loc, e.fname)
    args = [ck.arg(a) for a in e.args]
    fname = f"function '{e.fname}'"
    if len(args) != len(sig.params):
        raise errors.arity_mismatch(e.loc, fname, len(sig.params), len(args))
    check_arg_types(fname, sig.params, sig.param_names, args)
    occ, keep = apply_args(ck, sig.params, args)
    return Res(sig.ret, result_als(sig.ret, keep), occ)


def _register(ck: Checker) -> None:
    h = ck._handlers
    h[A.IntLit] = _const(INT)
    h[A.RealLit] = _const(REAL)
    h[A.BoolLit] = _const(BOOL)
    h[A.CharLit] = _const(CHAR)
    h[A.CheckedLit] = _const(CERT)
    h[A.StringLit] = check_string
    h[A.Var] = check_var
    h[A.TupleLit] = check_tuple
    h[A.ArrayLit] = check_array
    h[A.BinOp] = check_binop
    h[A.Negate] = check_negate
    h[A.Not] = check_not
    h[A.If] = check_if
    h[A.Apply] = check_apply
    h.update(arrays.HANDLERS)
    h.update(soacs.HANDLERS)
    ck._binders.update(bindings.BINDERS)

