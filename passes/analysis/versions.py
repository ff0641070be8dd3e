"""Which version of a versioned nest an op is in (Note [Versions of a nest] in
`l0.passes.cores.versions`).

A versioned nest is `scf.if %t {KEPT} else {FLAT}` whose condition `%t` is a
`soac.threshold`: the then branch holds the nest as it was (its outer level parallel),
the else branch the copy that `interchange` and `distribute` flatten. Lowered, the
threshold becomes a comparison marked `VERSIONS_ATTR`, so that the loop level still
finds the versions (`l0.lowering.loop_ir.versions`).
"""

from __future__ import annotations

from typing import Literal

from xdsl.dialects import scf
from xdsl.ir import Operation

from l0.dialects import soac

Version = Literal["kept", "flat"]

VERSIONS_ATTR = "l0.versions"
"""Marks the lowered comparison that chooses between the versions of a nest."""


def chooses_version(op: Operation) -> bool:
    """Whether `op` is the `scf.if` choosing between the versions of a nest (on a
    `soac.threshold`, or on its lowered comparison)."""
    if not isinstance(op, scf.IfOp):
        return False
    owner = op.cond.owner
    return isinstance(owner, soac.ThresholdOp) or (
        isinstance(owner, Operation) and VERSIONS_ATTR in owner.attributes)


def version_of(op: Operation) -> Version | None:
    """The version `op` is in ("kept": the nest as it was, "flat": the copy to flatten;
    the innermost choice counts), or None outside every versioned nest."""
    cur: Operation | None = op
    while cur is not None:
        region = cur.parent_region()
        parent = region.parent_op() if region is not None else None
        if parent is not None and chooses_version(parent):
            assert isinstance(parent, scf.IfOp)
            return "kept" if region is parent.true_region else "flat"
        cur = parent
    return None
