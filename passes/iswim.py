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

Legality (beyond the shape of the scan: its lambda is exactly one map over all its
accumulators and rows, in that order, yielding that map's results, and so on down to
a map whose lambda works on elements, not rows):
* the certificates of the nest's maps are defined outside the scan: the zip checks of
  each row against the accumulator have then been made before the scan
  (`size-hindrance` shows the accumulators keep their size, `rebind` hoists the check),
  so they need no place in the new form (each level of the new nest keeps its level's);
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
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint, Rewriter

from l0.dialects import soac
from l0.passes.analysis.effects import lambda_effects
from l0.passes.analysis.scope import defined_inside, free_values
from l0.passes.analysis.speculation import Speculation


def _element_type(v: SSAValue) -> Attribute:
    t = v.type
    assert isinstance(t, TensorType)
    return t.element_type


def map_nest(block: Block) -> list[soac.MapOp] | str:
    """The perfect map nest a lambda is: `block` is one map over all its arguments, in
    order, yielding that map's results, and so on down to a map whose lambda takes
    scalars (the element lambda); outermost first. Else why not."""
    nest: list[soac.MapOp] = []
    while True:
        ops = list(block.ops)
        if len(ops) != 2 or not isinstance(ops[0], soac.MapOp) \
                or not isinstance(ops[1], soac.YieldOp):
            return "its lambda is not a single map" if not nest else \
                "its lambda is not a perfect nest of maps down to the elements"
        inner, done = ops
        assert isinstance(inner, soac.MapOp) and isinstance(done, soac.YieldOp)
        if list(inner.inputs) != list(block.args) or list(done.values) != list(inner.results):
            return "the inner map does not take every accumulator and row, in order"
        nest.append(inner)
        block = inner.body.block
        if not any(isinstance(a.type, TensorType) for a in block.args):
            return nest


def _lambdas(scan: soac.ScanOp | soac.ScanomapOp) -> tuple[Block, Block]:
    """The fold's lambda and the operator's (the same for a scan)."""
    if isinstance(scan, soac.ScanomapOp):
        return scan.inner.block, scan.outer.block
    return scan.body.block, scan.body.block


def why_not(scan: soac.ScanOp | soac.ScanomapOp, failing: frozenset[str]) -> str | None:
    """Why `scan` may not be interchanged with its inner maps (None: it may)."""
    fold, operator = _lambdas(scan)
    nest = map_nest(fold)
    if isinstance(nest, str):
        return nest
    if fold is not operator:
        ops = map_nest(operator)
        if isinstance(ops, str):
            return f"the operator: {ops}"
        if len(ops) != len(nest):
            return "the operator and the fold are map nests of different depths"
        if any(defined_inside(v, scan) for v in free_values(ops[-1])
               if v not in ops[-1].inputs):
            return "the operator's element lambda uses the scan's accumulators directly"
    depth = len(nest)
    if any(isinstance(v.type, TensorType) and v.type.get_num_dims() != depth + 1
           for v in scan.inputs):
        return "the scanned arrays are not of the rank of the map nest plus one"
    if any(defined_inside(c, scan) for m in nest for c in m.certs):
        return "the inner map's checks are made inside the scan"
    if any(defined_inside(v, scan) for v in free_values(nest[-1]) if v not in nest[-1].inputs):
        return "the inner lambda uses the scan's rows or accumulators directly"
    if lambda_effects(nest[-1], failing):
        return "the inner lambda may fail or print"
    return None


def _element_scan(scan: soac.ScanOp | soac.ScanomapOp, accs: list[SSAValue],
                  columns: list[SSAValue]) -> soac.ScanOp | soac.ScanomapOp:
    """The scan of one column, from its neutral elements, with the element lambdas
    (their regions are taken from `scan`'s innermost maps)."""
    fold, operator = _lambdas(scan)
    fold_nest, operator_nest = map_nest(fold), map_nest(operator)
    assert not isinstance(fold_nest, str) and not isinstance(operator_nest, str)
    body = Rewriter.move_region_contents_to_new_regions(fold_nest[-1].body)
    if isinstance(scan, soac.ScanOp):
        return soac.ScanOp(accs, columns, body, list(scan.certs))
    outer = Rewriter.move_region_contents_to_new_regions(operator_nest[-1].body)
    return soac.ScanomapOp(accs, columns, outer, body, list(scan.certs))


def column_nest(scan: soac.ScanOp | soac.ScanomapOp, inputs: list[SSAValue],
                 nest: list[soac.MapOp], level: int) -> soac.MapOp:
    """Level `level` of the map nest around the element scans: a map over rows of the
    neutral elements and of the transposed inputs (`inputs`), with the checks of the
    scan's map at that level (and the scan's own, outermost)."""
    k = len(scan.neutral)
    lam = Block(arg_types=[soac.row_type(v.type) or v.type for v in inputs])
    args = list(lam.args)
    if level == len(nest) - 1:
        inner: Operation = _element_scan(scan, args[:k], args[k:])
    else:
        inner = column_nest(scan, args, nest, level + 1)
    lam.add_ops([inner, soac.YieldOp(*inner.results)])
    result_types = [soac.array_of(r.type) for r in inner.results]
    certs = [*(scan.certs if level == 0 else ()), *nest[level].certs]
    return soac.MapOp(inputs, result_types, Region(lam), certs)


@dataclass
class InterchangeScan(RewritePattern):
    failing: frozenset[str]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, soac.ScanOp | soac.ScanomapOp) \
                or why_not(op, self.failing) is not None:
            return
        nest = map_nest(_lambdas(op)[0])
        assert not isinstance(nest, str)
        depth = len(nest)
        zero = arith.ConstantOp(IntegerAttr(0, i64))
        rows = soac.SizeOp(op.inputs[0], 0)
        empty = arith.CmpiOp(rows, zero, "eq")
        for new in (zero, rows, empty):
            rewriter.insert(new, InsertPoint.before(op))

        # No rows: the scan's result, arrays with every dimension 0 (no step runs, and
        # nothing is zipped).
        then_block = Block()
        empties = [soac.EmptyOp(t) for t in op.result_types]
        then_block.add_ops([*empties, scf.YieldOp(*(e.result for e in empties))])

        # Rows: transpose(map^d(fn (e, c) => scan(f, e, c), ne, transpose(a))), the
        # scanned dimension moved innermost and back (thesis Figure 36).
        else_block = Block()
        columns = [soac.TransposeOp(a, 0, depth) for a in op.inputs]
        else_block.add_ops(columns)
        per_column = column_nest(op, [*op.neutral, *(c.result for c in columns)], nest, 0)
        k, n = (0, 1) if depth == 1 else (depth, -depth)  # the inverse of (0, depth)
        back = [soac.TransposeOp(r, k, n) for r in per_column.results]
        else_block.add_ops([per_column, *back, scf.YieldOp(*(t.result for t in back))])

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
    interchanged: the fusion of Figure 35's consumer side).

    Not in the default pipeline: on the CPU the column-wise scans read with a large
    stride, and the consumer side of FUSE-ISWIM (8.3) is had without it: `fuse`
    composes a map producer into the scan directly (a scanomap whose fold maps the
    rows), which this pass then interchanges. The producer side (a consumer of the
    interchanged scan fusing with its column nest) does not happen: the new form is
    under the test for rows (an `scf.if`), whose results no rule fuses through. It is
    opt-in, for exposing the columns' parallelism. Where the interchange's
    transpositions cancel those of the scanned arrays (a scan down the columns written
    with transposes), `fuse` interchanges in the default pipeline
    (`l0.passes.fuse.iswim_rule`).

    Fires only when the nest's zip checks were made before the scan (run
    `size-hindrance,rebind` first, as `-O` does; for d >= 2 the inner checks, of the
    accumulator's rows, are not yet moved out by them), its element lambda can neither
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

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        failing = frozenset(Speculation(op).failing)
        PatternRewriteWalker(InterchangeScan(failing), apply_recursively=False).rewrite_module(op)
