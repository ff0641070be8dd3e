"""Fusing across `transpose` (thesis 8.1): moving a transposition out of the way.

When every output of a `map` reaches its consumers only through `transpose(k, n, ...)`,
the transposition blocks fusion. It can move, because a perfect nest of maps `map^d`
(each lambda just maps the next level over its rows) applies its innermost lambda to
the elements at `[i1, ..., id]` independently: permuting those d indices of every
input permutes the result the same way. A transposition that only moves dimensions
below d can therefore be

* pulled before the producer (PULL-TRANSPOSE, 8.1.2): `transpose(map^d(f, a))` =
  `map^d(f, transpose(a))`, when the producer is such a nest; or
* pushed after the consumer (PUSH-TRANSPOSE, 8.1.1): `map^d(g, transpose(b), c)` =
  `transpose(map^d(g, b, transpose^-1(c)))`, when the consumer is such a nest; or
* for `transpose(0, 1)` of a map whose lambda only maps arrays defined outside it,
  exchanged with it (SWAP-TRANSPOSE, Note [Swapping a map over invariant arrays]).

Either way the producer's output then feeds its consumer directly and ordinary fusion
applies. Moving the transposition changes the order in which the nest computes its
elements, so that nest must neither fail nor print (the first error, or the order of
traces, would change). Transpositions are views, so moving them costs nothing (8: "we think of them
as having a delayed representation").

Note [Arrays that enter a nest below its top]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Programs written with zips of whole arrays map the rows of a grid together with
arrays that do not depend on the row: `map(fn (row) => map(f, zip(row, c)), v)`
applies `f` to `v[i, j]` and `c[j]`. Such a nest is still perfect (`nest_levels`): an
inner level's inputs are the rows the level above passes down, each used only there,
and arrays defined outside the whole nest, *invariant inputs* that enter at that
level. Its element `[i1, ..., id]` reads an invariant entering at level L at
`[iL, ..., id]`. When the nest's dimensions are permuted, such an input either

* spans every dimension the transposition moves (it enters at or above the first of
  them): it stays at its level, itself transposed the same way (shifted by the levels
  above it); or
* misses some of them (`c` above, under `transpose(v)`: the new outer level runs over
  `j`, which `c` follows, the new inner level over `i`, which it does not). Its element
  is then read inside the innermost lambda, `c[j]`, at the indices of the new levels
  it follows, which those levels get from an `iota` of their size as an extra input.

It is not made an input of the new outer level (`zip(transpose(v), c)`), although
that reads the element once per row rather than once per element: the original
compares the sizes of `c` and a row of `v` only when `v` has rows (the zip check of an
inner level runs once per outer element), so with no rows `c` may have any size, and
the new outer level would fail on a zip the original never made. The index `c[j]`
runs only where the innermost lambda runs, that is where every level has elements and
the original's checks (its certificates) hold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.passes.analysis.constants import constant_int
from l0.passes.analysis.scope import defined_inside
from l0.passes.fuse.compose import detach_region


def perfect_depth(op: soac.MapOp) -> int:
    """How many levels of `op` form a perfect map nest: 1 for `op`, one more for each
    lambda that is only a map over its row arguments (all, in order) yielding all of
    that map's results (PULL-RESHAPE's nests; a transposition also moves through the
    nests of `nest_levels`, whose inner maps may take invariant arrays too)."""
    depth = 1
    while (inner := _only_inner_map(op)) is not None \
            and list(inner.inputs) == list(op.body.block.args):
        depth += 1
        op = inner
    return depth


def _only_inner_map(level: soac.MapOp) -> soac.MapOp | None:
    """The map `level`'s lambda consists of, if the lambda is only that map yielding
    all its results."""
    ops = list(level.body.block.ops)
    if len(ops) != 2:
        return None
    inner, done = ops
    if not isinstance(inner, soac.MapOp) or not isinstance(done, soac.YieldOp):
        return None
    return inner if list(done.values) == list(inner.results) else None


def _passes_rows_down(level: soac.MapOp, root: soac.MapOp) -> soac.MapOp | None:
    """The map one level below `level` in the nest of `root`, if `level`'s lambda is
    only that map yielding all its results, takes every row argument of `level` as an
    input and uses it nowhere else, and takes no other values than those and arrays
    defined outside `root` (Note [Arrays that enter a nest below its top])."""
    inner = _only_inner_map(level)
    if inner is None:
        return None
    block = level.body.block
    inputs = list(inner.inputs)
    for arg in block.args:
        uses = list(arg.uses)
        if len(uses) != 1 or uses[0].operation is not inner or uses[0].index >= len(inputs):
            return None
    args = set(block.args)
    if any(v not in args and defined_inside(v, root) for v in inputs):
        return None
    if any(defined_inside(c, root) for c in inner.certs):
        return None
    return inner


def nest_levels(op: soac.MapOp) -> list[soac.MapOp]:
    """The maps of the perfect nest `op` begins, `op` first: each lambda but the last
    only maps the next level over its rows and arrays invariant to the levels above
    (Note [Arrays that enter a nest below its top])."""
    levels = [op]
    while (inner := _passes_rows_down(levels[-1], op)) is not None:
        levels.append(inner)
    return levels


def moved_depth(k: int, n: int) -> int:
    """The number of outer dimensions `transpose(k, n, ...)` touches (thesis D(k, n))."""
    return max(k, k + n) + 1


def uniform_transpose(producer: Operation) -> tuple[int, int, list[soac.TransposeOp]] | None:
    """(k, n, the transposes) if every use of every output of `producer` is the operand
    of a `transpose(k, n, ...)` with the same k and n (and there is one); else None."""
    found: list[soac.TransposeOp] = []
    kn: tuple[int, int] | None = None
    for r in producer.results:
        for use in r.uses:
            t = use.operation
            if not isinstance(t, soac.TransposeOp) or t.certs:
                return None
            here = (t.k.data, t.n.data)
            if kn is None:
                kn = here
            elif kn != here or here[1] == 0:
                return None
            found.append(t)
    if kn is None or kn[1] == 0:
        return None
    return kn[0], kn[1], found


@dataclass(frozen=True)
class _Source:
    """An array a nest maps over: `value`, taken first by the level `level` (0: the
    outer map; deeper: an invariant input)."""

    value: SSAValue
    level: int


def _sources(levels: Sequence[soac.MapOp]) -> tuple[list[_Source], list[list[int]]]:
    """The arrays the nest maps over, and for each level the source of each input."""
    sources = [_Source(v, 0) for v in levels[0].inputs]
    of_inputs = [list(range(len(sources)))]
    for depth, inner in enumerate(levels[1:], start=1):
        above = levels[depth - 1].body.block.args
        here: list[int] = []
        for v in inner.inputs:
            if v in above:
                here.append(of_inputs[-1][above.index(v)])
            else:
                here.append(len(sources))
                sources.append(_Source(v, depth))
        of_inputs.append(here)
    return sources, of_inputs


def _new_positions(d: int, k: int, n: int) -> list[int]:
    """Where `transpose(k, n, ...)` puts each of the first d dimensions."""
    order = list(range(d))
    order.insert(k + n, order.pop(k))
    return [order.index(dim) for dim in range(d)]


def _rows_of(v: SSAValue) -> SSAValue:
    """An array with as many rows as `v`, not a map's output when `v` is one (taking a
    producer's size would keep it from fusing into the nest)."""
    while isinstance(v.owner, soac.MapOp):
        v = v.owner.inputs[0]
    return v


def _permuted_nest(rewriter: PatternRewriter, op: soac.MapOp, k: int, n: int,
                   roots: Sequence[SSAValue]) -> soac.MapOp:
    """The nest of `op` over `roots` (its inputs, each transposed by (k, n)), computing
    `transpose(k, n, op's results)`: invariant inputs are transposed, or read by index
    in the innermost lambda (Note [Arrays that enter a nest below its top]). The new
    nest takes the innermost lambda's region; it and the ops it needs are inserted
    before `op`."""
    d = moved_depth(k, n)
    levels = nest_levels(op)[:d]
    assert len(levels) == d
    sources, of_inputs = _sources(levels)
    first_moved = min(k, k + n)
    position = _new_positions(d, k, n)
    outside: dict[int, SSAValue] = dict(enumerate(roots))
    indexed = [s for s, src in enumerate(sources) if src.level > first_moved]
    for s, src in enumerate(sources):
        if 0 < src.level <= first_moved:
            moved = soac.TransposeOp(src.value, k - src.level, n)
            rewriter.insert(moved, InsertPoint.before(op))
            outside[s] = moved.result
    counted = {position[dim] for s in indexed for dim in range(sources[s].level, d)}
    index_of: dict[int, SSAValue] = {}  # new dimension -> its index, an `iota` element

    def build_level(depth: int, values: dict[int, SSAValue],
                    put: Callable[[Operation], object]) -> soac.MapOp:
        # `values`: each source's array at this depth; `put` inserts an op before it
        old = levels[depth]
        kept = [s for s in of_inputs[depth] if s not in indexed]
        inputs = [values[s] for s in kept]
        if depth in counted:
            size = soac.SizeOp(_rows_of(values[0]) if depth == 0 else values[0], 0)
            iota = soac.IotaOp(size)
            put(size)
            put(iota)
            inputs.append(iota.result)
        if depth == d - 1:
            body = detach_region(old.body)
            block = body.block
            if depth in counted:
                index_of[depth] = block.insert_arg(i64, len(block.args))
            for s, arg in zip(of_inputs[depth], list(block.args), strict=True):
                if s in indexed:
                    src = sources[s]
                    row = soac.row_type(src.value.type, d - src.level)
                    assert row is not None
                    at = [index_of[position[dim]] for dim in range(src.level, d)]
                    certs = list(dict.fromkeys(c for lv in levels[src.level:] for c in lv.certs))
                    element = soac.IndexOp(src.value, at, row, certs)
                    block.insert_op_before(element, block.first_op)  # type: ignore[arg-type]  # the yield, at least
                    arg.replace_all_uses_with(element.result)
                    block.erase_arg(arg)
        else:
            row_types = [soac.row_type(v.type) for v in inputs]
            block = Block(arg_types=row_types)  # type: ignore[arg-type]  # inputs are arrays: all have rows
            names = dict(zip(of_inputs[depth], old.body.block.args, strict=True))
            for s, arg in zip(kept, block.args, strict=False):
                arg.name_hint = names[s].name_hint
            inner_values = dict(outside)
            inner_values.update(zip(kept, block.args, strict=False))
            if depth in counted:
                index_of[depth] = block.args[-1]
            inner = build_level(depth + 1, inner_values, block.add_op)
            block.add_ops([inner, soac.YieldOp(*inner.results)])
            body = Region(block)
        loc = None if old.loc is None else old.loc.data
        new = soac.MapOp(inputs, old.result_types, body, list(old.certs), loc)
        new.attributes |= old.attributes
        if depth > 0:  # the outer results replace other values, and take their names
            for mine, theirs in zip(new.results, old.results, strict=True):
                mine.name_hint = theirs.name_hint
        return new

    new = build_level(0, outside, lambda o: rewriter.insert(o, InsertPoint.before(op)))
    rewriter.insert(new, InsertPoint.before(op))
    return new


def pull_transpose(rewriter: PatternRewriter, producer: soac.MapOp, k: int, n: int,
                   transposes: list[soac.TransposeOp]) -> soac.MapOp:
    """PULL-TRANSPOSE: `producer` over its inputs transposed by (k, n), whose outputs
    replace `transposes`. The producer must be a perfect nest deeper than the
    transposition (`nest_levels`)."""
    moved = [soac.TransposeOp(a, k, n) for a in producer.inputs]
    for t in moved:
        rewriter.insert(t, InsertPoint.before(producer))
    new = _permuted_nest(rewriter, producer, k, n, [t.result for t in moved])
    for t in transposes:
        index = producer.results.index(t.array)
        rewriter.replace(t, [], [new.results[index]])
    rewriter.erase(producer)
    return new


def can_push(consumer: Operation, outputs: set[SSAValue], k: int, n: int) -> bool:
    """Whether PUSH-TRANSPOSE applies to `consumer`: a perfect map nest deeper than the
    transposition, with at least one input among `outputs` (transposes of the
    producer's outputs)."""
    return (isinstance(consumer, soac.MapOp) and len(nest_levels(consumer)) >= moved_depth(k, n)
            and any(v in outputs for v in consumer.inputs))


def push_transpose(rewriter: PatternRewriter, consumer: soac.MapOp, k: int, n: int,
                   outputs: set[SSAValue]) -> soac.MapOp:
    """PUSH-TRANSPOSE: `consumer` over the untransposed producer outputs (for inputs in
    `outputs`, each a `transpose(k, n, o)`) and the inverse transposes of its other
    inputs; its results are transposed back."""
    inputs: list[SSAValue] = []
    for v in consumer.inputs:
        if v in outputs:
            assert isinstance(v.owner, soac.TransposeOp)
            inputs.append(v.owner.array)
        else:
            inverse = soac.TransposeOp(v, k + n, -n)
            rewriter.insert(inverse, InsertPoint.before(consumer))
            inputs.append(inverse.result)
    new = _permuted_nest(rewriter, consumer, k + n, -n, inputs)
    back = [soac.TransposeOp(r, k, n) for r in new.results]
    for t in back:
        rewriter.insert(t, InsertPoint.before(consumer))
    rewriter.replace(consumer, [], [t.result for t in back])
    return new


# Note [Swapping a map over invariant arrays]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# `map(fn (x) => map(fn (j) => f(x, j), js), xs)` builds element [i, j] from `xs[i]`
# and `js[j]` alone when `js` is defined outside it: the lambda's row `x` is used in
# the innermost lambda, not mapped over, so the nest is not perfect (the row of a
# scalar array has no dimension to transpose) and PULL-TRANSPOSE cannot move a
# transposition onto its inputs. But its transposition is the same map with the levels
# exchanged, `map(fn (j) => map(fn (x) => f(x, j), xs), js)`, and that is what the
# one-hot rows of a histogram need when `iswim` reads them by columns: the columns'
# reduces then fuse with the inner maps, one redomap over `xs` per bucket. The zip
# checks of both levels are outside the producer (made before either way); the
# innermost lambda must neither fail nor print (it runs in the other order). With no
# rows the two differ: the producer is then an array with every dimension 0 (the
# interpreter's empty arrays), its transposition too, where the new form has
# `len(js)` empty rows. So the transposition may be read only where the producer has
# rows: inside the second branch of an `if size(0, xs) == 0`, as `iswim`'s new form
# makes (its fold's rows are the producer's).


def _rows_test(cond: SSAValue, producer: soac.MapOp) -> bool:
    """Whether `cond` is `size(0, a) == 0` for an input or output `a` of `producer`
    (all have its rows)."""
    test = cond.owner
    if not isinstance(test, arith.CmpiOp) or test.predicate.value.data != 0:
        return False
    for size, zero in ((test.lhs, test.rhs), (test.rhs, test.lhs)):
        owner = size.owner
        if isinstance(owner, soac.SizeOp) and owner.dim.data == 0 \
                and constant_int(zero) == 0 \
                and (owner.array in producer.inputs or owner.array in producer.results):
            return True
    return False


def _used_only_with_rows(transposes: list[soac.TransposeOp], producer: soac.MapOp) -> bool:
    """Whether every use of `transposes` is in the second branch of an `if` on the
    producer's rows being none (Note [Swapping a map over invariant arrays])."""
    for t in transposes:
        for use in t.result.uses:
            op: Operation | None = use.operation
            while op is not None:
                holder = op.parent_op()
                if isinstance(holder, scf.IfOp) and op.parent_region() is holder.false_region \
                        and _rows_test(holder.cond, producer):
                    break
                op = holder
            if op is None:
                return False
    return True


def swappable(producer: soac.MapOp, k: int, n: int,
              transposes: list[soac.TransposeOp]) -> bool:
    """Whether SWAP-TRANSPOSE applies (Note [Swapping a map over invariant arrays]):
    `transpose(k, n)` exchanges the two outer dimensions, `producer`'s lambda is only
    a map over arrays defined outside `producer`, with its checks outside too, and the
    transposition is read only where the producer has rows."""
    inner = _only_inner_map(producer)
    return (k, n) in ((0, 1), (1, -1)) and inner is not None \
        and not any(defined_inside(v, producer) for v in (*inner.inputs, *inner.certs)) \
        and _used_only_with_rows(transposes, producer)


def swap_transpose(rewriter: PatternRewriter, producer: soac.MapOp,
                   transposes: list[soac.TransposeOp]) -> soac.MapOp:
    """SWAP-TRANSPOSE: `producer` (`swappable`) with its two levels exchanged, whose
    outputs replace `transposes`: the inner map's arrays become the outer level's, the
    producer's the inner level's, around the innermost lambda."""
    inner = _only_inner_map(producer)
    assert inner is not None
    outer_args = producer.body.block.args
    body = detach_region(inner.body).block
    outer_block = Block(arg_types=[a.type for a in body.args])
    inner_block = Block(arg_types=[a.type for a in outer_args])
    for old_arg, new_arg in (*zip(body.args, outer_block.args, strict=True),
                             *zip(outer_args, inner_block.args, strict=True)):
        new_arg.name_hint = old_arg.name_hint
        old_arg.replace_all_uses_with(new_arg)
    for op in list(body.ops):
        op.detach()
        inner_block.add_op(op)
    done = inner_block.last_op
    assert isinstance(done, soac.YieldOp)
    rows = soac.MapOp(list(producer.inputs), [soac.array_of(v.type) for v in done.values],
                      Region(inner_block), list(producer.certs),
                      None if producer.loc is None else producer.loc.data)
    outer_block.add_ops([rows, soac.YieldOp(*rows.results)])
    new = soac.MapOp(list(inner.inputs), [soac.array_of(r.type) for r in rows.results],
                     Region(outer_block), list(inner.certs),
                     None if inner.loc is None else inner.loc.data)
    rewriter.insert(new, InsertPoint.before(producer))
    for t in transposes:
        rewriter.replace(t, [], [new.results[producer.results.index(t.array)]])
    rewriter.erase(producer)
    return new
