"""The `dealloc` pass: free every buffer when it dies (ownership-based deallocation).

The loop-level IR `convert-soac-to-scf` produces allocates (`memref.alloc`) but never
frees. This pass inserts the `memref.dealloc`s, in the style of MLIR's
ownership-based buffer deallocation: every memref crossing a boundary (a function
result, a loop's carried value, a branch result) travels with an `i1` ownership flag
(`flags.py`); in every block, each buffer the block owns is freed right after the last
use of any value that may alias it (`aliases.py`), handed to the nested loop or branch
that uses it last, or passed on with the value yielded (`placement.py`, Note
[Ownership]). Static knowledge decides where it can (a fresh buffer is owned, a
parameter is not); flags decide at run time where it cannot (a branch that yields
either a fresh array or its argument).

So a loop that builds a new array in every iteration frees the previous one in the
next: it runs in constant memory. Parameters are never freed (the caller owns them),
nor is memory compiled code did not allocate (numpy arrays; `docs/backend.md`).

Functions visible from outside (public ones) keep their signature: the pass renames
the implementation to `NAME.impl` (private, with the flags) and makes `NAME` a wrapper
that drops the flags: what a public function returns is either owned by the caller
(the flag was true: a buffer the Python side frees when its last array dies) or a view
of an argument (false). Internal calls call the implementation.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass

from l0.lowering.memory.dealloc.aliases import summarise
from l0.lowering.memory.dealloc.flags import ENTRY_ATTR, add_flags
from l0.lowering.memory.dealloc.placement import Placer
from l0.passes.analysis.walk import walk_ops

IMPL_SUFFIX = ".impl"


def _entry_wrappers(module: ModuleOp) -> set[str]:
    """Split every public function with memref results into a private implementation
    and a public wrapper of the original signature; returns the wrappers' names."""
    wrapped: set[str] = set()
    for f in list(module.ops):
        if not isinstance(f, func.FuncOp) or not f.body.blocks:
            continue
        if f.sym_visibility is not None and f.sym_visibility.data == "private":
            continue
        if not any(isinstance(t, MemRefType) for t in f.function_type.outputs.data):
            continue
        name = f.sym_name.data
        impl = name + IMPL_SUFFIX
        f.sym_name = StringAttr(impl)
        f.sym_visibility = StringAttr("private")
        block = Block(arg_types=f.function_type.inputs.data)
        call = func.CallOp(impl, list(block.args), f.function_type.outputs.data)
        block.add_ops([call, func.ReturnOp(*call.res)])
        wrapper = func.FuncOp(name, f.function_type, Region(block), arg_attrs=f.arg_attrs,
                              res_attrs=f.res_attrs)
        wrapper.attributes[ENTRY_ATTR] = StringAttr(name)
        module.body.block.insert_op_after(wrapper, f)
        wrapped.add(name)
    for op in walk_ops(module):
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in wrapped:
            parent = op.parent_op()
            if not (isinstance(parent, func.FuncOp) and ENTRY_ATTR in parent.attributes):
                op.callee = SymbolRefAttr(op.callee.root_reference.data + IMPL_SUFFIX)
    return wrapped


@dataclass(frozen=True)
class DeallocPass(ModulePass):
    """Insert memref.dealloc for every buffer when it dies (ownership flags).

    Runs on loop-level IR (after `convert-soac-to-scf`). Adds an `i1` ownership flag
    beside every memref result of a function, `scf.for` and `scf.if`; public functions
    with memref results become wrappers of a private `NAME.impl` that has the flags.
    See `l0.lowering.memory.dealloc` for the method.
    """

    name = "dealloc"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _entry_wrappers(op)
        flags = add_flags(op)
        _, aliases = summarise(op)
        for f in op.ops:
            if not isinstance(f, func.FuncOp) or not f.body.blocks:
                continue
            if ENTRY_ATTR in f.attributes:
                continue  # a wrapper: what it returns belongs to the caller
            Placer(aliases[f.sym_name.data], flags).function(f)
