"""The `convert-gpu-to-sim` pass: the gpu-level module as CPU code (`--backend=gpu-sim`).

It runs the kernels `convert-parallel-to-gpu` made on the CPU, so that every program
goes through kernel extraction without a GPU (`docs/gpu.md`):

* `gpu.alloc`/`gpu.dealloc`/`gpu.memcpy` -> `memref.alloc`/`memref.dealloc`/
  `memref.copy` (device memory is host memory);
* each kernel -> a function `l0_kernels.K(params..., grid, block)` that loops over the
  block ids and, for each block, over the thread ids, once per barrier-free phase
  (Note [Barriers in the simulator]); `gpu.launch_func` -> a call of it;
* the functions device code calls -> their copies, renamed `l0_kernels.F`.

A failing check in a kernel fails at once through the CPU's error protocol: threads
run in the order of their global ids, so the first failure is the lowest thread's, the
error the error word would carry on a GPU (Note [The error word] in
`l0.lowering.gpu.errors`).

Note [Barriers in the simulator]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A kernel's body is cut at its `gpu.barrier`s into phases, and each phase runs for every
thread of the block before the next one starts, which is what a barrier guarantees. For
that to be the kernel's meaning:

* barriers stand at the top level of the kernel's body (so every thread of a block
  reaches the same barriers: block-uniform control flow);
* a value defined in one phase and used in another is uniform (the same for every
  thread of the block: parameters, block ids and sizes, and pure arithmetic on them,
  which the simulator computes once per block before the phases) or a thread id (each
  phase has its own); anything else must pass through workgroup memory
  (`memref.alloca` in address space 3, one per block).

A kernel breaking the rule is a compiler bug: the pass fails naming the kernel and the
op.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, gpu, memref, scf
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free
from xdsl.utils.exceptions import PassFailedException

from l0.dialects import soac
from l0.lowering.gpu.errors import KEY_BITS
from l0.lowering.gpu.kernels import CHECK_ATTR, ERROR_WORD_ATTR, MODULE_NAME, x_dim
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.passes.analysis.walk import walk_ops

PREFIX = MODULE_NAME + "."


class BarrierRuleError(PassFailedException):
    """A kernel the simulator cannot run (Note [Barriers in the simulator]): a compiler
    bug, never a user error."""

    def __init__(self, kernel: str, what: str) -> None:
        super().__init__(f"convert-gpu-to-sim: kernel {kernel}: {what}")


def _uniform(op: Operation, uniform: set[SSAValue]) -> bool:
    if op.regions or isinstance(op, gpu.ThreadIdOp) or not is_side_effect_free(op):
        return False
    return all(v in uniform for v in op.operands)


def _workgroup(op: Operation) -> bool:
    return isinstance(op, memref.AllocaOp) and isinstance(op.memref.type, MemRefType) \
        and not isinstance(op.memref.type.memory_space, NoneAttr)


def publish_checks(kernel: gpu.FuncOp) -> None:
    """Make the checks of `kernel`'s own body publish to its error word as a failing
    thread on a GPU does (Note [The error word] in `l0.lowering.gpu.errors`; threads run
    one after another here, so a plain minimum), without stopping the thread: the
    host then reports the error from the word. Only for checks that guard no memory
    access (`publish=true`, a test of the protocol)."""
    if ERROR_WORD_ATTR not in kernel.attributes:
        return
    err = kernel.body.block.args[-1]
    for check in [o for o in walk_ops(kernel) if isinstance(o, soac.AssertOp)]:
        number = check.attributes.get(CHECK_ATTR)
        if isinstance(number, IntegerAttr):
            _publish(check, number.value.data, err)


def _publish(check: soac.AssertOp, number: int, err: SSAValue) -> None:
    """`check` -> if it fails and its key is the lowest yet, the key and the values
    into the error word."""
    b = CodeBuilder.before(check)
    tid = b.to_i64(b.val(gpu.ThreadIdOp(x_dim())))
    bid = b.to_i64(b.val(gpu.BlockIdOp(x_dim())))
    bdim = b.to_i64(b.val(gpu.BlockDimOp(x_dim())))
    thread = b.addi(b.muli(bid, bdim), tid)
    key = b.addi(b.muli(thread, b.i64(1 << KEY_BITS)), b.i64(number))
    values = list(check.values)

    def lower_word(tb: CodeBuilder) -> list[SSAValue]:
        tb.store(key, err, [tb.i64(0)])
        for j, v in enumerate(values):
            tb.store(v, err, [tb.i64(1 + j)])
        return []

    def fail(fb: CodeBuilder) -> list[SSAValue]:
        fb.if_(fb.cmpi("slt", key, fb.load(err, [fb.i64(0)])), [], lower_word)
        return []

    b.if_(b.xori(check.cond, b.bool(True)), [], fail)
    Rewriter.replace_op(check, soac.CheckedOp())


def sim_kernel(kernel: gpu.FuncOp, publish: bool = False) -> func.FuncOp:
    """The CPU function running `kernel` (module docstring); with `publish`, its
    checks go through the error word (`publish_checks`)."""
    name = kernel.sym_name.data
    if publish:
        publish_checks(kernel)
    old = kernel.body.block
    index = IndexType()
    block = Block(arg_types=[*old.arg_types, index, index])
    *params, grid, bdim = block.args
    for a, p in zip(old.args, params, strict=True):
        a.replace_all_uses_with(p)
    b = CodeBuilder.at_end(block)
    zero, one = b.index(0), b.index(1)
    body = Block(arg_types=[index])
    bid = body.args[0]
    for op in list(walk_ops(old)):
        if isinstance(op, gpu.BlockIdOp):
            Rewriter.replace_op(op, [], [bid])
        elif isinstance(op, gpu.BlockDimOp):
            Rewriter.replace_op(op, [], [bdim])
        elif isinstance(op, gpu.GridDimOp):
            Rewriter.replace_op(op, [], [grid])
        elif isinstance(op, gpu.BarrierOp) and op.parent_block() is not old:
            raise BarrierRuleError(name, "a barrier inside control flow")
    uniform: set[SSAValue] = {*params, grid, bdim, bid}
    prologue = CodeBuilder.at_end(body)
    phases: list[list[Operation]] = [[]]
    for op in list(old.ops):
        if isinstance(op, gpu.ReturnOp):
            continue
        if isinstance(op, gpu.BarrierOp):
            phases.append([])
        elif _workgroup(op):
            assert isinstance(op, memref.AllocaOp)
            t = op.memref.type
            assert isinstance(t, MemRefType)
            plain = prologue.val(memref.AllocaOp.get(t.element_type, shape=t.get_shape()))
            op.memref.replace_all_uses_with(plain)
            uniform.add(plain)
        elif _uniform(op, uniform):
            op.detach()
            prologue.add(op)
            uniform.update(op.results)
        else:
            phases[-1].append(op)
    phase_of = {op: n for n, ops in enumerate(phases) for op in ops}
    tids: list[SSAValue] = []
    starts: list[CodeBuilder] = []
    for ops in phases:
        tid_block = Block(arg_types=[index])
        tids.append(tid_block.args[0])
        for op in ops:
            op.detach()
            tid_block.add_op(op)
        tid_block.add_op(scf.YieldOp())
        starts.append(CodeBuilder.before(tid_block.first_op))  # type: ignore[arg-type]  # the block has its yield
        prologue.add(scf.ForOp(zero, bdim, one, [], Region(tid_block)))
    across = _Crossing(name, uniform, phase_of, tids, starts)
    for ops in phases:
        for op in ops:
            for r in op.results:
                for use in list(r.uses):
                    q = phase_of[_phase_op(use.operation, phase_of)]  # type: ignore[index]  # uses inside the phases
                    if q != phase_of[op]:
                        use.operation.operands[use.index] = across.value(r, q)
    for ops in phases:
        for op in ops:
            for inner in [o for o in walk_ops(op) if isinstance(o, gpu.ThreadIdOp)]:
                for use in list(inner.result.uses):
                    top = _phase_op(use.operation, phase_of)
                    use.operation.operands[use.index] = tids[phase_of[top]]  # type: ignore[index]  # uses inside the phases
                Rewriter.erase_op(inner)
    body.add_op(scf.YieldOp())
    b.add(scf.ForOp(zero, grid, one, [], Region(body)))
    b.add(func.ReturnOp())
    f = func.FuncOp(PREFIX + name, (block.arg_types, []), Region(block),
                    visibility="private")
    return f


class _Crossing:
    """Values used in another phase than their own: thread ids and pure functions of
    them and of uniform values are recomputed in the using phase; anything else breaks
    the rule (Note [Barriers in the simulator])."""

    def __init__(self, kernel: str, uniform: set[SSAValue], phase_of: dict[Operation, int],
                 tids: list[SSAValue], starts: list[CodeBuilder]) -> None:
        self.kernel, self.uniform, self.phase_of = kernel, uniform, phase_of
        self.tids, self.starts = tids, starts
        self._made: dict[tuple[Operation, int], Operation] = {}

    def value(self, v: SSAValue, q: int) -> SSAValue:
        if v in self.uniform:
            return v
        owner = v.owner
        if isinstance(owner, gpu.ThreadIdOp):
            return self.tids[q]
        if not isinstance(owner, Operation) or owner.regions \
                or not is_side_effect_free(owner) or isinstance(owner, memref.AllocaOp):
            name = owner.name if isinstance(owner, Operation) else "a block argument"
            raise BarrierRuleError(self.kernel, f"{name} defines a value used across a "
                                   "barrier that is neither uniform nor a function of the "
                                   "thread id")
        if self.phase_of.get(owner) == q:
            return v
        key = (owner, q)
        if key not in self._made:
            clone = owner.clone()
            for k, operand in enumerate(owner.operands):
                clone.operands[k] = self.value(operand, q)
            self._made[key] = self.starts[q].add(clone)
        assert isinstance(v, OpResult)  # its owner is an op
        return self._made[key].results[v.index]


def _phase_op(op: Operation, phase_of: dict[Operation, int]) -> Operation | None:
    """The op of a phase that holds `op` (None outside the phases)."""
    o: Operation | None = op
    while o is not None and o not in phase_of:
        o = o.parent_op()
    return o


def _rename_calls(op: Operation, device: set[str]) -> None:
    for inner in walk_ops(op):
        if isinstance(inner, func.CallOp):
            callee = inner.callee.root_reference.data
            if callee in device:
                inner.callee = SymbolRefAttr(PREFIX + callee)


def _host_ops(module: ModuleOp) -> None:
    for op in list(walk_ops(module)):
        if isinstance(op, gpu.AllocOp):
            alloc = memref.AllocOp(list(op.dynamicSizes), [], op.result.type)
            alloc.attributes |= op.attributes  # its `loc`
            Rewriter.replace_op(op, alloc)
        elif isinstance(op, gpu.DeallocOp):
            Rewriter.replace_op(op, memref.DeallocOp.get(op.buffer))
        elif isinstance(op, gpu.MemcpyOp):
            Rewriter.replace_op(op, memref.CopyOp(op.src, op.dst))
        elif isinstance(op, gpu.LaunchFuncOp):
            callee = PREFIX + op.kernel.nested_references.data[-1].data
            args = [*op.kernelOperands, op.gridSizeX, op.blockSizeX]
            Rewriter.replace_op(op, func.CallOp(callee, args, []))


@dataclass(frozen=True)
class ConvertGpuToSimPass(ModulePass):
    """The gpu level -> CPU code: device memory is host memory, a kernel launch is
    loops over blocks and threads, one per phase between barriers (the rule for
    barriers: `docs/gpu.md`); the `gpu-sim` back end's last step.

    Runs after `convert-parallel-to-gpu`. gpu.alloc/dealloc/memcpy become
    memref.alloc/dealloc/copy; each kernel a private function `l0_kernels.K` taking its
    parameters, the grid and the block size; gpu.launch_func a call of it; functions of
    the gpu.module move out as `l0_kernels.F`. Barriers must stand at the top level of a
    kernel, and a value used across one must be uniform or a function of the thread id
    (else the pass fails: a compiler bug).

        "gpu.launch_func"(%g, .., %b, .., %d)       func.call @l0_kernels.k(%d, %g, %b)
        gpu.func @k(%d) kernel {               ->   func.func private @l0_kernels.k(..) {
          A; gpu.barrier; B                           scf.for %bid { scf.for %tid {A}
        }                                                            scf.for %tid {B} }
    """

    name = "convert-gpu-to-sim"

    publish: bool = False
    """Failing checks in kernels publish to the error word and let the thread go on, as
    far as the host can tell a GPU's (a test of the error word: only for checks that
    guard no memory access)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        modules = [o for o in op.ops if isinstance(o, gpu.ModuleOp)]
        op.attributes.pop("gpu.container_module", None)
        for gmod in modules:
            inner = list(gmod.body.block.ops)
            device = {f.sym_name.data for f in inner
                      if isinstance(f, func.FuncOp) and f.body.blocks}
            made: list[Operation] = []
            for f in inner:
                f.detach()
                if isinstance(f, gpu.FuncOp):
                    made.append(sim_kernel(f, self.publish))
                elif isinstance(f, func.FuncOp) and f.body.blocks:
                    f.sym_name = StringAttr(PREFIX + f.sym_name.data)
                    made.append(f)
            for f in made:
                _rename_calls(f, device)
                Rewriter.insert_op(f, InsertPoint.before(gmod))
            Rewriter.erase_op(gmod)
        _host_ops(op)
