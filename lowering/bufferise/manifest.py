"""Transpositions worth copying: a strided view read over and over becomes a dense copy.

`transpose` is a view (a strided memref over its source), which is free to make and
right for a single pass over the data. But a view whose innermost dimension is not the
source's innermost one is read with a large stride, one element per cache line, and
cannot be vectorised. When the program traverses such a view *repeatedly* (it is an
input of a SOAC that runs inside a lambda or loop body the transpose is outside of,
like the `transpose(y)` every row of `x` is multiplied with in matrix multiplication,
P1, after fusion), copying it once into a fresh row-major array costs one pass and
makes every later traversal unit-stride. This is Futhark's "manifest" of a transposed
array before a kernel that reads it in the wrong order, for the CPU's caches.

`manifested(module)` finds those transposes; `layouts.py` then treats each as a fresh
contiguous array, `arrays.py` copies the view into one. The copy is an ordinary buffer,
freed by `dealloc` when it dies, and holds the same values as the view: nothing can
update one without the other mattering, since the view aliases its source and
uniqueness forbids using either after the other is consumed.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue

from l0.dialects import soac
from l0.passes.analysis.walk import walk_ops

_SOACS = (soac.MapOp, soac.ReduceOp, soac.ScanOp, soac.FilterOp, soac.RedomapOp,
          soac.ScanomapOp)
_REPEATERS = (*_SOACS, scf.ForOp, scf.WhileOp)
_VIEWS = (soac.TransposeOp, soac.ReshapeOp, soac.SplitOp)


def changes_inner_dimension(op: soac.TransposeOp) -> bool:
    """Whether the innermost dimension of `transpose(k, n, a)` is not `a`'s."""
    t = op.array.type
    assert isinstance(t, TensorType)
    last = t.get_num_dims() - 1
    k, n = op.k.data, op.n.data
    return n != 0 and (k == last or k + n == last)


def _traversed_repeatedly(v: SSAValue, home: Operation) -> bool:
    """Whether `v` (a view made by `home`, or a view of it) is an input of a SOAC inside
    a lambda or loop body that `home` is outside of."""
    work = [v]
    while work:
        cur = work.pop()
        for use in cur.uses:
            user = use.operation
            if isinstance(user, _VIEWS) and user.array is cur:
                work.extend(r for r in user.results if isinstance(r.type, TensorType))
                continue
            if not isinstance(user, _SOACS):
                continue
            parent = user.parent_op()
            while parent is not None and not parent.is_ancestor(home):
                if isinstance(parent, _REPEATERS):
                    return True
                parent = parent.parent_op()
    return False


def manifested(module: ModuleOp) -> frozenset[Operation]:
    """The transposes of `module` to copy into dense arrays (module docstring)."""
    return frozenset(
        op for op in walk_ops(module)
        if isinstance(op, soac.TransposeOp) and changes_inner_dimension(op)
        and _traversed_repeatedly(op.result, op))
