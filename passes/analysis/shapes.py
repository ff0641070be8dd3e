"""Shapes known before a SOAC runs: row shapes that are the same for every iteration.

A `map` whose lambda yields arrays builds a regular array (all rows of one shape) when
the shape of a row is known beforehand: the CPU back end then allocates the result before
the map runs and lets the lambda write each row in place, and `fuse` may drop the map's
irregularity check together with the map. `row_shape(v, scope)` finds
such a shape for a value `v` yielded by the lambda of `scope`: an expression over
values defined outside `scope` (so it can be computed just before it), following the
ops whose result shape is a function of their operands' shapes: a row of an input,
a nested `map` over a row, `iota(n)` and `replicate(n, ...)` with `n` computable
outside, `copy`, `transpose`, row indexing, `update`, a literal of scalars, a branch
whose arms have one shape, and a loop whose body hands its array back with the shape it
got (in-place updates, as in a tridiagonal solve). When there is none (a lambda
yielding `iota(i)` for its element `i`, or the result of a call), the rows may differ in
shape and the map must check them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from l0.dialects import soac
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue


@dataclass(frozen=True)
class Dim:
    """Dimension `k` of the array `array` (an original IR value defined outside)."""

    array: SSAValue
    k: int


@dataclass(frozen=True)
class Val:
    """An i64 value defined outside."""

    value: SSAValue


@dataclass(frozen=True)
class Const:
    value: int


@dataclass(frozen=True)
class Norm:
    """`soac.size`'s normalised dimension `k` of a shape: 0 once an outer one is 0."""

    shape: tuple[Item, ...]
    k: int


Item = Dim | Val | Const | Norm
Shape = list[Item]


def is_outside(v: SSAValue, scope: Operation) -> bool:
    """Whether `v` is defined outside the regions of `scope` (and so before it)."""
    if isinstance(v, OpResult):
        owner: Operation | None = v.op
    else:
        assert isinstance(v, BlockArgument)
        owner = v.block.parent_op()
    while owner is not None:
        if owner is scope:
            return False
        owner = owner.parent_op()
    return True


def _rank(v: SSAValue) -> int:
    t = v.type
    return t.get_num_dims() if isinstance(t, TensorType) else 0


def row_shape(v: SSAValue, scope: Operation) -> Shape | None:
    """The shape of array `v` as items computable before `scope`, or None."""
    if is_outside(v, scope):
        return [Dim(v, k) for k in range(_rank(v))]
    if isinstance(v, BlockArgument):
        return _arg_shape(v, scope)
    assert isinstance(v, OpResult)
    rule = _RULES.get(type(v.op))
    return None if rule is None else rule(v.op, v.index, scope)


def _arg_shape(v: BlockArgument, scope: Operation) -> Shape | None:
    """A lambda argument bound to the rows of an input."""
    op = v.block.parent_op()
    inputs: list[SSAValue]
    if isinstance(op, soac.MapOp | soac.FilterOp):
        inputs, first = list(op.inputs), 0
    elif isinstance(op, soac.ReduceOp | soac.ScanOp):
        inputs, first = list(op.inputs), len(op.neutral)
    elif isinstance(op, soac.RedomapOp) and v.block is op.inner.block:
        inputs, first = list(op.inputs), len(op.neutral)
    else:
        return None
    if v.index < first:
        return None  # an accumulator: its shape may change from step to step
    outer = row_shape(inputs[v.index - first], scope)
    return None if outer is None else outer[1:]


def scalar(v: SSAValue, scope: Operation) -> Item | None:
    """The i64 `v` as an item computable before `scope`, or None."""
    if is_outside(v, scope):
        return Val(v)
    if not isinstance(v, OpResult):
        return None
    op = v.op
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return Const(op.value.value.data)
    if isinstance(op, soac.SizeOp):
        shape = row_shape(op.array, scope)
        return None if shape is None else Norm(tuple(shape), op.dim.data)
    return None


def _outer(inputs: list[SSAValue], scope: Operation) -> Item | None:
    shape = row_shape(inputs[0], scope)
    return None if shape is None else shape[0]


def _yielded(block: Block, index: int) -> SSAValue:
    last = block.last_op
    assert last is not None
    return last.operands[index]


def _map(op: Operation, index: int, scope: Operation) -> Shape | None:
    assert isinstance(op, soac.MapOp)
    n = _outer(list(op.inputs), scope)
    y = _yielded(op.body.block, index)
    inner = row_shape(y, scope) if isinstance(y.type, TensorType) else []
    return None if n is None or inner is None else [n, *inner]


def _scan(op: Operation, index: int, scope: Operation) -> Shape | None:
    assert isinstance(op, soac.ScanOp)
    if _rank(op.results[index]) != 1:
        return None
    n = _outer(list(op.inputs), scope)
    return None if n is None else [n]


def _iota(op: Operation, index: int, scope: Operation) -> Shape | None:
    assert isinstance(op, soac.IotaOp)
    n = scalar(op.n, scope)
    return None if n is None else [n]


def _replicate(op: Operation, index: int, scope: Operation) -> Shape | None:
    assert isinstance(op, soac.ReplicateOp)
    n = scalar(op.n, scope)
    inner = row_shape(op.value, scope) if isinstance(op.value.type, TensorType) else []
    return None if n is None or inner is None else [n, *inner]


def _same_as_array(op: Operation, index: int, scope: Operation) -> Shape | None:
    assert isinstance(op, soac.CopyOp | soac.UpdateOp)
    return row_shape(op.array, scope)


def _index(op: Operation, index: int, scope: Operation) -> Shape | None:
    assert isinstance(op, soac.IndexOp)
    shape = row_shape(op.array, scope)
    return None if shape is None else shape[len(op.indices):]


def _transpose(op: Operation, index: int, scope: Operation) -> Shape | None:
    assert isinstance(op, soac.TransposeOp)
    shape = row_shape(op.array, scope)
    if shape is None:
        return None
    return transposed(shape, op.k.data, op.n.data)


def _trace(op: Operation, index: int, scope: Operation) -> Shape | None:
    assert isinstance(op, soac.TraceOp)
    return row_shape(op.inputs[index], scope)


def _literal(op: Operation, index: int, scope: Operation) -> Shape | None:
    assert isinstance(op, soac.ArrayOp)
    if any(isinstance(e.type, TensorType) for e in op.elems):
        return None  # rows of rows: they would all have to agree
    return [Const(len(op.elems))]


def _branch(op: Operation, index: int, scope: Operation) -> Shape | None:
    """`if`: the shape both arms yield, when it is the same item for item."""
    assert isinstance(op, scf.IfOp)
    if not op.false_region.blocks:
        return None
    then = row_shape(_yielded(op.true_region.block, index), scope)
    other = row_shape(_yielded(op.false_region.block, index), scope)
    return then if then is not None and then == other else None


def _loop(op: Operation, index: int, scope: Operation) -> Shape | None:
    """A loop result has the shape of its initial value when every iteration yields
    the array it got, updated or copied (the shape it entered with)."""
    assert isinstance(op, scf.ForOp)
    body = op.body.block
    if not _keeps_shape(_yielded(body, index), body.args[index + 1]):
        return None
    return row_shape(op.iter_args[index], scope)


def _keeps_shape(v: SSAValue, arg: BlockArgument) -> bool:
    """Whether `v` is `arg` after updates, copies and loops that keep shapes."""
    while v is not arg:
        if not isinstance(v, OpResult):
            return False
        op = v.op
        if isinstance(op, soac.UpdateOp | soac.CopyOp):
            v = op.array
        elif isinstance(op, scf.ForOp):
            inner = op.body.block
            if not _keeps_shape(_yielded(inner, v.index), inner.args[v.index + 1]):
                return False
            v = op.iter_args[v.index]
        else:
            return False
    return True


def transposed(items: list[Item], k: int, n: int) -> list[Item]:
    """`items` with entry k moved to position k + n (`soac.transpose`)."""
    out = list(items)
    moved = out.pop(k)
    out.insert(k + n, moved)
    return out


_RULES: dict[type[Operation], Callable[[Operation, int, Operation], Shape | None]] = {
    soac.MapOp: _map,
    soac.ScanOp: _scan,
    soac.IotaOp: _iota,
    soac.ReplicateOp: _replicate,
    soac.CopyOp: _same_as_array,
    soac.UpdateOp: _same_as_array,
    soac.IndexOp: _index,
    soac.TransposeOp: _transpose,
    soac.TraceOp: _trace,
    soac.ArrayOp: _literal,
    scf.IfOp: _branch,
    scf.ForOp: _loop,
}

