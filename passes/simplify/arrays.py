"""Array rules of `simplify`: `size` and indexing folded through the ops that built
the array (thesis 5.3, `size(k, a)` and `a[i]`; figures 12 and 14).

`size(k, a)` becomes the size that built `a` (`n` for `iota(n)` and
`replicate(n, v)`, a literal's length, a reshape's dimension, 0 for `empty`), or
the size of an earlier array of the same shape: the input of a `map` or `scan`, the
source of a `copy`, let-with or shape-preserving loop, the array a row was taken
from, the first output of the same `filter` (Note [Sizes of empty arrays], Note
[Filter outputs]). Indexing looks
through `iota` (`iota(n)[i]` -> `i`), `replicate` (`replicate(n, v)[i]` -> `v`),
literals with a constant index, rows (`b[j]` then `[i]` -> `b[j, i]`), `transpose`
(`transpose(b)[i, j]` -> `b[j, i]`), `reshape` of a one-dimensional array
(`reshape((n, m), a)[i, j]` -> `a[i * m + j]`), `copy` and a let-with at the same
index. The bounds checks stay: they are `soac.assert`s of their own, which run (and
fail) where they are whatever becomes of the index (thesis 5.3 notes that dropping
them would make invalid programs valid), and the rewritten index carries the
certificates of every op it replaces. A rule that makes an op read an earlier array
first checks that nothing consumes it (Note [Using an array again] in
`l0.passes.analysis.consumption`).

Note [Sizes of empty arrays]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
`size(k, a)` is the *normalised* size: every dimension after the first 0 counts as
0 (the interpreter's Note [Empty arrays and irregularity]), because the inner shape
of an empty array is unknowable. So an inner size is folded only where the outer
sizes are known not to be 0: through a literal (at least one row), a row `a[i]` (the
bounds check makes `a` non-empty), `replicate` or `reshape` with positive constant
outer sizes, and ops that keep the whole shape (`copy`, let-with, `trace`, loops that
only update their merge value). Never through `transpose` (it moves a 0 to a place
where it no longer hides the sizes after it), `map`, `filter`, `split` or `concat`
(an empty result hides the inner sizes of its source). The outer size is always
exact: `iota(n)` and `replicate(n, v)` have `n` rows, `map` and `scan` as many as
their input, `reshape` its first dimension, the first part of `split(i, a)` `i`.

Note [Filter outputs]
~~~~~~~~~~~~~~~~~~~~~
The outputs of one `filter` hold the rows its predicate keeps, so they all have the
first output's number of rows: `size(0, ys)` of a later output `ys` becomes
`size(0, xs)` of the first, `xs`. Then the zip check of a second filter over the
unzipped outputs of the first (`filter(q, zip(xs, ys))` after
`unzip(filter(p, zip(a, b)))`) compares a size with itself, is proved, and no longer
keeps the filters apart (filter-filter fusion).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import TensorType, i64
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from l0.dialects import soac
from l0.passes.analysis.constants import constant_int
from l0.passes.analysis.consumption import may_be_consumed
from l0.passes.simplify.common import (
    join_certs,
    make_constant,
)

_MAX_STEPS = 32


def transpose_permutation(k: int, n: int, rank: int) -> list[int]:
    """`perm` with dimension `d` of `transpose(k, n, a)` being dimension `perm[d]` of `a`."""
    perm = list(range(rank))
    perm.insert(k + n, perm.pop(k))
    return perm


def _rank(v: SSAValue) -> int:
    t = v.type
    return t.get_num_dims() if isinstance(t, TensorType) else 0


def _same_shape_source(v: SSAValue) -> SSAValue | None:
    """An earlier array with the same shape as `v` (every dimension), or None."""
    op = v.owner
    match op:
        case soac.CopyOp() | soac.UpdateOp():
            return op.array
        case soac.TraceOp():
            return op.inputs[tuple(op.outputs).index(v)]
        case scf.ForOp():
            i = tuple(op.results).index(v)
            return op.iter_args[i] if _loop_keeps_shape(op, i) else None
        case _:
            if isinstance(v, BlockArgument):
                loop = v.block.parent_op()
                if isinstance(loop, scf.ForOp) and v.index > 0 and _loop_keeps_shape(
                    loop, v.index - 1
                ):
                    return loop.iter_args[v.index - 1]
            return None


def _loop_keeps_shape(loop: scf.ForOp, i: int) -> bool:
    """Whether merge value `i` of `loop` has the same shape on every iteration: the
    body yields it after let-withs, copies or traces only."""
    arg = loop.body.block.args[i + 1]
    yielded = loop.body.block.last_op
    if not isinstance(yielded, scf.YieldOp):
        return False
    v: SSAValue = yielded.operands[i]
    for _ in range(_MAX_STEPS):
        if v is arg:
            return True
        op = v.owner
        if isinstance(op, soac.CopyOp | soac.UpdateOp):
            v = op.array
        elif isinstance(op, soac.TraceOp):
            v = op.inputs[tuple(op.outputs).index(v)]
        else:
            return False
    return False


SizeFact = SSAValue | int | tuple[SSAValue, int]


def _positive_constants(values: Sequence[SSAValue]) -> bool:
    return all((c := constant_int(v)) is not None and c > 0 for v in values)


def _size_step(v: SSAValue, d: int) -> SizeFact | None:
    """One step towards the size of dimension `d` of `v`: a scalar value or a constant
    that is that size, or an earlier (array, dimension) with the same size
    (Note [Sizes of empty arrays])."""
    op = v.owner
    match op:
        case soac.IotaOp():
            return op.n
        case soac.ReplicateOp():
            if d == 0:
                return op.n
            return (op.value, d - 1) if _positive_constants([op.n]) else None
        case soac.ArrayOp():
            return len(op.elems) if d == 0 else (op.elems[0], d - 1)
        case soac.EmptyOp():
            return 0
        case soac.ReshapeOp():
            return op.shape[d] if _positive_constants(op.shape[:d]) else None
        case soac.IndexOp():
            return (op.array, d + len(op.indices))
        case soac.MapOp() | soac.ScanOp() | soac.ScanomapOp():
            return (op.inputs[0], 0) if d == 0 else None
        case soac.SplitOp():
            return op.at if d == 0 and v is op.first else None
        case soac.FilterOp():
            # Every output of a filter keeps the same rows (Note [Filter outputs]).
            first = op.outputs[0]
            return (first, 0) if d == 0 and v is not first else None
        case _:
            source = _same_shape_source(v)
            return None if source is None else (source, d)


def known_size(array: SSAValue, dim: int,
               consumed: Callable[[SSAValue], bool] = may_be_consumed) -> SizeFact | None:
    """The simplest known equivalent of `size(dim, array)`: a scalar value, a constant,
    or an earlier (array, dimension) that nothing consumes (`consumed` tells); None if
    nothing better than `array` itself is known."""
    best: SizeFact | None = None
    v, d = array, dim
    for _ in range(_MAX_STEPS):
        step = _size_step(v, d)
        if step is None:
            break
        if not isinstance(step, tuple):
            return step
        v, d = step
        if not consumed(v):
            best = (v, d)
    return best


class FoldSize(RewritePattern):
    """`size(0, iota(n))` -> `n`, `size(1, replicate(3, [1, 2]))` -> `2`,
    `size(0, map(f, a))` -> `size(0, a)`, ... (see the module docstring)."""

    def __init__(self, consumed: Callable[[SSAValue], bool] = may_be_consumed) -> None:
        self.consumed = consumed

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.SizeOp, rewriter: PatternRewriter) -> None:
        fact = known_size(op.array, op.dim.data, self.consumed)
        if fact is None:
            return
        if isinstance(fact, int):
            rewriter.replace(op, make_constant(fact, i64))
        elif isinstance(fact, tuple):
            array, dim = fact
            rewriter.replace(op, soac.SizeOp(array, dim, op.certs))
        else:
            rewriter.replace(op, [], [fact])


# ---------------------------------------------------------------------------------------
# Indexing
# ---------------------------------------------------------------------------------------


def _flat_index(indices: list[SSAValue], dims: list[SSAValue]) -> tuple[list[Operation], SSAValue]:
    """Ops computing the row-major position `((i0 * d1 + i1) * d2 + i2) ...`."""
    ops: list[Operation] = []
    acc = indices[0]
    for i, d in zip(indices[1:], dims[1:], strict=True):
        mul = arith.MuliOp(acc, d)
        add = arith.AddiOp(mul, i)
        ops += [mul, add]
        acc = add.result
    return ops, acc


class FoldIndex(RewritePattern):
    """Indexing through the op that built the array (see the module docstring)."""

    def __init__(self, consumed: Callable[[SSAValue], bool] = may_be_consumed) -> None:
        self.consumed = consumed

    def share_ok(self, source: SSAValue, result: SSAValue) -> bool:
        """Whether an index result may become a row of `source` (or an element read
        from it) instead of a row of a fresh array: neither is ever consumed."""
        return not self.consumed(source) and not self.consumed(result)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.IndexOp, rewriter: PatternRewriter) -> None:
        indices = list(op.indices)
        if not indices:
            if op.result.type == op.array.type:
                rewriter.replace(op, [], [op.array])
            return
        src = op.array.owner
        certs = list(op.certs)
        match src:
            case soac.IotaOp() if len(indices) == 1:
                rewriter.replace(op, [], [indices[0]])
            case soac.ReplicateOp():
                if len(indices) == 1:
                    rewriter.replace(op, [], [src.value])
                else:
                    rewriter.replace(op, soac.IndexOp(src.value, indices[1:], op.result.type,
                                                      certs))
            case soac.IndexOp():
                rewriter.replace(op, soac.IndexOp(src.array, list(src.indices) + indices,
                                                  op.result.type, join_certs(src.certs, certs)))
            case soac.ArrayOp():
                self.literal(op, src, indices, certs, rewriter)
            case soac.TransposeOp():
                self.transpose(op, src, indices, certs, rewriter)
            case soac.ReshapeOp():
                self.reshape(op, src, indices, certs, rewriter)
            case soac.CopyOp():
                if self.share_ok(src.array, op.result):
                    rewriter.replace(op, soac.IndexOp(src.array, indices, op.result.type,
                                                      certs))
            case soac.UpdateOp():
                if list(src.indices) == indices and src.value.type == op.result.type and (
                    self.share_ok(src.value, op.result)
                ):
                    rewriter.replace(op, [], [src.value])
            case _:
                pass

    def literal(self, op: soac.IndexOp, src: soac.ArrayOp, indices: list[SSAValue],
                certs: list[SSAValue], rewriter: PatternRewriter) -> None:
        i = constant_int(indices[0])
        if i is None or not 0 <= i < len(src.elems):
            return  # out of bounds: the bounds check fails at run time
        elem = src.elems[i]
        if not self.share_ok(elem, op.result):
            return
        if len(indices) == 1:
            rewriter.replace(op, [], [elem])
        else:
            rewriter.replace(op, soac.IndexOp(elem, indices[1:], op.result.type, certs))

    def transpose(self, op: soac.IndexOp, src: soac.TransposeOp, indices: list[SSAValue],
                  certs: list[SSAValue], rewriter: PatternRewriter) -> None:
        k, n = src.k.data, src.n.data
        if len(indices) <= max(k, k + n):
            return  # a permuted dimension is not indexed
        perm = transpose_permutation(k, n, _rank(src.array))
        source_indices: list[SSAValue | None] = [None] * len(indices)
        for j, i in enumerate(indices):
            source_indices[perm[j]] = i
        placed = [i for i in source_indices if i is not None]
        assert len(placed) == len(source_indices)
        rewriter.replace(op, soac.IndexOp(src.array, placed, op.result.type,
                                          join_certs(certs, src.certs)))

    def reshape(self, op: soac.IndexOp, src: soac.ReshapeOp, indices: list[SSAValue],
                certs: list[SSAValue], rewriter: PatternRewriter) -> None:
        dims = list(src.shape)
        if _rank(src.array) != 1 or len(indices) != len(dims):
            return
        ops, flat = _flat_index(indices, dims)
        rewriter.replace(op, [*ops, soac.IndexOp(src.array, [flat], op.result.type,
                                                 join_certs(certs, src.certs))])
