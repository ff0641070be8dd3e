"""Certificate rules of `simplify` (thesis 5.3: `assert(True)`, `<c1, ..., cn> e`,
`conjoin(c1, ..., cn)`).

A check whose condition is the constant true always succeeds, so `assert(True)`
becomes `Checked`; a certificate bound to `Checked` guards nothing and is dropped
from every cert list and `conjoin`, as are repeated ones. `assert(False)` is never
removed: it still fails at run time with its message (its condition may be folded
to `false` by the arithmetic rules, which changes nothing).
"""

from __future__ import annotations

from l0.dialects import soac
from l0.passes.analysis.constants import constant_int
from l0.passes.simplify.common import is_checked, join_certs, set_certs
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern


class AssertTrue(RewritePattern):
    """`assert(True)` -> `Checked`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.AssertOp, rewriter: PatternRewriter) -> None:
        if constant_int(op.cond) == 1:
            rewriter.replace(op, soac.CheckedOp())


class SimplifyConjoin(RewritePattern):
    """`conjoin(c, Checked, c, conjoin(d, e))` -> `conjoin(c, d, e)`; a conjunction of
    one certificate is that certificate, of none `Checked`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.ConjoinOp, rewriter: PatternRewriter) -> None:
        flat: list = []
        for c in op.certs:
            inner = c.owner
            flat.extend(inner.certs if isinstance(inner, soac.ConjoinOp) else [c])
        certs = join_certs(flat)
        if len(certs) == 0:
            rewriter.replace(op, soac.CheckedOp())
        elif len(certs) == 1:
            rewriter.replace(op, [], [certs[0]])
        elif certs != list(op.certs):
            rewriter.replace(op, soac.ConjoinOp(certs))


CERTIFIED_OPS: tuple[type[IRDLOperation], ...] = (
    soac.IotaOp, soac.ReplicateOp, soac.SizeOp, soac.IndexOp, soac.UpdateOp, soac.ReshapeOp,
    soac.TransposeOp, soac.SplitOp, soac.ConcatOp, soac.MapOp, soac.ReduceOp, soac.ScanOp,
    soac.FilterOp, soac.RedomapOp,
)
"""The ops that take a `certs` list."""


class PruneCerts(RewritePattern):
    """`<c, Checked, c> e` -> `<c> e`: drop `Checked` and repeated certificates from
    the cert list of any soac op."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, CERTIFIED_OPS):
            return
        certs = list(op.certs)
        if not any(is_checked(c) for c in certs) and len(set(certs)) == len(certs):
            return
        set_certs(op, join_certs(certs), rewriter)
