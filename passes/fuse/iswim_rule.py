"""ISWIM where it cancels transpositions (thesis 8.3, Figure 35), a rule of `fuse`.

A scan of row-wise maps over transposed arrays is a column-wise scan written with
transposes: `transpose(scan(fn (x, y) => map(f, x, y), ne, transpose(a)))` scans each
row of `a`. Interchanging the scan with its inner maps (`l0.passes.iswim`) transposes
its inputs once more and its results back, so here the transpositions cancel: the scan
becomes `map(fn (e, r) => scan(f, e, r), ne, a)`, one scan per row of `a`, all rows in
parallel, each reading contiguous memory, and the map over the rows fuses with the
map that produces `a` (inside the scans: a scanomap per row) where the transposed scan
fused with nothing. With a nest of d maps (Figure 36) the transpositions that cancel
are `transpose(d, -d)` on the inputs and `transpose(0, d)` on the results.

It fires when every input of the scan is such a transposition (it is what makes the
rewrite a gain), and under `iswim`'s conditions (`l0.passes.iswim.why_not`: the nest's
checks made before the scan, an element lambda that can neither fail nor print). A
result used other than by the cancelling transposition is transposed back. As in
`iswim`, the new form runs only when there are rows; with none, the results are those
of the scan (and of its transpositions): arrays with every dimension 0.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.passes.cores.interchange import column_nest, map_nest, why_not


def _transposition(v: SSAValue, k: int, n: int) -> bool:
    """Whether `v` is `transpose(k, n, ...)`, without certificates (for depth 1, the
    same permutation written either way)."""
    op = v.owner
    if not isinstance(op, soac.TransposeOp) or op.certs:
        return False
    found = (op.k.data, op.n.data)
    return found == (k, n) or {found, (k, n)} == {(0, 1), (1, -1)}


def _depth(scan: soac.ScanOp | soac.ScanomapOp) -> int | None:
    nest = map_nest(scan.inner.block if isinstance(scan, soac.ScanomapOp) else scan.body.block)
    return None if isinstance(nest, str) else len(nest)


def applies(scan: Operation, failing: Set[str]) -> bool:
    """Whether the rule rewrites `scan`."""
    if not isinstance(scan, soac.ScanOp | soac.ScanomapOp):
        return False
    depth = _depth(scan)
    if depth is None or why_not(scan, frozenset(failing)) is not None:
        return False
    return all(_transposition(a, depth, -depth) for a in scan.inputs)


def interchange(rewriter: PatternRewriter, scan: soac.ScanOp | soac.ScanomapOp) -> None:
    """Rewrite `scan` (`applies`): its results, and the transpositions of them that
    cancel, become those of `if rows == 0 then empty else map^d(scan, ne, a)`."""
    depth = _depth(scan)
    assert depth is not None
    nest = map_nest(scan.inner.block if isinstance(scan, soac.ScanomapOp) else scan.body.block)
    assert not isinstance(nest, str)
    untransposed: list[SSAValue] = []
    for a in scan.inputs:
        assert isinstance(a.owner, soac.TransposeOp)
        untransposed.append(a.owner.array)
    # Per result: the transpositions that cancel (all its uses), or None.
    cancelled: list[list[soac.TransposeOp] | None] = []
    for r in scan.results:
        users = [u.operation for u in r.uses]
        ok = users and all(isinstance(t, soac.TransposeOp) and _transposition(t.result, 0, depth)
                           for t in users)
        cancelled.append([t for t in users if isinstance(t, soac.TransposeOp)] if ok else None)
    types = [scan.results[j].type if c is None else c[0].result.type
             for j, c in enumerate(cancelled)]

    zero = arith.ConstantOp(IntegerAttr(0, i64))
    rows = soac.SizeOp(untransposed[0], depth)  # the scanned dimension
    empty = arith.CmpiOp(rows, zero, "eq")
    for new in (zero, rows, empty):
        rewriter.insert(new, InsertPoint.before(scan))

    then_block = Block()
    empties = [soac.EmptyOp(t) for t in types]
    then_block.add_ops([*empties, scf.YieldOp(*(e.result for e in empties))])

    else_block = Block()
    per_row = column_nest(scan, [*scan.neutral, *untransposed], nest, 0)
    else_block.add_op(per_row)
    yielded: list[SSAValue] = []
    for y, c in zip(per_row.results, cancelled, strict=True):
        if c is None:
            k, n = (0, 1) if depth == 1 else (depth, -depth)
            back = soac.TransposeOp(y, k, n)
            else_block.add_op(back)
            yielded.append(back.result)
        else:
            yielded.append(y)
    else_block.add_op(scf.YieldOp(*yielded))

    chosen = scf.IfOp(empty, types, Region(then_block), Region(else_block))
    rewriter.insert(chosen, InsertPoint.before(scan))
    for r, c, v in zip(scan.results, cancelled, chosen.results, strict=True):
        if c is None:
            rewriter.replace_all_uses_with(r, v)
        else:
            for t in c:
                rewriter.replace(t, [], [v])
    transposes = list(dict.fromkeys(a.owner for a in scan.inputs))
    rewriter.erase(scan)
    for t in transposes:
        if isinstance(t, soac.TransposeOp) and not t.result.uses:
            rewriter.erase(t)  # else it would keep its array from fusing


@dataclass
class FuseIswim(RewritePattern):
    """The rule as a pattern of `fuse`; `changed` says the module's analyses are stale."""

    failing: Set[str]
    changed: Callable[[], None]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, soac.ScanOp | soac.ScanomapOp) and applies(op, self.failing):
            interchange(rewriter, op)
            self.changed()
