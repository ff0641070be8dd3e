"""`iswim`: Interchange Scan With Inner Maps (thesis 8.3, Figures 35 and 36), for scans,
reductions and their fused forms.

A scan over the rows of matrices whose operator adds rows element by element,
`scan(fn (x, y) => map(op +, zip(x, y)), ne, a)`, is the same as scanning each column on
its own: `transpose(map(fn (e, c) => scan(op +, e, c), zip(ne, transpose(a))))`. The
outer map exposes the columns' parallelism (a segmented scan), and the transposed form
can fuse where the scan could not (8.3).

The same holds for every fold the thesis's rule names: `reduce(fn (x, y) => map(op +,
zip(x, y)), ne, a)` is `map(fn (e, c) => reduce(op +, e, c), zip(ne, transpose(a)))`,
one reduction per column and no transposition back (a histogram, a column sum, a
k-means centre update written with a vector `+`), and a `redomap` or `scanomap` (a map
fused into the fold) interchanges the same way when its fold and its operator are both
such nests: each column is then a redomap or scanomap of the element lambdas.

The general depth of Figure 36 (which the 2014 compiler never implemented): a fold of
a perfect nest of d maps down to the elements, over arrays of rank d + 1, becomes a
nest of d maps around one fold per innermost column: the folded dimension moves
innermost, `transpose(0, d, a)`, and a scan's result back, `transpose(d, -d, r)`.

Legality (beyond the shape of the fold: its lambda is one map over all its
accumulators and rows, in any order, yielding that map's results, and so on down to
a map whose lambda works on elements, not rows; or several such maps, each over the
accumulators and rows of some positions, interchanged each on its own: Note
[Independent parts of a scan] in `l0.passes.cores.interchange`):
* the zip checks of the nest's maps are made before the fold, or inside its lambda
  (at any level of the nest) reading the accumulators and rows only through their
  sizes: they give the same answer at every row, and are made once, before each level
  of the new nest (Note [The fold's checks] in `l0.passes.cores.interchange`); a
  redomap's or scanomap's operator may make its copies of them, which the new form
  drops (Note [The operator's checks]);
* the element lambda reads the fold's accumulators and rows only through its own
  arguments (an operator that reads another column, an index of the whole
  accumulator, is not element-wise), and can neither fail nor print: the interchange
  computes the elements column by column instead of row by row;
* an empty fold keeps its meaning: the new form runs only when there are rows; with
  none, the result is a scan's, arrays with every dimension 0, or a reduction's
  neutral elements, and no zip of the neutral element with the columns is attempted.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.passes.analysis.effects import lambda_effects
from l0.passes.analysis.scope import defined_inside
from l0.passes.analysis.speculation import Speculation
from l0.passes.analysis.walk import walk_ops
from l0.passes.cores.interchange import (
    Fold,
    interchanged,
    nest_depth,
    transposed_by,
    why_not,
)


def _made_of_scalar_rows(array: SSAValue, failing: frozenset[str]) -> bool:
    """Whether `array` is the output of a map over arrays of scalars, used only by the
    fold, whose lambda is only a map over arrays defined outside it (a one-hot row) and
    can neither fail nor print: `fuse` then exchanges its levels and composes it into
    the column folds (SWAP-TRANSPOSE), each reading one element per row."""
    producer = array.owner
    if not isinstance(producer, soac.MapOp) or not array.has_one_use() \
            or lambda_effects(producer, failing):
        return False
    if not all(isinstance(v.type, TensorType) and v.type.get_num_dims() == 1
               for v in producer.inputs):
        return False
    ops = list(producer.body.block.ops)
    inner = ops[0] if len(ops) == 2 else None
    return isinstance(inner, soac.MapOp) and isinstance(ops[1], soac.YieldOp) \
        and list(ops[1].operands) == list(inner.results) \
        and not any(defined_inside(v, producer) for v in (*inner.inputs, *inner.certs))


@dataclass
class InterchangeFold(RewritePattern):
    failing: frozenset[str]
    scalar_rows_only: bool

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, Fold) or why_not(op, self.failing) is not None:
            return
        if self.scalar_rows_only and not all(_made_of_scalar_rows(a, self.failing)
                                             for a in op.inputs):
            return
        depth = nest_depth(op)
        assert depth is not None
        scan = isinstance(op, soac.ScanOp | soac.ScanomapOp)
        if scan and all(transposed_by(a, depth, -depth) for a in op.inputs):
            return  # `fuse` interchanges it, its transpositions cancelling
        zero = arith.ConstantOp(IntegerAttr(0, i64))
        rows = soac.SizeOp(op.inputs[0], 0)
        empty = arith.CmpiOp(rows, zero, "eq")
        for new in (zero, rows, empty):
            rewriter.insert(new, InsertPoint.before(op))

        # No rows: a scan's result is arrays with every dimension 0 (no step runs, and
        # nothing is zipped), a reduction's its neutral elements.
        then_block = Block()
        if isinstance(op, soac.ReduceOp | soac.RedomapOp):
            then_block.add_op(scf.YieldOp(*op.neutral))
        else:
            empties = [soac.EmptyOp(t) for t in op.result_types]
            then_block.add_ops([*empties, scf.YieldOp(*(e.result for e in empties))])

        # Rows: map^d(fn (e, c) => fold(f, e, c), ne, transpose(a)), the folded
        # dimension moved innermost, and a scan's result moved back (thesis Figure 36).
        else_block = Block()
        # An array that is itself a transposition moving the rows innermost is used as
        # it was before it (the two transpositions cancel).
        columns: list[SSAValue] = []
        for a in op.inputs:
            if transposed_by(a, depth, -depth):
                assert isinstance(a.owner, soac.TransposeOp)
                columns.append(a.owner.array)
            else:
                moved = soac.TransposeOp(a, 0, depth)
                else_block.add_op(moved)
                columns.append(moved.result)
        nests, per_column = interchanged(op, columns)
        else_block.add_ops(nests)
        if scan:
            k, n = (0, 1) if depth == 1 else (depth, -depth)  # the inverse of (0, depth)
            back = [soac.TransposeOp(r, k, n) for r in per_column]
            else_block.add_ops(back)
            per_column = [t.result for t in back]
        else_block.add_op(scf.YieldOp(*per_column))

        chosen = scf.IfOp(empty, op.result_types, Region(then_block), Region(else_block))
        rewriter.replace(op, chosen)


@dataclass(frozen=True)
class IswimPass(ModulePass):
    """Interchange a scan, reduce, scanomap or redomap of row-wise maps with its inner
    maps (thesis 8.3, ISWIM, and the general depth of Figure 36).

    `scan(fn (x1..xk, y1..yk) => map(f, x1..xk, y1..yk), ne, a)`, over matrices `a`
    with an element-wise `f`, becomes, when there are rows,
    `transpose(map(fn (e1..ek, c1..ck) => scan(f, e, c), ne, transpose(a)))`: one scan per
    column, all columns in parallel. A `reduce` becomes
    `map(fn (e, c) => reduce(f, e, c), ne, transpose(a))`, nothing transposed back (a
    histogram of one-hot rows, a column sum, a k-means centre update with a vector `+`:
    O(1) launches on the GPU where the fold was a launch per row). With a nest of d
    maps down to the elements (arrays of rank d + 1) the folded dimension moves
    innermost (`transpose(0, d, a)`), a nest of d maps runs the element folds, and a
    scan's result is transposed back (`transpose(d, -d, ...)`). A `scanomap` or
    `redomap` whose fold and operator are such nests becomes element scanomaps or
    redomaps the same way. A lambda of several such maps, each combining the
    accumulators and rows of its own positions (a fold of tuples whose parts are
    independent), becomes one such nest per part.

    In `-O` before `fuse`, which then composes the rows' producer into the column
    nest (FUSE-ISWIM: the transposition of a map nest moves onto its inputs, or, for a
    map whose lambda maps an array defined outside it, as a one-hot row does, the two
    levels exchange, `l0.passes.fuse.transpose`), and a consumer of the new form (an
    `scf.if` on the rows) moves into it (Note [Consumers of the interchanged scan] in
    `l0.passes.fuse.iswim_rule`). Where the interchange's transpositions cancel those
    of the scanned arrays, `fuse` interchanges itself (`l0.passes.fuse.iswim_rule`).
    The cpu's `-O` runs it with `scalar-rows-only=true`: only folds whose every array
    is made for them by a map over arrays of scalars whose lambda only maps arrays
    defined outside it and can neither fail nor print (a one-hot row: `fuse` composes
    it into the column folds), each then reading one element per row
    (Note [One pipeline per target] in `l0.passes.pipeline`).

    Fires only when the nest's zip checks are made before the fold or inside its
    lambda from the sizes of its accumulators and rows (made once in the new form, at
    their level, Note [The fold's checks]; a redomap's or scanomap's operator may make
    its copies, which the new form drops), and its element lambda reads no other
    column and can neither fail nor print (the elements are computed in another
    order). With no rows the result is the scan's, arrays with every dimension 0
    (`soac.empty`), or the reduction's neutral elements.

        %s = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
          %m = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
            %z = arith.addi %p, %q : i64
            soac.yield %z : i64
          }
          soac.yield %m : tensor<?xi64>
        }
      becomes
        %s = scf.if (size(0, %a) == 0) -> (tensor<?x?xi64>) {
          soac.empty : tensor<?x?xi64>
        } else {
          %t = soac.transpose(0, 1) %a : tensor<?x?xi64>
          %r = soac.map(%e = %ne, %col = %t : ...) <%c> -> tensor<?x?xi64> {
            %z = soac.scan(%p = %e : i64) over(%q = %col : tensor<?xi64>) { ... }
            soac.yield %z : tensor<?xi64>
          }
          transpose(0, 1) %r
        }
    """

    name = "iswim"
    scalar_rows_only: bool = False
    """Only folds whose every array is made for them by a map over arrays of scalars
    whose lambda only maps arrays defined outside it and can neither fail nor print
    (the cpu's cost rule: Note [One pipeline per target] in `l0.passes.pipeline`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Most modules have no fold with array accumulators: then nothing is analysed
        # (the pass runs in every round of `-O`).
        if not any(isinstance(f, Fold) and any(isinstance(n.type, TensorType) for n in f.neutral)
                   for f in walk_ops(op)):
            return
        failing = frozenset(Speculation(op).failing)
        pattern = InterchangeFold(failing, self.scalar_rows_only)
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
