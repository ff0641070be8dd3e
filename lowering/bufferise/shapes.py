"""Computing the row shapes of `l0.passes.analysis.shapes` in lowered code.

A `map` whose lambda yields arrays can allocate its result before it runs, and let the
lambda compute each row directly into it (destination passing), when
`row_shape` knows the shape of a row beforehand; `materialise` computes one item of
such a shape just before the map.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import SSAValue

from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.checks import normalised
from l0.passes.analysis.shapes import Const, Dim, Item, Val, row_shape

__all__ = ["materialise", "row_shape"]


def materialise(b: CodeBuilder, item: Item, get: Callable[[SSAValue], SSAValue]) -> SSAValue:
    """Compute `item` (an i64) at `b`; `get` maps original values to converted ones."""
    if isinstance(item, Dim):
        return b.dim(get(item.array), item.k)
    if isinstance(item, Val):
        return get(item.value)
    if isinstance(item, Const):
        return b.i64(item.value)
    dims = [materialise(b, i, get) for i in item.shape[: item.k + 1]]
    return normalised(b, dims)[item.k]

