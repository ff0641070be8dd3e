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
Output goes to `STREAM` (None: `sys.stderr` at the time of the call).
"""

from __future__ import annotations

import ctypes
import sys
import threading
from typing import Any, TextIO

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    Float64Type,
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
from l0.lowering.builder import CodeBuilder
from l0.types import BOOL, CERT, CHAR, INT, REAL, ArrayType, BasicType

STREAM: TextIO | None = None
"""Where traced values are printed (None: the current `sys.stderr`)."""

SITES: dict[int, tuple[str, BasicType | ArrayType]] = {}
_ids: dict[tuple[str, str], int] = {}
_lock = threading.Lock()

SCALAR, REAL_FN, ARRAY = "l0_trace_scalar", "l0_trace_real", "l0_trace_array"

_SIGNATURES: dict[str, list[Attribute]] = {
    SCALAR: [i64, i64],
    REAL_FN: [i64, f64],
    ARRAY: [i64, i64, i64, i64],
}


def site_id(loc: str, t: BasicType | ArrayType) -> int:
    """The id of the trace site (`loc`, `t`) in this process."""
    key = (loc, str(t))
    with _lock:
        sid = _ids.get(key)
        if sid is None:
            sid = _ids[key] = len(_ids) + 1
            SITES[sid] = (loc, t)
        return sid


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
        _emit_array(b, sid, value, v_t)
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


def _emit_array(b: CodeBuilder, sid: SSAValue, a: SSAValue, t: MemRefType) -> None:
    rank = t.get_num_dims()
    md = b.add(memref.ExtractStridedMetaDataOp(a))
    dims = b.val(memref.AllocaOp.get(i64, shape=[2 * rank]))
    for k, v in enumerate([*md.sizes, *md.strides]):
        b.store(b.to_i64(v), dims, [b.i64(k)])
    data = b.to_i64(b.val(memref.ExtractAlignedPointerAsIndexOp.get(a)))
    where = b.to_i64(b.val(memref.ExtractAlignedPointerAsIndexOp.get(dims)))
    b.add(func.CallOp(ARRAY, [sid, data, b.to_i64(md.offset), where], []))


# ---------------------------------------------------------------------------------------
# Run time
# ---------------------------------------------------------------------------------------

_DTYPES = {"int": np.int64, "real": np.float64, "bool": np.bool_, "char": np.int32,
           "cert": np.bool_}


def _write(sid: int, render: Any) -> None:
    loc, t = SITES[sid]
    from l0.values import format_value

    stream = STREAM if STREAM is not None else sys.stderr
    try:
        stream.write(f"{loc}: {format_value(t, render(t))}\n")
    except Exception as err:  # a callback must never raise into compiled code
        print(f"l0: trace failed: {err}", file=sys.__stderr__)


def _scalar(sid: int, value: int) -> None:
    def render(t: BasicType | ArrayType) -> object:
        return bool(value) if t == BOOL else value

    _write(sid, render)


def _real(sid: int, value: float) -> None:
    _write(sid, lambda t: value)


def _array(sid: int, data: int, offset: int, dims: int) -> None:
    def render(t: BasicType | ArrayType) -> object:
        assert isinstance(t, ArrayType) and isinstance(t.elem, BasicType)
        r = t.rank
        meta = np.ctypeslib.as_array(ctypes.cast(dims, ctypes.POINTER(ctypes.c_int64)),
                                     shape=(2 * r,))
        shape = tuple(int(x) for x in meta[:r])
        dtype = np.dtype(_DTYPES[t.elem.kind.value])
        if any(n == 0 for n in shape):
            return np.empty(shape, dtype=dtype)
        strides = tuple(int(x) * dtype.itemsize for x in meta[r:])
        view = _Raw(data + offset * dtype.itemsize, shape, strides, dtype)
        return np.array(np.asarray(view), copy=True)

    _write(sid, render)


class _Raw:
    def __init__(self, data: int, shape: tuple[int, ...], strides: tuple[int, ...],
                 dtype: np.dtype[Any]) -> None:
        self.__array_interface__ = {"version": 3, "shape": shape, "strides": strides,
                                    "typestr": dtype.str, "data": (data, True)}


_SCALAR_T = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64)
_REAL_T = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_double)
_ARRAY_T = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                            ctypes.c_int64)
CALLBACKS = {SCALAR: _SCALAR_T(_scalar), REAL_FN: _REAL_T(_real), ARRAY: _ARRAY_T(_array)}
"""The runtime functions, by the names compiled code calls (`jit.link_callbacks`)."""
