"""Binding forms: `let` with patterns, let-with (in-place update) and `loop`.

SSA gives the thesis's let-normalisation and unique names for free: a `let` binds a
name to the flattened SSA values of its right-hand side, and a tuple pattern splits
them by the widths of its parts (thesis 4.1). `let dest = src with [i...] <- v` is one
`soac.update` per component, guarded by bounds and shape checks (thesis 4.2); the
update consumes its source. `loop` is `scf.for` from 0 to the bound with the merge
values as `iter_args` (docs/ir.md).

A chain of bindings (`let ... in let ... in loop ... in e`) is walked iteratively, so
the depth of Python recursion does not grow with the length of a program's let chains.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import StringAttr, i64
from xdsl.ir import Block, Region, SSAValue

from l0.diagnostics import Loc
from l0.dialects import soac
from l0.internalise import checks
from l0.internalise.core import Ctx, handles
from l0.internalise.env import Flat, join_certs
from l0.internalise.types import rank_of, width
from l0.syntax import ast
from l0.types import TupleType, Type, needs_cert


def name_values(name: str, values: tuple[SSAValue, ...]) -> None:
    """Give the SSA values of a source variable its name, for readable IR."""
    for v in values:
        if v.name_hint is None and not isinstance(v.owner, arith.ConstantOp):
            v.name_hint = name


def bind_params(
    ctx: Ctx, params: Sequence[ast.Param], values: Sequence[SSAValue], certs: bool = False
) -> None:
    """Bind function or lambda parameters, in order, to the flattened values given for
    them (a tuple parameter takes as many values as its type has components).

    With `certs` (function parameters, thesis 4.2.1), a parameter whose type
    `needs_cert` takes one `!soac.cert` value first, and its value is predicated on it.
    Lambdas take no certs."""
    pos = 0
    for p in params:
        cert: tuple[SSAValue, ...] = ()
        if certs and needs_cert(p.type):
            cert = (values[pos],)
            cert[0].name_hint = f"{p.name}_c"
            pos += 1
        part = tuple(values[pos : pos + width(p.type)])
        name_values(p.name, part)
        ctx.env.bind(p.name, Flat(part, cert))
        pos += len(part)
    assert pos == len(values), f"internaliser: {pos} parameter values given {len(values)}"


def bind_pattern(ctx: Ctx, pat: ast.Pattern, t: Type, value: Flat) -> None:
    """Bind the names of `pat` to the components of `value`, a value of type `t`.

    Every name keeps the certificates of the whole value (conservative: they guard
    the components it came from).
    """
    assert width(t) == len(value.values), f"pattern of type {t} on {len(value.values)} values"
    pos = 0
    work: list[tuple[ast.Pattern, Type]] = [(pat, t)]
    while work:
        p, pt = work.pop()
        if isinstance(p, ast.PTuple):
            assert isinstance(pt, TupleType) and len(pt.elems) == len(p.elems)
            work.extend(reversed(list(zip(p.elems, pt.elems, strict=True))))
            continue
        n = width(pt)
        if isinstance(p, ast.PId):
            part = value.values[pos : pos + n]
            name_values(p.name, part)
            ctx.env.bind(p.name, Flat(part, value.certs))
        pos += n


@handles(ast.LetPat, ast.LetWith, ast.DoLoop)
def let_chain(ctx: Ctx, e: ast.Exp) -> Flat:
    mark = ctx.env.mark()
    while True:
        if isinstance(e, ast.LetPat):
            assert e.pat is not None and e.value is not None and e.value.type is not None
            bind_pattern(ctx, e.pat, e.value.type, ctx.exp(e.value))
            assert e.body is not None
            e = e.body
        elif isinstance(e, ast.LetWith):
            let_with(ctx, e)
            assert e.body is not None
            e = e.body
        elif isinstance(e, ast.DoLoop):
            do_loop(ctx, e)
            assert e.rest is not None
            e = e.rest
        else:
            break
    result = ctx.exp(e)
    ctx.env.restore(mark)
    return result


# ----------------------------------------------------------------------------------
# let-with


def check_slice_shape(
    ctx: Ctx, dest: SSAValue, value: SSAValue, k: int, loc: Loc
) -> list[SSAValue]:
    """The value stored by a let-with has the shape of the slice `dest[i1..ik]`."""
    rank = rank_of(dest.type) - k
    if rank == 0:
        return []
    value_dims = [checks.size(ctx, value, d) for d in range(rank)]
    slice_dims = [checks.size(ctx, dest, k + d) for d in range(rank)]
    ok = checks.all_of(
        ctx, [checks.cmp(ctx, "eq", a, b) for a, b in zip(value_dims, slice_dims, strict=True)]
    )
    msg = (
        f"value of shape {checks.shape_text(0, rank)} does not fit "
        f"slice of shape {checks.shape_text(rank, rank)}"
    )
    return [checks.emit_assert(ctx, ok, msg, loc, value_dims + slice_dims)]


def let_with(ctx: Ctx, e: ast.LetWith) -> None:
    """`let dest = src with [indices] <- value`: one `soac.update` per component."""
    assert e.src is not None and e.value is not None
    src = ctx.env.lookup(e.src.name)
    given = ctx.cert_vars(e.certs) + ctx.cert_vars(e.idx_certs)
    indices = [ctx.scalar(i) for i in e.indices]
    value = ctx.exp(e.value)
    bounds: list[SSAValue] = []
    if indices:
        base = checks.first_component(src.values, e.loc)
        bounds = checks.check_indices(ctx, base, indices, e.loc)
    shapes = [
        c
        for dest, v in zip(src.values, value.values, strict=True)
        for c in check_slice_shape(ctx, dest, v, len(indices), e.loc)
    ]
    certs = join_certs(given, src.certs, value.certs, bounds, shapes)
    updated = [
        ctx.val(soac.UpdateOp(dest, indices, v, certs))
        for dest, v in zip(src.values, value.values, strict=True)
    ]
    name_values(e.dest, tuple(updated))
    ctx.env.bind(e.dest, Flat.of(updated))


# ----------------------------------------------------------------------------------
# loop


def do_loop(ctx: Ctx, e: ast.DoLoop) -> None:
    """`loop (pat = init) = for var < bound do body`, binding `pat` to the result."""
    assert e.pat is not None and e.init is not None and e.init.type is not None
    assert e.bound is not None and e.body is not None
    init = ctx.exp(e.init)
    bound = ctx.scalar(e.bound)
    block = Block(arg_types=[i64, *(v.type for v in init.values)])
    mark = ctx.env.mark()
    block.args[0].name_hint = e.var
    ctx.env.bind(e.var, Flat.of([block.args[0]]))
    bind_pattern(ctx, e.pat, e.init.type, Flat.of(block.args[1:]))
    with ctx.at(block):
        body = ctx.exp(e.body)
        ctx.emit(scf.YieldOp(*body.values))
    ctx.env.restore(mark)
    loop = scf.ForOp(ctx.const_int(0), bound, ctx.const_int(1), init.values, Region(block))
    # where the loop is, for what reports on it as a whole (the Dask split's gather
    # warning); nested ops without a location of their own report it too
    loop.attributes["loc"] = StringAttr(str(e.loc))
    ctx.emit(loop)
    bind_pattern(ctx, e.pat, e.init.type, Flat.of(loop.results))
