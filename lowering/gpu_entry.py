"""The entry wrappers of the GPU back end: copies at the boundary with Python.

A function Python calls (public) keeps the CPU signature, host arrays in and out
(`docs/backend.md`, "Calling convention"), so the JIT's entry code does not change.
After `convert-parallel-to-gpu` has made every function work on device arrays, each
public function `F` becomes a wrapper that

1. copies each array argument to a fresh device buffer (`gpu.alloc`, `gpu.memcpy`;
   an argument with strides, a numpy view, is first packed into a dense host buffer),
2. calls the device version (dealloc's `F.impl`, which says which results it owns,
   or `F` itself renamed `F.gpu` when it returns no arrays),
3. copies each array result into a fresh host buffer, which Python then owns (a
   strided result, a view, is first packed on the device by a copy kernel),
4. frees the results it owns and the argument copies on the device.

Inside the program calls go to the device versions: arrays cross between host and
device only here (Note [Host and device memory] in `l0.lowering.gpu_host`).
"""

from __future__ import annotations

from xdsl.dialects import func, gpu, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Region, SSAValue

from l0.lowering.builder import CodeBuilder
from l0.lowering.dealloc.flags import ENTRY_ATTR
from l0.lowering.gpu_host import HostFunction, dense_type, dynamic_sizes
from l0.lowering.gpu_kernels import DeviceCode

DEVICE_SUFFIX = ".gpu"


def _to_device(b: CodeBuilder, a: SSAValue) -> SSAValue:
    t = a.type
    assert isinstance(t, MemRefType)
    dense = dense_type(t)
    sizes = dynamic_sizes(b, a)
    d = b.val(gpu.AllocOp(dense, sizes))
    if t == dense:
        b.add(gpu.MemcpyOp(a, d))
    else:
        packed = b.val(memref.AllocOp(sizes, [], dense))
        b.copy(a, packed)
        b.add(gpu.MemcpyOp(packed, d))
        b.add(memref.DeallocOp.get(packed))
    return d


def _to_host(b: CodeBuilder, host: HostFunction, r: SSAValue) -> SSAValue:
    t = r.type
    assert isinstance(t, MemRefType)
    dense = dense_type(t)
    sizes = dynamic_sizes(b, r)
    h = b.val(memref.AllocOp(sizes, [], dense))
    if t == dense:
        b.add(gpu.MemcpyOp(r, h))
    else:
        packed = b.val(gpu.AllocOp(dense, sizes))
        copy = b.add(memref.CopyOp(r, packed))
        host.copy(copy)
        b.add(gpu.MemcpyOp(packed, h))
        b.add(gpu.DeallocOp(packed))
    return b.cast(h, t)


def wrap_entry(code: DeviceCode, module: ModuleOp, f: func.FuncOp) -> None:
    """Make public `f` a copying wrapper of its device version (module docstring)."""
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
            for op in g.walk() if isinstance(g, func.FuncOp) else ():
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
    devices: list[SSAValue] = []
    args: list[SSAValue] = []
    for a in block.args:
        if isinstance(a.type, MemRefType):
            d = _to_device(b, a)
            devices.append(d)
            args.append(b.cast(d, a.type))
        else:
            args.append(a)
    results = list(b.add(func.CallOp(target, args, target_types)).results)
    n = len(ftype.outputs.data)
    values, flags = results[:n], results[n:]
    outs = [_to_host(b, host, r) if isinstance(r.type, MemRefType) else r for r in values]
    device_results = [r for r in values if isinstance(r.type, MemRefType)]
    for r, flag in zip(device_results, flags, strict=True):
        def free(tb: CodeBuilder, r: SSAValue = r) -> list[SSAValue]:
            tb.add(gpu.DeallocOp(r))
            return []

        b.if_(flag, [], free)
    for d in devices:
        b.add(gpu.DeallocOp(d))
    b.add(func.ReturnOp(*outs))
