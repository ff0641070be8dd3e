"""The `bufferise` pass: soac tensors become memrefs, SOACs become `msoac` ops.

Arrays are values in L0; here they get memory. Uniqueness is what makes this cheap
(thesis 6.1.1, the `verify-uniqueness` contract of docs/ir.md): a `soac.update` (let-
with) consumes its source, so it is a store into the source's buffer, O(1), never a
copy; every array the program builds is fresh, so only `copy` copies. `transpose`,
`split`, row indexing and `reshape` of a contiguous array are views (strided memrefs
over the same buffer). SOACs become `msoac` ops in destination-passing style (see
`l0.dialects.msoac`): their results are allocated before they run where the shape is
known, so a `map` whose lambda yields a nested `map` computes every row in place.

Layouts (`layouts.py`): fresh buffers are contiguous memrefs (`memref<?xT>`), views
and function parameters strided ones (`memref_types`). Deallocation is a later pass
(`dealloc`), on loops; this one only allocates. `soac.trace` becomes calls into the
Python runtime (`l0.lowering.loop_ir.trace`); `soac.assert` stays for the back end.

Modules: `layouts.py` (the layout analysis), `shapes.py` (row shapes known before a
map runs), `rows_in_place.py` (fresh rows updated in place that can be computed in the
map's destination row), `convert.py` (the walk, control flow, calls), `arrays.py`
(array ops), `soacs.py` (SOACs). Thesis: 6.1 (uniqueness), 2.1 (regular arrays).

Before (soac):
    %b = soac.update %a[%i] = %x <%c> : tensor<?xf64>
    %r = soac.map(%y = %b : tensor<?xf64>) -> tensor<?xf64> { ... }
After:
    memref.store %x, %a[%ii] : memref<?xf64, strided<[?], offset: ?>>
    %o = memref.alloc(%n) : memref<?xf64>
    msoac.map ins(%a : memref<?xf64, strided<[?], offset: ?>>) outs(%o : memref<?xf64>) { ... }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from l0.dialects import soac
from l0.lowering.bufferise import arrays, scalars, soacs  # noqa: F401 - registers handlers
from l0.lowering.bufferise.convert import BufferiseError, Converter, handles
from l0.lowering.loop_ir import trace
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.checks import enclosing_loc

__all__ = ["BufferiseError", "BufferisePass"]


@handles(soac.TraceOp)
def _trace(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, soac.TraceOp)
    loc = enclosing_loc(op)
    for old, out in zip(op.inputs, op.outputs, strict=True):
        v = cv.get(old)
        trace.emit_trace(b, v, trace.source_type(old.type), loc, cv.runtime)
        cv.set(out, v)


@dataclass(frozen=True)
class BufferisePass(ModulePass):
    """Bufferise: soac tensors to memrefs (in-place updates, views), SOACs to msoac.

    Runs on a verified soac-level module (the internaliser's output, or after any
    optimisation); the result is func + scf + arith + math + memref + msoac, with
    `soac.assert`/`soac.checked`/`soac.conjoin` left for the back end. The module
    docstring of `l0.lowering.bufferise` says how each op is bufferised.
    """

    name = "bufferise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cv = Converter(op)
        functions = [f for f in op.ops if isinstance(f, func.FuncOp)]
        converted = [cv.function(f) for f in functions]
        for old, new in zip(functions, converted, strict=True):
            Rewriter.replace_op(old, new)
        trace.declare(op, cv.runtime)
