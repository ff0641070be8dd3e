"""A partition whose two classes are only concatenated: it writes the concatenation.

`concat(zeros, ones)` of a partition's classes (a radix sort's pass) bufferises to a
fresh buffer of `dim(zeros) + dim(ones)` rows and two copies into its halves. The
classes hold every row of the partition's input exactly once, so that buffer has the
input's n rows, and the partition can write the kept rows to rows [0, kept) of it and
the others from row `kept` on: no class buffers, no copies (Note [Partition into its
concatenation]). `convert-soac-to-scf` asks `concatenations` when it lowers an
`msoac.partition`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.ir import Block, Operation, OpResult, SSAValue

from l0.dialects import msoac

# Note [Partition into its concatenation]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# For each input (one-dimensional; rows of higher rank are left as they are), the
# bufferised concatenation of its two classes must be exactly
#
#     %dk = memref.dim %kept, 0            %dr = memref.dim %rejected, 0
#     %buf = memref.alloc(index_cast(index_cast(%dk) + index_cast(%dr)))
#     memref.copy %kept -> memref.subview %buf[0] [%dk] [1]
#     memref.copy %rejected -> memref.subview %buf[%dk] [%dr] [1]
#
# in the partition's block, the classes used by nothing but their `memref.dim`s and
# their copy, each view by nothing but its copy, the buffer by nothing before the
# copies but the views. Then `%buf` holds the kept rows then
# the others, which is what the partition writes into a buffer of n rows allocated in
# its place: `%buf` becomes that buffer, the copies and views go, and the classes'
# sizes are the count and n minus the count. The buffer is fresh and only the copies
# wrote it, so nothing can have seen it half-written.


@dataclass(frozen=True)
class Concatenation:
    """The concatenation of one input's two classes, as bufferised."""

    buffer: memref.AllocOp
    copies: tuple[memref.CopyOp, memref.CopyOp]
    views: tuple[memref.SubviewOp, memref.SubviewOp]
    kept_dims: tuple[memref.DimOp, ...]
    rejected_dims: tuple[memref.DimOp, ...]


def concatenations(op: msoac.PartitionOp) -> list[Concatenation] | None:
    """One concatenation per input when every input's classes are only concatenated
    (Note [Partition into its concatenation]); else None."""
    found = [_concatenation(op, k, r) for k, r in zip(op.kept, op.rejected, strict=True)]
    if any(c is None for c in found):
        return None
    return [c for c in found if c is not None]


def _uses(v: SSAValue) -> tuple[list[memref.DimOp], list[memref.CopyOp]] | None:
    """The `memref.dim`s (of dimension 0) and copies from `v`, if that is all its uses."""
    dims: list[memref.DimOp] = []
    copies: list[memref.CopyOp] = []
    for use in v.uses:
        user = use.operation
        if isinstance(user, memref.DimOp) and _index_constant(user.index) == 0:
            dims.append(user)
        elif isinstance(user, memref.CopyOp) and user.source is v and user.destination is not v:
            copies.append(user)
        else:
            return None
    return dims, copies


def _index_constant(v: SSAValue) -> int | None:
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp):
        value = v.op.value
        if isinstance(value, IntegerAttr):
            return value.value.data
    return None


def _in_block(op: Operation, block: Block) -> Operation | None:
    """`op`, or its ancestor, in `block`."""
    while op.parent_block() is not block:
        parent = op.parent_op()
        if parent is None:
            return None
        op = parent
    return op


def _used_after(buffer: memref.AllocOp, views: tuple[memref.SubviewOp, ...],
                copies: tuple[memref.CopyOp, ...]) -> bool:
    """Every use of `buffer` but `views` comes after `copies`: nothing writes it
    before the copies fill it."""
    block = buffer.parent_block()
    assert block is not None
    for use in buffer.memref.uses:
        if use.operation in views:
            continue
        user = _in_block(use.operation, block)
        if user is None or any(not c.is_before_in_block(user) for c in copies):
            return False
    return True


def _view(copy: memref.CopyOp) -> memref.SubviewOp | None:
    dest = copy.destination
    if not (isinstance(dest, OpResult) and isinstance(dest.op, memref.SubviewOp)):
        return None
    view = dest.op
    return view if view.result.has_one_use() else None


def _static(view: memref.SubviewOp) -> tuple[list[int], list[int], list[int]]:
    return (list(view.static_offsets.get_values()), list(view.static_sizes.get_values()),
            list(view.static_strides.get_values()))


def _is_dim_of(v: SSAValue, dims: list[memref.DimOp]) -> bool:
    return isinstance(v, OpResult) and v.op in dims


def _cast_of(v: SSAValue) -> SSAValue | None:
    if isinstance(v, OpResult) and isinstance(v.op, arith.IndexCastOp):
        return v.op.input
    return None


def _size_is_sum(alloc: memref.AllocOp, kept: list[memref.DimOp],
                 rejected: list[memref.DimOp]) -> bool:
    """The buffer's size is `index_cast(index_cast(dim kept) + index_cast(dim rejected))`."""
    if len(alloc.dynamic_sizes) != 1:
        return False
    total = _cast_of(alloc.dynamic_sizes[0])
    if not (isinstance(total, OpResult) and isinstance(total.op, arith.AddiOp)):
        return False
    a, b = _cast_of(total.op.lhs), _cast_of(total.op.rhs)
    return (a is not None and b is not None
            and _is_dim_of(a, kept) and _is_dim_of(b, rejected))


def _concatenation(op: msoac.PartitionOp, kept: SSAValue,
                   rejected: SSAValue) -> Concatenation | None:
    kt = kept.type
    if not (isinstance(kt, MemRefType) and kt.get_num_dims() == 1):
        return None
    k_uses, r_uses = _uses(kept), _uses(rejected)
    if k_uses is None or r_uses is None:
        return None
    (k_dims, k_copies), (r_dims, r_copies) = k_uses, r_uses
    if len(k_copies) != 1 or len(r_copies) != 1:
        return None
    k_view, r_view = _view(k_copies[0]), _view(r_copies[0])
    if k_view is None or r_view is None or k_view.source is not r_view.source:
        return None
    buf = k_view.source
    if not (isinstance(buf, OpResult) and isinstance(buf.op, memref.AllocOp)
            and buf.type == kt):
        return None
    alloc = buf.op
    block = op.parent_block()
    if any(o.parent_block() is not block for o in (alloc, k_copies[0], r_copies[0])):
        return None
    k_static, r_static = _static(k_view), _static(r_view)
    # kept: [0] [dim kept] [1]; rejected: [dim kept] [dim rejected] [1]
    if not (k_static[0] == [0] and k_static[2] == [1] and r_static[2] == [1]
            and len(k_view.sizes) == 1 and _is_dim_of(k_view.sizes[0], k_dims)
            and len(r_view.offsets) == 1 and _is_dim_of(r_view.offsets[0], k_dims)
            and len(r_view.sizes) == 1 and _is_dim_of(r_view.sizes[0], r_dims)
            and not k_view.offsets and not k_view.strides and not r_view.strides):
        return None
    if (not _size_is_sum(alloc, k_dims, r_dims)
            or not _used_after(alloc, (k_view, r_view), (k_copies[0], r_copies[0]))):
        return None
    return Concatenation(alloc, (k_copies[0], r_copies[0]), (k_view, r_view),
                         tuple(k_dims), tuple(r_dims))
