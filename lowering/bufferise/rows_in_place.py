"""Rows a map's lambda can compute in its destination row, through in-place updates.

Destination passing (Note [Destinations] in `convert.py`) gives the op that computes a
map's yielded row the view of that row, when the op's result is yielded as it is. A
lambda often makes a fresh array and then updates it in place before yielding it: a
tridiagonal solve copies its right side, `u = copy(r)`, and its two loops update `u`
element by element. `rows_in_place` finds these: the yielded value is the result of
such a fresh op after in-place updates and loops that hand back the array they got.
Bufferisation then gives the fresh op the destination row, so the updates and loops
work in the row itself; the layout analysis (`layouts.py`) gives the chain the row's
layout (`INNER`, a view at a dynamic offset).

Note [Rows computed in place]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The chain from the fresh op (the root) to the yield is one buffer at run time: a
`soac.update` writes into its source and yields it (uniqueness, thesis 6.1.1), and a
loop whose body yields its carried array after in-place updates (and inner loops of the
same kind) hands back the buffer it got. Placing that buffer in the destination row
instead of a fresh allocation changes no value the program reads, when:

* the root is fresh: an op that can compute into a given buffer (`copy`, `map`, `iota`,
  `replicate`, a scan of scalars), at the lambda's top level, not a view (a `replicate`
  or `map` of `readonly.py`). Its buffer then aliases no input of the map and no array
  from outside the lambda, and each iteration of the map gets its own (a root inside a
  loop, or outside the lambda, would be one buffer for several rows);
* every step is an update or such a loop at the same level; a loop whose body yields
  anything else (a copy, a new array, a branch) has a new buffer as its result, and
  the chain stops there: nothing is elided;
* the yielded value is yielded once (two results yielding it would need two rows), and
  the map allocates its result before running (`shapes.row_shape` knows the row shape,
  which by the same rules is the root's shape: element types and shapes match);
* nothing reads the destination row before it is complete: the row is a view of the
  map's result (fresh, or a row of an enclosing map's destination), which no value
  of the program denotes until the map has finished, and the view itself is given only
  to this iteration. Reads of the chain's values inside the lambda read the row, which
  holds exactly what the fresh buffer would have held.

On a parallel map each iteration owns its row, so this holds on every back end.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from l0.dialects import soac
from l0.passes.analysis.shapes import row_shape
from l0.passes.analysis.walk import walk_ops

__all__ = ["can_take_destination", "rows_in_place"]

_CAN_TAKE_DESTINATION = (soac.MapOp, soac.IotaOp, soac.ReplicateOp, soac.CopyOp, soac.ScanOp,
                         soac.ScanomapOp)


def _rank(v: SSAValue) -> int:
    t = v.type
    return t.get_num_dims() if isinstance(t, TensorType) else 0


def can_take_destination(v: OpResult) -> bool:
    """Whether the op computing `v` can compute it into a given buffer."""
    if isinstance(v.op, soac.ScanOp | soac.ScanomapOp):
        return _rank(v) == 1
    return isinstance(v.op, _CAN_TAKE_DESTINATION)


def _yielded(block: Block) -> list[SSAValue]:
    last = block.last_op
    return list(last.operands) if last is not None else []


def _hands_back(v: SSAValue, arg: BlockArgument) -> bool:
    """Whether `v` is the loop body's carried `arg` after in-place updates only."""
    block = arg.block
    while v is not arg:
        if not isinstance(v, OpResult) or v.op.parent_block() is not block:
            return False
        step = _step(v)
        if step is None:
            return False
        v = step
    return True


def _step(v: OpResult) -> SSAValue | None:
    """The array `v` is, updated in place (an update's source, a loop's initial value
    when its body hands the array back), or None."""
    op = v.op
    if isinstance(op, soac.UpdateOp):
        return op.array
    if isinstance(op, scf.ForOp):
        body = op.body.block
        if _hands_back(_yielded(body)[v.index], body.args[v.index + 1]):
            return op.iter_args[v.index]
    return None


def _root(y: SSAValue, block: Block, views: frozenset[Operation]) -> OpResult | None:
    """The fresh op result in `block` that `y` is after at least one in-place step."""
    v: SSAValue = y
    steps = 0
    while isinstance(v, OpResult) and v.op.parent_block() is block:
        step = _step(v)
        if step is None:
            break
        v, steps = step, steps + 1
    if steps == 0 or not isinstance(v, OpResult) or v.op.parent_block() is not block:
        return None
    if v.op in views or not can_take_destination(v):
        return None
    return v


def rows_in_place(module: ModuleOp, views: frozenset[Operation]) -> dict[SSAValue, OpResult]:
    """Yielded row -> the fresh op result computing it in the map's destination row
    (Note [Rows computed in place]). A yielded value that is itself that op's result is
    Note [Destinations]'s simpler case and not listed here."""
    found: dict[SSAValue, OpResult] = {}
    for op in walk_ops(module):
        if not isinstance(op, soac.MapOp) or op in views:
            continue
        block = op.body.block
        yields = _yielded(block)
        candidates: dict[SSAValue, OpResult] = {}
        for r, y in zip(op.results, yields, strict=True):
            if _rank(r) < 2 or yields.count(y) != 1:
                continue
            root = _root(y, block, views)
            if root is not None and row_shape(y, op) is not None:
                candidates[y] = root
        roots = list(candidates.values())
        found |= {y: root for y, root in candidates.items() if roots.count(root) == 1}
    return found
