"""`iswim`: Interchange Scan With Inner Maps (thesis 8.3, Figures 35 and 36).

A scan over the rows of matrices whose operator adds rows element by element,
`scan(fn (x, y) => map(op +, zip(x, y)), ne, a)`, is the same as scanning each column on
its own: `transpose(map(fn (e, c) => scan(op +, e, c), zip(ne, transpose(a))))`. The
outer map exposes the columns' parallelism (a segmented scan), and the transposed form
can fuse where the scan could not (8.3).

The general depth of Figure 36 (which the 2014 compiler never implemented): a scan of
a perfect nest of d maps down to the elements, over arrays of rank d + 1, becomes a
nest of d maps around one scan per innermost column: the scanned dimension moves
innermost, `transpose(0, d, a)`, and back, `transpose(d, -d, r)`. A `scanomap` (a map
fused into the scan) interchanges the same way when its fold and its operator are
both such nests: each column is then a scanomap of the element lambdas.

Legality (beyond the shape of the scan: its lambda is one map over all its
accumulators and rows, in any order, yielding that map's results, and so on down to
a map whose lambda works on elements, not rows; or several such maps, each over the
accumulators and rows of some positions, interchanged each on its own: Note
[Independent parts of a scan] in `l0.passes.cores.interchange`):
* the certificates of the nest's maps are defined outside the scan: the zip checks of
  each row against the accumulator have then been made before the scan
  (`size-hindrance` shows the accumulators keep their size, `rebind` hoists the check),
  so they need no place in the new form (each level of the new nest keeps its level's;
  a scanomap's operator may make its copies of them inside, which the new form drops:
  Note [The operator's checks] in `l0.passes.cores.interchange`);
* the element lambda can neither fail nor print: the interchange computes the elements
  column by column instead of row by row;
* an empty scan keeps its meaning: the new form runs only when there are rows; with
  none, the result is the scan's, arrays with every dimension 0, and no zip of the
  neutral element with the columns is attempted.
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
from l0.passes.analysis.speculation import Speculation
from l0.passes.cores.interchange import Fold, interchanged, nest_depth, why_not


def _made_of_scalar_rows(array: SSAValue) -> bool:
    """Whether `array` is the output of a map over arrays of scalars: fused into the
    column folds, each reads one element per row."""
    producer = array.owner
    return isinstance(producer, soac.MapOp) and all(
        isinstance(v.type, TensorType) and v.type.get_num_dims() == 1
        for v in producer.inputs)


@dataclass
class InterchangeFold(RewritePattern):
    failing: frozenset[str]
    scalar_rows_only: bool

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, Fold) or why_not(op, self.failing) is not None:
            return
        if self.scalar_rows_only and not all(_made_of_scalar_rows(a) for a in op.inputs):
            return
        depth = nest_depth(op)
        assert depth is not None
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
        columns = [soac.TransposeOp(a, 0, depth) for a in op.inputs]
        else_block.add_ops(columns)
        nests, per_column = interchanged(op, [c.result for c in columns])
        else_block.add_ops(nests)
        if isinstance(op, soac.ScanOp | soac.ScanomapOp):
            k, n = (0, 1) if depth == 1 else (depth, -depth)  # the inverse of (0, depth)
            back = [soac.TransposeOp(r, k, n) for r in per_column]
            else_block.add_ops(back)
            per_column = [t.result for t in back]
        else_block.add_op(scf.YieldOp(*per_column))

        chosen = scf.IfOp(empty, op.result_types, Region(then_block), Region(else_block))
        rewriter.replace(op, chosen)


@dataclass(frozen=True)
class IswimPass(ModulePass):
    """Interchange a scan of row-wise maps with its inner maps (thesis 8.3, ISWIM, and
    the general depth of Figure 36).

    `scan(fn (x1..xk, y1..yk) => map(f, x1..xk, y1..yk), ne, a)`, over matrices `a`
    with an element-wise `f`, becomes, when there are rows,
    `transpose(map(fn (e1..ek, c1..ck) => scan(f, e, c), ne, transpose(a)))`: one scan per
    column, all columns in parallel. With a nest of d maps down to the elements (arrays
    of rank d + 1) the scanned dimension moves innermost (`transpose(0, d, a)`), a nest
    of d maps runs the element scans, and the result is transposed back
    (`transpose(d, -d, ...)`). A `scanomap` whose fold and operator are such nests
    becomes element scanomaps the same way (a map fused into the scan first, then
    interchanged: the fusion of Figure 35's consumer side). A lambda of several such
    maps, each combining the accumulators and rows of its own positions (a scan of
    tuples whose parts are independent), becomes one such nest per part.

    Not in the default pipeline: on the CPU the column-wise scans read with a large
    stride, and the consumer side of FUSE-ISWIM (8.3) is had without it: `fuse`
    composes a map producer into the scan directly (a scanomap whose fold maps the
    rows), which this pass then interchanges. The producer side (a consumer of the
    interchanged scan fusing with its column nest) is `fuse`'s too, run after this
    pass: a map, scan or fold consuming a result of the new form (an `scf.if` on the
    rows) moves into it (Note [Consumers of the interchanged scan] in
    `l0.passes.fuse.iswim_rule`). It is opt-in, for exposing the columns' parallelism.
    Where the interchange's transpositions cancel those of the scanned arrays (a scan
    down the columns written with transposes), `fuse` interchanges in the default
    pipeline (`l0.passes.fuse.iswim_rule`).

    Fires only when the fold's zip checks were made before the scan (a scanomap's
    operator may make its copies inside, never run by the reference semantics; the
    new form drops them with the operator's nest) (run
    `size-hindrance,rebind` first, as `-O` does: the accumulators keep the neutral
    elements' shape at every depth, so the inner checks leave the scan too), its
    element lambda can neither
    fail nor print (the elements are computed in another order). With no rows the
    result is the scan's, arrays with every dimension 0 (`soac.empty`).

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
    """Only folds whose every array is a map over arrays of scalars (the cpu's cost
    rule: Note [One pipeline per target] in `l0.passes.pipeline`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        failing = frozenset(Speculation(op).failing)
        pattern = InterchangeFold(failing, self.scalar_rows_only)
        PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)
