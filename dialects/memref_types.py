"""The memref types of bufferised L0 arrays, and their three layout kinds.

An L0 array `tensor<?x...xT>` becomes a `memref` whose layout is one of three kinds,
ordered from most to least static (`Kind`):

* `IDENTITY`: `memref<?x?xT>`, offset 0 and row-major strides. Every fresh buffer
  (the result of `map`, `iota`, `copy`, ...) has this type, so loops over it see a
  constant unit inner stride and vectorise directly.
* `INNER`: `memref<?x?xT, strided<[?, 1], offset: ?>>`, a unit inner stride at some
  offset: a row of a contiguous array, a `split` part, a `reshape` view.
* `ANY`: `memref<?x?xT, strided<[?, ?], offset: ?>>`: anything, e.g. a `transpose` view
  or a numpy array of any strides passed as a function argument.

A value of one kind can always be `memref.cast` to a later kind (`join`). Certificates
carry no run-time information, so arrays of `!soac.cert` are stored as `i1` (true).
"""

from __future__ import annotations

from enum import IntEnum
from typing import cast

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    TensorType,
    i1,
)
from xdsl.ir import Attribute

from l0.dialects.soac import CertType


class Kind(IntEnum):
    """The layout kind of an array's memref type (module docstring)."""

    IDENTITY = 0
    INNER = 1
    ANY = 2


def join(*kinds: Kind) -> Kind:
    """The least kind every value of the given kinds can be cast to."""
    return Kind(max(kinds, default=Kind.IDENTITY))


def element_of(t: Attribute) -> Attribute:
    """The element type memrefs use for array elements of IR type `t`."""
    return i1 if isinstance(t, CertType) else t


def memref_type(element: Attribute, rank: int, kind: Kind) -> MemRefType:
    """A memref of `rank` dynamic dimensions of `element` (already mapped) with `kind`."""
    shape = [DYNAMIC_INDEX] * rank
    if kind is Kind.IDENTITY:
        return MemRefType(element, shape)
    strides: list[int | None] = [None] * rank
    if kind is Kind.INNER:
        strides[-1] = 1
    return MemRefType(element, shape, StridedLayoutAttr(strides, None))


def memref_of(t: TensorType, kind: Kind) -> MemRefType:
    """The memref type of kind `kind` for the L0 array type `t`."""
    return memref_type(element_of(t.element_type), t.get_num_dims(), kind)


def kind_of(t: MemRefType) -> Kind:
    """The layout kind of a memref type (a static layout counts as what it guarantees)."""
    layout = t.layout
    if isinstance(layout, NoneAttr):
        return Kind.IDENTITY
    if isinstance(layout, StridedLayoutAttr):
        strides = layout.get_strides()
        if strides and strides[-1] == 1:
            return Kind.INNER
    return Kind.ANY


def rank_of(t: Attribute) -> int:
    """The rank of a memref or tensor type; 0 for scalars."""
    if isinstance(t, MemRefType | TensorType):
        return cast(MemRefType, t).get_num_dims()
    return 0


def element_type(t: MemRefType) -> Attribute:
    return t.get_element_type()


def row_kind(kind: Kind) -> Kind:
    """The kind of a row (or a slice of rows) of an array of kind `kind`: a view at a
    dynamic offset keeps a unit inner stride, but not offset 0."""
    return Kind.INNER if kind is not Kind.ANY else Kind.ANY


def row_of(t: MemRefType, count: int = 1) -> Attribute:
    """The type of `t` indexed by `count` indices: a memref view of lower rank, or the
    element type when every dimension is indexed."""
    rank = t.get_num_dims()
    if count >= rank:
        return element_type(t)
    return memref_type(element_type(t), rank - count, row_kind(kind_of(t)))


def with_kind(t: MemRefType, kind: Kind) -> MemRefType:
    """`t` with its layout replaced by one of kind `kind`."""
    return memref_type(element_type(t), t.get_num_dims(), kind)
