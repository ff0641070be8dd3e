"""`memref` to LLVM IR: strided descriptors, element access, allocation, views, copies.

Element (i0, ..., ik) of a memref is at `aligned + (offset + sum(i_j * stride_j))`
elements: an `inbounds` GEP on the element type whose index arithmetic is `nsw` (the
producer guarantees in-bounds accesses, with `soac.assert`s). Loads and stores carry a
TBAA tag per element type (`ModuleEmitter.tbaa`). Views (`subview`, `reinterpret_cast`,
`collapse_shape`, `expand_shape`, `cast`) only compute a new descriptor.

Allocation: `memref.alloc` takes 64-byte aligned heap memory; a negative size, a byte
count that overflows i64 or a failed allocation is the "out of memory" error, never a
crash. `memref.dealloc` frees the *allocated* pointer, which is NULL for memory the
compiled code does not own (numpy arrays passed in, globals): freeing those is a no-op.

`memref.alloca`: static ones (up to 64 KiB per function, not under a loop that carries
memrefs) become `alloca`s in the entry block, where LLVM's SROA can turn them into
registers. Any other is allocated where it stands, after checking that it fits above
the stack floor (else the "stack overflow" error); loops restore the stack after each
iteration (`scf.py`), so in a loop such a buffer lives for one iteration.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

import llvmlite.ir as ir
from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Operation, SSAValue

from l0.lowering.llvm.scf import carries_memrefs
from l0.lowering.llvm.types import (
    I1,
    I8,
    I64,
    PTR,
    LoweringError,
    MemRefDesc,
    add_idx,
    byte_size,
    elem_type,
    element_count,
    i64,
    layout_of,
    make_desc,
    memory_type,
    mul_idx,
    row_major_strides,
    scalar_type,
)
from l0.lowering.memory.memory_plan import ITERATION_SLICE_ATTR
from l0.lowering.runtime import abi
from l0.lowering.runtime.run_tables import global_symbol
from l0.passes.analysis.walk import walk_ops

if TYPE_CHECKING:
    from l0.lowering.llvm.emit import FunctionEmitter, Handler, ModuleEmitter

MAX_ENTRY_ALLOCAS = 64 * 1024
NULL = ir.Constant(PTR, None)


# --------------------------------------------------------------------------- access


def element_ptr(fe: FunctionEmitter, d: MemRefDesc, indices: Sequence[ir.Value]) -> ir.Value:
    b = fe.b
    lin = d.offset
    for i, s in zip(indices, d.strides, strict=True):
        lin = add_idx(b, lin, mul_idx(b, i, s))
    return b.gep(d.aligned, [lin], inbounds=True, source_etype=memory_type(elem_type(d.type)))


def load_element(fe: FunctionEmitter, d: MemRefDesc, indices: Sequence[ir.Value],
                 source: SSAValue | None = None) -> ir.Value:
    """Load an element; `source`, the memref loaded from, gives its alias scopes."""
    mty = memory_type(elem_type(d.type))
    v = fe.b.load(element_ptr(fe, d, indices), typ=mty, align=byte_size(mty))
    v.set_metadata("tbaa", fe.mod.tbaa(mty))
    if source is not None:
        fe.alias_scopes().tag(source, v)
    if mty == I8 and _is_bool(d):
        return fe.b.icmp_unsigned("!=", v, ir.Constant(I8, 0))
    return v


def store_element(fe: FunctionEmitter, d: MemRefDesc, indices: Sequence[ir.Value],
                  value: ir.Value, source: SSAValue | None = None) -> None:
    """Store an element; `source`, the memref stored to, gives its alias scopes."""
    mty = memory_type(elem_type(d.type))
    if value.type == I1:
        value = fe.b.zext(value, I8)
    st = fe.b.store(value, element_ptr(fe, d, indices), align=byte_size(mty))
    st.set_metadata("tbaa", fe.mod.tbaa(mty))
    if source is not None:
        fe.alias_scopes().tag(source, st)


def _is_bool(d: MemRefDesc) -> bool:
    return scalar_type(elem_type(d.type)) == I1


def _load(fe: FunctionEmitter, op: memref.LoadOp) -> None:
    fe.set(op.res, load_element(fe, fe.desc(op.memref), [fe.get(i) for i in op.indices],
                                op.memref))


def _store(fe: FunctionEmitter, op: memref.StoreOp) -> None:
    store_element(fe, fe.desc(op.memref), [fe.get(i) for i in op.indices], fe.get(op.value),
                  op.memref)


_ATOMIC_KINDS = {1: "add"}
"""`memref.atomic_rmw` kinds (MLIR's `AtomicRMWKind`) the emitter supports: `addi`."""


def _atomic_rmw(fe: FunctionEmitter, op: memref.AtomicRMWOp) -> None:
    kind = _ATOMIC_KINDS.get(op.kind.value.data)
    if kind is None or not isinstance(op.value.type, IntegerType):
        raise LoweringError(f"convert-to-llvm: unsupported memref.atomic_rmw kind "
                            f"{op.kind.value.data} on {op.value.type}")
    ptr = element_ptr(fe, fe.desc(op.memref), [fe.get(i) for i in op.indices])
    fe.set(op.result, fe.b.atomic_rmw(kind, ptr, fe.get(op.value), "monotonic"))


# --------------------------------------------------------------------------- allocation


def _sizes(fe: FunctionEmitter, t: MemRefType, dynamic: Sequence[SSAValue]) -> list[ir.Value]:
    dyn = iter(fe.get(v) for v in dynamic)
    return [i64(s) if s is not None else next(dyn) for s in layout_of(t).shape]


def checked_bytes(fe: FunctionEmitter, sizes: Sequence[ir.Value], esize: int) -> ir.Value:
    """`esize * prod(sizes)`, or -1 if a size is negative or the product overflows i64."""
    b = fe.b
    total: ir.Value = i64(esize)
    bad: ir.Value = ir.Constant(I1, 0)
    for s in sizes:
        if isinstance(s, ir.Constant) and isinstance(total, ir.Constant):
            n = int(total.constant) * int(s.constant)
            if not 0 <= n < 2**63 or int(s.constant) < 0:
                bad, n = ir.Constant(I1, 1), 0
            total = i64(n)
            continue
        pair = b.smul_with_overflow(total, s)
        wrong = b.or_(b.icmp_signed("<", s, i64(0)), b.extract_value(pair, 1))
        bad = wrong if _is_false(bad) else b.or_(bad, wrong)
        total = b.extract_value(pair, 0)
    if isinstance(bad, ir.Constant):
        return i64(-1) if bad.constant else total
    return b.select(bad, i64(-1), total)


def _is_false(v: ir.Value) -> bool:
    return isinstance(v, ir.Constant) and not v.constant


def _alloc(fe: FunctionEmitter, op: memref.AllocOp) -> None:
    t = cast(MemRefType, op.memref.type)
    if not layout_of(t).identity:
        raise LoweringError(f"expected memref.alloc of an identity layout, found {t}")
    sizes = _sizes(fe, t, op.dynamic_sizes)
    nbytes = checked_bytes(fe, sizes, byte_size(memory_type(elem_type(t))))
    ptr = fe.b.call(fe.rt.alloc(), [nbytes])
    loc = op.attributes.get("loc")  # the construct it is made for, from bufferise
    error_id = abi.ERR_OUT_OF_MEMORY if not isinstance(loc, StringAttr) else \
        fe.mod.errors.add(abi.ErrorSite(abi.OUT_OF_MEMORY, loc.data), 1)
    fe.fail_unless(fe.b.icmp_unsigned("!=", ptr, NULL), error_id, [nbytes])
    fe.set(op.memref, make_desc(fe.b, t, ptr, ptr, i64(0), sizes, []))


def plan_entry_allocas(fn: func.FuncOp) -> set[Operation]:
    """The `memref.alloca`s of `fn` to allocate in its entry block.

    Static ones, in program order, while their total stays within `MAX_ENTRY_ALLOCAS`
    (bounding the frame, which the stack checks rely on), and not under a loop that
    carries memrefs (a buffer of one iteration could then still be in use in the next,
    so it must not be shared).
    """
    chosen: set[Operation] = set()
    total = 0
    for op in walk_ops(fn):
        if not isinstance(op, memref.AllocaOp):
            continue
        t = cast(MemRefType, op.memref.type)
        shape = layout_of(t).shape
        if any(s is None for s in shape):
            continue
        nbytes = byte_size(memory_type(elem_type(t)))
        for s in shape:
            nbytes *= cast(int, s)
        if total + nbytes > MAX_ENTRY_ALLOCAS or _under_carrying_loop(op, carries_memrefs):
            continue
        chosen.add(op)
        total += nbytes
    return chosen


def _under_carrying_loop(op: Operation, carries: Callable[[Operation], bool]) -> bool:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, scf.ForOp | scf.WhileOp | scf.ParallelOp) and carries(parent):
            return True
        parent = parent.parent_op()
    return False


def _alloca(fe: FunctionEmitter, op: memref.AllocaOp) -> None:
    t = cast(MemRefType, op.memref.type)
    if not layout_of(t).identity:
        raise LoweringError(f"expected memref.alloca of an identity layout, found {t}")
    mty = memory_type(elem_type(t))
    sizes = _sizes(fe, t, op.dynamic_sizes)
    if op in fe.entry_allocas:
        ptr = fe.alloca_b.alloca(mty, size=element_count(fe.b, sizes))
    else:
        nbytes = checked_bytes(fe, sizes, byte_size(mty))
        fe.check_stack(nbytes)
        ptr = fe.b.alloca(mty, size=element_count(fe.b, sizes))
    fe.set(op.memref, make_desc(fe.b, t, NULL, ptr, i64(0), sizes, []))


def _dealloc(fe: FunctionEmitter, op: memref.DeallocOp) -> None:
    fe.b.call(fe.rt.free(), [fe.desc(op.memref).allocated])


def _alloca_scope(fe: FunctionEmitter, op: memref.AllocaScopeOp) -> None:
    sp = fe.b.call(fe.rt.stacksave(), [])
    results = fe.yielded(op.scope.block, [])
    fe.b.call(fe.rt.stackrestore(), [sp])
    for r, v in zip(op.res, results, strict=True):
        fe.set(r, v)


# --------------------------------------------------------------------------- shape queries


def _dim(fe: FunctionEmitter, op: memref.DimOp) -> None:
    d = fe.desc(op.source)
    k = fe.get(op.index)
    if isinstance(k, ir.Constant):
        n = int(k.constant)
        fe.set(op.result, d.sizes[n] if 0 <= n < len(d.sizes) else i64(0))
        return
    res: ir.Value = i64(0)
    for n, s in enumerate(d.sizes):
        res = fe.b.select(fe.b.icmp_signed("==", k, i64(n)), s, res)
    fe.set(op.result, res)


def _rank(fe: FunctionEmitter, op: memref.RankOp) -> None:
    fe.set(op.rank, i64(len(fe.desc(op.source).sizes)))


def _extract_metadata(fe: FunctionEmitter, op: memref.ExtractStridedMetaDataOp) -> None:
    d = fe.desc(op.source)
    base_t = cast(MemRefType, op.base_buffer.type)
    fe.set(op.base_buffer, make_desc(fe.b, base_t, d.allocated, d.aligned, i64(0), [], []))
    fe.set(op.offset, d.offset)
    for r, v in zip(op.sizes, d.sizes, strict=True):
        fe.set(r, v)
    for r, v in zip(op.strides, d.strides, strict=True):
        fe.set(r, v)


def _extract_pointer(fe: FunctionEmitter, op: memref.ExtractAlignedPointerAsIndexOp) -> None:
    fe.set(op.aligned_pointer, fe.b.ptrtoint(fe.desc(op.source).aligned, I64))


# --------------------------------------------------------------------------- views


def _mixed(fe: FunctionEmitter, static: Sequence[int],
           dynamic: Sequence[SSAValue]) -> list[ir.Value]:
    dyn = iter(fe.get(v) for v in dynamic)
    return [next(dyn) if s == DYNAMIC_INDEX else i64(s) for s in static]


def _subview(fe: FunctionEmitter, op: memref.SubviewOp) -> None:
    b = fe.b
    src = fe.desc(op.source)
    offsets = _mixed(fe, op.static_offsets.get_values(), op.offsets)
    sizes = _mixed(fe, op.static_sizes.get_values(), op.sizes)
    steps = _mixed(fe, op.static_strides.get_values(), op.strides)
    offset = src.offset
    for o, s in zip(offsets, src.strides, strict=True):
        offset = add_idx(b, offset, mul_idx(b, o, s))
    strides = [mul_idx(b, s, k) for s, k in zip(src.strides, steps, strict=True)]
    t = cast(MemRefType, op.result.type)
    dropped = _dropped_dims(op.static_sizes.get_values(), t.get_num_dims())
    kept = [k for k in range(len(sizes)) if k not in dropped]
    fe.set(op.result, make_desc(b, t, src.allocated, src.aligned, offset,
                                [sizes[k] for k in kept], [strides[k] for k in kept]))


def _dropped_dims(static_sizes: Sequence[int], result_rank: int) -> set[int]:
    """The unit dimensions a rank-reducing subview drops (the leftmost ones that must go).

    Which of several unit dimensions is dropped does not matter: a dimension of size 1
    is only ever indexed by 0, so its stride never contributes to an address.
    """
    to_drop = len(static_sizes) - result_rank
    dropped: set[int] = set()
    for k, s in enumerate(static_sizes):
        if len(dropped) == to_drop:
            break
        if s == 1:
            dropped.add(k)
    if len(dropped) != to_drop:
        raise LoweringError(f"expected {to_drop} unit dimensions to drop in memref.subview, "
                            f"found {len(dropped)}")
    return dropped


def _reinterpret_cast(fe: FunctionEmitter, op: memref.ReinterpretCastOp) -> None:
    src = fe.desc(op.source)
    (offset,) = _mixed(fe, op.static_offsets.get_values(), op.offsets)
    sizes = _mixed(fe, op.static_sizes.get_values(), op.sizes)
    strides = _mixed(fe, op.static_strides.get_values(), op.strides)
    t = cast(MemRefType, op.result.type)
    aligned = src.aligned
    if layout_of(t).identity and not _is_zero(offset):
        # An identity layout has offset 0: the view starts at its pointer (a slice of a
        # buffer expanded for a parallel loop, `lowering/memory/expand_allocs.py`).
        aligned = fe.b.gep(aligned, [offset], inbounds=True,
                           source_etype=memory_type(elem_type(t)))
    check = fe.rt.slice_check()
    if check is not None and ITERATION_SLICE_ATTR in op.attributes:
        # Note [Checking the slices] in `l0.lowering.memory.expand_allocs`: the slice is
        # row-major and contiguous, its elements from `aligned` on.
        end = fe.b.gep(aligned, [element_count(fe.b, sizes)],
                       source_etype=memory_type(elem_type(t)))
        fe.b.call(check, [src.allocated, aligned, end])
    fe.set(op.result, make_desc(fe.b, t, src.allocated, aligned, offset, sizes, strides))


def _is_zero(v: ir.Value) -> bool:
    return isinstance(v, ir.Constant) and v.constant == 0


def _same_buffer(source: Callable[[Operation], SSAValue], result: Callable[[Operation], SSAValue]
                 ) -> Handler:
    """Ops whose result is their operand under another type (cast, assume_alignment)."""

    def emit(fe: FunctionEmitter, op: Operation) -> None:
        src = fe.desc(source(op))
        res = result(op)
        t = cast(MemRefType, res.type)
        fe.set(res, make_desc(fe.b, t, src.allocated, src.aligned, src.offset, src.sizes,
                              src.strides))

    return emit


def _groups(op: memref.CollapseShapeOp | memref.ExpandShapeOp) -> list[list[int]]:
    return [[cast(IntegerAttr, e).value.data for e in cast(ArrayAttr, g).data]
            for g in op.reassociation.data]


def _collapse_shape(fe: FunctionEmitter, op: memref.CollapseShapeOp) -> None:
    src = fe.desc(op.src)
    sizes: list[ir.Value] = []
    strides: list[ir.Value] = []
    for g in _groups(op):
        sizes.append(element_count(fe.b, [src.sizes[k] for k in g]))
        strides.append(src.strides[g[-1]])
    t = cast(MemRefType, op.result.type)
    fe.set(op.result, make_desc(fe.b, t, src.allocated, src.aligned, src.offset, sizes, strides))


def _expand_shape(fe: FunctionEmitter, op: memref.ExpandShapeOp) -> None:
    src = fe.desc(op.src)
    sizes = _mixed(fe, op.static_output_shape.get_values(), op.output_shape)
    strides: list[ir.Value] = [i64(0)] * len(sizes)
    for d, g in enumerate(_groups(op)):
        inner = src.strides[d]
        for k in reversed(g):
            strides[k] = inner
            inner = mul_idx(fe.b, inner, sizes[k])
    t = cast(MemRefType, op.result.type)
    fe.set(op.result, make_desc(fe.b, t, src.allocated, src.aligned, src.offset, sizes, strides))


# --------------------------------------------------------------------------- copies


def loop_nest(fe: FunctionEmitter, sizes: Sequence[ir.Value],
              body: Callable[[list[ir.Value]], None]) -> None:
    """`for i0 in [0, sizes[0]) ... for ik: body([i0..ik])` (iteratively built)."""
    b = fe.b
    ivs: list[ir.Value] = []
    latches: list[tuple[ir.PhiInstr, ir.Block, ir.Block]] = []
    for n in sizes:
        pre = b.block
        head, inner, exit_ = fe.block("copy.head"), fe.block("copy.body"), fe.block("copy.end")
        b.branch(head)
        b.position_at_end(head)
        iv = b.phi(I64)
        iv.add_incoming(i64(0), pre)
        b.cbranch(b.icmp_signed("<", iv, n), inner, exit_)
        b.position_at_end(inner)
        ivs.append(iv)
        latches.append((iv, head, exit_))
    body(ivs)
    for iv, head, exit_ in reversed(latches):
        iv.add_incoming(b.add(iv, i64(1), flags=("nsw",)), b.block)
        b.branch(head)
        b.position_at_end(exit_)


def _contiguous(fe: FunctionEmitter, d: MemRefDesc) -> ir.Value:
    b = fe.b
    ok: ir.Value = ir.Constant(I1, 1)
    for s, want in zip(d.strides, row_major_strides(b, d.sizes), strict=True):
        if isinstance(s, ir.Constant) and isinstance(want, ir.Constant):
            if s.constant == want.constant:
                continue
        ok = b.and_(ok, b.icmp_signed("==", s, want))
    return ok


def _copy(fe: FunctionEmitter, op: memref.CopyOp) -> None:
    """Copy element-wise over the common extent (the shapes must agree; if they do not,
    only the overlap is copied, never out of bounds); whole-buffer `memmove` when both
    sides are contiguous with equal shapes."""
    b = fe.b
    src, dst = fe.desc(op.source), fe.desc(op.destination)
    sizes: list[ir.Value] = []
    same: ir.Value = ir.Constant(I1, 1)
    for x, y in zip(src.sizes, dst.sizes, strict=True):
        if isinstance(x, ir.Constant) and isinstance(y, ir.Constant):
            sizes.append(i64(min(int(x.constant), int(y.constant))))
            same = same if x.constant == y.constant else ir.Constant(I1, 0)
            continue
        sizes.append(b.select(b.icmp_signed("<", x, y), x, y))
        same = b.and_(same, b.icmp_signed("==", x, y))
    fast = b.and_(same, b.and_(_contiguous(fe, src), _contiguous(fe, dst)))
    mty = memory_type(elem_type(src.type))
    with b.if_else(fast) as (then, otherwise):
        with then:
            nbytes = mul_idx(b, element_count(b, sizes), i64(byte_size(mty)))
            to = b.gep(dst.aligned, [dst.offset], inbounds=True, source_etype=mty)
            frm = b.gep(src.aligned, [src.offset], inbounds=True, source_etype=mty)
            b.call(fe.rt.memmove(), [to, frm, nbytes, ir.Constant(I1, 0)])
        with otherwise:
            def body(ivs: list[ir.Value]) -> None:
                v = b.load(element_ptr(fe, src, ivs), typ=mty, align=byte_size(mty))
                b.store(v, element_ptr(fe, dst, ivs), align=byte_size(mty))

            loop_nest(fe, sizes, body)


# --------------------------------------------------------------------------- globals


def declare_global(mod: ModuleEmitter, op: memref.GlobalOp) -> None:
    t = op.type
    lay = layout_of(t)
    if not lay.identity or any(s is None for s in lay.shape):
        raise LoweringError(f"expected memref.global of a static identity-layout type, found {t}")
    count = 1
    for s in lay.shape:
        count *= cast(int, s)
    mty = memory_type(elem_type(t))
    arr = ir.ArrayType(mty, count)
    gv = ir.GlobalVariable(mod.llvm, arr, name=global_symbol(op.sym_name.data))
    # A public global is exported: the driver reads or writes it (run_tables).
    gv.linkage = "" if op.sym_visibility.data == "public" else "internal"
    gv.global_constant = op.constant is not None
    gv.align = 64
    init = op.initial_value
    if isinstance(init, DenseIntOrFPElementsAttr):
        values = list(init.get_values())
        if len(values) == 1 and count != 1:
            values = values * count
        if mty == I8 or isinstance(mty, ir.IntType):
            gv.initializer = ir.Constant(arr, [ir.Constant(mty, int(v)) for v in values])
        else:
            gv.initializer = ir.Constant(arr, [ir.Constant(mty, float(v)) for v in values])
    elif isinstance(init, UnitAttr):
        gv.initializer = ir.Constant(arr, None)
    mod.globals[op.sym_name.data] = (gv, t)


def _get_global(fe: FunctionEmitter, op: memref.GetGlobalOp) -> None:
    name = op.name_.root_reference.data
    entry = fe.mod.globals.get(name)
    if entry is None:
        raise LoweringError(f"expected a memref.global named @{name}")
    gv, _ = entry
    t = cast(MemRefType, op.memref.type)
    sizes = [i64(cast(int, s)) for s in layout_of(t).shape]
    # a pointer to the elements, not to the array: stores check the pointee's type
    data = fe.b.bitcast(gv, memory_type(elem_type(t)).as_pointer())
    fe.set(op.memref, make_desc(fe.b, t, NULL, data, i64(0), sizes, []))


HANDLERS: dict[type[Operation], Handler] = {
    memref.LoadOp: cast("Handler", _load),
    memref.StoreOp: cast("Handler", _store),
    memref.AllocOp: cast("Handler", _alloc),
    memref.AllocaOp: cast("Handler", _alloca),
    memref.DeallocOp: cast("Handler", _dealloc),
    memref.AllocaScopeOp: cast("Handler", _alloca_scope),
    memref.DimOp: cast("Handler", _dim),
    memref.RankOp: cast("Handler", _rank),
    memref.SubviewOp: cast("Handler", _subview),
    memref.ReinterpretCastOp: cast("Handler", _reinterpret_cast),
    memref.CollapseShapeOp: cast("Handler", _collapse_shape),
    memref.ExpandShapeOp: cast("Handler", _expand_shape),
    memref.CastOp: _same_buffer(lambda op: op.operands[0], lambda op: op.results[0]),
    memref.MemorySpaceCastOp: _same_buffer(lambda op: op.operands[0], lambda op: op.results[0]),
    memref.AssumeAlignmentOp: _same_buffer(lambda op: op.operands[0], lambda op: op.results[0]),
    memref.CopyOp: cast("Handler", _copy),
    memref.GetGlobalOp: cast("Handler", _get_global),
    memref.AtomicRMWOp: cast("Handler", _atomic_rmw),
    memref.ExtractStridedMetaDataOp: cast("Handler", _extract_metadata),
    memref.ExtractAlignedPointerAsIndexOp: cast("Handler", _extract_pointer),
}
