"""Where a value is defined relative to an op with regions: inside it, or visible at it.

Hoisting, fusion, ISWIM, size-hindrance removal and the range analysis all ask
whether a value can be used just before an op (it is defined outside the op) or only
within it (it is a block argument or result in one of the op's regions), and which
outside values an op's regions read. The op's own results are neither: they exist
only after it.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, SSAValue


def _defining_op(v: SSAValue) -> Operation | None:
    """The op that defines `v`: its owner, or the op whose region holds the block that
    has `v` as an argument (None for a block outside any op)."""
    owner = v.owner
    return owner.parent_op() if isinstance(owner, Block) else owner


def defined_inside(v: SSAValue, op: Operation) -> bool:
    """Whether `v` is defined in one of `op`'s regions (a block argument or a result)."""
    if isinstance(v.owner, Block):
        return op.is_ancestor(v.owner)
    return v.owner is not op and op.is_ancestor(v.owner)


def defined_outside(v: SSAValue, op: Operation) -> bool:
    """Whether `v` is defined outside `op` and its regions, so visible wherever `op` is
    (and so before it); `op`'s own results are not."""
    definer = _defining_op(v)
    return definer is None or not op.is_ancestor(definer)


def free_values(op: Operation, *, own_operands: bool = True) -> list[SSAValue]:
    """The values defined outside `op` that `op` uses, in order of first use; with
    `own_operands=False` only those its regions use."""
    found: dict[SSAValue, None] = {}
    for inner in op.walk():
        if inner is op and not own_operands:
            continue
        for v in inner.operands:
            if v not in found and defined_outside(v, op):
                found[v] = None
    return list(found)
