"""Whether an op may run where the original program would not run it (thesis 6.1.1).

Hoisting moves an op out of a loop, a lambda or a branch, so the op may then run
when the original program would not have run it at all (the loop runs zero times, the
branch is not taken), or earlier than the original ran it. That is harmless for an op
that computes a value and nothing else, and wrong for two kinds of op:

* an op that *prints* (`soac.trace`, a call of a function that traces): moving it
  changes what the program prints, merging two of them prints less. Such ops are
  never moved or merged.
* an op that *may fail*: run where the original did not, it can report an error the
  original never reports (thesis 6.1.1: `if c then y / x else ...`). These are the
  checks themselves (`soac.assert`), every op that the interpreter can fail on
  without an assert guarding it (`l0.passes.analysis.effects.local_effects`: irregular arrays,
  integer division, shifts, `fptosi`, `ipowi`), and the ops that rely on a
  certificate to be safe: indexing and `let-with` (out of bounds), `reshape`,
  `split`, `iota`/`replicate` of a count not known to be non-negative, a SOAC over
  several arrays (their outer sizes must agree), and a call of a function that may
  fail or may not terminate (a recursive function). An op with regions may fail when
  any op nested in it may.

`Speculation(module)` computes, once per module, which functions print and which may
fail, and answers `prints(op)`, `may_fail(op)` and `why_may_fail(op)` (a reason for
`l0-opt` and the tests). Merging two equal ops (CSE) is always allowed for ops that
may fail, provided the one kept runs first; only printing ops are never merged.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from l0.dialects import soac
from l0.passes.analysis.calls import (
    call_graph,
    functions,
    functions_calling,
    recursive_functions,
)
from l0.passes.analysis.constants import constant_int
from l0.passes.analysis.consumption import SOACS
from l0.passes.analysis.effects import effectful_functions, local_effects
from l0.passes.analysis.walk import walk_ops


def known_non_negative(v: SSAValue) -> bool:
    """Whether the i64 `v` is non-negative by construction: a constant >= 0 or a size."""
    if isinstance(v.owner, soac.SizeOp):
        return True
    c = constant_int(v)
    return c is not None and c >= 0


def checked_non_negative(v: SSAValue, certs: Sequence[SSAValue]) -> bool:
    """Whether one of `certs` is the certificate of the check `0 <= v` (the front end's
    check of a count given to `iota` or `replicate`): an op holding it runs only after
    that check passed."""
    for c in certs:
        check = c.owner
        if type(check) is not soac.AssertOp:
            continue
        cond = check.operands[0].owner
        if isinstance(cond, arith.CmpiOp) and cond.predicate.value.data == 3 \
                and cond.rhs is v and constant_int(cond.lhs) == 0:  # sle
            return True
    return False


def _callee(op: func.CallOp) -> str:
    return op.callee.string_value()


class Speculation:
    """Which ops of one module print and which may fail (see the module docstring)."""

    def __init__(self, module: ModuleOp) -> None:
        self.defined = set(functions(module))
        graph = call_graph(module)
        self.printing = functions_calling(
            module, lambda f: any(type(op) is soac.TraceOp for op in walk_ops(f)), graph)
        """Functions that trace, or call an unknown or tracing function."""
        self.effectful = effectful_functions(module, graph)
        """Functions whose calls may fail or print (`l0.passes.analysis.effects`)."""
        self.failing = self.effectful | recursive_functions(module, graph)
        """Functions whose calls may fail, print or not terminate."""

    # -- printing -----------------------------------------------------------------------

    def _prints_locally(self, op: Operation) -> bool:
        kind = type(op)  # exactly: op classes are ABCs, slow to test with `isinstance`
        if kind is soac.TraceOp:
            return True
        if kind is func.CallOp:
            return _callee(op) in self.printing or _callee(op) not in self.defined  # type: ignore[arg-type]  # a CallOp, tested by class
        return False

    def prints(self, op: Operation) -> bool:
        """Whether `op` (or an op nested in it) prints: it may never move or merge."""
        if self._prints_locally(op):
            return True
        return bool(op.regions) and any(self._prints_locally(o) for o in walk_ops(op))

    # -- failing ------------------------------------------------------------------------

    def why_may_fail_locally(self, op: Operation) -> str | None:
        """Why `op` itself (not counting nested ops) may fail, or None."""
        # Exact classes, not `match` on class patterns: op classes are ABCs, slow to
        # test with `isinstance` (never subclassed), and this is asked of every op.
        kind = type(op)
        if kind is soac.AssertOp:
            return "it is a check"
        if kind is soac.IndexOp or kind is soac.UpdateOp:
            return "it may index out of bounds"
        if kind is soac.ReshapeOp or kind is soac.SplitOp:
            return "its shape arguments may be invalid"
        if kind is soac.IotaOp or kind is soac.ReplicateOp:
            if not known_non_negative(op.n) and not checked_non_negative(  # type: ignore[attr-defined]  # iota or replicate, tested by class
                    op.n, op.certs):  # type: ignore[attr-defined]  # the same op, tested by class
                return "its count may be negative"
            return None
        if kind is func.CallOp:
            if _callee(op) in self.failing or _callee(op) not in self.defined:  # type: ignore[arg-type]  # a CallOp, tested by class
                return f"the function @{_callee(op)} may fail or not terminate"  # type: ignore[arg-type]  # as above
            return None
        if kind in _SOAC_CLASSES and len(op.inputs) > 1:  # type: ignore[attr-defined]  # a SOAC, tested by class
            return "the arrays it takes together may differ in size"
        if local_effects(op, self.failing):
            return "it may fail at run time"
        return None

    def why_may_fail(self, op: Operation) -> str | None:
        """Why `op`, or an op nested in it, may fail at run time; None if it cannot."""
        reason = self.why_may_fail_locally(op)
        if reason is not None or not op.regions:
            return reason
        for inner in walk_ops(op):
            if inner is not op and self.why_may_fail_locally(inner) is not None:
                return f"'{inner.name}' inside it may fail"
        return None

    def may_fail(self, op: Operation) -> bool:
        """Whether `op`, or an op nested in it, may fail at run time."""
        return self.why_may_fail(op) is not None


_SOAC_CLASSES = frozenset(SOACS)
