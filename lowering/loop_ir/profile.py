"""Profiling parallel execution: names of parallel sites, and counters around them.

With profiling on (`l0-run --profile`, `l0.compile(..., profile=True)`; a compile-time
option, part of every cache key), each OpenMP region (multicore) and each kernel launch
(gpu, gpu-sim) is wrapped in code that adds to four counters of its own: launches,
threads launched, iterations of the parallel loop (the useful work items) and
nanoseconds of wall clock. Off, nothing of this is emitted. The counters of a site are
an exported global, `memref.global "public" @l0_profile.K : memref<4xi64>` whose
attribute `l0.site` is the site's name; `l0.lowering.runtime.run_tables` finds them in the
compiled code and reads them (no xDSL there).

Note [Names of parallel sites]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A name says where the work comes from: `FUNCTION:LINE:COL:KIND`, the function the
SOAC is in after inlining (usually `main`), the SOAC's source location, and its kind
(`map`, `reduce`, `scan`, ...), e.g. `main:12:5:map`. `convert-soac-to-scf` tags the
parallel loops it makes for a SOAC with the name (attribute `l0.site`), and the passes
that remake a parallel loop carry it over. A SOAC without a location (reduce, scan and
filter have none in the IR) is named `FUNCTION:KIND`; a loop nobody tagged (a copy made
parallel) by the function and the kind of loop. Where several sites of a module have
one name (a blocked scan's three loops, a reduction's two kernels), the second is
`NAME.2`, the third `NAME.3`, in program order, so names are stable from one
compilation to the next.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    f32,
    f64,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.checks import enclosing_loc
from l0.passes.analysis.walk import walk_ops

SITE_ATTR = "l0.site"
"""The name of a parallel site (Note [Names of parallel sites])."""

COUNTERS_PREFIX = "l0_profile."
"""The counters of site K are the global `@l0_profile.K`."""

LAUNCHES, THREADS, ITERATIONS, NANOSECONDS = range(4)
"""The counters of a site, in order."""

CLOCK = "clock_gettime"
CLOCK_MONOTONIC = 1
ATOMIC_ADDI = 1
"""`memref.atomic_rmw`'s kind for integer addition (MLIR's `AtomicRMWKind::addi`)."""


# -- names ---------------------------------------------------------------------------


def function_of(op: Operation) -> str:
    cur: Operation | None = op
    while cur is not None and not isinstance(cur, func.FuncOp):
        cur = cur.parent_op()
    return cur.sym_name.data if isinstance(cur, func.FuncOp) else "?"


def site_name(op: Operation, kind: str) -> str:
    """The name of the SOAC or loop `op` (Note [Names of parallel sites])."""
    loc = enclosing_loc(op)
    parts = loc.rsplit(":", 2)
    where = f"{parts[1]}:{parts[2]}:" if len(parts) == 3 else ""
    return f"{function_of(op)}:{where}{kind}"


def name_of(op: Operation, fallback: str) -> str:
    """The site name tagged on `op`, else its function's and `fallback`'s."""
    tag = op.attributes.get(SITE_ATTR)
    if isinstance(tag, StringAttr):
        return tag.data
    return f"{function_of(op)}:{fallback}"


def unique_name(taken: set[str], name: str) -> str:
    """`name`, or `name.K` for the K-th site of that name in a module (`taken`: the
    names given so far, updated)."""
    unique, k = name, 2
    while unique in taken:
        unique, k = f"{name}.{k}", k + 1
    taken.add(unique)
    return unique


def tag(op: Operation, name: str) -> None:
    op.attributes[SITE_ATTR] = StringAttr(name)


def carry_tag(old: Operation, new: Operation) -> None:
    """`new` replaces `old`: it takes `old`'s name."""
    found = old.attributes.get(SITE_ATTR)
    if isinstance(found, StringAttr) and SITE_ATTR not in new.attributes:
        new.attributes[SITE_ATTR] = found


def tag_untagged(ops: Iterable[Operation], kinds: tuple[type[Operation], ...],
                 name: str) -> None:
    """Tag every op of `kinds` in `ops` (and nested in them) that has no name yet."""
    for top in ops:
        for op in walk_ops(top):
            if isinstance(op, kinds) and SITE_ATTR not in op.attributes:
                tag(op, name)


# -- counters ------------------------------------------------------------------------


def _module(anchor: Operation) -> ModuleOp:
    module = anchor.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    return module


_C_FUNCTIONS: dict[str, tuple[list[Attribute], list[Attribute]]] = {
    CLOCK: ([i32, i64], [i32]),
    # The CUDA driver's events (pointers and handles passed as i64; `cuda_events`).
    "cuEventCreate": ([i64, i32], [i32]),
    "cuEventRecord": ([i64, i64], [i32]),
    "cuEventSynchronize": ([i64], [i32]),
    "cuEventElapsedTime": ([i64, i64, i64], [i32]),
    "cuEventDestroy_v2": ([i64], [i32]),
}
"""The C functions profiling code calls: (parameters, results)."""


def _call(b: CodeBuilder, anchor: Operation, name: str, args: list[SSAValue]) -> None:
    """Call the C function `name` (declared in the module on first use)."""
    module = _module(anchor)
    inputs, outputs = _C_FUNCTIONS[name]
    if not any(isinstance(f, func.FuncOp) and f.sym_name.data == name for f in module.ops):
        decl = func.FuncOp.external(name, inputs, outputs)
        decl.sym_visibility = StringAttr("private")
        Rewriter.insert_op(decl, InsertPoint.at_start(module.body.block))
    b.add(func.CallOp(name, args, outputs))


def _address(b: CodeBuilder, m: SSAValue) -> SSAValue:
    return b.to_i64(b.val(memref.ExtractAlignedPointerAsIndexOp.get(m)))


def now(b: CodeBuilder, anchor: Operation) -> SSAValue:
    """The monotonic clock in nanoseconds (i64): `clock_gettime` into a stack pair."""
    ts = b.val(memref.AllocaOp.get(i64, shape=[2]))
    _call(b, anchor, CLOCK, [b.val(arith.ConstantOp(IntegerAttr(CLOCK_MONOTONIC, i32))),
                             _address(b, ts)])
    seconds, nanos = b.load(ts, [b.i64(0)]), b.load(ts, [b.i64(1)])
    return b.addi(b.muli(seconds, b.i64(1_000_000_000)), nanos)


def since(b: CodeBuilder, anchor: Operation, start: SSAValue) -> SSAValue:
    """Nanoseconds since `start` (`now`)."""
    return b.subi(now(b, anchor), start)


def events_begin(b: CodeBuilder, anchor: Operation) -> SSAValue:
    """Two CUDA events, the first recorded on the default stream now: a `memref<2xi64>`
    for `events_elapsed` (host code on the gpu)."""
    events = b.val(memref.AllocaOp.get(i64, shape=[2]))
    where = _address(b, events)
    flags = b.val(arith.ConstantOp(IntegerAttr(0, i32)))
    _call(b, anchor, "cuEventCreate", [where, flags])
    _call(b, anchor, "cuEventCreate", [b.addi(where, b.i64(8)), flags])
    _call(b, anchor, "cuEventRecord", [b.load(events, [b.i64(0)]), b.i64(0)])
    return events


def events_elapsed(b: CodeBuilder, anchor: Operation, events: SSAValue) -> SSAValue:
    """Record the second of `events` (`events_begin`), wait for it, and give the
    nanoseconds between the two (CUDA-event time); the events are destroyed."""
    first, second = b.load(events, [b.i64(0)]), b.load(events, [b.i64(1)])
    _call(b, anchor, "cuEventRecord", [second, b.i64(0)])
    _call(b, anchor, "cuEventSynchronize", [second])
    ms = b.val(memref.AllocaOp.get(f32, shape=[1]))
    _call(b, anchor, "cuEventElapsedTime", [_address(b, ms), first, second])
    millis = b.val(arith.ExtFOp(b.load(ms, [b.i64(0)]), f64))
    nanos = b.val(arith.MulfOp(millis, b.val(arith.ConstantOp(FloatAttr(1e6, f64)))))
    _call(b, anchor, "cuEventDestroy_v2", [first])
    _call(b, anchor, "cuEventDestroy_v2", [second])
    return b.val(arith.FPToSIOp(nanos, i64))


def _counters(anchor: Operation, name: str) -> str:
    """The symbol of a new counters global for the site `name`."""
    module = _module(anchor)
    taken = {g.sym_name.data for g in module.ops if isinstance(g, memref.GlobalOp)}
    k = 0
    while f"{COUNTERS_PREFIX}{k}" in taken:
        k += 1
    symbol = f"{COUNTERS_PREFIX}{k}"
    g = memref.GlobalOp.get(StringAttr(symbol), MemRefType(i64, [4]), UnitAttr(),
                            sym_visibility=StringAttr("public"))
    g.attributes[SITE_ATTR] = StringAttr(_unique(module, name))
    Rewriter.insert_op(g, InsertPoint.at_start(module.body.block))
    return symbol


def _unique(module: ModuleOp, name: str) -> str:
    names = {g.attributes[SITE_ATTR].data for g in module.ops  # type: ignore[attr-defined]  # a StringAttr: ours
             if isinstance(g, memref.GlobalOp) and SITE_ATTR in g.attributes}
    if name not in names:
        return name
    k = 2
    while f"{name}.{k}" in names:
        k += 1
    return f"{name}.{k}"


def record(b: CodeBuilder, anchor: Operation, name: str, threads: SSAValue,
           iterations: SSAValue, elapsed: SSAValue) -> None:
    """Add one launch of `threads` threads and `iterations` iterations that took
    `elapsed` nanoseconds to the counters of the site `name` (atomically: a region
    reached from code running in threads is counted by each)."""
    symbol = _counters(anchor, name)
    table = b.val(memref.GetGlobalOp(symbol, MemRefType(i64, [4])))
    for k, v in ((LAUNCHES, b.i64(1)), (THREADS, b.to_i64(threads)),
                 (ITERATIONS, b.to_i64(iterations)), (NANOSECONDS, elapsed)):
        b.add(memref.AtomicRMWOp(operands=[v, table, [b.index(k)]], result_types=[i64],
                                 properties={"kind": IntegerAttr(ATOMIC_ADDI, i64)}))


def sites_in(module: ModuleOp) -> list[tuple[str, str]]:
    """(LLVM symbol of the counters, site name) of every profiled site of `module`."""
    from l0.lowering.runtime.run_tables import global_symbol

    found = [g for g in module.ops
             if isinstance(g, memref.GlobalOp) and g.sym_name.data.startswith(COUNTERS_PREFIX)]
    found.sort(key=lambda g: int(g.sym_name.data[len(COUNTERS_PREFIX):]))
    return [(global_symbol(g.sym_name.data), g.attributes[SITE_ATTR].data)  # type: ignore[attr-defined]  # a StringAttr: ours
            for g in found]
