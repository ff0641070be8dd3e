"""`trace` inside kernels: a log in device memory that the host prints after the launch
(`docs/gpu.md`).

Note [Traces in kernels]
~~~~~~~~~~~~~~~~~~~~~~~~
Compiled code prints a traced value by calling back into Python (`l0.lowering.loop_ir.trace`),
which device code cannot do. A kernel whose own body traces scalars (`l0_trace_scalar`,
`l0_trace_real`) instead appends a record (kind, site, the value's 64 bits) to a log, a
device array of 1 + 3 * CAPACITY words whose word 0 counts the records; the log is the
kernel's last parameter but the error word. The host allocates the log and a host copy
of it, zeroes the count, launches, copies the log back and makes the usual calls for
each record, in order, then fails if the kernel traced more than CAPACITY values.

The interpreter prints in the order of the sequential run, so such a kernel runs its
iterations in that order in one thread: a map kernel is launched as one thread (its
grid-stride loop then visits every element in order), a reduction as one chunk (thread
0 folds every row from the initial value, the left fold; no other thread has a value,
so the operator is applied exactly as the interpreter applies it). Tracing is for
debugging: the kernel gives up its parallelism, not its meaning. A trace in a device
function (a function a kernel calls, left by `-O0`) or of an array inside a kernel
still calls back into Python: it runs on `gpu-sim`, not on a GPU.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, gpu, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, StringAttr, f64, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.runtime.trace_runtime import REAL_FN, SCALAR, SITES
from l0.passes.analysis.walk import walk_ops

CAPACITY = 1 << 16
"""The most values one launch of a kernel may trace."""
LOG_TYPE = MemRefType(i64, [1 + 3 * CAPACITY])
TRACE_ATTR = "l0.trace_log"
"""Marks a kernel whose last parameter but the error word is its trace log; its value
is the location of the kernel's first trace."""
_KINDS = {SCALAR: 0, REAL_FN: 1}


def _trace_call(op: Operation) -> bool:
    return isinstance(op, func.CallOp) and op.callee.root_reference.data in _KINDS


def traces(op: Operation) -> bool:
    """Whether `op` traces a scalar in its own code (Note [Traces in kernels])."""
    return any(_trace_call(o) for o in walk_ops(op))


def log_calls(block: Block) -> str | None:
    """Make the trace calls of a kernel's body `block` append to a log, a new last
    argument of `block`; the location of the first one (None: there were none)."""
    calls = [o for o in walk_ops(block) if _trace_call(o)]
    if not calls:
        return None
    first = calls[0]
    assert isinstance(first, func.CallOp)
    site = first.arguments[0].owner
    loc = SITES[site.value.value.data][0] if isinstance(site, arith.ConstantOp) \
        and isinstance(site.value, IntegerAttr) else "<trace>"
    log = block.insert_arg(LOG_TYPE, len(block.args))
    for call in calls:
        assert isinstance(call, func.CallOp)
        _append(CodeBuilder.before(call), log, _KINDS[call.callee.root_reference.data],
                *call.arguments)
        Rewriter.erase_op(call)
    return loc


def _append(b: CodeBuilder, log: SSAValue, kind: int, site: SSAValue, value: SSAValue) -> None:
    """log[1 + 3n ..] = kind, site, bits of value; log[0] = n + 1 (one thread writes)."""
    bits = value if value.type == i64 else b.val(arith.BitcastOp(value, i64))
    n = b.load(log, [b.i64(0)])

    def store(tb: CodeBuilder) -> list[SSAValue]:
        at = tb.addi(tb.muli(n, tb.i64(3)), tb.i64(1))
        for k, v in enumerate((tb.i64(kind), site, bits)):
            tb.store(v, log, [tb.addi(at, tb.i64(k))])
        return []

    b.if_(b.cmpi("slt", n, b.i64(CAPACITY)), [], store)
    b.store(b.addi(n, b.i64(1)), log, [b.i64(0)])


def before_launch(b: CodeBuilder) -> tuple[SSAValue, SSAValue]:
    """The device log and its host copy, the count zeroed on the device."""
    device = b.val(gpu.AllocOp(LOG_TYPE, []))
    host = b.val(memref.AllocOp([], [], LOG_TYPE))
    b.store(b.i64(0), host, [b.i64(0)])
    b.add(gpu.MemcpyOp(host, device))
    return device, host


def _declare(anchor: object) -> None:
    """Declare the trace callbacks the printing loop calls, where the module lacks them."""
    assert isinstance(anchor, Operation)
    module = anchor.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    have = {f.sym_name.data for f in module.ops if isinstance(f, func.FuncOp)}
    for name, arg in ((SCALAR, i64), (REAL_FN, f64)):
        if name not in have:
            decl = func.FuncOp.external(name, [i64, arg], [])
            decl.sym_visibility = StringAttr("private")
            Rewriter.insert_op(decl, InsertPoint.at_start(module.body.block))


def after_launch(b: CodeBuilder, device: SSAValue, host: SSAValue, loc: str) -> None:
    """Print the log's records through the trace callbacks, in order; fail (located at
    `loc`) if some were dropped; free both copies."""
    _declare(device.owner)
    b.add(gpu.MemcpyOp(device, host))
    n = b.load(host, [b.i64(0)])
    kept = b.val(arith.MinSIOp(n, b.i64(CAPACITY)))

    def record(lb: CodeBuilder, r: SSAValue, _: object) -> list[SSAValue]:
        at = lb.addi(lb.muli(r, lb.i64(3)), lb.i64(1))
        kind, site, bits = (lb.load(host, [lb.addi(at, lb.i64(k))]) for k in range(3))

        def real(tb: CodeBuilder) -> list[SSAValue]:
            tb.add(func.CallOp(REAL_FN, [site, tb.val(arith.BitcastOp(bits, f64))], []))
            return []

        def scalar(eb: CodeBuilder) -> list[SSAValue]:
            eb.add(func.CallOp(SCALAR, [site, bits], []))
            return []

        lb.if_(lb.cmpi("eq", kind, lb.i64(_KINDS[REAL_FN])), [], real, scalar)
        return []

    b.for_(b.i64(0), kept, [], record)
    b.check(b.cmpi("sle", n, b.i64(CAPACITY)),
            f"trace: more than {CAPACITY} values traced in one kernel", loc)
    b.add(gpu.DeallocOp(device))
    b.add(memref.DeallocOp.get(host))

