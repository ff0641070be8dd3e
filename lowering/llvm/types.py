"""Types of the CPU back end: xDSL types to LLVM types, and the memref descriptor.

A memref value lives in emitted code as a `MemRefDesc`: MLIR's strided descriptor
(allocated pointer, aligned pointer, offset, sizes, strides), one SSA value per field.
Fields that the memref type states statically (a static size, a static stride or
offset of a `strided<...>` layout, the row-major strides and zero offset of the identity
layout) are always replaced by constants when a descriptor is (re)built from its
components (`make_desc`), so LLVM sees e.g. the unit inner stride of a contiguous array
and can vectorise; the dynamic fields are plain function parameters or phis.

Index arithmetic that we create ourselves (addresses, strides of views) carries `nsw`:
it stays within the allocation an in-bounds access addresses, so it cannot overflow.
L0's own integer arithmetic never gets `nsw` (it wraps), see `arith.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

import llvmlite.ir as ir
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import PassFailedException

from l0.dialects.soac import CertType

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
F64 = ir.DoubleType()
PTR = ir.PointerType()
VOID = ir.VoidType()

PASS_NAME = "convert-to-llvm"


class LoweringError(PassFailedException):
    """IR that the LLVM emitter cannot handle: a compiler bug, never a user error."""

    def __init__(self, message: str) -> None:
        super().__init__(f"{PASS_NAME}: {message}")


def const(ty: ir.Type, value: int | float) -> ir.Constant:
    return ir.Constant(ty, value)


def i64(value: int) -> ir.Constant:
    return ir.Constant(I64, value)


def scalar_type(t: Attribute) -> ir.Type:
    """The LLVM type of an SSA value of scalar type `t` (index is i64; a cert is a dummy i1)."""
    if isinstance(t, IntegerType):
        return ir.IntType(t.width.data)
    if isinstance(t, IndexType):
        return I64
    if isinstance(t, Float64Type):
        return F64
    if isinstance(t, Float32Type):
        return ir.FloatType()
    if isinstance(t, Float16Type):
        return ir.HalfType()
    if isinstance(t, CertType):
        return I1
    raise LoweringError(f"expected a scalar or memref type, found {t}")


def type_suffix(ty: ir.Type) -> str:
    """How intrinsic names spell an overloaded type: `i64`, `f64`, ..."""
    if isinstance(ty, ir.IntType):
        return f"i{ty.width}"
    if isinstance(ty, ir.DoubleType):
        return "f64"
    if isinstance(ty, ir.FloatType):
        return "f32"
    if isinstance(ty, ir.HalfType):
        return "f16"
    raise LoweringError(f"expected an integer or float type, found {ty}")


def memory_type(elem: Attribute) -> ir.Type:
    """How an element is stored: like its SSA type, except `i1`, stored as a byte (numpy bool)."""
    ty = scalar_type(elem)
    if isinstance(ty, ir.IntType) and ty.width == 1:
        return I8
    return ty


def byte_size(ty: ir.Type) -> int:
    if isinstance(ty, ir.IntType):
        return max(1, ty.width // 8)
    if isinstance(ty, ir.DoubleType):
        return 8
    if isinstance(ty, ir.FloatType):
        return 4
    if isinstance(ty, ir.HalfType):
        return 2
    raise LoweringError(f"no size known for LLVM type {ty}")


def is_memref(t: Attribute) -> bool:
    return isinstance(t, MemRefType)


# --------------------------------------------------------------------------- layouts


@dataclass(frozen=True)
class Layout:
    """What a memref type says statically: sizes, and strides/offset unless identity.

    `None` stands for a dynamic value. `identity` is the default row-major layout, whose
    offset is 0 and whose strides follow from the sizes.
    """

    shape: tuple[int | None, ...]
    identity: bool
    strides: tuple[int | None, ...]
    offset: int | None

    @property
    def rank(self) -> int:
        return len(self.shape)


def layout_of(t: MemRefType) -> Layout:
    shape = tuple(None if d == DYNAMIC_INDEX or d < 0 else d for d in t.get_shape())
    layout = t.layout
    if isinstance(layout, NoneAttr):
        return Layout(shape, True, (None,) * len(shape), 0)
    if isinstance(layout, StridedLayoutAttr):
        strides = tuple(s.data if isinstance(s, IntAttr) else None for s in layout.strides.data)
        offset = layout.offset.data if isinstance(layout.offset, IntAttr) else None
        if len(strides) != len(shape):
            raise LoweringError(f"expected {len(shape)} strides in {t}, found {len(strides)}")
        return Layout(shape, False, strides, offset)
    raise LoweringError(f"expected an identity or strided memref layout, found {layout}")


def elem_type(t: MemRefType) -> Attribute:
    return t.get_element_type()


# --------------------------------------------------------------------------- index math


def add_idx(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """`x + y` on index values we created (no overflow possible: `nsw`), folding constants."""
    if isinstance(x, ir.Constant) and isinstance(y, ir.Constant):
        return i64(_cint(x) + _cint(y))
    if _is_const(y, 0):
        return x
    if _is_const(x, 0):
        return y
    return b.add(x, y, flags=("nsw",))


def mul_idx(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """`x * y` on index values we created (`nsw`), folding constants."""
    if isinstance(x, ir.Constant) and isinstance(y, ir.Constant):
        return i64(_cint(x) * _cint(y))
    if _is_const(y, 1):
        return x
    if _is_const(x, 1):
        return y
    if _is_const(x, 0) or _is_const(y, 0):
        return i64(0)
    return b.mul(x, y, flags=("nsw",))


def _cint(c: ir.Constant) -> int:
    return int(c.constant)


def _is_const(v: ir.Value, n: int) -> bool:
    return isinstance(v, ir.Constant) and isinstance(v.constant, int) and v.constant == n


# --------------------------------------------------------------------------- descriptors


@dataclass
class MemRefDesc:
    """A memref in emitted code: MLIR's strided descriptor, one LLVM value per field.

    `allocated` is what `free` takes (NULL for buffers the compiled code does not own,
    such as numpy arrays passed in); `aligned` is where element 0 of the underlying
    buffer is; element (i0, ..., ik) lives at `aligned[offset + sum(i_j * strides[j])]`.
    """

    type: MemRefType
    allocated: ir.Value
    aligned: ir.Value
    offset: ir.Value
    sizes: list[ir.Value]
    strides: list[ir.Value]

    def components(self) -> list[ir.Value]:
        return [self.allocated, self.aligned, self.offset, *self.sizes, *self.strides]


def component_types(t: Attribute) -> list[ir.Type]:
    """The LLVM values a value of type `t` is made of (its ABI: one per descriptor field)."""
    if isinstance(t, MemRefType):
        rank = t.get_num_dims()
        return [PTR, PTR, I64] + [I64] * (2 * rank)
    return [scalar_type(t)]


def components(value: ir.Value | MemRefDesc) -> list[ir.Value]:
    if isinstance(value, MemRefDesc):
        return value.components()
    return [value]


def from_components(b: ir.IRBuilder, t: Attribute, parts: list[ir.Value]) -> ir.Value | MemRefDesc:
    """Rebuild a value of type `t` from `component_types(t)` values."""
    if not isinstance(t, MemRefType):
        return parts[0]
    rank = t.get_num_dims()
    return make_desc(b, t, parts[0], parts[1], parts[2], parts[3 : 3 + rank], parts[3 + rank :])


def make_desc(
    b: ir.IRBuilder,
    t: MemRefType,
    allocated: ir.Value,
    aligned: ir.Value,
    offset: ir.Value,
    sizes: list[ir.Value],
    strides: list[ir.Value],
) -> MemRefDesc:
    """A descriptor of type `t`, with every field the type fixes replaced by its constant."""
    lay = layout_of(t)
    sizes = [i64(s) if s is not None else v for s, v in zip(lay.shape, sizes, strict=True)]
    if lay.identity:
        return MemRefDesc(t, allocated, aligned, i64(0), sizes, row_major_strides(b, sizes))
    if lay.offset is not None:
        offset = i64(lay.offset)
    strides = [i64(s) if s is not None else v for s, v in zip(lay.strides, strides, strict=True)]
    return MemRefDesc(t, allocated, aligned, offset, sizes, strides)


def row_major_strides(b: ir.IRBuilder, sizes: list[ir.Value]) -> list[ir.Value]:
    strides: list[ir.Value] = [i64(1)] * len(sizes)
    for k in range(len(sizes) - 2, -1, -1):
        strides[k] = mul_idx(b, strides[k + 1], sizes[k + 1])
    return strides


def element_count(b: ir.IRBuilder, sizes: list[ir.Value]) -> ir.Value:
    n: ir.Value = i64(1)
    for s in sizes:
        n = mul_idx(b, n, s)
    return n
