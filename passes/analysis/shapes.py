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
got (in-place updates, as in a tridiagonal solve, or a map over it row by row:
`keeps_shape`). When there is none (a lambda yielding `iota(i)` for its element `i`,
or the result of a call), the rows may differ in shape and the map must check them.

Note [Two kinds of size expression]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Two analyses build symbolic sizes from the same leaves (`Dim`, `Val`, `Const`, here),
for different questions, so their compound forms differ. A row shape here is a list
of items that the CPU back end computes before a `map` (`l0.lowering.bufferise.shapes`):
its only compound item is `Norm`, dimension k of a shape the way `soac.size` reports
it (0 once an outer dimension is 0), and it must be exact for every row. The size
expressions of `size-hindrance` (`l0.passes.size_hindrance.expressions`) are the
*alternative* ways of computing one size, with `+`, `-`, `max` and guards, ranked by
how early they can be computed; they are never lowered as such, only turned back
into arithmetic ops in the IR.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from l0.dialects import soac
from l0.passes.analysis.constants import constant_int
from l0.passes.analysis.scope import defined_outside


@dataclass(frozen=True)
class Dim:
    """Dimension `k` of the array `array` (an original IR value; in a row shape, one
    defined outside the scope)."""

    array: SSAValue
    k: int


@dataclass(frozen=True)
class Val:
    """An existing i64 value (in a row shape, one defined outside the scope)."""

    value: SSAValue


@dataclass(frozen=True)
class Const:
    """An integer constant."""

    value: int


@dataclass(frozen=True)
class Norm:
    """`soac.size`'s normalised dimension `k` of a shape: 0 once an outer one is 0."""

    shape: tuple[Item, ...]
    k: int


Item = Dim | Val | Const | Norm
Shape = list[Item]


def _rank(v: SSAValue) -> int:
    t = v.type
    return t.get_num_dims() if isinstance(t, TensorType) else 0


def row_shape(v: SSAValue, scope: Operation) -> Shape | None:
    """The shape of array `v` as items computable before `scope`, or None."""
    if defined_outside(v, scope):
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
    elif isinstance(op, soac.RedomapOp | soac.ScanomapOp) and v.block is op.inner.block:
        inputs, first = list(op.inputs), len(op.neutral)
    else:
        return None
    if v.index < first:
        return None  # an accumulator: its shape may change from step to step
    outer = row_shape(inputs[v.index - first], scope)
    return None if outer is None else outer[1:]


def scalar(v: SSAValue, scope: Operation) -> Item | None:
    """The i64 `v` as an item computable before `scope`, or None."""
    if defined_outside(v, scope):
        return Val(v)
    if not isinstance(v, OpResult):
        return None
    op = v.op
    c = constant_int(v)
    if c is not None:
        return Const(c)
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
    assert isinstance(op, soac.ScanOp | soac.ScanomapOp)
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
    # The sizes that move are `soac.size`'s, 0 after an empty dimension (docs/reference.md
    # section 5): `transpose(replicate(0, [x, 2]))` has no rows, not two empty ones.
    sizes = [shape[0], *(Norm(tuple(shape), k) for k in range(1, len(shape)))]
    return transposed(sizes, op.k.data, op.n.data)


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
    an array of the shape it got (`keeps_shape`)."""
    assert isinstance(op, scf.ForOp)
    body = op.body.block
    if not keeps_shape(_yielded(body, index), body.args[index + 1]):
        return None
    return row_shape(op.iter_args[index], scope)


def keeps_shape(v: SSAValue, arg: BlockArgument) -> bool:
    """Whether the array `v` has the shape of `arg` (a loop's accumulator, or a
    lambda's argument), whatever that shape is: `v` is `arg` updated, copied,
    carried by an inner loop that keeps its shape, or mapped row by row (a map over an
    array of `arg`'s shape whose lambda yields, for a rank above 1, arrays of the shape
    of that array's row). A body that yields such a `v` for `arg` keeps the
    accumulator's shape from step to step: `interchange` needs that to keep the arrays
    of accumulators regular, `row_shape` to give a loop's result its initial shape."""
    while v is not arg:
        if not isinstance(v, OpResult):
            return False
        op = v.op
        if isinstance(op, soac.UpdateOp | soac.CopyOp):
            v = op.array
        elif isinstance(op, scf.ForOp):
            inner = op.body.block
            if not keeps_shape(_yielded(inner, v.index), inner.args[v.index + 1]):
                return False
            v = op.iter_args[v.index]
        elif isinstance(op, soac.MapOp) and isinstance(v.type, TensorType):
            # The map has as many rows as each of its inputs; a row it yields has the
            # shape of input k's row when it keeps the shape of the lambda's argument k.
            block = op.body.block
            row = _yielded(block, v.index)
            return any(keeps_shape(array, arg) and (
                v.type.get_num_dims() == 1
                or (isinstance(row.type, TensorType) and keeps_shape(row, block.args[k])))
                for k, array in enumerate(op.inputs))
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
    soac.ScanomapOp: _scan,
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


def static_shape(v: SSAValue, depth: int = 8) -> tuple[int, ...] | None:
    """The shape of the array `v` when the IR fixes it at compile time, else None:
    `soac.empty`, `soac.iota` of a constant, `soac.replicate` of a constant count, and
    literals whose elements all have one static shape (or are scalars)."""
    if depth <= 0:
        return None
    op = v.owner
    match op:
        case soac.EmptyOp():
            t = v.type
            return (0,) * t.get_num_dims() if isinstance(t, TensorType) else None
        case soac.IotaOp():
            n = constant_int(op.n)
            return (n,) if n is not None and n >= 0 else None
        case soac.ReplicateOp():
            n = constant_int(op.n)
            if n is None or n < 0:
                return None
            if not isinstance(op.value.type, TensorType):
                return (n,)
            inner = static_shape(op.value, depth - 1)
            return None if inner is None else (n, *inner)
        case soac.ArrayOp():
            if not isinstance(op.elems[0].type, TensorType):
                return (len(op.elems),)
            inner = static_shape(op.elems[0], depth - 1)
            if inner is None:
                return None
            for e in op.elems[1:]:
                if e is not op.elems[0] and static_shape(e, depth - 1) != inner:
                    return None
            return (len(op.elems), *inner)
        case soac.CopyOp():
            return static_shape(op.array, depth - 1)
        case _:
            return None
