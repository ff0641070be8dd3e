"""Scalar expressions, tuples, calls, `if` and certificates (thesis 4.1, 4.2).

Tuples vanish: a tuple literal is the concatenation of its elements' components, and
the certificates of the elements travel with it. `if` becomes `scf.if` yielding every
flattened component; calls become `func.call` on flattened arguments.
"""

from __future__ import annotations

from xdsl.dialects import func, scf
from xdsl.ir import Block, Region

from l0.dialects import soac
from l0.internalise import checks, operators
from l0.internalise.core import Ctx, call_operands, call_result, handles
from l0.internalise.env import Flat, concat_flats, join_certs
from l0.syntax import ast

# ----------------------------------------------------------------------------------
# Literals and variables.


@handles(ast.IntLit)
def int_lit(ctx: Ctx, e: ast.IntLit) -> Flat:
    return Flat.of([ctx.const_int(e.value)])


@handles(ast.RealLit)
def real_lit(ctx: Ctx, e: ast.RealLit) -> Flat:
    return Flat.of([ctx.const_real(e.value)])


@handles(ast.BoolLit)
def bool_lit(ctx: Ctx, e: ast.BoolLit) -> Flat:
    return Flat.of([ctx.const_bool(e.value)])


@handles(ast.CharLit)
def char_lit(ctx: Ctx, e: ast.CharLit) -> Flat:
    return Flat.of([ctx.const_char(ord(e.value))])


@handles(ast.CheckedLit)
def checked_lit(ctx: Ctx, e: ast.CheckedLit) -> Flat:
    return Flat.of([ctx.checked()])


@handles(ast.Var)
def var(ctx: Ctx, e: ast.Var) -> Flat:
    return ctx.env.lookup(e.name)


@handles(ast.TupleLit)
def tuple_lit(ctx: Ctx, e: ast.TupleLit) -> Flat:
    return concat_flats([ctx.exp(x) for x in e.elems])


# ----------------------------------------------------------------------------------
# Operators.


@handles(ast.BinOp)
def bin_op(ctx: Ctx, e: ast.BinOp) -> Flat:
    assert e.lhs is not None and e.rhs is not None
    lhs = ctx.scalar(e.lhs)
    rhs = ctx.scalar(e.rhs)
    return Flat.of([operators.binop(ctx, e.op, lhs, rhs, e.loc)])


@handles(ast.Negate)
def negate(ctx: Ctx, e: ast.Negate) -> Flat:
    assert e.operand is not None
    return Flat.of([operators.negate(ctx, ctx.scalar(e.operand))])


@handles(ast.Not)
def not_(ctx: Ctx, e: ast.Not) -> Flat:
    assert e.operand is not None
    return Flat.of([operators.logical_not(ctx, ctx.scalar(e.operand))])


# ----------------------------------------------------------------------------------
# Control flow and calls.


@handles(ast.If)
def if_(ctx: Ctx, e: ast.If) -> Flat:
    """`scf.if` yielding every component; certificates from inside a branch guard ops
    there only, so the results carry none."""
    assert e.cond is not None and e.then is not None and e.else_ is not None
    cond = ctx.scalar(e.cond)
    regions: list[Region] = []
    branch_types = []
    for branch in (e.then, e.else_):
        block = Block()
        with ctx.at(block):
            value = ctx.exp(branch)
            ctx.emit(scf.YieldOp(*value.values))
        regions.append(Region(block))
        branch_types.append([v.type for v in value.values])
    assert branch_types[0] == branch_types[1], f"if branches differ: {branch_types}"
    op = scf.IfOp(cond, branch_types[0], regions[0], regions[1])
    ctx.emit(op)
    return Flat.of(op.results)


@handles(ast.Apply)
def apply(ctx: Ctx, e: ast.Apply) -> Flat:
    """A call of a builtin or a user function.

    An argument for a parameter with a cert slot (thesis 4.2.1) passes the conjoin of
    its certs first, so the callee's SOACs over it are guarded by the caller's zip
    check; a result with a cert comes back predicated on it."""
    args = [ctx.exp(a) for a in e.args]
    if e.fname == "trace":
        (arg,) = args
        return Flat.of(operators.trace(ctx, arg.values, e.loc), arg.certs)
    if operators.is_scalar_builtin(e.fname):
        (arg,) = args
        return Flat.of([operators.scalar_builtin(ctx, e.fname, arg.one, e.loc)])
    sig = ctx.sigs[e.fname]
    call = func.CallOp(e.fname, call_operands(ctx, sig, args), list(sig.result_types))
    ctx.emit(call)
    return call_result(sig, call.results)


# ----------------------------------------------------------------------------------
# Certificates written in the source.


@handles(ast.Assert)
def assert_(ctx: Ctx, e: ast.Assert) -> Flat:
    assert e.cond is not None
    cond = ctx.scalar(e.cond)
    return Flat.of([checks.emit_assert(ctx, cond, "assertion failed", e.loc)])


@handles(ast.Conjoin)
def conjoin(ctx: Ctx, e: ast.Conjoin) -> Flat:
    parts = [ctx.exp(c) for c in e.certs]
    certs = join_certs(*(p.values for p in parts))
    if not certs:
        return Flat.of([ctx.checked()])
    if len(certs) == 1:
        return Flat.of(certs)
    op = soac.ConjoinOp(certs)
    ctx.emit(op)
    return Flat.of(op.results)
