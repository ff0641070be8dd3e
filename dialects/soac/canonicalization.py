"""The canonicalisation patterns of the `soac` ops: rewrites of one op by itself, which
`canonicalize` runs through the ops' `Canonicalization` trait and `simplify` runs among
its rules (thesis 5.3).

* `assert(True)` -> `Checked`: a check whose condition is the constant true always
  succeeds. `assert(False)` is never removed: it still fails at run time with its
  message.
* `conjoin(c, Checked, c, conjoin(d, e))` -> `conjoin(c, d, e)`: a certificate bound to
  `Checked` guards nothing, a repeated one nothing more; a conjunction of one
  certificate is that certificate, of none `Checked`.
* `transpose(k, 0, a)` -> `a`: moving a dimension to where it is does nothing.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from l0.dialects.soac.ops import AssertOp, CheckedOp, ConjoinOp, TransposeOp, join_certs


def _is_true(v: SSAValue) -> bool:
    op = v.owner
    return (isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr)
            and op.value.value.data != 0)


class AssertTrue(RewritePattern):
    """`assert(True)` -> `Checked`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AssertOp, rewriter: PatternRewriter) -> None:
        if _is_true(op.cond):
            rewriter.replace(op, CheckedOp())


class SimplifyConjoin(RewritePattern):
    """`conjoin(c, Checked, c, conjoin(d, e))` -> `conjoin(c, d, e)`; a conjunction of
    one certificate is that certificate, of none `Checked`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConjoinOp, rewriter: PatternRewriter) -> None:
        flat: list[SSAValue] = []
        for c in op.certs:
            inner = c.owner
            flat.extend(inner.certs if isinstance(inner, ConjoinOp) else [c])
        certs = join_certs(flat)
        if len(certs) == 0:
            rewriter.replace(op, CheckedOp())
        elif len(certs) == 1:
            rewriter.replace(op, [], [certs[0]])
        elif certs != list(op.certs):
            rewriter.replace(op, ConjoinOp(certs))


class TransposeIdentity(RewritePattern):
    """`transpose(k, 0, a)` -> `a`: moving a dimension to where it is does nothing."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        if op.n.data == 0:
            rewriter.replace(op, [], [op.array])


PATTERNS: dict[type[Operation], tuple[RewritePattern, ...]] = {
    AssertOp: (AssertTrue(),),
    ConjoinOp: (SimplifyConjoin(),),
    TransposeOp: (TransposeIdentity(),),
}
"""The patterns of each op class that has the `Canonicalization` trait."""
