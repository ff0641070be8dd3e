"""Kernels for the GPU back end: the `gpu.module`, outlining, launching, and the kernel
bodies `convert-parallel-to-gpu` builds (`docs/gpu.md`).

A kernel is built in a detached block that may use host values freely; `outline`
turns the values it uses from outside into the kernel's parameters (constants are
copied in, certificates become `soac.checked`) and puts the block into a `gpu.func`
of the one `gpu.module @l0_kernels`. `DeviceCode.finish` then makes the code in it
device code: functions it calls are copied into the `gpu.module`, the parallel width
is 1 (Note [Parallel width] in `l0.lowering.loop_ir.parallel_loops`: nested levels run
sequentially in a thread), and every check gets its number (Note [The error word] in
`l0.lowering.gpu.errors`).

Note [Kernel forms]
~~~~~~~~~~~~~~~~~~~
* map (`scf.parallel` without reductions, any rank): one thread per element of the
  flattened iteration space (row-major, the last dimension fastest), a grid-stride loop
  so that any grid covers any size; grids are ceil(n / BLOCK) blocks up to MAX_GRID.
* reduction (`scf.parallel` + `scf.reduce`): the n rows are cut into C contiguous
  chunks, one per thread (contiguous, not grid-strided: the operator need not
  commute), C = 1 below 2 * MIN_CHUNK rows, else the thread count P (Note [Parallel
  width] in `l0.lowering.loop_ir.parallel_loops`: one chunk is the left fold, exactly, whatever
  the operator); thread 0 folds from the initial value, the others from their first row.
  A loop marked `INTERLEAVED_ATTR` (its operator commutes) has thread t fold rows t,
  t + C, t + 2C, ... instead: coalesced loads (Note [Interleaved chunks] in
  `l0.lowering.scf.segment_reductions`).
  Each block combines its threads' results in workgroup memory, in order (at step d,
  thread t with t % 2d == 0 takes t + d), one barrier per step, and thread 0 writes the
  block's partial result; a final kernel of one block folds the partial results in
  order and writes the result, which the host reads back. A flag per partial says
  whether it holds a value (a thread may get no rows), so no neutral element is needed.
  No atomics: the result does not depend on timing, only on n and the grid.
* blocked reduction (a tuple operator, or a redomap: Note [Blocked reductions] in
  `l0.lowering.loop_ir.parallel_loops`): the same two kernels, but a thread folds its chunk
  with the chunk loop's body, from the neutral elements, and the block and the final
  kernel combine with the operator (the combining loop's body). C chunks, C = 1 when
  the host's chunk count is 1 (below 2 * MIN_CHUNK rows: the left fold), else one per
  thread of count * MIN_CHUNK / BLOCK blocks (at most REDUCE_GRID; count * MIN_CHUNK
  rows at least, so no thread is idle). Accumulators must be scalars; a fold of arrays
  stays a host loop launching a kernel per step (its row operations are parallel, its
  steps sequential): a thread per chunk would need a row per thread in device memory
  and a tree of row combinations, which memory planning does not provide.
* serial: host code that reads or writes device memory and launches nothing (a
  sequential fold, the carry loop of a blocked scan, an array literal's stores) runs as
  one thread; the scalars it defines that the host uses come back through one-element
  buffers.

Note [Barriers and failing threads]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The CUDA model asks every thread of a block to arrive at each barrier, but a thread
that fails a check leaves its body at once (the CPU's error protocol). Kernels here
keep barriers at the top level of the body (block-uniform control flow, which the
simulator also requires), so the barriers a thread has still to meet are known: the
NVPTX body of a kernel with barriers counts those it passes and, on failure, arrives at
the rest before it returns (`l0.lowering.llvm.nvptx`), with PTX's `barrier.sync`, which
threads may reach from different instructions (`bar.sync` is the aligned form, which
they may not). The failed thread does no other work; the others finish the kernel
with its share of the workgroup memory as it was (a value the host never reads: it
fails after the launch, from the error word). On `gpu-sim` threads run one after the
other, so nothing can wait; `convert-gpu-to-sim{publish=true}` runs a failure through
the error word with the block's later phases still run (`test/test_gpu_sim.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from xdsl.dialects import arith, func, gpu, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from l0.dialects import soac
from l0.dialects.soac import CertType
from l0.lowering.gpu import trace as gpu_trace
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import (
    WIDTH_FUNCTION,
    ceil_div,
    chunk_bounds,
    stepped_for,
)
from l0.lowering.runtime.min_chunk import min_chunk
from l0.passes.analysis.walk import walk_ops

MODULE_NAME = "l0_kernels"
BLOCK = 256
"""Threads per block of every kernel (the reduction tree and its workgroup memory are
sized for it)."""
MAX_GRID = 1 << 20
"""The most blocks a map kernel launches; beyond, threads take several elements."""
REDUCE_GRID = 1024
"""The most blocks (partial results) of a reduction."""
WORKGROUP = IntegerAttr(3, i64)
"""The address space of workgroup (shared) memory."""
HOST_WIDTH = 1024
"""The parallel width on the host: how many chunks a blocked scan or filter may use."""
CHECK_ATTR = "l0.check"
"""The number of a check in device code (Note [The error word])."""
ERROR_WORD_ATTR = "l0.error_word"
"""Marks a kernel whose last parameter is the error word."""

ElementFn = Callable[[CodeBuilder, SSAValue], tuple[SSAValue | None, list[SSAValue]]]
"""(builder, index of a row) -> (flag saying the row holds a value or None, values)."""


def x_dim() -> gpu.DimensionAttr:
    return gpu.DimensionAttr(gpu.DimensionEnum.X)


def clamp(b: CodeBuilder, v: SSAValue, lo: int, hi: int) -> SSAValue:
    return b.val(arith.MinSIOp(b.maxsi(v, b.i64(lo)), b.i64(hi)))


def zero(b: CodeBuilder, t: Attribute) -> SSAValue:
    """A placeholder value of scalar type `t` (never read before it is overwritten)."""
    if isinstance(t, IntegerType | IndexType):
        return b.val(arith.ConstantOp(IntegerAttr(0, t)))
    assert isinstance(t, AnyFloat)
    return b.val(arith.ConstantOp(FloatAttr(0.0, t)))


def is_scalar(t: Attribute) -> bool:
    return isinstance(t, IntegerType | IndexType) or t.name in ("f16", "f32", "f64")


# ---------------------------------------------------------------------------------------
# Outlining
# ---------------------------------------------------------------------------------------


def inside(v: SSAValue, block: Block) -> bool:
    """Whether `v` is defined in `block` or in a region nested in it."""
    owner = v.owner
    blk = owner if isinstance(owner, Block) else owner.parent_block()
    while blk is not None:
        if blk is block:
            return True
        parent = blk.parent_op()
        blk = parent.parent_block() if parent is not None else None
    return False


def free_values(block: Block) -> list[SSAValue]:
    """The values defined outside `block` that its ops use, in order of first use."""
    found: dict[SSAValue, None] = {}
    for op in walk_ops(block):
        for v in op.operands:
            if v not in found and not inside(v, block):
                found[v] = None
    return list(found)


def _replace_inside(v: SSAValue, new: SSAValue, block: Block) -> None:
    for use in list(v.uses):
        if use.operation.parent_block() is not None and _op_inside(use.operation, block):
            use.operation.operands[use.index] = new


def _op_inside(op: Operation, block: Block) -> bool:
    blk = op.parent_block()
    while blk is not None:
        if blk is block:
            return True
        parent = blk.parent_op()
        blk = parent.parent_block() if parent is not None else None
    return False


def outline(block: Block) -> list[SSAValue]:
    """Make `block` closed: constants and certificates it uses from outside are
    rebuilt in it, every other outside value becomes a new block argument; returns the
    outside values, in argument order."""
    start = CodeBuilder.at_start(block)
    params: list[SSAValue] = []
    for v in free_values(block):
        owner = v.owner
        if isinstance(owner, arith.ConstantOp):
            new = start.val(arith.ConstantOp(owner.value, v.type))
        elif isinstance(v.type, CertType):
            new = start.val(soac.CheckedOp())
        else:
            new = block.insert_arg(v.type, len(block.args))
            params.append(v)
        _replace_inside(v, new, block)
    return params


# ---------------------------------------------------------------------------------------
# The gpu.module
# ---------------------------------------------------------------------------------------


def _device_reachable(functions: dict[str, func.FuncOp]) -> set[str]:
    """The functions called below the top level of a function (in a loop, a branch),
    and those they call, transitively (Note [The host functions kept for device code])."""
    found = {op.callee.root_reference.data for f in functions.values() for op in walk_ops(f)
             if type(op) is func.CallOp and type(op.parent_op()) is not func.FuncOp}
    todo = list(found)
    while todo:
        f = functions.get(todo.pop())
        for op in walk_ops(f) if f is not None else ():
            if type(op) is func.CallOp and (name := op.callee.root_reference.data) not in found:
                found.add(name)
                todo.append(name)
    return found


# Note [The host functions kept for device code]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Device code copies the functions its kernels call as they were before the conversion
# changed them, so `DeviceCode` keeps copies, made before it starts. Copying every
# function copied the whole module (`main`'s body most of all) for the few, if any,
# that kernels call. A call to a function with a body is host-only (`HostFunction.kind`):
# device code holds one only inside a kernel's loop, never at a function's top level,
# where host code calls it. So the copies kept are of the functions called below a top
# level, and of everything those call; and of every declaration, which costs nothing
# to copy and which a host call asks about (`_pure_call`). A function called only at
# top level (the `_impl` an entry wrapper calls) is never looked up by name here.


class DeviceCode:
    """The `gpu.module` of a module being converted, and the kernels' bookkeeping."""

    def __init__(self, module: ModuleOp, error_words: int) -> None:
        self.error_type = MemRefType(i64, [error_words])
        """The type of the error word (Note [The error word] in `l0.lowering.gpu.errors`)."""
        module.attributes["gpu.container_module"] = UnitAttr()
        self.gmod = gpu.ModuleOp(StringAttr(MODULE_NAME), Region(Block()))  # type: ignore[arg-type]  # xDSL types the name as SymbolRefAttr
        module.body.block.add_op(self.gmod)
        functions = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
        copied = _device_reachable(functions)
        self.host = {name: f.clone() for name, f in functions.items()
                     if name in copied or not f.body.blocks}
        """The functions device code may copy, as they were before conversion, and the
        declarations (Note [The host functions kept for device code])."""
        self.checks: list[soac.AssertOp] = []
        """Device checks by number - 1 (Note [The error word])."""
        self._functions: dict[str, tuple[set[int], set[str]]] = {}
        """Device functions copied so far: their checks and callees."""
        self._names: dict[str, int] = {}

    def fresh_name(self, base: str) -> str:
        n = self._names.get(base, 0)
        self._names[base] = n + 1
        return f"{base}_{n}"

    def kernel(self, name: str, block: Block) -> tuple[gpu.FuncOp, list[SSAValue], set[int]]:
        """Outline `block` (which ends without a terminator) into kernel `name`; returns
        it, the host values to pass, and the numbers of the checks it may fail."""
        CodeBuilder.at_end(block).add(gpu.ReturnOp([]))
        params = outline(block)
        traced = gpu_trace.log_calls(block)
        kernel = gpu.FuncOp(name, ([v.type for v in params], []), Region(block), kernel=True)
        self.gmod.body.block.add_op(kernel)
        if traced is not None:
            kernel.attributes[gpu_trace.TRACE_ATTR] = StringAttr(traced)
        own, callees = self.finish(kernel)
        checks = own | self._reachable_checks(callees)
        if checks:
            block.insert_arg(self.error_type, len(block.args))
            kernel.attributes[ERROR_WORD_ATTR] = UnitAttr()
        kernel.function_type = FunctionType.from_lists(list(block.arg_types), [])
        return kernel, params, checks

    def finish(self, op: Operation) -> tuple[set[int], set[str]]:
        """Make the code in `op` device code (module docstring); the checks it has and
        the functions it calls."""
        checks: set[int] = set()
        callees: set[str] = set()
        for inner in list(walk_ops(op)):
            if isinstance(inner, func.CallOp):
                callee = inner.callee.root_reference.data
                if callee == WIDTH_FUNCTION:
                    Rewriter.replace_op(inner, arith.ConstantOp(IntegerAttr(1, i64)))
                    continue
                self._device_function(callee)
                callees.add(callee)
            elif isinstance(inner, soac.AssertOp):
                self.checks.append(inner)
                inner.attributes[CHECK_ATTR] = IntegerAttr(len(self.checks), i64)
                checks.add(len(self.checks))
        return checks, callees

    def _device_function(self, name: str) -> None:
        """Copy function `name` into the gpu.module, once (recursion included)."""
        if name in self._functions:
            return
        self._functions[name] = (set(), set())
        copy = self.host[name].clone()
        self.gmod.body.block.add_op(copy)
        if copy.body.blocks:
            copy.sym_visibility = StringAttr("private")
        self._functions[name] = self.finish(copy)

    def _reachable_checks(self, callees: set[str]) -> set[int]:
        """The checks of the device functions `callees` reach through calls."""
        seen: set[str] = set()
        todo = list(callees)
        checks: set[int] = set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            own, more = self._functions[name]
            checks |= own
            todo.extend(more)
        return checks


def launch(b: CodeBuilder, kernel: gpu.FuncOp, params: Sequence[SSAValue],
           grid: SSAValue, error_word: SSAValue | None, threads: int = BLOCK
           ) -> gpu.LaunchFuncOp:
    """`gpu.launch_func` of `kernel` on `grid` (i64) blocks of `threads` threads."""
    one = b.index(1)
    args = [*params, *([error_word] if error_word is not None else [])]
    ref = SymbolRefAttr(MODULE_NAME, [StringAttr(kernel.sym_name.data)])
    return b.add(gpu.LaunchFuncOp(ref, [b.to_index(grid), one, one], [b.index(threads), one, one],
                                  kernelOperands=args))


# ---------------------------------------------------------------------------------------
# Kernel bodies
# ---------------------------------------------------------------------------------------


def thread_ids(b: CodeBuilder) -> tuple[SSAValue, SSAValue, SSAValue, SSAValue]:
    """(thread id, block id, global thread id, thread count), all i64."""
    tid = b.to_i64(b.val(gpu.ThreadIdOp(x_dim())))
    bid = b.to_i64(b.val(gpu.BlockIdOp(x_dim())))
    bdim = b.to_i64(b.val(gpu.BlockDimOp(x_dim())))
    gdim = b.to_i64(b.val(gpu.GridDimOp(x_dim())))
    return tid, bid, b.addi(b.muli(bid, bdim), tid), b.muli(bdim, gdim)


def delinearise(b: CodeBuilder, g: SSAValue, extents: Sequence[SSAValue]) -> list[SSAValue]:
    """The multi-index (row-major) of flat index `g` (i64) in a space of `extents`."""
    out: list[SSAValue] = []
    rest = g
    for n in reversed(extents[1:]):
        out.append(b.val(arith.RemSIOp(rest, n)))
        rest = b.val(arith.DivSIOp(rest, n))
    out.append(rest)
    return list(reversed(out))


def grid_stride(b: CodeBuilder, total: SSAValue, body: Callable[[CodeBuilder, SSAValue], None]
                ) -> None:
    """for g = global id; g < total; g += thread count: body(g), without g leaving 64
    bits near 2^63 (Note [Stepped loops without overflow] in
    `l0.lowering.loop_ir.parallel_loops`)."""
    _, _, gt, count = thread_ids(b)
    stepped_for(b, gt, total, count, body)


def workgroup(b: CodeBuilder, t: Attribute) -> SSAValue:
    """A BLOCK-element array of `t` in workgroup memory."""
    return b.val(memref.AllocaOp.get(t, shape=[BLOCK], memory_space=WORKGROUP))


Combine = Callable[[CodeBuilder, Sequence[SSAValue], Sequence[SSAValue]], list[SSAValue]]


def block_fold(b: CodeBuilder, types: Sequence[Attribute], count: SSAValue,
               element: ElementFn, combine: Combine, inits: Sequence[SSAValue] | None,
               one_chunk: bool = False, interleave: bool = False,
               ) -> tuple[SSAValue, SSAValue, SSAValue, list[SSAValue]]:
    """The reduction of a block (Note [Kernel forms]): each thread folds its contiguous
    share of `count` rows (thread 0 from `inits`, if given; `one_chunk`: thread 0 folds
    them all, Note [Traces in kernels]; `interleave`, for an operator that commutes:
    thread t of P folds rows t, t + P, ...), the block combines in workgroup memory.
    Returns (thread id, block id, workgroup flags, workgroup values): element 0 holds
    the block's result after the last barrier."""
    wg_f = workgroup(b, i1)
    wg_v = [workgroup(b, t) for t in types]
    tid, bid, gt, nthreads = thread_ids(b)
    chunks = b.i64(1) if one_chunk else \
        b.select(b.cmpi("slt", count, b.i64(2 * min_chunk())), b.i64(1), nthreads)
    active = b.cmpi("slt", gt, chunks)
    if interleave:  # trip k reads row gt + k * chunks (Note [Stepped loops without overflow])
        lo = b.i64(0)
        hi = b.select(active, ceil_div(b, b.maxsi(b.subi(count, gt), b.i64(0)), chunks),
                      b.i64(0))
    else:
        # Note [Chunk bounds without overflow]: gt*count leaves 64 bits from 2^46 rows.
        start, end = chunk_bounds(b, gt, count, chunks)
        lo = b.select(active, start, b.i64(0))
        hi = b.select(active, end, b.i64(0))

    def fold(sb: CodeBuilder, k: SSAValue, acc: Sequence[SSAValue]) -> list[SSAValue]:
        has, *vals = acc
        g = sb.addi(gt, sb.muli(k, chunks)) if interleave else k
        flag, new = element(sb, g)
        types_ = [v.type for v in vals]
        merged = sb.if_(has, types_, lambda tb: combine(tb, vals, new), lambda eb: list(new))
        if flag is None:
            return [sb.bool(True), *merged]
        kept = sb.if_(flag, types_, lambda tb: merged, lambda eb: list(vals))
        return [sb.ori(has, flag), *kept]

    if inits is None:
        carried = [b.bool(False), *[zero(b, t) for t in types]]
    else:
        first = b.cmpi("eq", gt, b.i64(0))
        carried = [first, *[b.select(first, v, zero(b, t)) for v, t in zip(inits, types,
                                                                              strict=True)]]
    has, *acc = b.for_(lo, hi, carried, fold)
    block_combine(b, tid, has, acc, wg_f, wg_v, combine)
    return tid, bid, wg_f, wg_v


def block_combine(b: CodeBuilder, tid: SSAValue, has: SSAValue, acc: Sequence[SSAValue],
                  wg_f: SSAValue, wg_v: Sequence[SSAValue], combine: Combine) -> None:
    """Combine the block's threads' results (`has` says whether thread `tid` has one,
    `acc` is it) in workgroup memory, in thread order (Note [Kernel forms]); element 0
    holds the block's result after the last barrier. Every thread reaches every
    barrier: they stand at the top level of the kernel (Note [Barriers and failing
    threads])."""
    b.store(has, wg_f, [tid])
    for v, m in zip(acc, wg_v, strict=True):
        b.store(v, m, [tid])
    b.add(gpu.BarrierOp())
    d = 1
    while d < BLOCK:
        take = b.cmpi("eq", b.val(arith.AndIOp(tid, b.i64(2 * d - 1))), b.i64(0))
        b.if_(take, [], partial(_tree_step, tid=tid, d=d, wg_f=wg_f, wg_v=wg_v, combine=combine))
        b.add(gpu.BarrierOp())
        d *= 2


def _tree_step(b: CodeBuilder, tid: SSAValue, d: int, wg_f: SSAValue,
               wg_v: Sequence[SSAValue], combine: Combine) -> list[SSAValue]:
    """Thread `tid` takes the value of thread tid + d, if it has one."""
    other = b.addi(tid, b.i64(d))

    def take(tb: CodeBuilder) -> list[SSAValue]:
        mine = tb.load(wg_f, [tid])
        right = [tb.load(m, [other]) for m in wg_v]
        types = [v.type for v in right]
        left = lambda lb: combine(lb, [lb.load(m, [tid]) for m in wg_v], right)  # noqa: E731
        new = tb.if_(mine, types, left, lambda eb: right)
        for v, m in zip(new, wg_v, strict=True):
            tb.store(v, m, [tid])
        tb.store(tb.bool(True), wg_f, [tid])
        return []

    b.if_(b.load(wg_f, [other]), [], take)
    return []


def thread_zero(b: CodeBuilder, tid: SSAValue, body: Callable[[CodeBuilder], None]) -> None:
    def then(tb: CodeBuilder) -> list[SSAValue]:
        body(tb)
        return []

    b.if_(b.cmpi("eq", tid, b.i64(0)), [], then)


def move_body(b: CodeBuilder, par: scf.ParallelOp, ivs: Sequence[SSAValue]) -> list[SSAValue]:
    """Move the body of `par` to `b` with its induction variables bound to `ivs`
    (i64); return what it passes to its `scf.reduce`."""
    block = par.body.block
    term = block.last_op
    assert isinstance(term, scf.ReduceOp)
    values = list(term.args)
    term.detach()
    term.erase(safe_erase=False)
    Rewriter.inline_block(block, b.ip, [b.to_index(i) for i in ivs])
    return values


def copy_body(b: CodeBuilder, par: scf.ParallelOp, ivs: Sequence[SSAValue]) -> list[SSAValue]:
    """As `move_body`, on a copy of the body (`par` is left as it is)."""
    term = b.inline(par.body, [b.to_index(i) for i in ivs])
    assert isinstance(term, scf.ReduceOp)
    values = list(term.args)
    Rewriter.erase_op(term)
    return values

