"""Run-time parameters: named thresholds that compiled code reads when it runs.

A parameter is an exported global, `memref.global "public" @l0_param.K : memref<1xi64>`,
whose attributes give its name (`l0.param`) and how its default follows from the
device (`l0.param_default`, `UNIT*FACTOR`: `l0.lowering.runtime.run_tables.default_value`).
Code that decides at run time (`convert-parallel-to-omp`'s choice between forking
threads and running a region on the calling thread) loads it where it decides; the
driver writes the values into the compiled code before calling it (the defaults, or
what the user set: `l0-run --param`, `l0.compile(..., params=...)`), so changing a
value compiles nothing again. `l0-run --print-params` lists them.

Note [Unset parameters]
~~~~~~~~~~~~~~~~~~~~~~~
The JIT's drivers write every parameter before each call (`run_tables.RunTables`), but
a native executable or library (`l0 compile`) has no such driver. A parameter's global
therefore starts at UNSET (-1), and where the code reads a negative value it computes
the default itself, from the device as the code sees it (the thread count is the
parallel width, `l0_parallel_width`): the same default the drivers write.
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import parallel_width
from l0.lowering.runtime.run_tables import GPU_THREADS

UNSET = -1
"""A parameter's value until a driver writes one (Note [Unset parameters])."""

PARAM_PREFIX = "l0_param."
NAME_ATTR = "l0.param"
DEFAULT_ATTR = "l0.param_default"


def _params(module: ModuleOp) -> list[memref.GlobalOp]:
    found = [g for g in module.ops
             if isinstance(g, memref.GlobalOp) and g.sym_name.data.startswith(PARAM_PREFIX)]
    found.sort(key=lambda g: int(g.sym_name.data[len(PARAM_PREFIX):]))
    return found


def declare(anchor: Operation, name: str, default: str) -> str:
    """The symbol of the parameter `name` (made on first use) in `anchor`'s module;
    `default` as `l0.param_default` says."""
    module = anchor.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    existing = _params(module)
    for g in existing:
        if g.attributes[NAME_ATTR] == StringAttr(name):
            return g.sym_name.data
    symbol = f"{PARAM_PREFIX}{len(existing)}"
    t = MemRefType(i64, [1])
    unset = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [1]), [UNSET])
    g = memref.GlobalOp.get(StringAttr(symbol), t, unset, sym_visibility=StringAttr("public"))
    g.attributes[NAME_ATTR] = StringAttr(name)
    g.attributes[DEFAULT_ATTR] = StringAttr(default)
    Rewriter.insert_op(g, InsertPoint.at_start(module.body.block))
    return symbol


def load(b: CodeBuilder, anchor: Operation, name: str, default: str) -> SSAValue:
    """The value of the parameter `name` (i64), read where `b` inserts; its default
    computed there while no driver has written it (Note [Unset parameters])."""
    symbol = declare(anchor, name, default)
    table = b.val(memref.GetGlobalOp(symbol, MemRefType(i64, [1])))
    value = b.load(table, [b.i64(0)])
    return b.select(b.cmpi("slt", value, b.i64(0)), _default(b, anchor, default), value)


def _default(b: CodeBuilder, anchor: Operation, default: str) -> SSAValue:
    """The default `UNIT*FACTOR` computed in the code (`run_tables.default_value`)."""
    unit, _, factor = default.rpartition("*")
    if unit == "threads":
        return b.muli(parallel_width(b, anchor), b.i64(int(factor)))
    scale = GPU_THREADS if unit == "gpu_threads" else 1
    return b.i64(scale * int(factor))


def params_in(module: ModuleOp) -> list[tuple[str, str, str]]:
    """(LLVM symbol, name, default) of every parameter of `module`, in order."""
    from l0.lowering.runtime.run_tables import global_symbol

    return [(global_symbol(g.sym_name.data), g.attributes[NAME_ATTR].data,  # type: ignore[attr-defined]  # a StringAttr: ours
             g.attributes[DEFAULT_ATTR].data)  # type: ignore[attr-defined]  # an IntegerAttr: ours
            for g in _params(module)]
