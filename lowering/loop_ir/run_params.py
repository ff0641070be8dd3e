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

Note [Thresholds record what they compare]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A threshold decides by comparing a size the code computes with its value: `reaches`
is `size >= value`, and every threshold should be compared through it. Compiled with
profiling (`l0-run --profile`, `l0.compile(..., profile=True)`), `reaches` also notes
each distinct size it compared in a table of the parameter's own, an exported global
`@l0_param_seen.K : memref<(2+SEEN_CAPACITY)xi64>`: cell 0 counts the sizes kept,
cell 1 those dropped once the table is full, then the sizes. `l0 autotune` reads it
(`run_tables.RunTables.compared`): a threshold only matters relative to the sizes it
is compared with, so those sizes, plus 0 (always) and NEVER, are the values worth
trying (`l0.autotune`). The table is updated without atomics: the sizes are noted by
the thread that compares, and two threads comparing at once could lose one of them,
never write outside the table (the index read is clamped). Without profiling nothing is
noted.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import parallel_width
from l0.lowering.runtime.run_tables import GPU_THREADS, NEVER, SEEN_CAPACITY

UNSET = -1
"""A parameter's value until a driver writes one (Note [Unset parameters])."""

SEEN_PREFIX = "l0_param_seen."

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


def reaches(b: CodeBuilder, anchor: Operation, name: str, default: str, size: SSAValue,
            record: bool = False) -> SSAValue:
    """`size >= NAME` (i1), the parameter `name` read as `load` does; with `record`
    (profiling), `size` is noted in its table (Note [Thresholds record what they
    compare]). `size` is an i64 below NEVER."""
    value = load(b, anchor, name, default)
    if record:
        _note(b, _seen_table(anchor, declare(anchor, name, default)), size)
    return b.cmpi("sge", size, value)


def saturated_product(b: CodeBuilder, count: SSAValue, factor: int | SSAValue) -> SSAValue:
    """`count * factor` (i64, `count` >= 0, `factor` >= 1: a constant, or a value known
    to be at least 1), NEVER - 1 where it would be larger: a size `reaches` compares,
    which never reaches NEVER."""
    most = NEVER - 1
    if isinstance(factor, int):
        product = b.muli(count, b.i64(factor))
        limit = b.i64(most // factor)
    else:
        product = b.muli(count, factor)
        limit = b.val(arith.DivSIOp(b.i64(most), factor))
    return b.select(b.cmpi("sgt", count, limit), b.i64(most), product)


def _seen_table(anchor: Operation, symbol: str) -> str:
    """The table of sizes compared with the parameter of global `symbol` (made on first
    use)."""
    module = anchor.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    seen = SEEN_PREFIX + symbol[len(PARAM_PREFIX):]
    if not any(isinstance(g, memref.GlobalOp) and g.sym_name.data == seen for g in module.ops):
        g = memref.GlobalOp.get(StringAttr(seen), MemRefType(i64, [2 + SEEN_CAPACITY]),
                                UnitAttr(), sym_visibility=StringAttr("public"))
        Rewriter.insert_op(g, InsertPoint.at_start(module.body.block))
    return seen


def _note(b: CodeBuilder, seen: str, size: SSAValue) -> None:
    """Add `size` to the table `seen` unless it holds it already (cell 0: how many it
    holds, cell 1: how many did not fit)."""
    table = b.val(memref.GetGlobalOp(seen, MemRefType(i64, [2 + SEEN_CAPACITY])))
    # clamped: a count raised by another thread meanwhile never indexes outside
    held = b.val(arith.MinSIOp(b.maxsi(b.load(table, [b.i64(0)]), b.i64(0)),
                               b.i64(SEEN_CAPACITY)))

    def compare(fb: CodeBuilder, k: SSAValue, found: Sequence[SSAValue]) -> list[SSAValue]:
        here = fb.cmpi("eq", fb.load(table, [fb.addi(k, fb.i64(2))]), size)
        return [fb.ori(found[0], here)]

    (found,) = b.for_(b.i64(0), held, [b.bool(False)], compare)

    def add(ab: CodeBuilder) -> list[SSAValue]:
        def keep(kb: CodeBuilder) -> list[SSAValue]:
            kb.store(size, table, [kb.addi(held, kb.i64(2))])
            kb.store(kb.addi(held, kb.i64(1)), table, [kb.i64(0)])
            return []

        def drop(db: CodeBuilder) -> list[SSAValue]:
            db.store(db.addi(db.load(table, [db.i64(1)]), db.i64(1)), table, [db.i64(1)])
            return []

        ab.if_(ab.cmpi("slt", held, ab.i64(SEEN_CAPACITY)), [], keep, drop)
        return []

    b.if_(b.xori(found, b.bool(True)), [], add)


def _default(b: CodeBuilder, anchor: Operation, default: str) -> SSAValue:
    """The default `UNIT*FACTOR` computed in the code (`run_tables.default_value`)."""
    unit, _, factor = default.rpartition("*")
    if unit == "threads":
        return b.muli(parallel_width(b, anchor), b.i64(int(factor)))
    scale = GPU_THREADS if unit == "gpu_threads" else 1
    return b.i64(scale * int(factor))


def params_in(module: ModuleOp) -> list[tuple[str, str, str, str]]:
    """(LLVM symbol, name, default, LLVM symbol of the table of compared sizes or "")
    of every parameter of `module`, in order."""
    from l0.lowering.runtime.run_tables import global_symbol

    globals_ = {g.sym_name.data for g in module.ops if isinstance(g, memref.GlobalOp)}
    found = []
    for g in _params(module):
        seen = SEEN_PREFIX + g.sym_name.data[len(PARAM_PREFIX):]
        found.append((global_symbol(g.sym_name.data),
                      g.attributes[NAME_ATTR].data,  # type: ignore[attr-defined]  # a StringAttr: ours
                      g.attributes[DEFAULT_ATTR].data,  # type: ignore[attr-defined]  # a StringAttr: ours
                      global_symbol(seen) if seen in globals_ else ""))
    return found
