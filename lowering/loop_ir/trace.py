"""`soac.trace` in compiled code: calls into Python that print `loc: value` to stderr.

`trace(e)` prints its value, as the 2014 compiler did and as the interpreter does
(`l0.interp.soac`), and returns it. Compiled code calls three external functions
(body-less `func.func`s the back end declares as C functions), which the JIT resolves
to ctypes callbacks registered with LLVM (`CALLBACKS`, linked by `jit.link_callbacks`):

    l0_trace_scalar(i64 site, i64 value)        int, bool, char and cert values
    l0_trace_real(i64 site, f64 value)
    l0_trace_array(i64 site, i64 data, i64 offset, i64 dims)

`site` identifies the location and the L0 type of the traced value in a table of this
process (`SITES`); equal sites get equal ids, so equal modules compile to equal text
(and hit the JIT's cache). `data` is the array's aligned pointer, `offset` its offset
in elements, `dims` the address of its sizes followed by its strides (in elements).
This module emits the calls; the table and the callbacks, which code loaded from the
compile cache needs without xDSL, are `l0.lowering.runtime.trace_runtime` (output goes to its
`STREAM`).
"""

from __future__ import annotations

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    Float64Type,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    TensorType,
    f64,
    i32,
    i64,
)
from xdsl.ir import Attribute, SSAValue

from l0.dialects.soac import CertType
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.runtime.trace_runtime import ARRAY, CALLBACKS, REAL_FN, SCALAR, SITES, site_id
from l0.passes.analysis.walk import walk_ops
from l0.types import BOOL, CERT, CHAR, INT, REAL, ArrayType, BasicType

__all__ = ["ARRAY", "CALLBACKS", "REAL_FN", "SCALAR", "SITES", "declare", "emit_array_call",
           "emit_trace", "site_id", "sites_in", "source_type"]

_SIGNATURES: dict[str, list[Attribute]] = {
    SCALAR: [i64, i64],
    REAL_FN: [i64, f64],
    ARRAY: [i64, i64, i64, i64],
}


def sites_in(module: ModuleOp) -> dict[int, tuple[str, BasicType | ArrayType]]:
    """The trace sites (`SITES`) whose ids the calls of `emit_trace` in `module` pass."""
    found: dict[int, tuple[str, BasicType | ArrayType]] = {}
    for op in walk_ops(module):
        if isinstance(op, func.CallOp) and op.callee.string_value() in _SIGNATURES:
            sid = op.arguments[0].owner
            if isinstance(sid, arith.ConstantOp) and isinstance(sid.value, IntegerAttr):
                found[sid.value.value.data] = SITES[sid.value.value.data]
    return found


def source_type(t: Attribute) -> BasicType | ArrayType:
    """The L0 type of a flattened value of (soac-level) IR type `t`."""
    elem = t.element_type if isinstance(t, TensorType) else t
    basic: BasicType
    if isinstance(elem, CertType):
        basic = CERT
    elif isinstance(elem, Float64Type):
        basic = REAL
    elif elem == i32:
        basic = CHAR
    elif isinstance(elem, IntegerType) and elem.width.data == 1:
        basic = BOOL
    else:
        basic = INT
    if isinstance(t, TensorType):
        return ArrayType(basic, t.get_num_dims())
    return basic


# ---------------------------------------------------------------------------------------
# IR
# ---------------------------------------------------------------------------------------


def declare(module: ModuleOp, used: set[str]) -> None:
    """Add the declarations of the runtime functions in `used` to `module`."""
    for name in sorted(used):
        module.body.block.add_op(func.FuncOp.external(name, _SIGNATURES[name], []))


def emit_trace(b: CodeBuilder, value: SSAValue, t: BasicType | ArrayType, loc: str,
               used: set[str]) -> None:
    """Emit the call that prints `value` (of L0 type `t`, already bufferised) at `loc`."""
    sid = b.i64(site_id(loc, t))
    v_t = value.type
    if isinstance(v_t, MemRefType):
        emit_array_call(b, sid, value)
        used.add(ARRAY)
        return
    if isinstance(v_t, Float64Type):
        b.add(func.CallOp(REAL_FN, [sid, value], []))
        used.add(REAL_FN)
        return
    if isinstance(v_t, CertType):
        scalar = b.i64(1)
    elif isinstance(v_t, IntegerType) and v_t.width.data == 1:
        scalar = b.val(arith.ExtUIOp(value, i64))
    elif v_t == i32:
        scalar = b.val(arith.ExtSIOp(value, i64))
    else:
        scalar = value
    b.add(func.CallOp(SCALAR, [sid, scalar], []))
    used.add(SCALAR)


def emit_array_call(b: CodeBuilder, sid: SSAValue, a: SSAValue) -> func.CallOp:
    """The `l0_trace_array` call for the memref `a` (its sizes and strides in a stack
    array), also what the gpu back end makes for a dense host copy of a device array."""
    t = a.type
    assert isinstance(t, MemRefType)
    md = b.add(memref.ExtractStridedMetaDataOp(a))
    dims = b.val(memref.AllocaOp.get(i64, shape=[2 * t.get_num_dims()]))
    for k, v in enumerate([*md.sizes, *md.strides]):
        b.store(b.to_i64(v), dims, [b.i64(k)])
    data = b.to_i64(b.val(memref.ExtractAlignedPointerAsIndexOp.get(a)))
    where = b.to_i64(b.val(memref.ExtractAlignedPointerAsIndexOp.get(dims)))
    return b.add(func.CallOp(ARRAY, [sid, data, b.to_i64(md.offset), where], []))
