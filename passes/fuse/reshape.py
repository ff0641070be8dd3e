"""Fusing across `reshape` (thesis 8.2, PULL-RESHAPE): the reshape moves onto the
producer's inputs.

A `map` over one-dimensional arrays applies its lambda to each element on its own, so
regrouping its output is regrouping its inputs:

    reshape((d1, ..., dn), map(f, a))  =  map^n(f, reshape((d1, ..., dn), a))

where `map^n` is a nest of n maps whose innermost lambda is `f` (thesis: "we reshape
a to be n-dimensional and change the producer to be a depth-n nest"). The same holds
for a perfect nest `map^k(f, a)` over k-dimensional inputs whose innermost lambda
yields scalars and reads no row of an outer level (Note [Reshaping a map nest]). When every
output of the producer reaches its consumers only through reshapes to one shape, the
producer is rebuilt so, over its inputs reshaped the same way, and its outputs replace
the reshapes; ordinary fusion (or, after a transposition, PULL-TRANSPOSE) applies next.

The size check is not the reshape's: `reshape` is pure, guarded by a certificate from
a `soac.assert` (the element count) placed before it. That assert does not move. The
new reshapes of the inputs take the same certificate (and the producer's, which make
its inputs' sizes equal), and the rebuilt producer is placed where the first reshape
was, after the check, in the same order as before. The producer's work moves there
too, so the rule fires only when that changes nothing observable (`why_not`): its
lambda can neither fail nor print, or nothing between it and the reshape can; and no
array it reads is consumed on the way. Nor does it fire unless the rebuilt producer
then fuses: with the reshapes' consumers, or through one transposition of them all
(PULL-TRANSPOSE needs the nest deep enough and its lambda unable to fail or print).

Note [Reshaping a map nest]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
A perfect nest of k maps (`perfect_depth`: each lambda only maps the next level over
all its rows) over k-dimensional inputs computes every element of its output from
the elements at the same index of its inputs, with the innermost lambda `f`, when
`f` yields scalars and reads no row argument of an outer level (that would make an
element depend on its whole row). Its output has its inputs' shape, so in row-major
order element i of the output is `f` of element i of each input, and any reshape of
the output is the nest of `f` over the inputs reshaped alike: flattening
`reshape((n * m), map(fn r => map(f, r), a))` is `map(f, reshape((n * m), a))`. The
inputs have one shape when the program runs past the nest's checks (the zip checks
of its levels, which certify the maps), so each new reshape takes them with the
reshape's own: the new reshapes cannot fail where the old one did not. Inner levels
whose lambdas check something (an `assert` left inside) are not perfect, and the rule
does not fire.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from l0.dialects import soac
from l0.passes.analysis.effects import has_effects, lambda_effects
from l0.passes.analysis.scope import free_values
from l0.passes.fuse.legality import Fusibility
from l0.passes.fuse.transpose import moved_depth, perfect_depth


def uniform_reshape(producer: soac.MapOp) -> list[soac.ReshapeOp] | None:
    """The reshapes, in program order, if every use of every output of `producer` is
    the array of a `reshape` in the producer's block, all to the same shape with the
    same certificates (and there is one); else None."""
    found: list[soac.ReshapeOp] = []
    for r in producer.results:
        for use in r.uses:
            op = use.operation
            if not isinstance(op, soac.ReshapeOp) or op.array is not r \
                    or op.parent_block() is not producer.parent_block():
                return None
            if found and (list(op.shape) != list(found[0].shape)
                          or list(op.certs) != list(found[0].certs)):
                return None
            if op not in found:
                found.append(op)
    if not found:
        return None
    block = producer.parent_block()
    assert block is not None
    order = {op: i for i, op in enumerate(block.ops)}
    return sorted(found, key=order.__getitem__)


def why_not(producer: soac.MapOp, reshapes: Sequence[soac.ReshapeOp], check: Fusibility,
            failing: Set[str], accepts: tuple[type[Operation], ...]) -> str | None:
    """Why PULL-RESHAPE may not move `reshapes` (`uniform_reshape`) onto `producer`'s
    inputs so that it fuses (None: it may): with the consumers of the reshapes
    directly (SOACs of the kinds `accepts`), or, through one transposition of them all,
    by PULL-TRANSPOSE of the nest it becomes."""
    depth, innermost = element_nest(producer)
    if any(not isinstance(a.type, TensorType) or a.type.get_num_dims() != depth
           for a in producer.inputs):
        return ("it is reshaped, and it is no perfect map nest as deep as its inputs' "
                "rank (8.2)")
    if any(isinstance(t, TensorType) for t in _yielded_types(innermost)):
        return "it is reshaped, and its lambda yields arrays (8.2)"
    if _reads_outer_rows(producer, innermost):
        return "it is reshaped, and its innermost lambda reads rows of an outer level (8.2)"
    first = reshapes[0]
    if lambda_effects(producer, failing):
        op = producer.next_op
        while op is not None and op is not first:
            if has_effects(op, failing):
                return (f"it is reshaped, and it may fail or print, and so may "
                        f"'{op.name}' before the reshape")
            op = op.next_op
    read = [v for v in free_values(producer) if isinstance(v.type, TensorType)]
    if check.consumption.consumed_between(read, producer, first) is not None:
        return "it is reshaped, and an array it reads may be consumed before the reshape"
    through: list[SSAValue] = [r.result for r in reshapes]
    transposes = [u.operation for v in through for u in v.uses]
    kn = {(t.k.data, t.n.data) if isinstance(t, soac.TransposeOp) and not t.certs else None
          for t in transposes}
    if transposes and len(kn) == 1 and None not in kn:
        k, n = next(iter(kn))  # type: ignore[misc]  # None is not in kn
        if n == 0 or moved_depth(k, n) > len(first.shape) or lambda_effects(producer, failing):
            return ("it is reshaped then transposed, and the map nest it would become is "
                    "too shallow, or may fail or print (8.1, 8.2)")
        through = list(dict.fromkeys(t.results[0] for t in transposes))
    consumers = check.consumers(producer, accepts, through)
    if isinstance(consumers, str):
        return f"after a reshape, {consumers}"
    for c in consumers:
        why = check.problem(producer, c, through)
        if why is not None:
            return why
    return None


def pull_reshape(rewriter: PatternRewriter, producer: soac.MapOp,
                 reshapes: Sequence[soac.ReshapeOp]) -> soac.MapOp:
    """PULL-RESHAPE: a nest of maps over `producer`'s inputs reshaped as `reshapes`
    (`uniform_reshape`), at the first reshape, whose outputs replace the reshapes;
    the producer is erased. Returns the outermost map of the nest."""
    first = reshapes[0]
    shape = list(first.shape)
    _, innermost = element_nest(producer)
    certs = list(first.certs)
    for level in _levels(producer, innermost):
        certs += [c for c in level.certs if c not in certs]
    moved: list[SSAValue] = []
    for a in producer.inputs:
        assert isinstance(a.type, TensorType)
        t = soac.array_of(a.type.element_type)
        for _ in shape[1:]:
            t = soac.array_of(t)
        reshaped = soac.ReshapeOp(a, shape, t, certs)
        rewriter.insert(reshaped, InsertPoint.before(first))
        moved.append(reshaped.result)
    loc = None if producer.loc is None else producer.loc.data
    nest = _nest(moved, len(shape), innermost, list(producer.certs), loc)
    rewriter.insert(nest, InsertPoint.before(first))
    for r in reshapes:
        index = producer.results.index(r.array)
        rewriter.replace(r, [], [nest.results[index]])
    rewriter.erase(producer)
    return nest


def element_nest(producer: soac.MapOp) -> tuple[int, soac.MapOp]:
    """The depth of `producer`'s perfect map nest and its innermost map."""
    depth = perfect_depth(producer)
    innermost = producer
    for _ in range(depth - 1):
        inner = innermost.body.block.first_op
        assert isinstance(inner, soac.MapOp)
        innermost = inner
    return depth, innermost


def _levels(producer: soac.MapOp, innermost: soac.MapOp) -> list[soac.MapOp]:
    """The maps of the nest from `producer` down to `innermost`."""
    levels = [producer]
    while levels[-1] is not innermost:
        inner = levels[-1].body.block.first_op
        assert isinstance(inner, soac.MapOp)
        levels.append(inner)
    return levels


def _reads_outer_rows(producer: soac.MapOp, innermost: soac.MapOp) -> bool:
    """Whether the innermost lambda uses a row argument of an enclosing level of the
    nest (Note [Reshaping a map nest])."""
    outer = {a for level in _levels(producer, innermost)[:-1] for a in level.body.block.args}
    return any(v in outer for v in free_values(innermost, own_operands=False))


def _yielded_types(op: soac.MapOp) -> list[Attribute]:
    last = op.body.block.last_op
    assert isinstance(last, soac.YieldOp)
    return [v.type for v in last.values]


def _nest(inputs: Sequence[SSAValue], depth: int, producer: soac.MapOp,
          certs: list[SSAValue], loc: str | None) -> soac.MapOp:
    """`map^depth` over `inputs` (of rank `depth`) whose innermost lambda is the
    producer's (its region is taken)."""
    types: list[Attribute] = _yielded_types(producer)
    for _ in range(depth):
        types = [soac.array_of(t) for t in types]
    if depth == 1:
        body = Rewriter.move_region_contents_to_new_regions(producer.body)
        return soac.MapOp(list(inputs), types, body, certs, loc)
    row_types: list[Attribute] = []
    for v in inputs:
        row = soac.row_type(v.type)
        assert row is not None
        row_types.append(row)
    rows = Block(arg_types=row_types)
    inner = _nest(list(rows.args), depth - 1, producer, [], loc)
    rows.add_ops([inner, soac.YieldOp(*inner.results)])
    return soac.MapOp(list(inputs), types, Region(rows), certs, loc)
