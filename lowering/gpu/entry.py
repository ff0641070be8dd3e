"""The entry wrappers of the GPU back end: device arrays at the boundary with Python.

A function Python calls (public) takes device arrays and returns device arrays that
its caller owns: the back end's Python side (`l0.lowering.backends.gpu`, Note [Arrays
at main's boundary]) copies each host argument to the device with numba.cuda and each
result back, and frees the result on the device. After `convert-parallel-to-gpu` has
made every function work on device arrays, each public function `F` becomes a wrapper
that

1. calls the device version (dealloc's `F.impl`, which says which results it owns,
   or `F` itself renamed `F.gpu` when it returns no arrays) on its arguments as given,
2. hands back each array result as a fresh dense device array: one the device version
   owns as it is (when dense), any other (a view, an alias of an argument) copied,
   a strided one packed by a copy kernel; what it owned and did not hand back is freed.

Inside the program calls go to the device versions: arrays cross between host and
device only at the boundary (Note [Host and device memory] in `l0.lowering.gpu.host`).
On `gpu-sim` device arrays are host arrays, and the wrapper is what Python calls
directly, with numpy arrays as on the CPU.
"""

from __future__ import annotations

from xdsl.dialects import func, gpu, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Region, SSAValue

from l0.lowering.gpu.host import HostFunction, dense_type, dynamic_sizes
from l0.lowering.gpu.kernels import DeviceCode
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.memory.dealloc.flags import ENTRY_ATTR
from l0.passes.analysis.walk import walk_ops

DEVICE_SUFFIX = ".gpu"


def _fresh_copy(b: CodeBuilder, host: HostFunction, r: SSAValue) -> SSAValue:
    """A fresh dense device array holding `r`'s elements (a copy kernel packs a
    strided `r`)."""
    t = r.type
    assert isinstance(t, MemRefType)
    dense = dense_type(t)
    fresh = b.val(gpu.AllocOp(dense, dynamic_sizes(b, r)))
    if t == dense:
        b.add(gpu.MemcpyOp(r, fresh))
    else:
        host.copy(b.add(memref.CopyOp(r, fresh)))
    return fresh


def _hand_back(b: CodeBuilder, host: HostFunction, r: SSAValue,
               owned: SSAValue | None, frees: list[tuple[SSAValue, SSAValue]]) -> SSAValue:
    """`r` as a fresh dense device array its caller owns (`owned`: whether the device
    version gave `r` to the wrapper; None: it did not). An owned `r` that is copied is
    added to `frees`, freed once every result is handed back (results may be views of
    one buffer)."""
    t = r.type
    assert isinstance(t, MemRefType)
    dense = dense_type(t)
    if owned is None:
        return b.cast(_fresh_copy(b, host, r), t)
    if t != dense:
        frees.append((owned, r))
        return b.cast(_fresh_copy(b, host, r), t)
    (out,) = b.if_(owned, [dense], lambda tb: [r],
                   lambda eb: [_fresh_copy(eb, host, r)])
    return b.cast(out, t)


def wrap_entry(code: DeviceCode, module: ModuleOp, f: func.FuncOp) -> None:
    """Make public `f` the wrapper of its device version (module docstring)."""
    name = f.sym_name.data
    ftype = f.function_type
    owned = ENTRY_ATTR in f.attributes
    if owned:
        call = next(o for o in f.body.block.ops if isinstance(o, func.CallOp))
        target = call.callee.root_reference.data
        target_types = [r.type for r in call.results]
    else:
        target = name + DEVICE_SUFFIX
        for g in module.ops:
            for op in walk_ops(g) if isinstance(g, func.FuncOp) else ():
                if isinstance(op, func.CallOp) and op.callee.root_reference.data == name:
                    op.callee = SymbolRefAttr(target)
        target_types = list(ftype.outputs.data)
    block = Block(arg_types=ftype.inputs.data)
    wrapper = func.FuncOp(name, ftype, Region(block), arg_attrs=f.arg_attrs,
                          res_attrs=f.res_attrs)
    for key, value in f.attributes.items():
        if key not in ("sym_name", "function_type", "sym_visibility"):
            wrapper.attributes[key] = value
    if owned:
        module.body.block.insert_op_after(wrapper, f)
        f.detach()
        f.erase()
    else:
        f.sym_name = StringAttr(target)
        f.sym_visibility = StringAttr("private")
        module.body.block.insert_op_after(wrapper, f)
    b = CodeBuilder.at_end(block)
    host = HostFunction(code, wrapper)
    results = list(b.add(func.CallOp(target, list(block.args), target_types)).results)
    n = len(ftype.outputs.data)
    values, flags = results[:n], results[n:]
    owners = iter(flags)
    frees: list[tuple[SSAValue, SSAValue]] = []
    outs = [_hand_back(b, host, r, next(owners) if owned else None, frees)
            if isinstance(r.type, MemRefType) else r for r in values]
    for flag, r in frees:
        def free(tb: CodeBuilder, r: SSAValue = r) -> list[SSAValue]:
            tb.add(gpu.DeallocOp(r))
            return []

        b.if_(flag, [], free)
    b.add(func.ReturnOp(*outs))
