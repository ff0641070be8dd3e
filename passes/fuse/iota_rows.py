"""Indexing by the iteration number as a row input: `map(fn i => ... b[i] ..., iota(n))`
reads `b` as an input (thesis 7, for the index-based style of writing maps).

A map over `iota(n)` that indexes an array `b` of n rows with its element `i` reads
row i of `b` on iteration i, exactly what an input `b` gives its lambda:

    map(fn (int i) => f(b[i], i), iota(n))  =  map(fn (int i, x) => f(x, i), iota(n), b)

As an input, `b` is visible to fusion: when it is a map's output, the producer fuses
into this SOAC (map-map, map-redomap, map-scanomap) instead of being built and read
back by indexing. `inline-map-index` recomputes an indexed element where the index is
arbitrary and the indexing outside any lambda; this rule is for the indexing inside
the consumer's lambda, where recomputing at an arbitrary index could repeat work, but
the index is the iteration number, so each row is read once.

Note [When an index is a row]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The rule fires on `soac.index %b[%i]` with one index, in the rows lambda of a `map`,
`redomap` or `scanomap` (not inside a loop or a nested lambda there: those may read a
row many times, or none), where `%i` is the row argument of an input `iota(n)`, `b` is
the output of a `map` defined outside the SOAC, and `b` is known to have n rows: its
outer size, followed through maps and scans to their inputs, is the array `size(0, x)`
measures for `n = size(0, x)` (or `n` itself, for a map over `iota(n)`). Then the index
is always in bounds, so any bounds check of it, if still there, cannot fail and stays
where it is; and the zip of `b` with the other inputs cannot fail either. `b` must not
be consumed inside the lambda (an array read as an input is read before the lambda
runs).

Note [An input indexed by the iteration number]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Once `b` is an input beside `iota(n)` (by the rule above, or as written), `b[i, k...]`
anywhere in the lambda, in loops and nested lambdas too, reads the row the lambda
already has: it becomes `x[k...]` of the row argument `x` (or `x` itself for a lone
index). The zip of the inputs makes `i` a valid row of `b`, so nothing can fail
differently (the indexing keeps its certificates, which guard the other indices).
Only when neither `b` nor the row may be consumed anywhere (a consumed row is not
`b[i]` any more). This undoes, inside the lambda, the simplifier's fold of `r[k]` for a
row `r = b[i]` into `b[i, k]`: LocVolCalib's tridiagonal solve reads its right-hand
side `r[k]` in a loop, which became `u[j, k]` of the whole explicit-step array `u`, a
use other than as an input that kept `u`'s map from fusing into the solve's map.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from l0.dialects import soac
from l0.dialects.soac.types import row_type
from l0.passes.analysis.consumption import consumed_operands, may_be_consumed
from l0.passes.analysis.scope import defined_outside
from l0.passes.fuse.compose import rebuilt, rows_block

_MAX_STEPS = 32


def _outer_root(v: SSAValue) -> tuple[str, SSAValue]:
    """What fixes the number of rows of `v`: ("n", n) for `iota(n)` and
    `replicate(n, ..)`, else ("rows", the earliest array with as many rows)."""
    for _ in range(_MAX_STEPS):
        op = v.owner
        if isinstance(op, soac.MapOp | soac.ScanOp | soac.ScanomapOp):
            v = op.inputs[0]
        elif isinstance(op, soac.IotaOp | soac.ReplicateOp):
            return "n", op.n
        else:
            break
    return "rows", v


def _size_root(n: SSAValue) -> tuple[str, SSAValue]:
    """The same for the size `n`: the array it measures, when it is `size(0, x)`."""
    op = n.owner
    if isinstance(op, soac.SizeOp) and op.dim.data == 0:
        return _outer_root(op.array)
    return "n", n


def _iota_rows(block: Block, first: int, inputs: list[SSAValue]) -> dict[SSAValue, SSAValue]:
    """The row arguments of `block` that take the elements of an `iota(n)` input, each
    with its `n`."""
    found: dict[SSAValue, SSAValue] = {}
    for arg, v in zip(block.args[first:], inputs, strict=True):
        if isinstance(v, OpResult) and isinstance(v.op, soac.IotaOp):
            found[arg] = v.op.n
    return found


def _directly_in(op: Operation, block: Block) -> bool:
    """Whether `op` runs at most once per iteration of the lambda `block`: in it, or in
    `scf.if` branches inside it."""
    parent = op.parent_block()
    while parent is not block:
        if parent is None:
            return False
        owner = parent.parent_op()
        if not isinstance(owner, scf.IfOp):
            return False
        parent = owner.parent_block()
    return True


def row_indexings(soac_op: soac.MapOp | soac.RedomapOp | soac.ScanomapOp
                  ) -> list[soac.IndexOp]:
    """The indexings of `soac_op`'s lambda that may read a row input instead (Note
    [When an index is a row])."""
    block, first = rows_block(soac_op)
    iotas = _iota_rows(block, first, list(soac_op.inputs))
    if not iotas:
        return []
    found: list[soac.IndexOp] = []
    consumed: set[SSAValue] = set()
    for inner in soac_op.walk():
        consumed.update(consumed_operands(inner))
    for inner in block.walk():
        if not isinstance(inner, soac.IndexOp) or len(inner.indices) != 1:
            continue
        n = iotas.get(inner.indices[0])
        b = inner.array
        if n is None or not isinstance(b, OpResult) or not isinstance(b.op, soac.MapOp):
            continue
        if not defined_outside(b, soac_op) or b in consumed or not _directly_in(inner, block):
            continue
        if _outer_root(b) == _size_root(n):
            found.append(inner)
    return found


@dataclass
class IndexAsRow(RewritePattern):
    """`b[i]` in the lambda of a SOAC over `iota(n)`, for `b` of n rows, becomes a row of
    a new input `b` (Note [When an index is a row])."""

    changed: Callable[[], None]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, soac.MapOp | soac.RedomapOp | soac.ScanomapOp):
            return
        indexings = row_indexings(op)
        if not indexings:
            return
        block, first = rows_block(op)
        inputs = list(op.inputs)
        rows: dict[SSAValue, BlockArgument] = {}
        for index in indexings:
            b = index.array
            if b not in rows:
                row = row_type(b.type)
                assert row is not None
                rows[b] = block.insert_arg(row, len(block.args))
                inputs.append(b)
            rewriter.replace(index, [], [rows[b]])
        rewriter.replace(op, rebuilt(op, inputs))
        self.changed()


def input_row_indexings(soac_op: soac.MapOp | soac.RedomapOp | soac.ScanomapOp
                        ) -> list[tuple[soac.IndexOp, BlockArgument]]:
    """The indexings `b[i, ...]` in `soac_op`'s lambda of an input `b` by the row
    argument `i` of an input `iota`, each with `b`'s row argument (Note [An input
    indexed by the iteration number])."""
    block, first = rows_block(soac_op)
    pairs = list(zip(block.args[first:], soac_op.inputs, strict=True))
    iotas = {arg for arg, v in pairs
             if isinstance(v, OpResult) and isinstance(v.op, soac.IotaOp)}
    if not iotas:
        return []
    rows = {v: arg for arg, v in pairs if arg not in iotas}
    found: list[tuple[soac.IndexOp, BlockArgument]] = []
    for inner in block.walk():
        if not isinstance(inner, soac.IndexOp) or not inner.indices \
                or inner.indices[0] not in iotas:
            continue
        row = rows.get(inner.array)
        if row is None or may_be_consumed(inner.array) or may_be_consumed(row):
            continue
        found.append((inner, row))
    return found


@dataclass
class IndexOfInputRow(RewritePattern):
    """`b[i, k...]` in the lambda of a SOAC over `iota(n)` and `b` reads `b`'s row
    argument: `x[k...]` (Note [An input indexed by the iteration number])."""

    changed: Callable[[], None]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, soac.MapOp | soac.RedomapOp | soac.ScanomapOp):
            return
        found = input_row_indexings(op)
        for index, row in found:
            rest = list(index.indices[1:])
            if not rest:
                rewriter.replace(index, [], [row])
                continue
            new = soac.IndexOp(row, rest, index.result.type, list(index.certs))
            rewriter.replace(index, new)
        if found:
            self.changed()
