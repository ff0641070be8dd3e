"""The kernels of a gpu-level module as NVPTX LLVM IR (the device half of `--backend=gpu`).

Input: a `builtin.module` with the `gpu.container_module` attribute whose `gpu.module`s
hold `gpu.func ... kernel` functions (and device functions: `gpu.func` without
`kernel`, `func.func`). Kernel bodies use the ops the CPU emitter handles plus
`gpu.thread_id/block_id/block_dim/grid_dim/global_id` (dimension x) and `gpu.barrier`;
workgroup (shared) memory is a static `memref.alloca` in memory space 3.

The same emitter as the CPU's (`emit.py`) writes each body, with three differences:

* the target is `nvptx64-nvidia-cuda`; ids come from `llvm.nvvm.read.ptx.sreg.*`,
  `gpu.barrier` is PTX's `barrier.sync 0` (every device function is `convergent`, as a
  CUDA compiler marks them, so no optimisation moves code across a barrier); a thread
  that fails still arrives at the barriers of its kernel it has not passed (Note
  [Barriers and failing threads] in `l0.lowering.gpu.kernels`);
* math calls libdevice's `__nv_*` functions where LLVM has no NVPTX lowering (`exp`,
  `log`, `pow`, `erf`, ...; `NvptxRuntime`), linked in by `l0.lowering.llvm.ptx`;
* each kernel is a `void` function named after its symbol (`ptx_name`), marked by
  `nvvm.annotations`, taking its parameters exploded as the CPU convention explodes
  them (a memref: allocated, aligned, offset, sizes, strides), which is what the host
  side passes to `cuLaunchKernel` (`cuda_host.py`). It calls the body, an internal
  function of the CPU convention (`abi.py`) with a context in local memory.

Note [Checks in kernels]
A check that fails in a body leaves it with status 1 and its error in the context, as
on the CPU. Kernel extraction numbers the checks of device code (`l0.check` = k >= 1 on
each `soac.assert`) and gives a kernel that may fail the error word as its last
parameter (`l0.error_word` on the `gpu.func`: a device `memref<?xi64>`, word 0
initialised to INT64_MAX). The kernel entry of a failed body then publishes
key = global thread id * 2^16 + k with an atomic signed minimum on word 0 and, if its
key lowered the word, stores the check's values into words 1.. (as many as fit); the
host reads the word back after the launch and reports the lowest failing thread's
check, as the CPU would report the first failing element (kernel extraction's Note
[The error word]). A failure that is no numbered check (the device heap exhausted, a
kernel without an error word) cannot be reported that way: the entry traps
(`llvm.trap`), which aborts the launch, and the host reports the failing driver call
as a run-time error. Either way no result computed past a failed check is used.

Device functions may allocate (`memref.alloc`, where a size varies per thread): they
call the device heap's `malloc`/`free`, which PTX offers as system calls; the heap's
size is set when the device is opened (`l0.lowering.runtime.gpu_runtime`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import cast

import llvmlite.ir as ir
from xdsl.dialects import func, gpu, memref
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    FunctionType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Operation

from l0.dialects import soac
from l0.lowering.llvm import memref as memref_ops
from l0.lowering.llvm.emit import FuncInfo, FunctionEmitter, Handler, ModuleEmitter
from l0.lowering.llvm.runtime import Runtime
from l0.lowering.llvm.types import (
    I1,
    I32,
    I64,
    PTR,
    LoweringError,
    component_types,
    elem_type,
    i64,
    layout_of,
    make_desc,
    memory_type,
)
from l0.lowering.runtime import abi
from l0.passes.analysis.walk import walk_ops

TRIPLE = "nvptx64-nvidia-cuda"
DATA_LAYOUT = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
WORKGROUP_SPACE = 3
"""The address space of workgroup (shared) memory, in memref types and in NVPTX."""
CHECK_ATTR = "l0.check"
"""A check's number in device code (Note [Checks in kernels])."""
ERROR_WORD_ATTR = "l0.error_word"
"""Marks a kernel whose last parameter is the error word."""
KEY_BITS = 16
"""An error key is the global thread id shifted by this, plus the check's number."""

LIBDEVICE_INTRINSICS = frozenset({"exp", "exp2", "log", "log2", "log10", "sin", "cos",
                                  "pow"})
"""LLVM math intrinsics the NVPTX back end cannot select ("no libcall available"):
calls to libdevice instead. The others (`sqrt`, `fabs`, `floor`, `fma`, ...) are
single PTX instructions."""


LIBM_IN_LIBDEVICE = frozenset({
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "cos", "cosh", "erf",
    "erfc", "exp", "exp2", "exp10", "expm1", "fmod", "hypot", "lgamma", "log", "log10",
    "log1p", "log2", "pow", "sin", "sinh", "tan", "tanh", "tgamma",
})
"""libm functions libdevice has as `__nv_NAME` (double) and `__nv_NAMEf` (float)."""


def ptx_name(symbol: str) -> str:
    """The PTX name of kernel `symbol` (what the host looks the function up by)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", symbol)
    return name if re.match(r"[A-Za-z_]", name) else "_" + name


def is_container(module: ModuleOp) -> bool:
    """Whether `module` is gpu-level (holds device code in `gpu.module`s)."""
    return any(isinstance(op, gpu.ModuleOp) for op in module.ops)


@dataclass
class EmittedKernels:
    """NVPTX LLVM IR of a module's kernels; `kernels` maps each kernel's symbol to its
    PTX name."""

    llvm: ir.Module
    errors: abi.ErrorTable
    kernels: dict[str, str] = field(default_factory=lambda: {})


def emit_kernels(module: ModuleOp, *, fast_math: bool = False) -> EmittedKernels:
    """Translate the `gpu.module`s of `module` to one NVPTX LLVM module."""
    device = [op for op in module.ops if isinstance(op, gpu.ModuleOp)]
    if not device:
        raise LoweringError("expected a gpu.module holding the kernels")
    return KernelModuleEmitter(module, fast_math=fast_math).emit_device(device)


def kernel_ops(module: ModuleOp) -> Iterable[gpu.FuncOp]:
    """The kernels of the `gpu.module`s of `module`."""
    for dev in module.ops:
        if isinstance(dev, gpu.ModuleOp):
            for op in dev.body.ops:
                if isinstance(op, gpu.FuncOp) and op.kernel is not None:
                    yield op


# --------------------------------------------------------------------------- runtime


class NvptxRuntime(Runtime):
    """Declarations for device code: libdevice for math (the heap is the CPU's
    `malloc`/`free`, which PTX has as system calls)."""

    def intrinsic(self, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
        m = re.fullmatch(r"llvm\.(\w+)\.(f32|f64|f16)", name)
        if m is not None and m.group(1) in LIBDEVICE_INTRINSICS:
            return self._libdevice(m.group(1), ret, len(args))
        return super().intrinsic(name, ret, args)

    def libm(self, name: str, ty: ir.Type, nargs: int) -> ir.Function:
        return self._libdevice(name, ty, nargs)

    def _libdevice(self, name: str, ty: ir.Type, nargs: int) -> ir.Function:
        if isinstance(ty, ir.DoubleType):
            full = f"__nv_{name}"
        elif isinstance(ty, ir.FloatType):
            full = f"__nv_{name}f"
        else:
            raise LoweringError(f"no libdevice function for {name} on {ty} in a kernel")
        return self._get(full, ir.FunctionType(ty, [ty] * nargs), "nounwind", "readnone")


# --------------------------------------------------------------------------- the module


class KernelModuleEmitter(ModuleEmitter):
    """Declares the device functions of the `gpu.module`s, emits their bodies, then a
    kernel entry (`void @NAME(...)`) for each kernel."""

    def __init__(self, module: ModuleOp, *, fast_math: bool = False) -> None:
        super().__init__(module, fast_math=fast_math, handlers=HANDLERS)
        self.rt = NvptxRuntime(self.llvm)
        self.shared = 0
        self.check_numbers: dict[int, int] = {}
        """Error id -> the number of its check (Note [Checks in kernels])."""

    def emit_device(self, device: list[gpu.ModuleOp]) -> EmittedKernels:
        self.llvm.triple = TRIPLE
        self.llvm.data_layout = DATA_LAYOUT
        kernels: list[gpu.FuncOp] = []
        for dev in device:
            for op in dev.body.ops:
                if isinstance(op, gpu.FuncOp | func.FuncOp):
                    self._declare(cast(func.FuncOp, op))
                    if isinstance(op, gpu.FuncOp) and op.kernel is not None:
                        kernels.append(op)
                elif isinstance(op, memref.GlobalOp):
                    memref_ops.declare_global(self, op)
                else:
                    raise LoweringError(f"expected gpu.func, func.func or memref.global in "
                                        f"a gpu.module, found {op.name}")
        for info in self.funcs.values():
            if not info.external:
                info.llvm.attributes.add("convergent")
                KernelBodyEmitter(self, info).emit()
        out = EmittedKernels(self.llvm, self.errors)
        for k in kernels:
            name = k.sym_name.data
            out.kernels[name] = ptx_name(name)
            self._emit_kernel_entry(self.funcs[name], ptx_name(name),
                                    k.attributes.get(ERROR_WORD_ATTR) is not None)
        return out

    def _declare_external(self, name: str, ftype: FunctionType) -> ir.Function:
        """A body-less function in device code: a libm function of libdevice's, else
        nothing a kernel can call."""
        types = [*ftype.inputs.data, *ftype.outputs.data]
        if len(ftype.outputs.data) == 1 and all(t == types[0] for t in types) and (
                isinstance(types[0], Float32Type | Float64Type)):
            base = name[:-1] if isinstance(types[0], Float32Type) and name.endswith("f") else name
            if base in LIBM_IN_LIBDEVICE:
                ty = ir.DoubleType() if isinstance(types[0], Float64Type) else ir.FloatType()
                return cast(NvptxRuntime, self.rt).libm(base, ty, len(ftype.inputs.data))
        called = any(isinstance(op, func.CallOp) and op.callee.root_reference.data == name
                     for dev in self.module.ops if isinstance(dev, gpu.ModuleOp)
                     for op in walk_ops(dev))
        if called:
            raise LoweringError(f"device code calls @{name}, a host function with no "
                                f"device version")
        return super()._declare_external(name, ftype)

    def _mark_noalias_params(self, op: func.FuncOp, fn: ir.Function) -> None:
        if isinstance(op, func.FuncOp):
            super()._mark_noalias_params(op, fn)

    def _emit_kernel_entry(self, info: FuncInfo, name: str, error_word: bool) -> None:
        """`void @name(params)`: the body with a context in local memory; a failed
        body reports to the error word or traps (Note [Checks in kernels])."""
        params = [c for t in info.op.function_type.inputs.data for c in component_types(t)]
        fn = ir.Function(self.llvm, ir.FunctionType(ir.VoidType(), params), name)
        fn.attributes.add("nounwind")
        fn.attributes.add("convergent")
        for param, body_param in zip(fn.args, info.llvm.args[1:], strict=True):
            param.name = body_param.name
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        ctx_type = ir.ArrayType(I64, self.errors.ctx_size)
        ctx = b.alloca(ctx_type, name="ctx")
        b.store(ir.Constant(ctx_type, None), ctx)
        call = b.call(info.llvm, [ctx, *fn.args])
        ok = b.icmp_unsigned("==", b.extract_value(call, 0), ir.Constant(I32, 0))
        done = fn.append_basic_block("done")
        failed = fn.append_basic_block("failed")
        b.cbranch(ok, done, failed).set_metadata("prof", self.likely)
        b.position_at_end(failed)
        if error_word and self.check_numbers:
            self._report(b, ctx, fn.args[-4], fn.args[-3], fn.args[-2], done)
        else:
            self._trap(b)
        b.position_at_end(done)
        b.ret_void()
        annotation = self.llvm.add_metadata([fn, ir.MetaDataString(self.llvm, "kernel"),
                                             ir.Constant(I32, 1)])
        self.llvm.add_named_metadata("nvvm.annotations").add(annotation)


    def _trap(self, b: ir.IRBuilder) -> None:
        b.call(self.rt.intrinsic("llvm.trap", ir.VoidType(), []), [])
        b.unreachable()

    def _report(self, b: ir.IRBuilder, ctx: ir.Value, aligned: ir.Value, offset: ir.Value,
                size: ir.Value, done: ir.Block) -> None:
        """Publish the failed check's key and values in the error word (`aligned`,
        `offset`, `size`: its descriptor) and return; trap for other failures."""
        fn = b.function
        error_id = b.load(b.gep(ctx, [i64(0), i64(abi.CTX_ERROR)], inbounds=True), typ=I64)
        number = b.switch(error_id, fn.append_basic_block("not_a_check"))
        publish = fn.append_basic_block("publish")
        b.position_at_end(publish)
        k = b.phi(I64)
        for error_id_value, check in sorted(self.check_numbers.items()):
            case = fn.append_basic_block(f"check{check}")
            number.add_case(i64(error_id_value), case)
            cb = ir.IRBuilder(case)
            cb.branch(publish)
            k.add_incoming(i64(check), case)
        b.position_at_end(number.default)
        self._trap(b)
        b.position_at_end(publish)
        tid = b.zext(b.call(self.rt.intrinsic("llvm.nvvm.read.ptx.sreg.tid.x", I32, []), []),
                     I64)
        ctaid = b.zext(b.call(self.rt.intrinsic("llvm.nvvm.read.ptx.sreg.ctaid.x", I32, []),
                              []), I64)
        ntid = b.zext(b.call(self.rt.intrinsic("llvm.nvvm.read.ptx.sreg.ntid.x", I32, []),
                             []), I64)
        gid = b.add(b.mul(ctaid, ntid), tid)
        key = b.add(b.shl(gid, i64(KEY_BITS)), k)
        word = b.gep(aligned, [offset], inbounds=True, source_etype=I64)
        old = b.atomic_rmw("min", word, key, "monotonic")
        lowered = b.icmp_signed("<", key, old)
        values = fn.append_basic_block("values")
        b.cbranch(lowered, values, done)
        b.position_at_end(values)
        for j in range(self.errors.max_values):
            room = b.icmp_signed(">", size, i64(1 + j))
            with b.if_then(room):
                v = b.load(b.gep(ctx, [i64(0), i64(abi.CTX_VALUES + j)], inbounds=True),
                           typ=I64)
                b.store(v, b.gep(word, [i64(1 + j)], inbounds=True, source_etype=I64))
        b.branch(done)


class KernelBodyEmitter(FunctionEmitter):
    """A `gpu.func` (or `func.func`) body in the CPU convention; `gpu.return` returns.
    In a kernel with barriers a failing thread still arrives at the barriers it has
    not passed before it returns (Note [Barriers and failing threads])."""

    def __init__(self, mod: ModuleEmitter, info: FuncInfo) -> None:
        super().__init__(mod, info, recursive=False)
        op = info.op
        self.barriers = sum(isinstance(o, gpu.BarrierOp) for o in op.body.block.ops) \
            if isinstance(op, gpu.FuncOp) and op.body.blocks else 0
        """The barriers of the body (at its top level, kernel extraction's rule)."""
        self.passed: ir.Value | None = None
        """How many of them this thread has passed (an i32 in local memory)."""
        if self.barriers:
            self.passed = self.alloca_b.alloca(I32, name="barriers_passed")
            self.alloca_b.store(ir.Constant(I32, 0), self.passed)

    def _return(self, term: Operation) -> None:
        if isinstance(term, gpu.ReturnOp):
            self.return_values(term.args)
        else:
            super()._return(term)

    def barrier(self) -> None:
        """`bar.sync 0`, counted."""
        self.b.call(_barrier0(self), [ir.Constant(I32, 0)])
        if self.passed is not None:
            self.b.store(self.b.add(self.b.load(self.passed, typ=I32), ir.Constant(I32, 1)),
                         self.passed)

    @property
    def fail_block(self) -> ir.Block:
        """Status 1, after arriving at the barriers not yet passed."""
        if self._fail is None and self.passed is not None:
            self._fail = self.block("fail")
            drain = self.block("fail_barriers")
            done = self.block("fail_return")
            fb = ir.IRBuilder(self._fail)
            fb.branch(drain)
            db = ir.IRBuilder(drain)
            passed = db.load(self.passed, typ=I32)
            left = db.icmp_signed("<", passed, ir.Constant(I32, self.barriers))
            arrive = self.block("fail_arrive")
            db.cbranch(left, arrive, done)
            ab = ir.IRBuilder(arrive)
            ab.call(_barrier0(self), [ir.Constant(I32, 0)])
            ab.store(ab.add(passed, ir.Constant(I32, 1)), self.passed)
            ab.branch(drain)
            rb = ir.IRBuilder(done)
            ret_ty = cast(ir.LiteralStructType, self.fn.function_type.return_type)
            rb.ret(rb.insert_value(ir.Constant(ret_ty, ir.Undefined), ir.Constant(I32, 1), 0))
        return super().fail_block


# --------------------------------------------------------------------------- gpu ops


def _sreg(register: str) -> Handler:
    """`gpu.thread_id` & co. (dimension x): a PTX special register, as an index."""

    def emit(fe: FunctionEmitter, op: Operation) -> None:
        _dimension_x(op)
        fe.set(op.results[0], _read_sreg(fe, register))

    return emit


def _read_sreg(fe: FunctionEmitter, register: str) -> ir.Value:
    fn = fe.rt.intrinsic(f"llvm.nvvm.read.ptx.sreg.{register}.x", I32, [])
    return fe.b.zext(fe.b.call(fn, []), I64)


def _global_id(fe: FunctionEmitter, op: Operation) -> None:
    _dimension_x(op)
    block = fe.b.mul(_read_sreg(fe, "ctaid"), _read_sreg(fe, "ntid"), flags=["nuw", "nsw"])
    fe.set(op.results[0], fe.b.add(block, _read_sreg(fe, "tid"), flags=["nuw", "nsw"]))


def _dimension_x(op: Operation) -> None:
    dim = op.properties.get("dimension")
    if dim is None or str(getattr(dim, "data", "")) != "x":
        raise LoweringError(f"expected dimension x in {op.name}, found {dim}")


def _barrier0(fe: FunctionEmitter) -> ir.Function:
    """`barrier.sync` (PTX), not `bar.sync`: a failing thread arrives from another
    instruction than the others (Note [Barriers and failing threads])."""
    return fe.rt.intrinsic("llvm.nvvm.barrier.sync", ir.VoidType(), [I32])


def _barrier(fe: FunctionEmitter, op: Operation) -> None:
    if isinstance(fe, KernelBodyEmitter):
        fe.barrier()
    else:
        fe.b.call(_barrier0(fe), [ir.Constant(I32, 0)])


def _check(fe: FunctionEmitter, op: soac.AssertOp) -> None:
    """`soac.assert` as on the CPU, remembering the check's number for the error word."""
    site = abi.ErrorSite(op.msg.data, op.loc.data)
    error_id = fe.mod.errors.add(site, len(op.values))
    number = op.attributes.get(CHECK_ATTR)
    if isinstance(number, IntegerAttr):
        cast(KernelModuleEmitter, fe.mod).check_numbers[error_id] = number.value.data
    fe.fail_unless(fe.get(op.cond), error_id, [fe.get(v) for v in op.values])
    fe.set(op.cert, ir.Constant(I1, 1))


def _alloca(fe: FunctionEmitter, op: memref.AllocaOp) -> None:
    """Workgroup memory (memory space 3): a static `addrspace(3)` global per alloca,
    seen through a generic pointer (LLVM infers the address space back for the loads
    and stores). Other allocas are the CPU's (local memory)."""
    t = cast(MemRefType, op.memref.type)
    space = t.memory_space
    if not (isinstance(space, IntegerAttr) and space.value.data == WORKGROUP_SPACE):
        memref_ops.HANDLERS[memref.AllocaOp](fe, op)
        return
    shape = layout_of(t).shape
    if not layout_of(t).identity or any(s is None for s in shape):
        raise LoweringError(f"expected workgroup memory of a static shape, found {t}")
    count = 1
    for s in shape:
        count *= cast(int, s)
    mty = memory_type(elem_type(t))
    mod = cast(KernelModuleEmitter, fe.mod)
    g = ir.GlobalVariable(mod.llvm, ir.ArrayType(mty, count), f"l0_shared_{mod.shared}",
                          addrspace=WORKGROUP_SPACE)
    mod.shared += 1
    g.linkage = "internal"
    g.initializer = ir.Constant(g.value_type, ir.Undefined)
    g.align = 16
    ptr = fe.b.addrspacecast(g, PTR)
    fe.set(op.memref, make_desc(fe.b, t, ir.Constant(PTR, None), ptr, i64(0),
                                [i64(cast(int, s)) for s in shape], []))


HANDLERS: dict[type[Operation], Handler] = {
    gpu.ThreadIdOp: _sreg("tid"),
    gpu.BlockIdOp: _sreg("ctaid"),
    gpu.BlockDimOp: _sreg("ntid"),
    gpu.GridDimOp: _sreg("nctaid"),
    gpu.GlobalIdOp: _global_id,
    gpu.BarrierOp: _barrier,
    memref.AllocaOp: cast(Handler, _alloca),
    soac.AssertOp: cast(Handler, _check),
}
"""The device's own handlers, over the CPU emitter's."""
