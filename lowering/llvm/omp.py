"""`omp` to LLVM IR: an `omp.parallel` region becomes a function run by libgomp's threads.

The multicore back end's input has, per outermost parallel loop, one
`omp.parallel { omp.wsloop { omp.loop_nest } }` (`convert-parallel-to-omp`), or, for
consecutive loops, one `omp.parallel` of several `omp.wsloop`s, its phases, with
`omp.barrier` between some (Note [One region per parallel phase] in
`l0.lowering.cpu.omp_phases`): each thread runs its chunk of each phase in turn, calling
`GOMP_barrier` where there is one (not when the region runs serially). Nothing in
xDSL lowers `omp` to LLVM; the emission here is direct, against libgomp's ABI:

    void GOMP_parallel(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags)

forks `nthreads` threads (the caller is thread 0), runs `fn(data)` on each and joins.
The region is *outlined* into `void @"l0.omp.F.K"(ptr data)`: `data` points to a struct
on the caller's stack holding the caller's context, the shared failure state, whether
the call is serial, and every value the region uses from outside (memref descriptors
exploded into their scalars, `types.component_types`). Each thread takes its static
chunk of the `omp.loop_nest` iterations: thread t of nt gets
[t*ceil(N/nt), min(N, (t+1)*ceil(N/nt))), so chunks are contiguous and in thread
order. Inside a thread everything is sequential (nested loops, nested parallel loops as
plain loops; a nested `omp.parallel`, reached through a call, runs serially: the
caller checks `omp_in_parallel()`). The `if` clause (the grain size) false, the
outlined function is called directly as thread 0 of 1.

Note [Errors in threads]
~~~~~~~~~~~~~~~~~~~~~~~~
Each thread runs with a context of its own (`abi.py`: error id and values, and its
stack floor, from `pthread_getattr_np` for a worker thread). A thread that fails
copies its context into its record of the shared state and lowers the state's "first
failing thread" (an atomic min); a thread stops before each iteration once a thread
before it has failed, since every iteration it has left comes after the failing one
(only loops whose body can fail check). After the join the caller takes the record of
the first failing thread: chunks are in iteration order, and a thread stops at its
first failure, so that is the failure of the smallest failing iteration, the one the
sequential run reports. The caller copies it into its own context and fails.

Note [Constants in the outlined body]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Passes before this one hoist constants out of loops, so a region uses constants defined
outside it: its loop's step, the constants of its arithmetic. Passed through the data
struct, each would reach the outlined function as a load, an unknown value to LLVM: the
loop's step unknown, the address of element k of an array is (lb + k * step) * stride,
and the vectoriser, which versions a loop for a unit stride only where the stride is a
factor of its own, gathered every operand with scalar loads (Black-Scholes 10^7 on two
threads: 212 ms against 177). Constants are therefore emitted again inside the outlined
function (`rematerialised`), as the sequential loop sees them.

`l0_parallel_width()` (Note [Parallel width] in `l0.lowering.loop_ir.parallel_loops`) is
defined here: 1 on a back end that runs no threads (`Target.threads` of the emitter's
`target`), else 1 inside a parallel region and the thread count outside it.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, cast

import llvmlite.ir as ir
from xdsl.dialects import arith, cf, func, memref, omp
from xdsl.ir import Operation, SSAValue

from l0.dialects import soac
from l0.lowering.llvm.types import (
    I32,
    I64,
    PTR,
    VOID,
    LoweringError,
    component_types,
    components,
    from_components,
    i64,
)
from l0.lowering.loop_ir.parallel_loops import WIDTH_FUNCTION, defined_inside
from l0.lowering.runtime import abi
from l0.passes.analysis.walk import walk_ops

if TYPE_CHECKING:
    from l0.lowering.llvm.emit import FunctionEmitter, Handler, ModuleEmitter

NO_FAILURE = (1 << 63) - 1
"""The shared state's "first failing thread" while no thread has failed."""

STATE_FIRST = 0
"""Slot of the shared state holding the first failing thread; thread t's record (a
context) starts at slot 1 + t * ctx_size."""

CTX_SIZE_GLOBAL = "l0.ctx_size"
"""An i64 constant: the context's size in slots, known once the module is emitted."""

_FAILS = (soac.AssertOp, cf.AssertOp, func.CallOp, memref.AllocOp, memref.AllocaOp)
"""Ops after which a loop body can fail (a check, a call, an allocation)."""


# --------------------------------------------------------------------------- runtime


RUNTIME_PREFIXES = ("GOMP_", "omp_")
"""The names of libgomp's functions that emitted code calls (`_declare`)."""


def calls_runtime(module: ir.Module) -> bool:
    """Whether `module` calls libgomp: whether it declares any of its functions (a
    multicore module without parallel loops is the cpu back end's code)."""
    return any(name.startswith(RUNTIME_PREFIXES) for name in module.globals)


def _declare(mod: ModuleEmitter, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
    existing = mod.llvm.globals.get(name)
    if isinstance(existing, ir.Function):
        return existing
    fn = ir.Function(mod.llvm, ir.FunctionType(ret, args), name)
    fn.attributes.add("nounwind")
    return fn


def ctx_size(mod: ModuleEmitter, b: ir.IRBuilder) -> ir.Value:
    """The context size (slots), loaded from its constant (set by `finish`)."""
    g = mod.llvm.globals.get(CTX_SIZE_GLOBAL)
    if g is None:
        g = ir.GlobalVariable(mod.llvm, I64, CTX_SIZE_GLOBAL)
        g.linkage = "internal"
        g.global_constant = True
    return b.load(g, typ=I64)


def finish(mod: ModuleEmitter) -> None:
    """After every function is emitted: the context size is known."""
    g = mod.llvm.globals.get(CTX_SIZE_GLOBAL)
    if isinstance(g, ir.GlobalVariable):
        g.initializer = i64(mod.errors.ctx_size)


def define_width(mod: ModuleEmitter, fn: ir.Function) -> None:
    """The body of `l0_parallel_width` for the module's back end (module docstring)."""
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    if not mod.target.threads:
        b.ret(i64(1))
        return
    nested = b.icmp_signed("!=", b.call(_declare(mod, "omp_in_parallel", I32, []), []),
                           ir.Constant(I32, 0))
    b.ret(b.select(nested, i64(1), b.sext(thread_count(mod, b), I64)))


def thread_count(mod: ModuleEmitter, b: ir.IRBuilder) -> ir.Value:
    """The threads a parallel region forks (i32): the calling thread's OpenMP setting,
    which the engine (or an executable's `--threads`) sets to the back end's count,
    else libgomp's default (OMP_NUM_THREADS, else all cores). A run-time setting, so
    that one compilation serves every count (`l0.lowering.runtime.openmp_runtime`)."""
    return b.call(_declare(mod, "omp_get_max_threads", I32, []), [])


def _thread_stack_floor(mod: ModuleEmitter) -> ir.Function:
    """`l0.rt.thread_stack_floor() -> i64`: the lowest address this thread's stack may
    reach, less a margin (as `jit_call._stack_floor` computes it for the calling thread);
    0 when unknown (no stack checks)."""
    name = abi.RUNTIME_PREFIX + "thread_stack_floor"
    existing = mod.llvm.globals.get(name)
    if isinstance(existing, ir.Function):
        return existing
    fn = ir.Function(mod.llvm, ir.FunctionType(I64, []), name)
    fn.linkage = "internal"
    self_ = _declare(mod, "pthread_self", I64, [])
    getattr_ = _declare(mod, "pthread_getattr_np", I32, [I64, PTR])
    getstack = _declare(mod, "pthread_attr_getstack", I32, [PTR, PTR, PTR])
    destroy = _declare(mod, "pthread_attr_destroy", I32, [PTR])
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    attr = _alloca(b, ir.ArrayType(I64, 16))  # pthread_attr_t is 56 bytes on x86-64
    addr = _alloca(b, I64)
    size = _alloca(b, I64)
    b.store(i64(0), addr)
    b.store(i64(0), size)
    ok = b.icmp_signed("==", b.call(getattr_, [b.call(self_, []), attr]), ir.Constant(I32, 0))
    with b.if_then(ok):
        b.call(getstack, [attr, addr, size])
        b.call(destroy, [attr])
    base, n = b.load(addr, typ=I64), b.load(size, typ=I64)
    margin = b.select(b.icmp_unsigned("<", b.lshr(n, i64(2)), i64(1 << 20)),
                      b.lshr(n, i64(2)), i64(1 << 20))
    b.ret(b.select(b.icmp_unsigned("==", base, i64(0)), i64(0), b.add(base, margin)))
    return fn


# --------------------------------------------------------------------------- capture


def captured(op: Operation) -> list[SSAValue]:
    """The values the regions of `op` use from outside it, in first-use order."""
    seen: dict[SSAValue, None] = {}
    for inner in walk_ops(op):
        if inner is op:
            continue
        for v in inner.operands:
            if v not in seen and not defined_inside(v, op):
                seen[v] = None
    return list(seen)


def rematerialised(v: SSAValue) -> bool:
    """Whether captured `v` is a constant, emitted again inside the outlined function
    instead of passed through memory (Note [Constants in the outlined body])."""
    return isinstance(v.owner, arith.ConstantOp)


def _phases(op: omp.ParallelOp) -> list[omp.LoopNestOp | omp.BarrierOp]:
    """The phases of region `op` (its loops' `omp.loop_nest`s) and the barriers
    between them, in order (Note [One region per parallel phase] in
    `l0.lowering.cpu.omp_phases`)."""
    out: list[omp.LoopNestOp | omp.BarrierOp] = []
    for inner in op.region.block.ops:
        if isinstance(inner, omp.BarrierOp):
            out.append(inner)
        elif isinstance(inner, omp.WsLoopOp):
            nest = inner.body.block.first_op
            if not isinstance(nest, omp.LoopNestOp) or len(nest.lowerBound) != 1:
                raise LoweringError("expected omp.wsloop to hold a one-dimensional "
                                    "omp.loop_nest")
            out.append(nest)
        elif not isinstance(inner, omp.TerminatorOp):
            raise LoweringError(f"expected omp.parallel to hold omp.wsloop and omp.barrier "
                                f"ops, not {inner.name}")
    if not any(isinstance(p, omp.LoopNestOp) for p in out):
        raise LoweringError("expected omp.parallel to hold an omp.wsloop")
    return out


# --------------------------------------------------------------------------- the caller


def _field(b: ir.IRBuilder, data: ir.Value, data_ty: ir.LiteralStructType, k: int) -> ir.Value:
    """The address of field `k` of the struct at `data` (an opaque pointer)."""
    return b.gep(data, [ir.Constant(I32, 0), ir.Constant(I32, k)], source_etype=data_ty)


def _alloca(b: ir.IRBuilder, ty: ir.Type, size: ir.Value | None = None) -> ir.Value:
    """An alloca typed as an opaque pointer, as the module's other pointers (llvmlite
    types allocas as typed pointers, which its geps and stores then mistype)."""
    a = b.alloca(ty, size=size)
    a.type = PTR
    return a


def _emit_parallel(fe: FunctionEmitter, op: omp.ParallelOp) -> None:
    mod = fe.mod
    steps = _phases(op)
    values = [v for v in captured(op) if not rematerialised(v)]
    slots = [t for v in values for t in component_types(v.type)]
    data_ty = ir.LiteralStructType([PTR, PTR, I32, *slots])
    outlined = _outline(fe, op, steps, values, data_ty)

    sp = fe.b.call(fe.rt.stacksave(), [])
    data = _alloca(fe.alloca_b, data_ty)
    threads = thread_count(mod, fe.b)
    size = ctx_size(mod, fe.b)
    state_len = fe.b.add(i64(1), fe.b.mul(fe.b.sext(threads, I64), size))
    state = _alloca(fe.b, I64, state_len)
    fe.b.store(i64(NO_FAILURE), fe.b.gep(state, [i64(STATE_FIRST)], source_etype=I64))
    in_par = fe.b.icmp_signed("!=", fe.b.call(_declare(mod, "omp_in_parallel", I32, []), []),
                              ir.Constant(I32, 0))
    fork = fe.b.not_(in_par)
    if op.if_expr is not None:
        fork = fe.b.and_(fork, fe.get(op.if_expr))
    parts: list[ir.Value] = [fe.ctx, state, fe.b.zext(fe.b.not_(fork), I32)]
    for v in values:
        parts.extend(components(fe.any(v)))
    for k, p in enumerate(parts):
        fe.b.store(p, _field(fe.b, data, data_ty, k))
    gomp = _declare(mod, "GOMP_parallel", VOID, [PTR, PTR, I32, I32])
    with fe.b.if_else(fork) as (threaded, serial):
        with threaded:
            fe.b.call(gomp, [outlined, data, threads, ir.Constant(I32, 0)])
        with serial:
            fe.b.call(outlined, [data])
    first = fe.b.load(fe.b.gep(state, [i64(STATE_FIRST)], source_etype=I64), typ=I64)
    failed = fe.b.icmp_signed("!=", first, i64(NO_FAILURE))
    with fe.b.if_then(failed, likely=False):
        record = fe.b.gep(state, [fe.b.add(i64(1), fe.b.mul(first, size))], source_etype=I64)
        fe.b.call(fe.rt.memmove(), [fe.ctx, record, fe.b.mul(size, i64(8)),
                                    ir.Constant(ir.IntType(1), 0)])
        fe.b.call(fe.rt.stackrestore(), [sp])
        fe.b.branch(fe.fail_block)
        fe.b.position_at_end(fe.block("unreachable"))
    fe.b.call(fe.rt.stackrestore(), [sp])


# --------------------------------------------------------------------------- the outlined body


@cache
def _outlined_emitter_class() -> type:
    from l0.lowering.llvm.emit import FunctionEmitter

    class OutlinedEmitter(FunctionEmitter):
        """Emits an outlined region: its context is the thread's own, and failing
        records the error in the shared state (Note [Errors in threads])."""

        plans_entry_allocas = False  # its buffers are its function's (`_outline`)
        state: ir.Value
        thread: ir.Value
        resume: ir.Block | None = None
        """Where a failing thread goes on: the end of its phase in a region of several
        (the others may wait for it at a barrier), else nowhere (it returns)."""
        _fail: ir.Block | None  # FunctionEmitter's, declared here for the import cycle

        @property
        def fail_block(self) -> ir.Block:
            if self._fail is None:
                self._fail = self.block("fail")
                fb = ir.IRBuilder(self._fail)
                size = ctx_size(self.mod, fb)
                record = fb.gep(self.state, [fb.add(i64(1), fb.mul(self.thread, size))],
                                source_etype=I64)
                fb.call(self.rt.memmove(), [record, self.ctx, fb.mul(size, i64(8)),
                                            ir.Constant(ir.IntType(1), 0)])
                fb.atomic_rmw("min", fb.gep(self.state, [i64(STATE_FIRST)], source_etype=I64),
                              self.thread, "monotonic")
                if self.resume is None:
                    fb.ret_void()
                else:
                    fb.branch(self.resume)
            return self._fail

    return OutlinedEmitter


def _outline(fe: FunctionEmitter, op: omp.ParallelOp,
             steps: list[omp.LoopNestOp | omp.BarrierOp], values: list[SSAValue],
             data_ty: ir.LiteralStructType) -> ir.Function:
    from l0.lowering.llvm.emit import FuncInfo

    mod = fe.mod
    mod.outlined += 1
    name = f"l0.omp.{fe.op.sym_name.data}.{mod.outlined}"
    fn = ir.Function(mod.llvm, ir.FunctionType(VOID, [PTR]), name)
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    # The outlined emitter's class is made on first use (it subclasses FunctionEmitter,
    # whose module imports this one); `Any`: mypy sees no class object here.
    sub: Any = _outlined_emitter_class()(mod, FuncInfo(fe.op, fn, False), False)
    sub.share_alias_scopes(fe)
    a = sub.alloca_b
    (data,) = fn.args

    def field(k: int, t: ir.Type) -> ir.Value:
        return a.load(_field(a, data, data_ty, k), typ=t)

    parent_ctx, state, serial = field(0, PTR), field(1, PTR), field(2, I32)
    pos = 3
    for v in values:
        n = len(component_types(v.type))
        sub.set(v, from_components(a, v.type, [field(pos + j, data_ty.elements[pos + j])
                                               for j in range(n)]))
        pos += n
    for v in captured(op):
        if rematerialised(v) and v not in sub.values:
            sub.emit_op(v.owner)
    is_serial = a.icmp_signed("!=", serial, ir.Constant(I32, 0))
    num = _declare(mod, "omp_get_thread_num", I32, [])
    count = _declare(mod, "omp_get_num_threads", I32, [])
    t = a.select(is_serial, i64(0), a.sext(a.call(num, []), I64))
    nt = a.select(is_serial, i64(1), a.sext(a.call(count, []), I64))
    sub.state, sub.thread = state, t
    # The thread's own context: no error yet, its own stack floor.
    size = ctx_size(mod, a)
    ctx = _alloca(a, I64, size)
    a.call(mod.rt.memmove(), [ctx, parent_ctx, a.mul(size, i64(8)),
                              ir.Constant(ir.IntType(1), 0)])
    a.store(i64(0), a.gep(ctx, [i64(abi.CTX_ERROR)], source_etype=I64))
    sub.ctx = ctx
    b = sub.b
    # Thread 0 is the caller, whose floor the copied context holds: only a worker asks
    # for its own (for the main thread, pthread_getattr_np reads /proc/self/maps).
    with b.if_then(b.icmp_signed("!=", t, i64(0))):
        b.store(b.call(_thread_stack_floor(mod), []),
                b.gep(ctx, [i64(abi.CTX_STACK_FLOOR)], source_etype=I64))

    several = sum(isinstance(p, omp.LoopNestOp) for p in steps) > 1
    earlier_fails = False
    for step in steps:
        if isinstance(step, omp.BarrierOp):
            # Alone (serially, or nested in another team) there is no one to wait for.
            with b.if_then(b.not_(is_serial)):
                b.call(_declare(mod, "GOMP_barrier", VOID, []), [])
            continue
        fails = any(isinstance(o, _FAILS) for o in walk_ops(step))
        _emit_phase(sub, step, state, t, nt, several, earlier_fails, fails)
        earlier_fails = earlier_fails or fails
    b.ret_void()
    a.branch(fn.blocks[1])
    return fn


def _emit_phase(sub: Any, nest: omp.LoopNestOp, state: ir.Value, t: ir.Value, nt: ir.Value,
                several: bool, earlier_fails: bool, can_fail: bool) -> None:
    """This thread's static chunk of `nest`'s iterations. In a region of `several`
    phases a failure goes on to the phase's end, and a phase after one that may fail
    runs only if nothing failed (Note [One region per parallel phase] in
    `l0.lowering.cpu.omp_phases`)."""
    from l0.lowering.llvm.scf import _StackScope

    b = sub.b
    lb, ub, step = sub.get(nest.lowerBound[0]), sub.get(nest.upperBound[0]), sub.get(nest.step[0])
    # Ceilings as (x - 1) / d + 1 and x / d + (x % d != 0), and the end as the trip
    # count when fewer than `per` trips are left: (x + d - 1) / d and begin + per would
    # leave 64 bits for trip counts near 2^63 (the chunks are the same).
    span = b.sub(ub, lb)
    trips = b.add(b.sdiv(b.sub(span, i64(1)), step), i64(1))
    trips = b.select(b.icmp_signed(">", span, i64(0)), trips, i64(0))
    inexact = b.zext(b.icmp_signed("!=", b.srem(trips, nt), i64(0)), I64)
    per = b.add(b.sdiv(trips, nt), inexact)
    begin = b.mul(t, per)
    end = b.select(b.icmp_signed("<", b.sub(trips, begin), per), trips, b.add(begin, per))

    head, body, exit_ = sub.block("omp.head"), sub.block("omp.body"), sub.block("omp.end")
    if several:
        sub._fail, sub.resume = None, exit_
    if earlier_fails:
        first = b.load_atomic(b.gep(state, [i64(STATE_FIRST)], source_etype=I64),
                              "monotonic", 8, typ=I64)
        b.cbranch(b.icmp_signed("==", first, i64(NO_FAILURE)), head, exit_)
    else:
        b.branch(head)
    pre = b.block
    b.position_at_end(head)
    k = b.phi(I64)
    k.add_incoming(begin, pre)
    go = b.icmp_signed("<", k, end)
    if can_fail:
        first = b.load_atomic(b.gep(state, [i64(STATE_FIRST)], source_etype=I64),
                              "monotonic", 8, typ=I64)
        go = b.and_(go, b.icmp_signed(">=", first, t))
    b.cbranch(go, body, exit_)
    b.position_at_end(body)
    scope = _StackScope(sub, nest)
    scope.enter()
    iv = b.add(lb, b.mul(k, step))
    term = sub.emit_region_block(nest.body.block, [iv])
    if not isinstance(term, omp.YieldOp):
        raise LoweringError("expected omp.yield to end the body of omp.loop_nest")
    scope.leave()
    k.add_incoming(b.add(k, i64(1)), b.block)
    b.branch(head)
    b.position_at_end(exit_)


def _emit_region_only(fe: FunctionEmitter, op: Operation) -> None:
    raise LoweringError(f"expected {op.name} inside omp.parallel, as convert-parallel-to-omp "
                        f"builds it")


HANDLERS: dict[type[Operation], Handler] = {
    omp.ParallelOp: cast("Handler", _emit_parallel),
    omp.WsLoopOp: _emit_region_only,
    omp.LoopNestOp: _emit_region_only,
}

__all__ = ["HANDLERS", "WIDTH_FUNCTION", "define_width", "finish"]
