"""Certificate rule of `simplify` (thesis 5.3: `<c1, ..., cn> e`): a certificate bound
to `Checked` guards nothing and is dropped from every cert list, as are repeated ones.

The rules of one op by itself, `assert(True)` -> `Checked` and the simplification of
`conjoin`, are the ops' canonicalisation patterns (`l0.dialects.soac.canonicalization`);
`simplify` runs them among its rules.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from l0.dialects import soac
from l0.passes.simplify.common import is_checked, join_certs, set_certs

CERTIFIED_OPS: tuple[type[IRDLOperation], ...] = (
    soac.IotaOp, soac.ReplicateOp, soac.SizeOp, soac.IndexOp, soac.UpdateOp, soac.ReshapeOp,
    soac.TransposeOp, soac.SplitOp, soac.ConcatOp, soac.MapOp, soac.ReduceOp, soac.ScanOp,
    soac.FilterOp, soac.RedomapOp, soac.ScanomapOp,
)
"""The ops that take a `certs` list."""
_CERTIFIED = frozenset(CERTIFIED_OPS)


class PruneCerts(RewritePattern):
    """`<c, Checked, c> e` -> `<c> e`: drop `Checked` and repeated certificates from
    the cert list of any soac op."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if type(op) not in _CERTIFIED:  # exactly: `isinstance` on op classes is slow
            return
        if not any(isinstance(v.type, soac.CertType) for v in op.operands):
            return  # no cert list (cheap to see: `op.certs` decodes the segment sizes)
        assert isinstance(op, IRDLOperation)
        certs = list(op.certs)  # type: ignore[attr-defined]  # every op of CERTIFIED_OPS has one
        if not any(is_checked(c) for c in certs) and len(set(certs)) == len(certs):
            return
        set_certs(op, join_certs(certs), rewriter)
