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
  `transpose(map^d(g, b, transpose^-1(c)))`, when the consumer is such a nest.

Either way the producer's output then feeds its consumer directly and ordinary fusion
applies. Moving the transposition changes the order in which the nest computes its
elements, so that nest must neither fail nor print (the first error, or the order of
traces, would change). Transpositions are views, so moving them costs nothing (8: "we think of them
as having a delayed representation").
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.passes.fuse.compose import rebuilt


def perfect_depth(op: soac.MapOp) -> int:
    """How many levels of `op` form a perfect map nest: 1 for `op`, one more for each
    lambda that is only a map over its row arguments (all, in order) yielding all of
    that map's results."""
    depth = 1
    while True:
        block = op.body.block
        ops = list(block.ops)
        if len(ops) != 2:
            return depth
        inner, done = ops
        if not isinstance(inner, soac.MapOp) or not isinstance(done, soac.YieldOp):
            return depth
        if list(inner.inputs) != list(block.args) or list(done.values) != list(inner.results):
            return depth
        depth += 1
        op = inner


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


def pull_transpose(rewriter: PatternRewriter, producer: soac.MapOp, k: int, n: int,
                   transposes: list[soac.TransposeOp]) -> soac.MapOp:
    """PULL-TRANSPOSE: `producer` over its inputs transposed by (k, n), whose outputs
    replace `transposes`. The producer must be a perfect nest deeper than the
    transposition (`perfect_depth`)."""
    moved = [soac.TransposeOp(a, k, n) for a in producer.inputs]
    for t in moved:
        rewriter.insert(t, InsertPoint.before(producer))
    new = rebuilt(producer, [t.result for t in moved])
    rewriter.insert(new, InsertPoint.before(producer))
    for t in transposes:
        index = producer.results.index(t.array)  # type: ignore[arg-type]
        rewriter.replace(t, [], [new.results[index]])
    rewriter.erase(producer)
    assert isinstance(new, soac.MapOp)
    return new


def can_push(consumer: Operation, outputs: set[SSAValue], k: int, n: int) -> bool:
    """Whether PUSH-TRANSPOSE applies to `consumer`: a perfect map nest deeper than the
    transposition, with at least one input among `outputs` (transposes of the
    producer's outputs)."""
    return (isinstance(consumer, soac.MapOp) and perfect_depth(consumer) >= moved_depth(k, n)
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
    new = rebuilt(consumer, inputs)
    rewriter.insert(new, InsertPoint.before(consumer))
    back = [soac.TransposeOp(r, k, n) for r in new.results]
    for t in back:
        rewriter.insert(t, InsertPoint.before(consumer))
    rewriter.replace(consumer, [], [t.result for t in back])
    assert isinstance(new, soac.MapOp)
    return new
