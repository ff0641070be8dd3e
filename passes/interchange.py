"""`interchange`: move a sequential loop out of a map (map-loop interchange).

`map(fn (x) => P; loop (acc) = for i < n do B; T, xs)`, with `n` invariant to the map,
becomes `inits = map(fn (x) => P; init, xs)`, then
`loop (accs) = for i < n do map(fn (x, acc) => B, xs, accs)`, then
`map(fn (x, acc) => T, xs, accs)`: the sequential loop goes around the map, and the
parallel work of each step is one map over all elements (Futhark's kernel extraction
does the same before it distributes the map). `P` (the prelude) and `T` (the tail)
may be empty; without a tail the loop's results are the map's.

Note [When the interchange keeps the meaning]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The new form runs the steps of all elements in lockstep (step 0 of every element, then
step 1, ...) where the map ran all steps of element 0, then all of element 1. The
values are the same when each element's steps see only that element's state, so:
* the loop's bounds and step are defined outside the map (the same trip count for
  every element);
* the loop body uses, besides its own accumulators and the loop index, only values
  from outside the map, the map's parameters (rows of the inputs, which the new map
  takes again) and values the prelude binds (computed by the first map and handed to
  the loop's map as extra inputs); an array among those must have a row shape known
  before the map (`row_shape`), or the first map could build an irregular array the
  original never built;
* the body never prints, and fails only the same way for every element (Note [Checks
  the same for every element]): the original reports the error of the smallest
  failing element, after all steps of the elements before it; the lockstep form would
  report whichever fails at the earliest step. The ops a certificate guards (indexing,
  updates, `iota`, zips) do not fail where they stand: their checks are the
  `soac.assert`s, which count wherever they are in the body. The prelude may fail: it
  runs for all elements, in order, before any step, and with a body that cannot fail
  the first error is the same element's. So when the loop runs, every check of the
  prelude has passed: a certificate of the prelude that the body uses becomes
  `soac.checked` there;
* the body consumes only its own accumulators (never an array from outside the loop:
  each element would consume the same one, or its row once per step);
* every array accumulator keeps its shape from step to step and starts with a shape
  known before the map, so the arrays of accumulators stay regular;
* a `while` loop (the form with an early exit) is not interchanged: only `scf.for`.

Note [Checks the same for every element]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A check in the body whose condition and message use only values that are the same
for every element (from outside the map, constants, the loop index, sizes of the
array accumulators, and what is computed from those alone) fails, if it does, at the
same step for every element: the original reports element 0's failure at that step,
and so does the lockstep form (the steps before pass for all elements alike, and the
step's map reports its smallest failing element). LocVolCalib's time loop holds such
checks (`iota(numY)`, indexing by the grid's sizes). It needs a prelude that cannot
fail: the first map runs every element's prelude before any step.

Note [Work after the loop]
~~~~~~~~~~~~~~~~~~~~~~~~~~
The tail (the lambda's ops after its last loop) becomes a map after the loop over the
inputs, the arrays of the loop's results and the prelude's values it uses. It then
runs for all elements after all preludes, where the original ran element 0's tail
before element 1's prelude: the same when at most one of the two may fail or print
(an array the tail yields whose shape is not known before the map counts as failing:
the map reports irregular rows). The tail is not split off when it consumes an array
(a row of an array the first map built, which the loop's map also reads), holds
another loop (the interchange moves the last loop only), or uses an array of the
prelude whose shape may differ between elements.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.dialects.soac.types import CertType, array_of
from l0.passes.analysis.consumption import alias_sources, consumes_operand
from l0.passes.analysis.elements import (
    SOACS,
    fails_where_it_stands,
    same_everywhere,
    shape_before_map,
)
from l0.passes.analysis.scope import defined_inside, defined_outside, free_values
from l0.passes.analysis.shapes import keeps_shape, row_shape
from l0.passes.analysis.speculation import Speculation
from l0.passes.analysis.versions import version_of
from l0.passes.analysis.walk import walk_ops
from l0.passes.cores.versions import version


def _split(op: soac.MapOp) -> tuple[list[Operation], scf.ForOp, list[Operation]] | None:
    """The lambda's ops before its last top-level for loop (the prelude), the loop,
    and the ops after it (the tail, its yield included), or None without a loop."""
    ops = list(op.body.block.ops)
    for k in range(len(ops) - 1, -1, -1):
        if isinstance(ops[k], scf.ForOp):
            loop = ops[k]
            assert isinstance(loop, scf.ForOp)
            return ops[:k], loop, ops[k + 1:]
    return None


def _needs(scopes: list[Operation], op: soac.MapOp, *, own_operands: bool = True,
           ) -> list[SSAValue]:
    """The values of `op`'s lambda (defined inside `op`, outside `scopes`) that the ops
    `scopes` use."""
    found: dict[SSAValue, None] = {}
    for scope in scopes:
        for v in free_values(scope, own_operands=own_operands):
            if defined_inside(v, op) and not any(defined_inside(v, s) or v.owner is s
                                                 for s in scopes):
                found[v] = None
    return list(found)


def _is_constant(v: SSAValue) -> bool:
    return isinstance(v, OpResult) and type(v.op) is arith.ConstantOp


def _invariant(v: SSAValue, op: Operation) -> bool:
    """Whether `v` is the same for every element of the map `op` (a constant bound in
    the lambda is: the rewrite makes a copy of it where it is needed)."""
    return defined_outside(v, op) or _is_constant(v)


def _varying(loop: scf.ForOp, op: soac.MapOp) -> set[SSAValue]:
    """The values of the loop's body that may differ between the map's elements: those
    computed from the element, its accumulators or the prelude (Note [Checks the same
    for every element]). The size of an array accumulator is not: it keeps the shape
    it started with, known before the map (`why_not` checks that first)."""
    accumulators = set(loop.body.block.args[1:])
    varying: set[SSAValue] = {*op.body.block.args, *accumulators}

    def differs(v: SSAValue) -> bool:
        return v in varying or (defined_inside(v, op) and defined_outside(v, loop)
                                and not same_everywhere(v, op))

    for inner in walk_ops(loop):
        if inner is loop:
            continue
        if isinstance(inner, soac.SizeOp) and inner.array in accumulators:
            continue
        used = free_values(inner) if inner.regions else inner.operands
        if any(differs(v) for v in used):
            varying.update(inner.results)
            for region in inner.regions:
                for block in region.blocks:
                    varying.update(block.args)
    return varying


def _body_may_fail(loop: scf.ForOp, op: soac.MapOp,
                   speculation: Speculation) -> str | None:
    """"prints" when an op of the loop's body may print, "differs" when one may fail
    for some elements and not others, "same" when one may fail but the same way for
    every element, None when none may fail."""
    varying = _varying(loop, op)
    found = None
    for inner in walk_ops(loop):
        if inner is loop or not fails_where_it_stands(inner, speculation):
            continue
        if speculation.prints(inner):
            return "prints"
        used = free_values(inner) if inner.regions else inner.operands
        if any(v in varying or (defined_inside(v, op) and defined_outside(v, loop)
                                and not same_everywhere(v, op)) for v in used):
            return "differs"
        found = "same"
    return found


def _consumes_outside(loop: scf.ForOp) -> bool:
    """Whether the body may consume an array that is not one of its accumulators: an
    array that a consumption point in it (an update, a call's unique argument) may
    alias, followed back to where it was made."""
    accumulators = set(loop.body.block.args[1:])
    for inner in walk_ops(loop):
        for k, consumed in enumerate(inner.operands):
            if inner is loop or not consumes_operand(inner, k):
                continue
            seen: set[SSAValue] = set()
            work = [consumed]
            while work:
                v = work.pop()
                if v in seen or v in accumulators:
                    continue
                seen.add(v)
                if defined_outside(v, loop):
                    return True
                work.extend(alias_sources(v))
    return False


def _irregular(v: SSAValue, op: soac.MapOp) -> bool:
    """Whether `v`, an array of `op`'s lambda, may differ in shape between elements."""
    return isinstance(v.type, TensorType) and row_shape(v, op) is None


def _may_fail(ops: list[Operation], speculation: Speculation) -> bool:
    return any(fails_where_it_stands(inner, speculation)
               for top in ops for inner in walk_ops(top))


def _prelude_may_fail(prelude: list[Operation], op: soac.MapOp,
                      speculation: Speculation) -> bool:
    """Whether the prelude may fail or print for some elements and not others (a check
    of values the same for every element fails, if at all, for element 0 first, in
    both forms)."""
    for top in prelude:
        for inner in walk_ops(top):
            if not fails_where_it_stands(inner, speculation):
                continue
            if speculation.prints(inner) or inner.regions or inner is not top:
                return True
            if not all(same_everywhere(v, op) for v in inner.operands):
                return True
    return False


def _regular_step(v: SSAValue, arg: BlockArgument, loop: scf.ForOp, op: soac.MapOp) -> bool:
    """Whether the array `v` the body yields for accumulator `arg` has the same shape
    for every element: `arg`'s own (`keeps_shape`), or one computed from values outside
    the map alone."""
    if keeps_shape(v, arg):
        return True
    shape = row_shape(v, loop)
    return shape is not None and shape_before_map(shape, op)


def holds_parallel_work(op: Operation) -> bool:
    """Whether a SOAC is nested in `op` (Note [Only loops around parallel work])."""
    return any(isinstance(inner, SOACS) for inner in walk_ops(op) if inner is not op)


def why_not(op: soac.MapOp, speculation: Speculation, *,
            parallel_bodies: bool = False) -> str | None:
    """Why the map cannot be interchanged with its loop (Note [When the interchange
    keeps the meaning]), or None when it can. With `parallel_bodies`, a loop whose body
    holds no SOAC is not interchanged either."""
    parts = _split(op)
    if parts is None:
        return "the lambda has no for loop"
    prelude, loop, tail = parts
    if parallel_bodies and not holds_parallel_work(loop):
        return "the loop's body holds no parallel work"
    if not all(_invariant(v, op) for v in (loop.lb, loop.ub, loop.step)):
        return "the trip count depends on the element"
    params = set(op.body.block.args)
    for v in free_values(loop, own_operands=False):
        if not (_invariant(v, op) or v in params) and _irregular(v, op):
            return "the body uses an array of the lambda whose shape may differ"
    if _consumes_outside(loop):
        return "the body consumes an array from outside the loop"
    body = loop.body.block
    assert isinstance(body.last_op, scf.YieldOp)
    for k, (arg, init) in enumerate(zip(body.args[1:], loop.iter_args, strict=True)):
        if not isinstance(arg.type, TensorType):
            continue
        if row_shape(init, op) is None \
                or not _regular_step(body.last_op.operands[k], arg, loop, op):
            return "an array accumulator's shape may differ between elements"
    body_fails = _body_may_fail(loop, op, speculation)
    if body_fails == "prints":
        return "the body may print"
    if body_fails == "differs":
        return "the body may fail, differently for different elements"
    if body_fails == "same" and _prelude_may_fail(prelude, op, speculation):
        return "both the body and the work before the loop may fail"
    # The tail becomes a map after the loop (Note [Work after the loop]).
    if any(isinstance(inner, scf.ForOp | scf.WhileOp) for top in tail for inner in walk_ops(top)):
        return "the lambda has another loop after the loop"
    if any(consumes_operand(inner, k) for top in tail for inner in walk_ops(top)
           for k in range(len(inner.operands))):
        return "the work after the loop consumes an array"
    needed = _needs(tail, op)
    if any(v not in loop.results and not _is_constant(v) and _irregular(v, op)
           for v in needed):
        return "the work after the loop uses an array of the lambda whose shape may differ"
    tail_fails = _may_fail(tail[:-1], speculation) \
        or any(_irregular(v, op) for v in tail[-1].operands)
    if tail_fails and _prelude_may_fail(prelude, op, speculation):
        return "both the work before the loop and the work after it may fail"
    return None


def _replace_uses_within(old: SSAValue, new: SSAValue, scopes: list[Operation]) -> None:
    for use in list(old.uses):
        if any(scope.is_ancestor(use.operation) for scope in scopes):
            use.operation.operands[use.index] = new


def _lambda(scopes: list[Operation], args: list[SSAValue], needed: list[SSAValue]) -> Block:
    """A lambda block for the ops `scopes`: the values `args` become its arguments (rows
    of the arrays the new map takes), and the other values `needed` of the old lambda
    are constants, copied, and certificates of the prelude, whose checks have all
    passed (`soac.checked`)."""
    rows = Block(arg_types=[v.type for v in args])
    for old, new in zip(args, rows.args, strict=True):
        _replace_uses_within(old, new, scopes)
        new.name_hint = old.name_hint
    for old in needed:
        if old in args:
            continue
        assert isinstance(old, OpResult)
        if isinstance(old.type, CertType):
            made: Operation = soac.CheckedOp()
        else:
            assert _is_constant(old)
            made = old.op.clone()
        rows.add_op(made)
        _replace_uses_within(old, made.results[0], scopes)
    return rows


def interchange(op: soac.MapOp, rewriter: PatternRewriter) -> None:
    """Rewrite a map that `why_not` accepts (see the module docstring)."""
    parts = _split(op)
    assert parts is not None
    _, loop, tail = parts
    lam = op.body.block
    body = loop.body.block
    old_yield = tail[-1]
    # A lambda that yields the loop's results and does nothing else needs no map after
    # the loop.
    only_loop = len(tail) == 1 and all(v in loop.results for v in old_yield.operands)
    loc = None if op.loc is None else op.loc.data
    # The values of the prelude the loop and the tail use: the first map hands them
    # on as arrays.
    in_body = _needs([loop], op, own_operands=False)
    in_tail = [v for v in _needs(tail, op) if v not in loop.results]
    prelude = [v for v in dict.fromkeys([*in_body, *in_tail])
               if v not in lam.args and not _is_constant(v)
               and not isinstance(v.type, CertType)]
    inits = list(loop.iter_args)
    count = len(inits)

    # The loop's map: the old body as a lambda over rows of the inputs, the
    # accumulators and the prelude's values.
    rows = _lambda([loop], [*lam.args, *body.args[1:], *prelude], in_body)
    bounds: list[SSAValue] = []
    for v in (loop.lb, loop.ub, loop.step):
        if defined_inside(v, op):
            assert isinstance(v, OpResult)
            copy = v.op.clone()
            rewriter.insert(copy, InsertPoint.before(op))
            v = copy.results[0]
        bounds.append(v)
    outer_body = Block(arg_types=[body.args[0].type, *(array_of(v.type) for v in inits)])
    body.args[0].replace_all_uses_with(outer_body.args[0])
    outer_body.args[0].name_hint = body.args[0].name_hint
    steps = body.last_op
    assert isinstance(steps, scf.YieldOp)
    for inner in list(body.ops):
        if inner is not steps:
            inner.detach()
            rows.add_op(inner)
    rows.add_op(soac.YieldOp(*steps.operands))
    rewriter.erase(steps)

    # The map after the loop: the tail over rows of the inputs, the loop's results and
    # the prelude's values (Note [Work after the loop]).
    if only_loop:
        result_of = [loop.results.index(v) for v in old_yield.operands]
        rewriter.erase(old_yield)
    else:
        last = _lambda(tail, [*lam.args, *loop.results, *prelude], _needs(tail, op))
        for inner in tail:
            inner.detach()
            last.add_op(inner)

    # The first map: the prelude, yielding the initial accumulators and its values.
    rewriter.erase(loop)
    lam.add_op(soac.YieldOp(*inits, *prelude))
    first = soac.MapOp(op.inputs, [array_of(v.type) for v in (*inits, *prelude)],
                       rewriter.move_region_contents_to_new_regions(op.body), op.certs, loc)
    rewriter.insert(first, InsertPoint.before(op))

    step = soac.MapOp([*op.inputs, *outer_body.args[1:], *first.results[count:]],
                      list(outer_body.arg_types[1:]), Region(rows), op.certs, loc)
    outer_body.add_ops([step, scf.YieldOp(*step.results)])
    lb, ub, step_size = bounds
    outer = scf.ForOp(lb, ub, step_size, first.results[:count], Region(outer_body))
    outer.attributes |= loop.attributes
    if only_loop:
        rewriter.replace(op, outer, [outer.results[k] for k in result_of])
        return
    rewriter.insert(outer, InsertPoint.before(op))
    after = soac.MapOp([*op.inputs, *outer.results, *first.results[count:]],
                       list(op.result_types), Region(last), op.certs, loc)
    rewriter.replace(op, after)


def _branch(op: soac.MapOp, speculation: Speculation) -> scf.IfOp | None:
    """The `if` of a map that may go around it (Note [A branch the same for every
    element]), or None."""
    ops = list(op.body.block.ops)
    term = ops.pop()
    branches = [inner for inner in ops if isinstance(inner, scf.IfOp)]
    if len(branches) != 1 or not branches[0].false_region.blocks:
        return None
    branch = branches[0]
    if not same_everywhere(branch.cond, op) or not holds_parallel_work(branch):
        return None
    if any(v not in branch.results for v in term.operands):
        return None
    for inner in ops:
        if inner is not branch and (inner.regions or fails_where_it_stands(inner, speculation)
                                    or speculation.prints(inner)):
            return None
    return branch


def _take_branch(copy: soac.MapOp, region: int, rewriter: PatternRewriter) -> None:
    """In a copy of the map, replace its `if` by the ops of one of its regions."""
    branch = next(inner for inner in copy.body.block.ops if isinstance(inner, scf.IfOp))
    block = branch.regions[region].block
    last = block.last_op
    assert isinstance(last, scf.YieldOp)
    values = list(last.operands)
    rewriter.erase(last)
    rewriter.inline_block(block, InsertPoint.before(branch))
    rewriter.replace(branch, [], values)


def interchange_branch(op: soac.MapOp, branch: scf.IfOp, rewriter: PatternRewriter) -> None:
    """`map(fn (x) => if c then A else B, xs)` -> `if c then map(A, xs) else map(B, xs)`
    (Note [A branch the same for every element])."""
    cond = branch.cond
    if not defined_outside(cond, op):  # computed from outer values: compute it before
        copies: dict[SSAValue, SSAValue] = {}
        chain = [inner for inner in op.body.block.ops
                 if any(r is cond or same_everywhere(r, op) for r in inner.results)
                 and inner is not branch and inner.results]
        for inner in chain:
            copy = inner.clone()
            for index, v in enumerate(copy.operands):
                copy.operands[index] = copies.get(v, v)
            rewriter.insert(copy, InsertPoint.before(op))
            copies.update(zip(inner.results, copy.results, strict=True))
        cond = copies[cond]
    arms = []
    for region in (0, 1):
        copy = op.clone()
        _take_branch(copy, region, rewriter)
        arms.append(Region(Block([copy, scf.YieldOp(*copy.results)])))
    outer = scf.IfOp(cond, list(op.result_types), arms[0], arms[1])
    rewriter.replace(op, outer)


# Note [A branch the same for every element]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# `map(fn (x) => if c then A else B, xs)` with `c` the same for every element (defined
# outside the map, or computed in its lambda from such values alone) takes the same
# branch for every element, so it is `if c then map(fn (x) => A, xs) else map(fn (x)
# => B, xs)`, as Futhark's kernel extraction moves such a branch out of a kernel: each
# branch's map is a nest of its own for `distribute` and the kernels. The elements run
# in the same order, each the same branch, so values and errors are the original's.
# The lambda may hold other ops before the `if` when they have no regions and cannot
# fail or print (both maps compute them again, or, for the condition, the ops it is
# computed from run once before the `if`); its results must be the `if`'s. Like the
# loop, the branch moves only when it holds parallel work (a SOAC).


class InterchangeMapLoop(RewritePattern):
    def __init__(self, speculation: Speculation, parallel_bodies: bool,
                 versioned: bool = False) -> None:
        self.speculation = speculation
        self.parallel_bodies = parallel_bodies
        self.versioned = versioned

    def _target(self, op: soac.MapOp, rewriter: PatternRewriter) -> soac.MapOp | None:
        """The map to rewrite: `op`, or with `versioned` outside every versioned nest
        the copy `version` makes of it (Note [Versions of a nest])."""
        return version(op, rewriter) if self.versioned and version_of(op) is None else op

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, soac.MapOp) or version_of(op) == "kept":
            return
        if self.versioned and nested_in_soac(op):
            return  # runs in a thread of the outer level, whichever version runs
        if why_not(op, self.speculation, parallel_bodies=self.parallel_bodies) is None:
            target = self._target(op, rewriter)
            if target is not None:
                interchange(target, rewriter)
            return
        if _branch(op, self.speculation) is not None:
            target = self._target(op, rewriter)
            branch = None if target is None else _branch(target, self.speculation)
            if target is not None and branch is not None:
                interchange_branch(target, branch, rewriter)


def nested_in_soac(op: Operation) -> bool:
    """Whether `op` is inside a SOAC's lambda."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, SOACS):
            return True
        parent = parent.parent_op()
    return False


# Note [Only loops around parallel work]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The interchange pays where the loop's body holds parallel work (a SOAC): each step
# then becomes one map over all elements, whose inner levels `distribute` makes
# kernels of. A loop of scalar work (a tridiagonal solve's substitution, a loop of
# in-place updates) would become one launch per step, each doing the work of one
# step per element, where the map ran the whole loop in each thread: LocVolCalib's
# solves would cost numX + numY launches per time step instead of none. Futhark's
# kernel extraction interchanges a loop only when it holds nested parallelism for the
# same reason; `interchange{parallel-bodies=true}`, the gpu's `-O`, does the same.


@dataclass(frozen=True)
class InterchangePass(ModulePass):
    """Move a sequential loop out of a map: `map(fn (x) => loop (acc) = for i < n do B, xs)`
    becomes `loop (accs) = for i < n do map(fn (x, acc) => B, xs, accs)`.

    The map's lambda may bind values before the loop (a prelude): the initial
    accumulators and those values are computed first, by a map of the prelude, and
    handed to the loop's map as arrays; its checks have then all passed, so a
    certificate of the prelude becomes `soac.checked` in the loop's map. Scalar, tuple
    and array accumulators interchange; an array accumulator must keep its shape from
    step to step (updated in place, copied, or mapped element by element) and start
    with a shape known before the map. The trip count (`n`, the loop's start and
    step) must be defined outside the map (or be a constant).

    Work the lambda does after the loop becomes a map after the new loop, over the
    inputs, the loop's results and the prelude's values; a lambda that yields the
    loop's results needs none.

    A check in the body stays there when its values are the same for every element
    (it then fails, if at all, at the same step for every element, and element 0
    reports it in both forms) and the prelude has no check that depends on the element.

    Does not fire when the trip count depends on the element, when the body uses an
    array of the lambda whose shape may differ between elements, when the body prints
    or may fail for some elements and not others (the lockstep form would report
    another element's error first), when it
    consumes an array other than its own accumulators, when an array accumulator may
    change shape, for a `while` loop, or when the work after the loop cannot be split
    off: it consumes an array, holds another loop, or may fail while the work before
    the loop may too (Notes [When the interchange keeps the meaning] and [Work after
    the loop] in `l0.passes.interchange`).

    A branch whose condition is the same for every element and which holds a SOAC
    goes around the map the same way: `map(fn (x) => if c then A else B, xs)` becomes
    `if c then map(fn (x) => A, xs) else map(fn (x) => B, xs)` (Note [A branch the same
    for every element]).

    Option `parallel-bodies` (default false): interchange only a loop whose body
    holds a SOAC (Note [Only loops around parallel work]); the gpu target's `-O` runs
    `interchange{parallel-bodies=true}` after its fixed point, with `distribute`. Not
    in the cpu's `-O`: on one core the interchanged loop walks all the elements' state
    at every step instead of one element's at a time.

    Option `versioned` (default false; multicore's `-O`): a map outside every versioned
    nest is kept as it was beside a copy that is interchanged, and which of the two runs
    is chosen at run time by comparing the map's outer size with the threshold
    `SITE.flatten_below` (`soac.threshold`; Note [Versions of a nest] in
    `l0.passes.cores.versions`); the map as it was is never interchanged, and maps
    inside another SOAC's lambda are left alone.

        %r = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?xf64> {
          %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f64) : i64 {
            %b = arith.mulf %acc, %h : f64
            scf.yield %b : f64
          }
          soac.yield %a : f64
        }
      becomes
        %inits = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?xf64> {
          soac.yield %x : f64
        }
        %r = scf.for %i = %c0 to %n step %c1 iter_args(%accs = %inits) -> (tensor<?xf64>) : i64 {
          %s = soac.map(%x = %xs, %acc = %accs : tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> {
            %b = arith.mulf %acc, %h : f64
            soac.yield %b : f64
          }
          scf.yield %s : tensor<?xf64>
        }
    """

    name = "interchange"

    parallel_bodies: bool = False

    versioned: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        speculation = Speculation(op)
        PatternRewriteWalker(InterchangeMapLoop(speculation, self.parallel_bodies,
                                                self.versioned),
                             apply_recursively=False).rewrite_module(op)
