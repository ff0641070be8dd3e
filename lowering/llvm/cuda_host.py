"""Host code of the GPU back end: `gpu.alloc/dealloc/memcpy/launch_func/wait` as calls
of the CUDA driver API (libcuda), in the host function's own LLVM IR.

| op | driver call |
|---|---|
| `gpu.alloc` | `cuMemAlloc_v2(&dptr, bytes)` (at least 1 byte; both pointers: `dptr`) |
| `gpu.dealloc` | `cuMemFree_v2(dptr)` |
| `gpu.memcpy` | `cuMemcpy(dst, src, bytes)` |
| `gpu.launch_func` | `cuLaunchKernel(f, gx, 1, 1, bx, 1, 1, shared, stream 0, params, NULL)` |
| `gpu.wait` | `cuCtxSynchronize()` |

Every call's `CUresult` is checked: a failure is a run-time error of the back end
("GPU: cuX failed with CUDA error N", `CUDA_ERROR_OUT_OF_MEMORY` as "out of memory"),
reported through the context like any other (`abi.py`): the run stops with a clear
error, never a crash. The calls are resolved in the process (libcuda is loaded by
`l0.lowering.runtime.gpu_runtime`, which also makes the device's context current in the
calling thread).

Note [One copy call]
`gpu.memcpy` does not say which side is the device's, and a host function may receive
either kind of buffer. `cuMemcpy` takes the direction from the addresses (unified
addressing, which every 64-bit CUDA platform has): host to device, device to host and
device to device are one call, each as fast as its `HtoD`/`DtoH`/`DtoD` twin. Both
sides must be contiguous (checked at run time for strided types). Copies and launches
go to the legacy default stream, which orders them: a launch is asynchronous, and the
next copy (from pageable host memory, or back to it) waits for it, so the host sees
the kernel's results, and a kernel that faulted makes that copy fail.

Kernels are found by name: the host module defines one pointer per kernel,
`l0.cuda.kernel.NAME` (`kernel_slot`), which the back end fills with the `CUfunction`
of the loaded PTX before the first call. A launch passes each kernel argument as the
CPU convention explodes it (a memref: allocated, aligned, offset, sizes, strides), as
the kernel entry of `nvptx.py` takes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import llvmlite.ir as ir
from xdsl.dialects import gpu
from xdsl.dialects.builtin import MemRefType, SymbolRefAttr
from xdsl.ir import Operation, SSAValue

from l0.lowering.llvm.memref import checked_bytes
from l0.lowering.llvm.types import (
    I1,
    I32,
    I64,
    PTR,
    LoweringError,
    MemRefDesc,
    byte_size,
    component_types,
    components,
    elem_type,
    element_count,
    i64,
    layout_of,
    make_desc,
    memory_type,
    mul_idx,
    row_major_strides,
)
from l0.lowering.runtime import abi
from l0.passes.analysis.walk import walk_ops

if TYPE_CHECKING:
    from l0.lowering.llvm.emit import FunctionEmitter, Handler

KERNEL_SLOT_PREFIX = "l0.cuda.kernel."
CUDA_ERROR_OUT_OF_MEMORY = 2
MAX_GRID = 2**31 - 1
MAX_BLOCK = 1024


def kernel_slot(symbol: str) -> str:
    """The host global holding the `CUfunction` of kernel `symbol`."""
    return KERNEL_SLOT_PREFIX + symbol


def _driver(fe: FunctionEmitter, name: str, args: Sequence[ir.Value],
            types: Sequence[ir.Type]) -> ir.Value:
    """Call driver function `name` (returning a CUresult) and check the result."""
    fn = fe.rt.external(name, I32, list(types))
    result = fe.b.call(fn, list(args))
    site = abi.ErrorSite(f"GPU: {name} failed with CUDA error {{0}}")
    fe.fail_unless(fe.b.icmp_unsigned("==", result, ir.Constant(I32, 0)),
                   fe.mod.errors.add(site, 1), [fe.b.zext(result, I64)])
    return result


def _sizes(fe: FunctionEmitter, t: MemRefType, dynamic: Sequence[SSAValue]) -> list[ir.Value]:
    dyn = iter(fe.get(v) for v in dynamic)
    return [i64(s) if s is not None else next(dyn) for s in layout_of(t).shape]


def _alloc(fe: FunctionEmitter, op: gpu.AllocOp) -> None:
    t = cast(MemRefType, op.result.type)
    if not layout_of(t).identity:
        raise LoweringError(f"expected gpu.alloc of an identity layout, found {t}")
    if op.asyncToken is not None or op.hostShared is not None:
        raise LoweringError("expected a synchronous gpu.alloc of device memory")
    sizes = _sizes(fe, t, op.dynamicSizes)
    nbytes = checked_bytes(fe, sizes, byte_size(memory_type(elem_type(t))))
    fe.fail_unless(fe.b.icmp_signed(">=", nbytes, i64(0)), abi.ERR_OUT_OF_MEMORY, [nbytes])
    slot = fe.alloca_b.alloca(I64, name="dptr")
    size = fe.b.select(fe.b.icmp_signed("==", nbytes, i64(0)), i64(1), nbytes)
    fn = fe.rt.external("cuMemAlloc_v2", I32, [PTR, I64])
    result = fe.b.call(fn, [slot, size])
    oom = fe.b.icmp_unsigned("!=", result, ir.Constant(I32, CUDA_ERROR_OUT_OF_MEMORY))
    fe.fail_unless(oom, abi.ERR_OUT_OF_MEMORY, [nbytes])
    site = abi.ErrorSite("GPU: cuMemAlloc_v2 failed with CUDA error {0}")
    fe.fail_unless(fe.b.icmp_unsigned("==", result, ir.Constant(I32, 0)),
                   fe.mod.errors.add(site, 1), [fe.b.zext(result, I64)])
    ptr = fe.b.inttoptr(fe.b.load(slot, typ=I64), PTR)
    fe.set(op.result, make_desc(fe.b, t, ptr, ptr, i64(0), sizes, []))


def _dealloc(fe: FunctionEmitter, op: gpu.DeallocOp) -> None:
    if op.asyncToken is not None:
        raise LoweringError("expected a synchronous gpu.dealloc")
    address = fe.b.ptrtoint(fe.desc(op.buffer).allocated, I64)
    _driver(fe, "cuMemFree_v2", [address], [I64])


def _start(fe: FunctionEmitter, d: MemRefDesc) -> ir.Value:
    """The address of the first element of `d`."""
    mty = memory_type(elem_type(d.type))
    return fe.b.ptrtoint(fe.b.gep(d.aligned, [d.offset], inbounds=True, source_etype=mty), I64)


def _contiguous(fe: FunctionEmitter, d: MemRefDesc) -> ir.Value:
    ok: ir.Value = ir.Constant(I1, 1)
    for s, want in zip(d.strides, row_major_strides(fe.b, d.sizes), strict=True):
        if isinstance(s, ir.Constant) and isinstance(want, ir.Constant) and (
                s.constant == want.constant):
            continue
        ok = fe.b.and_(ok, fe.b.icmp_signed("==", s, want))
    return ok


def _memcpy(fe: FunctionEmitter, op: gpu.MemcpyOp) -> None:
    """One `cuMemcpy` of the whole buffer (Note [One copy call])."""
    if op.asyncToken is not None:
        raise LoweringError("expected a synchronous gpu.memcpy")
    src, dst = fe.desc(op.src), fe.desc(op.dst)
    site = abi.ErrorSite("GPU: gpu.memcpy of a non-contiguous array")
    fe.fail_unless(fe.b.and_(_contiguous(fe, src), _contiguous(fe, dst)),
                   fe.mod.errors.add(site, 0))
    mty = memory_type(elem_type(src.type))
    nbytes = mul_idx(fe.b, element_count(fe.b, src.sizes), i64(byte_size(mty)))
    with fe.b.if_then(fe.b.icmp_signed(">", nbytes, i64(0))):
        _driver(fe, "cuMemcpy", [_start(fe, dst), _start(fe, src), nbytes], [I64, I64, I64])


def _dimension(fe: FunctionEmitter, v: SSAValue, most: int, what: str) -> ir.Value:
    """A grid or block size as the driver's `unsigned`, checked to be at most `most`."""
    x = fe.get(v)
    x64 = x if x.type == I64 else fe.b.sext(x, I64)
    site = abi.ErrorSite(f"GPU: a {what} of {{0}} (at most {most})")
    fe.fail_unless(fe.b.icmp_signed("<=", x64, i64(most)), fe.mod.errors.add(site, 1), [x64])
    return fe.b.trunc(x64, I32)


def _unit(fe: FunctionEmitter, v: SSAValue | None) -> bool:
    if v is None:
        return True
    owner = v.owner
    value = getattr(getattr(owner, "value", None), "value", None)
    return getattr(value, "data", None) == 1


def _launch(fe: FunctionEmitter, op: gpu.LaunchFuncOp) -> None:
    """`cuLaunchKernel` on stream 0 with the exploded arguments; nothing runs for an
    empty grid or block (which the driver would refuse)."""
    if op.asyncToken is not None or op.asyncDependencies:
        raise LoweringError("expected a synchronous gpu.launch_func")
    if not all(_unit(fe, v) for v in (op.gridSizeY, op.gridSizeZ, op.blockSizeY,
                                      op.blockSizeZ, op.clusterSizeX, op.clusterSizeY,
                                      op.clusterSizeZ)):
        raise LoweringError("expected a gpu.launch_func in dimension x only "
                            "(y and z sizes the constant 1, no clusters)")
    name = _kernel_name(op.kernel)
    _check_arguments(fe, op, name)
    b = fe.b
    gx = _dimension(fe, op.gridSizeX, MAX_GRID, "grid size")
    bx = _dimension(fe, op.blockSizeX, MAX_BLOCK, "block size")
    shared = fe.get(op.dynamicSharedMemorySize) if op.dynamicSharedMemorySize else (
        ir.Constant(I32, 0))
    args = [c for v in op.kernelOperands for c in components(fe.any(v))]
    # The driver reads `void *params[]`, one pointer per parameter's value.
    params = fe.alloca_b.alloca(ir.ArrayType(I64, max(len(args), 1)), name="params")
    for k, a in enumerate(args):
        slot = fe.alloca_b.alloca(a.type)
        b.store(a, slot)
        b.store(b.ptrtoint(slot, I64), b.gep(params, [i64(0), i64(k)], inbounds=True))
    zero = ir.Constant(I32, 0)
    one = ir.Constant(I32, 1)
    empty = b.or_(b.icmp_unsigned("==", gx, zero), b.icmp_unsigned("==", bx, zero))
    with b.if_then(b.not_(empty)):
        f = b.load(_slot_global(fe, name), typ=PTR)
        null = ir.Constant(PTR, None)
        _driver(fe, "cuLaunchKernel",
                [f, gx, one, one, bx, one, one, shared, null, params, null],
                [PTR, I32, I32, I32, I32, I32, I32, I32, PTR, PTR, PTR])


def _kernel_name(ref: SymbolRefAttr) -> str:
    nested = ref.nested_references.data
    return nested[-1].data if nested else ref.root_reference.data


def _check_arguments(fe: FunctionEmitter, op: gpu.LaunchFuncOp, name: str) -> None:
    """The launch passes what the kernel takes (after exploding memrefs)."""
    from l0.lowering.llvm.nvptx import kernel_ops

    kernel = next((k for k in kernel_ops(fe.mod.module) if k.sym_name.data == name), None)
    if kernel is None:
        raise LoweringError(f"gpu.launch_func of unknown kernel @{name}")
    want = [c for t in kernel.function_type.inputs.data for c in component_types(t)]
    have = [c for v in op.kernelOperands for c in component_types(v.type)]
    if [str(t) for t in want] != [str(t) for t in have]:
        raise LoweringError(f"gpu.launch_func of @{name}: the arguments do not match the "
                            f"kernel's parameters {kernel.function_type}")


def _slot_global(fe: FunctionEmitter, name: str) -> ir.GlobalVariable:
    slot_name = kernel_slot(name)
    existing = fe.mod.llvm.globals.get(slot_name)
    if isinstance(existing, ir.GlobalVariable):
        return existing
    g = ir.GlobalVariable(fe.mod.llvm, PTR, slot_name)
    g.initializer = ir.Constant(PTR, None)
    g.align = 8
    return g


def _wait(fe: FunctionEmitter, op: gpu.WaitOp) -> None:
    _driver(fe, "cuCtxSynchronize", [], [])
    if op.asyncToken is not None and op.asyncToken.uses:
        raise LoweringError("expected gpu.wait without users of its token")


def kernel_slots(module_ops: Sequence[Operation]) -> list[str]:
    """The kernel slot names a host module defines (the kernels it launches)."""
    return sorted({kernel_slot(_kernel_name(op.kernel)) for top in module_ops
                   for op in walk_ops(top) if isinstance(op, gpu.LaunchFuncOp)})


HANDLERS: dict[type[Operation], Handler] = {
    gpu.AllocOp: cast("Handler", _alloc),
    gpu.DeallocOp: cast("Handler", _dealloc),
    gpu.MemcpyOp: cast("Handler", _memcpy),
    gpu.LaunchFuncOp: cast("Handler", _launch),
    gpu.WaitOp: cast("Handler", _wait),
}
"""The host's gpu ops, over the CPU emitter's handlers (`emit_module(handlers=...)`)."""
