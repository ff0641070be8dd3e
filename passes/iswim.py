"""`iswim`: Interchange Scan With Inner Maps (thesis 8.3).

A scan over the rows of matrices whose operator adds rows element by element,
`scan(fn (x, y) => map(op +, zip(x, y)), ne, a)`, is the same as scanning each column on
its own: `transpose(map(fn (e, c) => scan(op +, e, c), zip(ne, transpose(a))))`. The
outer map exposes the columns' parallelism (a segmented scan), and the transposed form
can fuse where the scan could not (8.3).

Legality (beyond the shape of the scan: its lambda is exactly one map over all its
accumulators and rows, in that order, yielding that map's results, and that map's
lambda works on elements, not rows):
* the inner map's certificates are defined outside the scan: the zip check of each row
  against the accumulator has then been made before the scan (`size-hindrance` shows
  the accumulators keep their size, `rebind` hoists the check), so it needs no place
  in the new form;
* the element lambda can neither fail nor print: the interchange computes the elements
  column by column instead of row by row;
* an empty scan keeps its meaning: the new form runs only when there are rows; with
  none, the result is a copy of the (empty) input, as the scan's would be, and no zip of
  the neutral element with the columns is attempted.
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


def why_not(scan: soac.ScanOp, failing: frozenset[str]) -> str | None:
    """Why `scan` may not be interchanged with its inner map (None: it may)."""
    block = scan.body.block
    ops = list(block.ops)
    if len(ops) != 2 or not isinstance(ops[0], soac.MapOp) or not isinstance(ops[1], soac.YieldOp):
        return "its lambda is not a single map"
    inner, done = ops
    assert isinstance(inner, soac.MapOp) and isinstance(done, soac.YieldOp)
    if list(inner.inputs) != list(block.args) or list(done.values) != list(inner.results):
        return "the inner map does not take every accumulator and row, in order"
    if any(isinstance(a.type, TensorType) for a in inner.body.block.args):
        return "the inner map works on rows, not elements"
    if any(isinstance(v.type, TensorType) and v.type.get_num_dims() != 2 for v in scan.inputs):
        return "the scanned arrays are not matrices"
    if any(defined_inside(c, scan) for c in inner.certs):
        return "the inner map's checks are made inside the scan"
    if any(v in block.args for v in free_values(inner) if v not in inner.inputs):
        return "the inner lambda uses the scan's rows or accumulators directly"
    if lambda_effects(inner, failing):
        return "the inner lambda may fail or print"
    return None


@dataclass
class InterchangeScan(RewritePattern):
    failing: frozenset[str]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, soac.ScanOp) or why_not(op, self.failing) is not None:
            return
        inner = op.body.block.first_op
        assert isinstance(inner, soac.MapOp)
        k = len(op.neutral)
        zero = arith.ConstantOp(IntegerAttr(0, i64))
        rows = soac.SizeOp(op.inputs[0], 0)
        empty = arith.CmpiOp(rows, zero, "eq")
        for new in (zero, rows, empty):
            rewriter.insert(new, InsertPoint.before(op))

        # No rows: a fresh copy of each (empty) input, the scan's result.
        copies = [soac.CopyOp(a) for a in op.inputs]
        then_block = Block()
        then_block.add_ops([*copies, scf.YieldOp(*(c.result for c in copies))])

        # Rows: transpose(map(fn (e, c) => scan(f, e, c), zip(ne, transpose(a)))).
        else_block = Block()
        columns = [soac.TransposeOp(a, 0, 1) for a in op.inputs]
        else_block.add_ops(columns)
        elements = [_element_type(n) for n in op.neutral]
        lam = Block(arg_types=[*elements, *(soac.array_of(t) for t in elements)])
        body = Rewriter.move_region_contents_to_new_regions(inner.body)
        element_scan = soac.ScanOp(list(lam.args[:k]), list(lam.args[k:]), body, list(op.certs))
        lam.add_ops([element_scan, soac.YieldOp(*element_scan.results)])
        per_column = soac.MapOp([*op.neutral, *(c.result for c in columns)],
                                [soac.array_of(soac.array_of(t)) for t in elements],
                                Region(lam), [*op.certs, *inner.certs])
        back = [soac.TransposeOp(r, 0, 1) for r in per_column.results]
        else_block.add_ops([per_column, *back, scf.YieldOp(*(t.result for t in back))])

        chosen = scf.IfOp(empty, op.result_types, Region(then_block), Region(else_block))
        rewriter.replace(op, chosen)


@dataclass(frozen=True)
class IswimPass(ModulePass):
    """Interchange a scan of row-wise maps with its inner map (thesis 8.3, ISWIM).

    `scan(fn (x1..xk, y1..yk) => map(f, x1..xk, y1..yk), ne, a)`, over matrices `a`
    with an element-wise `f`, becomes, when there are rows,
    `transpose(map(fn (e1..ek, c1..ck) => scan(f, e, c), ne, transpose(a)))`: one scan per
    column, all columns in parallel. Not in the default pipeline: on the CPU the
    column-wise scans read with a large stride; it is for exposing parallelism and
    fusion (FUSE-ISWIM is not implemented yet).

    Fires only when the inner map's zip checks were made before the scan (run
    `size-hindrance,rebind` first, as `-O` does), its lambda can neither fail nor print
    (the elements are computed in another order), and the arrays are matrices (the
    generalisation of the thesis's Figure 36 is not implemented). With no rows the
    result is a copy of the empty input, as before.

        %s = soac.scan(%x = %ne : tensor<?xi64>) over(%y = %a : tensor<?x?xi64>) {
          %m = soac.map(%p = %x, %q = %y : tensor<?xi64>, tensor<?xi64>) <%c> -> tensor<?xi64> {
            %z = arith.addi %p, %q : i64
            soac.yield %z : i64
          }
          soac.yield %m : tensor<?xi64>
        }
      becomes
        %s = scf.if (size(0, %a) == 0) -> (tensor<?x?xi64>) {
          copy %a
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
