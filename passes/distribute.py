"""`distribute`: split a map whose lambda holds several SOACs into perfect map nests.

`map(fn (x) => let y = map(f, g(x)) in let s = h(y) in map(k(s), y), xs)` becomes
`ys = map(fn (x) => map(f, g(x)), xs)`, `ss = map(fn (x, y) => h(y), xs, ys)`,
`map(fn (x, y, s) => map(k(s), y), xs, ys, ss)`: each SOAC of the lambda (or loop or
branch holding one) becomes a map of its own over the outer elements, and each run of
scalar code between them another; a value one piece makes and a later piece uses is
carried between them as an array expanded by the outer size (a map of its values per
element), which memory planning allocates once. A map whose lambda is one SOAC over
rows is a perfect nest, one kernel (gpu) or region (multicore) over its flattened
index space (docs/gpu.md, "Kernel forms"). This is the distribution step of Futhark's
kernel extraction (`Futhark.Pass.ExtractKernels.Distribution`), on the thesis's IR.

Only the outermost parallel level is distributed (a map not inside another SOAC's
lambda): the levels below it run sequentially in a thread, where splitting them would
only add intermediate arrays.

Note [Pieces of a lambda]
~~~~~~~~~~~~~~~~~~~~~~~~~
The lambda's ops, in order, are cut into pieces: each op holding parallel work (a
SOAC, or a loop or branch with one inside) is a piece, and so is each run of other
ops between two of them. Some ops belong to no piece: those without regions that
cannot fail or print and compute only from values outside the map (and from such ops,
and certificates): constants, `iota(n)` of an outer size, an index into an outer
array at an outer index. Those whose operands are all from outside the map
(certificates included) are computed once, before the pieces, unless an array they
make may be consumed (each element consumes its own); the others (guarded by a check
of the lambda) again in each piece that uses them. So an `iota` a consumer
maps over stays a value the same for every element rather than an array carried
between the pieces, and the piece stays a perfect nest.

A piece's map takes the rows of the original inputs it uses and the arrays of the
earlier pieces' values it uses; it yields the values later pieces use and the
original map's results it makes (the last piece yields those no piece makes: inputs'
rows, outer values). A certificate an earlier piece made becomes `soac.checked`: that
piece has run for every element, so its checks have all passed.

Note [Pieces that only check]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A piece that yields nothing (its values are certificates, which later pieces take as
`soac.checked`) is either checks of outer values alone, which fail for element 0 if
at all: they move before the map's pieces that follow, run when the map has elements
(`scf.if`), with no map at all; or anything else, which joins the next piece (the
previous one when it is the last), so that no map yields nothing.

Note [When the distribution keeps the meaning]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The pieces run one after the other, each for all elements, where the map ran all
pieces of element 0, then all of element 1. The values are the same; what may change
is which error is reported, and what is consumed. So the map is distributed only when:
* no op of the lambda prints (the traces would come in another order);
* every array carried between pieces has the same shape for every element (`regular`):
  otherwise the expanded array is irregular where the original built none;
* every array a piece consumes is made in that piece (consuming a row of an input, an
  earlier piece's value or an outer array would consume it for all elements, or
  consume a value a later piece still reads);
* failures come in the same order (Note [Failures of the pieces]).

Note [Failures of the pieces]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The original reports the first failure of the smallest failing element. A check that
fails alike for every element (its values and whether it runs do not depend on the
element: `ElementDependence.fails_alike`) fails, if at all, for element 0 in both
forms: the pieces before it have passed for element 0 in the original, and for all
elements in the distributed form (unless one of them failed first, for element 0,
in both). A check that may fail for some elements only is safe in the last piece that
may fail, whose earlier pieces have then passed for all elements: the smallest failing
element is the same. So a piece that may fail for some elements only must be followed
by pieces that cannot fail. A map result that may be irregular counts as such a
failure of the piece that yields it (the piece's map reports it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.dialects.soac.types import CertType, array_of
from l0.passes.analysis.consumption import alias_sources, consumes_operand, may_be_consumed
from l0.passes.analysis.elements import (
    SOACS,
    ElementDependence,
    fails_where_it_stands,
    regular,
)
from l0.passes.analysis.scope import defined_inside, defined_outside
from l0.passes.analysis.speculation import Speculation
from l0.passes.analysis.versions import version_of
from l0.passes.analysis.walk import walk_ops
from l0.passes.cores.versions import version


def _parallel(op: Operation) -> bool:
    """Whether `op` is, or holds, a SOAC (a piece of its own)."""
    return isinstance(op, SOACS) or any(isinstance(inner, SOACS) for inner in walk_ops(op))


@dataclass
class _Plan:
    """How the lambda of a map is cut (Note [Pieces of a lambda])."""

    pieces: list[list[Operation]]
    replicable: set[Operation]
    piece_of: dict[Operation, int] = field(default_factory=dict)
    outputs: list[list[SSAValue]] = field(default_factory=list)
    """Per piece, the values its map yields, in order."""


def _replicable(ops: list[Operation], op: soac.MapOp,
                speculation: Speculation) -> set[Operation]:
    found: set[Operation] = set()
    for inner in ops:
        if inner.regions or fails_where_it_stands(inner, speculation) \
                or speculation.prints(inner):
            continue
        if all(defined_outside(v, op) or isinstance(v.type, CertType)
               or (isinstance(v, OpResult) and v.op in found) for v in inner.operands):
            found.add(inner)
    return found


def _top(inner: Operation, lam: Block) -> Operation:
    """The op of the lambda `lam` that is, or holds, `inner`."""
    while inner.parent is not lam:
        parent = inner.parent_op()
        assert parent is not None
        inner = parent
    return inner


def _plan(op: soac.MapOp, speculation: Speculation) -> _Plan:
    lam = op.body.block
    ops = list(lam.ops)[:-1]
    replicable = _replicable(ops, op, speculation)
    pieces: list[list[Operation]] = []
    run: list[Operation] = []
    for inner in ops:
        if inner in replicable:
            continue
        if _parallel(inner):
            if run:
                pieces.append(run)
                run = []
            pieces.append([inner])
        else:
            run.append(inner)
    if run:
        pieces.append(run)
    plan = _Plan(pieces, replicable)
    _cut(op, plan)
    # A piece that yields nothing and is not a set of checks of outer values goes
    # with its neighbour (Note [Pieces that only check]).
    while True:
        idle = [k for k, out in enumerate(plan.outputs)
                if not out and not _only_outer_checks(plan.pieces[k], op)]
        if not idle or len(plan.pieces) < 2:
            return plan
        k = idle[0]
        lone = plan.pieces.pop(k)
        if k < len(plan.pieces):
            plan.pieces[k][:0] = lone
        else:
            plan.pieces[k - 1].extend(lone)
        _cut(op, plan)


def _only_outer_checks(piece: list[Operation], op: soac.MapOp) -> bool:
    """Whether `piece` is checks of values from outside the map alone."""
    return all(isinstance(inner, soac.AssertOp)
               and all(defined_outside(v, op) for v in inner.operands) for inner in piece)


def _cut(op: soac.MapOp, plan: _Plan) -> None:
    """Which piece each op is in, and what each piece yields."""
    lam = op.body.block
    pieces = plan.pieces
    plan.piece_of = {inner: k for k, piece in enumerate(pieces) for inner in piece}
    term = lam.last_op
    assert term is not None
    outputs: list[dict[SSAValue, None]] = [{} for _ in pieces]
    for k, piece in enumerate(pieces):
        for inner in piece:
            for r in inner.results:
                if isinstance(r.type, CertType):
                    continue
                for use in r.uses:
                    user = _top(use.operation, lam)
                    if user is term or plan.piece_of.get(user, k) > k:
                        outputs[k][r] = None
    # The map's results no piece makes: the last piece yields them.
    for v in term.operands:
        if not (isinstance(v, OpResult) and v.op in plan.piece_of) and pieces:
            outputs[-1][v] = None
    plan.outputs = [list(out) for out in outputs]


def _consumes_foreign(piece: list[Operation], plan: _Plan, k: int) -> bool:
    """Whether an op of `piece` (number `k`) may consume an array that the piece does
    not make (followed back through its aliases to where it was made)."""
    for top in piece:
        for inner in walk_ops(top):
            for index, consumed in enumerate(inner.operands):
                if not consumes_operand(inner, index):
                    continue
                seen: set[SSAValue] = set()
                work = [consumed]
                while work:
                    v = work.pop()
                    if v in seen:
                        continue
                    seen.add(v)
                    if not any(defined_inside(v, t) or v.owner is t for t in piece) \
                            and not (isinstance(v, OpResult) and v.op in plan.replicable):
                        return True
                    work.extend(alias_sources(v))
    return False


def _failures(op: soac.MapOp, plan: _Plan, speculation: Speculation) -> list[str | None]:
    """Per piece: "varies" when it may fail for some elements and not others, "same"
    when it may fail alike for all, None when it cannot fail (Note [Failures of the
    pieces])."""
    dependence = ElementDependence(op)
    found: list[str | None] = []
    term = op.body.block.last_op
    assert term is not None
    results = set(term.operands)
    for k, piece in enumerate(plan.pieces):
        kind: str | None = None
        for top in piece:
            for inner in walk_ops(top):
                if not fails_where_it_stands(inner, speculation):
                    continue
                if not dependence.fails_alike(inner):
                    kind = "varies"
                    break
                kind = "same"
            if kind == "varies":
                break
        if kind != "varies" and any(
                v in results and isinstance(v.type, TensorType) and not regular(v, op)
                for v in plan.outputs[k]):
            kind = "varies"
        found.append(kind)
    return found


def why_not(op: soac.MapOp, speculation: Speculation) -> str | None:
    """Why the map is not distributed (Note [When the distribution keeps the meaning]),
    or None when it is."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, SOACS):
            return "the map is inside another SOAC's lambda"
        parent = parent.parent_op()
    lam = op.body.block
    if not any(_parallel(inner) for inner in lam.ops):
        return "the lambda holds no SOAC"
    if any(speculation.prints(inner) for inner in lam.ops):
        return "the lambda may print"
    plan = _plan(op, speculation)
    if len(plan.pieces) < 2:
        return "the lambda is one piece already"
    term = lam.last_op
    assert term is not None
    if any(isinstance(v.type, CertType) for v in term.operands):
        return "the map yields a certificate"
    results = set(term.operands)
    for out in plan.outputs:
        for v in out:
            if v not in results and isinstance(v.type, TensorType) and not regular(v, op):
                return "an array carried between pieces may differ in shape between elements"
    for k, piece in enumerate(plan.pieces):
        if _consumes_foreign(piece, plan, k):
            return "a piece consumes an array it does not make"
    failures = _failures(op, plan, speculation)
    for k, kind in enumerate(failures):
        if kind == "varies" and any(later is not None for later in failures[k + 1:]):
            return "a piece may fail for some elements, and a later piece may fail too"
    return None


def _remap(ops: list[Operation], mapping: dict[SSAValue, SSAValue]) -> None:
    for top in ops:
        for inner in walk_ops(top):
            for index, v in enumerate(inner.operands):
                new = mapping.get(v)
                if new is not None:
                    inner.operands[index] = new


def _needed(op: soac.MapOp, plan: _Plan, k: int) -> list[SSAValue]:
    """The values defined in the lambda of `op`, outside piece `k`, that the piece (or,
    for the last piece, the map's results it yields) uses, the operands of the
    replicable ops among them included."""
    lam = op.body.block
    piece = plan.pieces[k]
    members = set(piece)
    pending = [v for top in piece for inner in walk_ops(top) for v in inner.operands]
    if k == len(plan.pieces) - 1:
        pending += plan.outputs[k]
    needed: dict[SSAValue, None] = {}
    at = 0
    while at < len(pending):  # in order of first use
        v = pending[at]
        at += 1
        if v in needed:
            continue
        if isinstance(v, BlockArgument):
            if v.owner is lam:
                needed[v] = None
            continue
        if not isinstance(v, OpResult) or v.op.parent is not lam or v.op in members:
            continue  # outside the map, or made by the piece
        needed[v] = None
        if v.op in plan.replicable:
            pending.extend(v.op.operands)
    return list(needed)


def _check_if_any(op: soac.MapOp, checks: list[Operation],
                  rewriter: PatternRewriter) -> None:
    """Move `checks` (of outer values) before the map, run when it has elements."""
    size = soac.SizeOp(op.inputs[0], 0)
    zero = arith.ConstantOp(IntegerAttr(0, i64))
    some = arith.CmpiOp(size, zero, "sgt")
    branch = scf.IfOp(some, [], [Block()])
    for check in checks:
        check.detach()
        branch.true_region.block.add_op(check)
    branch.true_region.block.add_op(scf.YieldOp())
    rewriter.insert([size, zero, some, branch], InsertPoint.before(op))


def distribute(op: soac.MapOp, speculation: Speculation, rewriter: PatternRewriter) -> None:
    """Rewrite a map that `why_not` accepts (see the module docstring)."""
    plan = _plan(op, speculation)
    lam = op.body.block
    originals = list(lam.ops)
    term = originals.pop()
    loc = None if op.loc is None else op.loc.data
    made: dict[SSAValue, SSAValue] = {}  # a value a piece yields -> its array
    # What each piece uses that the lambda defines outside it, found before any piece
    # moves (the replicable ops it computes again among them).
    needs = [_needed(op, plan, k) for k in range(len(plan.pieces))]
    # Replicable ops of outer values and certificates alone are computed once, before
    # the pieces (Note [Pieces of a lambda]).
    hoisted: dict[SSAValue, SSAValue] = {}
    for inner in originals:
        if inner in plan.replicable and all(defined_outside(v, op) or v in hoisted
                                            for v in inner.operands) \
                and not any(may_be_consumed(r) for r in inner.results):
            copy = inner.clone()
            for index, v in enumerate(copy.operands):
                copy.operands[index] = hoisted.get(v, v)
            rewriter.insert(copy, InsertPoint.before(op))
            for old, new in zip(inner.results, copy.results, strict=True):
                hoisted[old] = new
                new.name_hint = old.name_hint
    for k, piece in enumerate(plan.pieces):
        if not plan.outputs[k]:
            _check_if_any(op, piece, rewriter)
            continue
        members = set(piece)
        needed = needs[k]
        clones = {v.op for v in needed if isinstance(v, OpResult) and v.op in plan.replicable
                  and v not in hoisted}
        args: list[SSAValue] = []
        inputs: list[SSAValue] = []
        for v in needed:
            if isinstance(v, BlockArgument):
                args.append(v)
                inputs.append(op.inputs[v.index])
            elif isinstance(v, OpResult) and v.op in plan.piece_of \
                    and not isinstance(v.type, CertType):
                args.append(v)
                inputs.append(made[v])
        if not inputs:  # the map's size comes from its first input
            inputs.append(op.inputs[0])
            block = Block(arg_types=[lam.args[0].type])
        else:
            block = Block(arg_types=[v.type for v in args])
        mapping: dict[SSAValue, SSAValue] = dict(zip(args, block.args, strict=False))
        for old_value, arg in zip(args, block.args, strict=False):
            arg.name_hint = old_value.name_hint
        mapping.update(hoisted)
        for v in needed:
            if isinstance(v, OpResult) and v.op in plan.piece_of \
                    and isinstance(v.type, CertType):
                checked = soac.CheckedOp()
                block.add_op(checked)
                mapping[v] = checked.result
        moved: list[Operation] = []
        for inner in originals:
            if inner in members:
                inner.detach()
                block.add_op(inner)
                moved.append(inner)
            elif inner in clones:
                copy = inner.clone()
                block.add_op(copy)
                moved.append(copy)
                for old, new in zip(inner.results, copy.results, strict=True):
                    mapping[old] = new
                    new.name_hint = old.name_hint
        _remap(moved, mapping)
        outs = plan.outputs[k]
        block.add_op(soac.YieldOp(*(mapping.get(v, v) for v in outs)))
        new_map = soac.MapOp(inputs, [array_of(v.type) for v in outs], Region(block),
                             op.certs, loc)
        rewriter.insert(new_map, InsertPoint.before(op))
        for v, r in zip(outs, new_map.results, strict=True):
            made[v] = r
            r.name_hint = v.name_hint
    results = [made[v] for v in term.operands]
    for result, value in zip(op.results, results, strict=True):
        if result.name_hint:
            value.name_hint = result.name_hint
    rewriter.replace(op, [], results)


class DistributeMap(RewritePattern):
    def __init__(self, speculation: Speculation, versioned: bool = False) -> None:
        self.speculation = speculation
        self.versioned = versioned

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, soac.MapOp) or why_not(op, self.speculation) is not None:
            return
        where = version_of(op)
        if where == "kept":
            return
        if not self.versioned or where == "flat":
            distribute(op, self.speculation, rewriter)
            return
        if _makes_nests(_plan(op, self.speculation)):
            target = version(op, rewriter)
            if target is not None:
                distribute(target, self.speculation, rewriter)


def _makes_nests(plan: _Plan) -> bool:
    """Whether a piece of `plan` is a map, which the distributed form makes a perfect
    nest of two maps: parallel over outer x inner elements, the parallelism a
    versioned copy is for (Note [Versions of a nest] in `l0.passes.cores.versions`;
    the other pieces run in a thread per element, as the map as it was does)."""
    return any(isinstance(inner, soac.MapOp) for piece in plan.pieces for inner in piece)


@dataclass(frozen=True)
class DistributePass(ModulePass):
    """Split a map whose lambda holds several SOACs into a sequence of perfect map nests.

    Each SOAC of the lambda (or a loop or branch holding one) becomes a map of its own
    over the outer elements, and each run of other ops between them another; a value
    one piece makes and a later one uses is carried as an array expanded by the outer
    size. Ops that compute from outer values alone and cannot fail (constants, `iota`
    of an outer size) are computed once, before the pieces (in each piece that uses
    them when a check of the lambda guards them); checks of outer values alone move
    before the pieces after them, run when the map has elements; a certificate of an
    earlier piece is `soac.checked` in a later one (Notes [Pieces of a lambda] and
    [Pieces that only check] in `l0.passes.distribute`). Only the outermost parallel
    level is distributed.

    Does not fire when the lambda may print, when an array carried between pieces
    may have a different shape for different elements, when a piece consumes an array
    it does not make, or when a piece may fail for some elements and a later piece may
    fail too (the smallest failing element's error could change: Notes [When the
    distribution keeps the meaning] and [Failures of the pieces]). Not in the cpu's
    `-O`: the gpu target's runs it with `interchange{parallel-bodies=true}` after its
    fixed point (Note [Flattening after the fixed point] in `passes/pipeline.py`),
    multicore's with `versioned`.

    Option `versioned` (default false; multicore's `-O`): a map outside every versioned
    nest is kept as it was beside a copy that is distributed, chosen at run time by
    comparing the map's outer size with the threshold `SITE.flatten_below` (Note
    [Versions of a nest] in `l0.passes.cores.versions`), and only when one of its
    pieces is a map (a perfect nest of two maps once distributed: more parallelism
    than the map as it was); the map as it was is never distributed.

        %r = soac.map(%x = %xs : tensor<?x?xf64>) -> tensor<?x?xf64> {
          %y = soac.map(%e = %x : tensor<?xf64>) -> tensor<?xf64> { ... }
          %s = soac.index %y[%c0] : tensor<?xf64> -> f64
          %z = soac.map(%e = %y : tensor<?xf64>) -> tensor<?xf64> { ... %s ... }
          soac.yield %z : tensor<?xf64>
        }
      becomes
        %ys = soac.map(%x = %xs : tensor<?x?xf64>) -> tensor<?x?xf64> {
          %y = soac.map(%e = %x : tensor<?xf64>) -> tensor<?xf64> { ... }
          soac.yield %y : tensor<?xf64>
        }
        %ss = soac.map(%y = %ys : tensor<?x?xf64>) -> tensor<?xf64> {
          %s = soac.index %y[%c0] : tensor<?xf64> -> f64
          soac.yield %s : f64
        }
        %r = soac.map(%y = %ys, %s = %ss : tensor<?x?xf64>, tensor<?xf64>) -> tensor<?x?xf64> {
          %z = soac.map(%e = %y : tensor<?xf64>) -> tensor<?xf64> { ... %s ... }
          soac.yield %z : tensor<?xf64>
        }
    """

    name = "distribute"

    versioned: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        speculation = Speculation(op)
        PatternRewriteWalker(DistributeMap(speculation, self.versioned),
                             apply_recursively=False).rewrite_module(op)
