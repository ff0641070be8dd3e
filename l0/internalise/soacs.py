"""SOACs as tupleless `soac` ops with lambda regions (thesis 4.1.1, docs/ir.md).

Every SOAC, plain or T-form, becomes one tupleless op over the flattened arrays:
`map(f, zip(a, b))` is `soac.map` over `a` and `b` taking the zip's certificate. The
functional argument becomes the op's region, whose block receives one row of each
input array (and the accumulators, for reductions):

* a named user function: the region calls `func.call @f(curried..., rows...)`; the
  curried arguments are evaluated once, before the SOAC, and captured;
* a builtin (`toReal`, `sqrt`, ...) or an operator section: the operation itself;
* an anonymous function: its body, internalised inline; free variables simply refer
  to the SSA values of the enclosing scope.

Tuple shimming (docs/reference.md §2.4) needs no code once values are flat: the SOAC supplies
the flattened components of its row, and they are distributed over the function's
parameters in order. The T-forms check that their arrays have equal outer sizes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import func
from xdsl.ir import Attribute, Block, Region, SSAValue

from l0.diagnostics import Loc
from l0.dialects import soac
from l0.internalise import checks, operators
from l0.internalise.bindings import bind_params
from l0.internalise.core import Ctx, call_result, handles
from l0.internalise.env import Flat, concat_flats, join_certs
from l0.internalise.types import add_dims, row_of
from l0.syntax import ast

# ----------------------------------------------------------------------------------
# Functional arguments.

Applier = Callable[[Ctx, list[SSAValue]], list[SSAValue]]
"""Emits one application of a functional argument to SOAC-supplied values."""

_UNARY_SECTIONS = frozenset({"not", "~"})


def _with_curried(curried: list[SSAValue], args: list[SSAValue], arity: int) -> list[SSAValue]:
    """The full argument list: curried arguments first, then the SOAC-supplied ones.

    Shimming needs nothing here: a supplied tuple is already its flat components.
    (The type checker shims against the parameters *after* currying, unlike the 2014
    quirk that dropped the curried arguments; see `l0.typecheck.soacs`.)"""
    assert len(curried) + len(args) == arity, (
        f"internaliser: function of {arity} values given {len(curried)} + {len(args)}"
    )
    return curried + args


def prepare(ctx: Ctx, fun: ast.Fun) -> Applier:
    """Evaluate what `fun` captures (curried arguments) here, before the SOAC, and
    return how to apply it inside the SOAC's lambda region."""
    if isinstance(fun, ast.Lambda):
        return _lambda(fun)
    curried_flats = [ctx.exp(c) for c in fun.curried]
    curried = [v for c in curried_flats for v in c.values]
    if isinstance(fun, ast.OpSection):
        return _section(fun, curried)
    if operators.is_scalar_builtin(fun.name):
        name, loc = fun.name, fun.loc

        def builtin(ctx: Ctx, args: list[SSAValue]) -> list[SSAValue]:
            (x,) = _with_curried(curried, args, 1)
            return [operators.scalar_builtin(ctx, name, x, loc)]

        return builtin
    sig = ctx.sigs[fun.name]
    # Curried arguments pass their own certs (conjoined here, before the SOAC); the
    # SOAC-supplied ones are elements of arrays the SOAC is already guarded on.
    curried_certs = [
        ctx.conjoined(c.certs) if has else None
        for c, has in zip(curried_flats, sig.param_certs, strict=False)
    ]

    def call(ctx: Ctx, args: list[SSAValue]) -> list[SSAValue]:
        values = _with_curried(curried, args, sum(sig.param_widths))
        flats: list[Flat] = []
        pos = 0
        for w in sig.param_widths:
            flats.append(Flat(tuple(values[pos : pos + w])))
            pos += w
        operands: list[SSAValue] = []
        for i, (has_cert, f) in enumerate(zip(sig.param_certs, flats, strict=True)):
            if has_cert:
                cert = curried_certs[i] if i < len(curried_certs) else None
                operands.append(cert if cert is not None else ctx.checked())
            operands.extend(f.values)
        op = func.CallOp(sig.name, operands, list(sig.result_types))
        ctx.emit(op)
        return list(call_result(sig, op.results).values)

    return call


def _section(fun: ast.OpSection, curried: list[SSAValue]) -> Applier:
    op, loc = fun.op, fun.loc
    if op in _UNARY_SECTIONS:

        def unary(ctx: Ctx, args: list[SSAValue]) -> list[SSAValue]:
            (x,) = _with_curried(curried, args, 1)
            if op == "not":
                return [operators.logical_not(ctx, x)]
            return [operators.negate(ctx, x)]

        return unary

    def binary(ctx: Ctx, args: list[SSAValue]) -> list[SSAValue]:
        lhs, rhs = _with_curried(curried, args, 2)
        return [operators.binop(ctx, op, lhs, rhs, loc)]

    return binary


def _lambda(fun: ast.Lambda) -> Applier:
    def inline(ctx: Ctx, args: list[SSAValue]) -> list[SSAValue]:
        assert fun.body is not None
        mark = ctx.env.mark()
        bind_params(ctx, fun.params, args)
        result = ctx.exp(fun.body)
        ctx.env.restore(mark)
        return list(result.values)

    return inline


def lambda_region(
    ctx: Ctx, fun: Applier, arg_types: Sequence[Attribute]
) -> tuple[Region, list[Attribute]]:
    """A region applying `fun` to its block arguments; also the yielded types."""
    block = Block(arg_types=arg_types)
    with ctx.at(block):
        results = fun(ctx, list(block.args))
        ctx.emit(soac.YieldOp(*results))
    return Region(block), [r.type for r in results]


# ----------------------------------------------------------------------------------
# Inputs.


def _one_array(ctx: Ctx, e: ast.Exp, loc: Loc) -> Flat:
    """The array of a plain SOAC: possibly an array of tuples (e.g. from `zip`)."""
    array = ctx.exp(e)
    checks.first_component(array.values, loc)
    return array


def _arrays(ctx: Ctx, exps: list[ast.Exp], what: str, loc: Loc) -> Flat:
    """The arrays of a T-SOAC, taken together after checking their outer sizes."""
    parts = [ctx.exp(a) for a in exps]
    firsts = [checks.first_component(p.values, loc) for p in parts]
    cert = checks.check_same_sizes(ctx, firsts, what, loc)
    inputs = concat_flats(parts)
    return Flat.of(inputs.values, join_certs(inputs.certs, cert))


def _rows(values: Sequence[SSAValue]) -> list[Attribute]:
    return [row_of(v.type) for v in values]


def _types(values: Sequence[SSAValue]) -> list[Attribute]:
    return [v.type for v in values]


# ----------------------------------------------------------------------------------
# The SOACs, each once for plain and T-form.


def _map(ctx: Ctx, fun: Applier, inputs: Flat, certs: list[SSAValue], loc: Loc) -> Flat:
    region, yielded = lambda_region(ctx, fun, _rows(inputs.values))
    op = soac.MapOp(inputs.values, [add_dims(t, 1) for t in yielded], region, certs, str(loc))
    ctx.emit(op)
    return Flat.of(op.results)


def _filter(ctx: Ctx, fun: Applier, inputs: Flat, certs: list[SSAValue]) -> Flat:
    region, _ = lambda_region(ctx, fun, _rows(inputs.values))
    op = soac.FilterOp(inputs.values, region, certs)
    ctx.emit(op)
    return Flat.of(op.results)


def _fold(
    ctx: Ctx, make: type, fun: Applier, neutral: Flat, inputs: Flat, certs: list[SSAValue]
) -> Flat:
    """`soac.reduce` or `soac.scan`: the lambda takes accumulators, then rows."""
    arg_types = _types(neutral.values) + _rows(inputs.values)
    region, _ = lambda_region(ctx, fun, arg_types)
    op = make(neutral.values, inputs.values, region, certs)
    ctx.emit(op)
    return Flat.of(op.results)


def _redomap(
    ctx: Ctx, outer: Applier, inner: Applier, neutral: Flat, inputs: Flat, certs: list[SSAValue]
) -> Flat:
    accs = _types(neutral.values)
    outer_region, _ = lambda_region(ctx, outer, accs + accs)
    inner_region, _ = lambda_region(ctx, inner, accs + _rows(inputs.values))
    op = soac.RedomapOp(neutral.values, inputs.values, outer_region, inner_region, certs)
    ctx.emit(op)
    return Flat.of(op.results)


@handles(ast.Map)
def map_(ctx: Ctx, e: ast.Map) -> Flat:
    assert e.fun is not None and e.array is not None
    fun = prepare(ctx, e.fun)
    array = _one_array(ctx, e.array, e.loc)
    return _map(ctx, fun, array, list(array.certs), e.loc)


@handles(ast.MapT)
def map_t(ctx: Ctx, e: ast.MapT) -> Flat:
    assert e.fun is not None
    fun = prepare(ctx, e.fun)
    arrays = _arrays(ctx, e.arrays, "mapT", e.loc)
    return _map(ctx, fun, arrays, join_certs(ctx.cert_vars(e.certs), arrays.certs), e.loc)


@handles(ast.Filter)
def filter_(ctx: Ctx, e: ast.Filter) -> Flat:
    assert e.fun is not None and e.array is not None
    fun = prepare(ctx, e.fun)
    array = _one_array(ctx, e.array, e.loc)
    return _filter(ctx, fun, array, list(array.certs))


@handles(ast.FilterT)
def filter_t(ctx: Ctx, e: ast.FilterT) -> Flat:
    assert e.fun is not None
    fun = prepare(ctx, e.fun)
    arrays = _arrays(ctx, e.arrays, "filterT", e.loc)
    return _filter(ctx, fun, arrays, join_certs(ctx.cert_vars(e.certs), arrays.certs))


@handles(ast.Reduce, ast.Scan)
def reduce_or_scan(ctx: Ctx, e: ast.Reduce | ast.Scan) -> Flat:
    assert e.fun is not None and e.neutral is not None and e.array is not None
    fun = prepare(ctx, e.fun)
    neutral = ctx.exp(e.neutral)
    array = _one_array(ctx, e.array, e.loc)
    make = soac.ReduceOp if isinstance(e, ast.Reduce) else soac.ScanOp
    return _fold(ctx, make, fun, neutral, array, join_certs(neutral.certs, array.certs))


@handles(ast.ReduceT, ast.ScanT)
def reduce_or_scan_t(ctx: Ctx, e: ast.ReduceT | ast.ScanT) -> Flat:
    assert e.fun is not None
    fun = prepare(ctx, e.fun)
    neutral = concat_flats([ctx.exp(x) for x in e.neutrals])
    what = "reduceT" if isinstance(e, ast.ReduceT) else "scanT"
    arrays = _arrays(ctx, e.arrays, what, e.loc)
    make = soac.ReduceOp if isinstance(e, ast.ReduceT) else soac.ScanOp
    certs = join_certs(ctx.cert_vars(e.certs), neutral.certs, arrays.certs)
    return _fold(ctx, make, fun, neutral, arrays, certs)


@handles(ast.Redomap)
def redomap(ctx: Ctx, e: ast.Redomap) -> Flat:
    assert e.outer is not None and e.inner is not None
    assert e.neutral is not None and e.array is not None
    outer = prepare(ctx, e.outer)
    inner = prepare(ctx, e.inner)
    neutral = ctx.exp(e.neutral)
    array = _one_array(ctx, e.array, e.loc)
    return _redomap(ctx, outer, inner, neutral, array, join_certs(neutral.certs, array.certs))


@handles(ast.RedomapT)
def redomap_t(ctx: Ctx, e: ast.RedomapT) -> Flat:
    assert e.outer is not None and e.inner is not None
    outer = prepare(ctx, e.outer)
    inner = prepare(ctx, e.inner)
    neutral = concat_flats([ctx.exp(x) for x in e.neutrals])
    arrays = _arrays(ctx, e.arrays, "redomapT", e.loc)
    certs = join_certs(ctx.cert_vars(e.certs), neutral.certs, arrays.certs)
    return _redomap(ctx, outer, inner, neutral, arrays, certs)
