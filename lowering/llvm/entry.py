"""Entry points: `i32 @"l0.entry.NAME"(ptr ctx, ptr slots)` wrappers (see `abi.py`).

The wrapper loads every argument component from its 8-byte slot, calls the internal
function, and on success stores the result components into the slots after the
arguments. Integers narrower than 64 bits are sign-extended in slots (zero-extended for
i1), f32 travels as a double; pointers as addresses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import llvmlite.ir as ir
from xdsl.dialects.builtin import FunctionType

from l0.lowering.llvm.types import F64, I32, I64, PTR, component_types, i64
from l0.lowering.runtime import abi

if TYPE_CHECKING:
    from l0.lowering.llvm.emit import FuncInfo, ModuleEmitter





def emit_entry(mod: ModuleEmitter, name: str, info: FuncInfo) -> ir.Function:
    ftype: FunctionType = info.op.function_type
    ins = [c for t in ftype.inputs.data for c in component_types(t)]
    outs = [c for t in ftype.outputs.data for c in component_types(t)]
    fn = ir.Function(mod.llvm, ir.FunctionType(I32, [PTR, PTR]), abi.ENTRY_PREFIX + name)
    fn.attributes.add("nounwind")
    ctx, slots = fn.args
    ctx.name, slots.name = "ctx", "slots"
    b = ir.IRBuilder(fn.append_basic_block("entry"))

    def slot(k: int) -> ir.Value:
        return b.gep(slots, [i64(k)], inbounds=True, source_etype=I64)

    args = [_load_slot(b, slot(k), ty) for k, ty in enumerate(ins)]
    call = b.call(info.llvm, [ctx, *args])
    status = b.extract_value(call, 0)
    failed = fn.append_basic_block("failed")
    done = fn.append_basic_block("done")
    b.cbranch(b.icmp_unsigned("!=", status, ir.Constant(I32, 0)), failed, done)
    b.position_at_end(failed)
    b.ret(status)
    b.position_at_end(done)
    for j, ty in enumerate(outs):
        _store_slot(b, slot(len(ins) + j), b.extract_value(call, 1 + j), ty)
    b.ret(ir.Constant(I32, 0))
    return fn


def _load_slot(b: ir.IRBuilder, ptr: ir.Value, ty: ir.Type) -> ir.Value:
    if isinstance(ty, ir.IntType):
        v = b.load(ptr, typ=I64, align=8)
        return v if ty.width == 64 else b.trunc(v, ty)
    if isinstance(ty, ir.PointerType):
        return b.load(ptr, typ=PTR, align=8)
    v = b.load(ptr, typ=F64, align=8)
    return v if isinstance(ty, ir.DoubleType) else b.fptrunc(v, ty)


def _store_slot(b: ir.IRBuilder, ptr: ir.Value, v: ir.Value, ty: ir.Type) -> None:
    if isinstance(ty, ir.IntType):
        if ty.width < 64:
            v = b.zext(v, I64) if ty.width == 1 else b.sext(v, I64)
        b.store(v, ptr, align=8)
    elif isinstance(ty, ir.PointerType):
        b.store(v, ptr, align=8)
    else:
        b.store(v if isinstance(ty, ir.DoubleType) else b.fpext(v, F64), ptr, align=8)
