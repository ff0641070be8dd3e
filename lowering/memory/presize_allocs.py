"""The `presize-allocs` pass: a buffer whose size varies per iteration of a parallel
loop gets the maximum size over the iterations, computed before the loop.

`expand-allocs` gives each iteration of an `scf.parallel` a slice of one allocation
made before the loop, which needs the slice's size before the loop. A buffer whose size
depends on the iteration (a row of `i` elements, or of `xs[i]`) has none; without this
pass it stays an allocation per iteration (per chunk, a growing buffer, after
`chunk-parallel`), which a GPU kernel makes from the device heap. Here, when the size is
*computable before the loop* (Note [Sizes computable before a parallel loop]), a
sequential pre-pass before the loop runs the size arithmetic for every iteration and
takes the maximum element count, and the buffer becomes a view of one flat buffer of
that many elements, allocated at the top of the parallel body and freed at its end:

    %max = scf.for %i = lb to ub ... { max(acc, count(%i)) }   // before the loop
    scf.parallel (%i) {
      %flat = memref.alloc(%max) : memref<?xT>                 // invariant: expandable
      ...
        %buf = memref.reinterpret_cast %flat to offset: [0], sizes: [s(%i)], ...
      ...
      memref.dealloc %flat
    }

The flat buffer's size is invariant, so the memory passes after this one treat it as any
invariant buffer: `chunk-parallel` runs the rows of a chunk in a sequential loop,
`hoist-allocs` allocates the buffer once per chunk, and `expand-allocs` makes it one
allocation of (chunks x maximum) before the parallel loop, or (iterations x maximum)
for a loop that is not chunked. The parallel body then allocates nothing.

Which buffers: allocated in the body of an `scf.parallel` (the innermost around it),
directly or in `scf.for` loops and `scf.if` arms of it (the pre-pass mirrors them:
loops by loops over the same bounds, arms by their conditions), freed in their block in
every execution with nothing that may alias them used after the free (dealloc's alias
classes, as for `hoist-allocs`), and whose sizes are not already invariant (those are
`hoist-allocs`' and `expand-allocs`' own). Left (docs/lowering.md): sizes computed from
values of the body (a loop's result or carried value, a call's, a load of memory the
loop writes), sizes whose arithmetic may fail (a division by what may be 0), allocations
under an `scf.while` between them and the loop. The loop is the innermost `scf.parallel`
around the allocation: in a nest of parallel loops, the pre-pass and the buffer are in
the outer loop's body.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    UnitAttr,
)
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import defined_inside
from l0.lowering.memory.dealloc.aliases import (
    VIEW_OPS,
    Aliases,
    Summaries,
    UnionFind,
    UsedMemrefs,
    summarise,
    view_source,
)
from l0.lowering.memory.fold_carries import (
    fold_agreeing_ifs,
    fold_constant_ifs,
    forward_invariant_carries,
)
from l0.lowering.memory.memory_plan import (
    FAILING_COUNT_ATTR,
    SPECULATABLE,
    Free,
    alloc_size,
    alloc_sizes,
    checked_product,
    constant_int,
    dies_at,
    invariant_chain,
    row_major_strides,
    safe_division,
    unconditional_free,
)
from l0.passes.analysis.walk import walk_ops

# Note [Sizes computable before a parallel loop]
# A size is computable before the parallel loop P when it is built, from values defined
# before P and the induction variables of P and of the `scf.for` loops between P and the
# allocation, by ops that cannot fail and have no effect:
# * `SPECULATABLE` arithmetic, signed division by a divisor at least 1 (a chunk count),
#   views (`subview`, `reinterpret_cast`, `cast`: a descriptor only), and `memref.dim`
#   (of a buffer allocated in P or of a view: the size it was given);
# * `memref.load` of an integer from a buffer defined before P that nothing in P may
#   write (a store, a copy or a call into it, or into a buffer that may be the same one:
#   two buffers that are not both fresh allocations may alias). The pre-pass loads only
#   when the indices are in bounds; an iteration whose load is out of bounds would have
#   failed before it allocated (the producer checks indices first), so it contributes
#   nothing.
# A branch on the way counts only where its condition (computable as well) takes it, so
# the maximum is that of the iterations that allocate; iterations after a failure
# (which never run) are counted too, which can only make the maximum larger.
#
# Counts: a negative size counts as 0, as a hoisted allocation's size is clamped at 0
# (Note [Hoisting before a loop that may not run]): L0 checks sizes before allocating,
# so the iteration fails at its own check, in order. A product that overflows makes the
# maximum -1 for good, so that the allocation fails with "out of memory" as the
# iteration's would have, before the loop rather than at that iteration (the invariant
# case of `expand-allocs` does the same). A loop between P and the allocation whose
# induction variable the sizes do not use is not run by the pre-pass: it only decides,
# by running at least once, whether its body counts.


@dataclass(frozen=True)
class Level:
    """What lies between the parallel loop and the allocation, outermost first: the
    loop itself (`scf.parallel`), an `scf.for` whose body it is in, or the arm
    (`then`: true for the first region) of an `scf.if`."""

    op: Operation
    then: bool = True


@dataclass
class SizeSlice:
    """The values an allocation's sizes (and the levels' bounds and conditions) are
    computed from inside the parallel loop, and why they cannot be computed before it
    (`body_values`: values of the body; `unsafe`: ops that may fail or have effects)."""

    loop: scf.ParallelOp
    ivs: set[SSAValue] = field(default_factory=set)
    body_values: list[SSAValue] = field(default_factory=list)
    unsafe: list[Operation] = field(default_factory=list)
    used_ivs: set[SSAValue] = field(default_factory=set)
    _seen: set[SSAValue] = field(default_factory=set)

    @property
    def computable(self) -> bool:
        return not self.body_values and not self.unsafe

    def visit(self, v: SSAValue) -> None:
        """Record what `v` is computed from, inside the loop."""
        if defined_inside(v, self.loop) and v not in self._seen:
            self._seen.add(v)
            self._visit(v)

    def visit_all(self, values: Iterable[SSAValue]) -> None:
        for v in values:
            self.visit(v)

    def _visit(self, v: SSAValue) -> None:
        if isinstance(v, BlockArgument):
            if v in self.ivs:
                self.used_ivs.add(v)
            else:
                self.body_values.append(v)  # a loop-carried value
            return
        assert isinstance(v, OpResult)
        op = v.op
        if isinstance(op, memref.DimOp) and (size := _dim_size(op)) is not None:
            if isinstance(size, SSAValue):
                self.visit(size)
        elif isinstance(op, memref.LoadOp):
            self._load(op)
        elif (isinstance(op, SPECULATABLE + VIEW_OPS) and not op.regions) or safe_division(op):
            self.visit_all(op.operands)
        elif op.regions or isinstance(op, func.CallOp | memref.AllocOp):
            self.body_values.append(v)  # a loop's, a branch's or a call's result
        else:
            self.unsafe.append(op)

    def _load(self, op: memref.LoadOp) -> None:
        readable = (isinstance(op.res.type, IntegerType | IndexType)
                    and not _root_inside(op.memref, self.loop)
                    and not _may_be_written(op.memref, self.loop))
        if readable:
            self.visit_all([op.memref, *op.indices])
        else:
            self.body_values.append(op.res)  # memory of the body, or written by it


def _dim_size(op: memref.DimOp) -> SSAValue | int | None:
    """The size `memref.dim` reads, where the IR says it: of an allocation, a `subview`
    or a `reinterpret_cast` (through `memref.cast`s)."""
    k = constant_int(op.index)
    source = op.source
    while isinstance(source, OpResult) and isinstance(source.op, memref.CastOp):
        source = source.op.source
    if k is None or not isinstance(source, OpResult):
        return None
    if isinstance(source.op, memref.AllocOp):
        return alloc_size(source.op, k)
    if isinstance(source.op, memref.SubviewOp):
        # A dimension the view keeps; a dropped one is a static 1, so the dynamic sizes
        # of the result are the size operands, in order.
        shape = _memref_type(source).get_shape()
        if shape[k] != DYNAMIC_INDEX:
            return shape[k]
        sizes = list(source.op.sizes)
        if len(sizes) != sum(1 for d in shape if d == DYNAMIC_INDEX):
            return None
        return sizes[sum(1 for d in shape[:k] if d == DYNAMIC_INDEX)]
    if isinstance(source.op, memref.ReinterpretCastOp):
        cast = source.op
        static = cast.static_sizes.get_values()
        if static[k] != DYNAMIC_INDEX:
            return static[k]
        return list(cast.sizes)[sum(1 for s in static[:k] if s == DYNAMIC_INDEX)]
    return None


def _memref_type(v: SSAValue) -> MemRefType:
    t = v.type
    assert isinstance(t, MemRefType)
    return t


def _roots(v: SSAValue, seen: set[SSAValue] | None = None) -> set[SSAValue]:
    """The values whose buffers `v` may be in: through views, and through the values
    an `scf.for` or `scf.if` may carry or yield."""
    seen = set() if seen is None else seen
    if v in seen:
        return set()
    seen.add(v)
    if (source := view_source(v)) is not None:
        return _roots(source, seen)
    if isinstance(v, BlockArgument):
        owner = v.block.parent_op()
        if isinstance(owner, scf.ForOp) and v.index > 0:
            k = v.index - 1
            return _roots(owner.iter_args[k], seen) | _yielded(owner, k, seen)
        return {v}
    assert isinstance(v, OpResult)
    if isinstance(v.op, scf.ForOp):
        return _roots(v.op.iter_args[v.index], seen) | _yielded(v.op, v.index, seen)
    if isinstance(v.op, scf.IfOp):
        return _yielded(v.op, v.index, seen)
    return {v}


def _yielded(op: Operation, k: int, seen: set[SSAValue]) -> set[SSAValue]:
    roots: set[SSAValue] = set()
    for region in op.regions:
        for block in region.blocks:
            term = block.last_op
            if isinstance(term, scf.YieldOp):
                roots |= _roots(term.operands[k], seen)
    return roots


def _fresh(v: SSAValue) -> bool:
    return isinstance(v, OpResult) and isinstance(v.op, memref.AllocOp)


def _root_inside(m: SSAValue, loop: Operation) -> bool:
    return any(defined_inside(r, loop) for r in _roots(m))


READERS = (memref.LoadOp, memref.DimOp, memref.AllocOp, memref.ExtractStridedMetaDataOp,
           memref.ExtractAlignedPointerAsIndexOp, scf.YieldOp, scf.ForOp, scf.IfOp,
           scf.ParallelOp, scf.ReduceOp, scf.ReduceReturnOp, *VIEW_OPS)
"""Ops whose memref operands they do not write (loops and branches pass them on)."""


def _written(loop: Operation) -> list[SSAValue]:
    """The memrefs the body of `loop` may write (or free)."""
    out: list[SSAValue] = []
    for op in walk_ops(loop):
        if op is loop:
            continue
        if isinstance(op, memref.StoreOp):
            out.append(op.memref)
        elif isinstance(op, memref.CopyOp):
            out.append(op.destination)
        elif not isinstance(op, READERS):
            out.extend(o for o in op.operands if isinstance(o.type, MemRefType))
    return out


def _may_be_written(m: SSAValue, loop: Operation) -> bool:
    """Whether `loop` may write the buffer of `m`, a memref defined before it."""
    mine = _roots(m)
    for w in _written(loop):
        for r in _roots(w):
            if defined_inside(r, loop):
                continue  # a buffer of the body is not one from before it
            for s in mine:
                if r is s or not (_fresh(r) or _fresh(s)):
                    return True
    return False


def levels_to_parallel(alloc: memref.AllocOp) -> list[Level] | None:
    """The levels from the innermost `scf.parallel` around `alloc` down to it, if only
    `scf.for` bodies and `scf.if` arms lie between."""
    levels: list[Level] = []
    block = alloc.parent_block()
    while block is not None:
        op = block.parent_op()
        if isinstance(op, scf.ParallelOp):
            levels.append(Level(op))
            return list(reversed(levels))
        if isinstance(op, scf.ForOp):
            levels.append(Level(op))
        elif isinstance(op, scf.IfOp):
            levels.append(Level(op, block.parent is op.true_region))
        else:
            return None
        block = op.parent_block()
    return None


def size_slice(alloc: memref.AllocOp, levels: list[Level]) -> SizeSlice:
    """What `alloc`'s sizes, and the bounds and conditions of `levels` (the first one
    its parallel loop), are computed from inside the loop."""
    loop = levels[0].op
    assert isinstance(loop, scf.ParallelOp)
    s = SizeSlice(loop, set(loop.body.block.args))
    for level in levels[1:]:
        if isinstance(level.op, scf.ForOp):
            s.ivs.add(level.op.body.block.args[0])
    for level in levels[1:]:
        if isinstance(level.op, scf.ForOp):
            s.visit_all([level.op.lb, level.op.ub, level.op.step])
        elif isinstance(level.op, scf.IfOp):
            s.visit(level.op.cond)
    s.visit_all(alloc.dynamic_sizes)
    return s


def varying_in_parallel(alloc: memref.AllocOp) -> SizeSlice | None:
    """For an allocation in a parallel loop whose size the loop's iterations may
    change: what its size is computed from (None where the allocation is under
    something else than `scf.for` and `scf.if` up to the loop, or its size is invariant
    and it needs no pre-pass)."""
    levels = levels_to_parallel(alloc)
    if levels is None:
        return None
    if all(isinstance(lv.op, scf.ParallelOp | scf.ForOp) for lv in levels):
        if invariant_chain(alloc, levels[0].op) is not None:
            return None
    return size_slice(alloc, levels)


# -- the pre-pass -------------------------------------------------------------------------


@dataclass
class Scope:
    """Values of the loop (and its levels) and their copies in the pre-pass, and the
    conditions under which the pre-pass's current iteration counts."""

    copies: dict[SSAValue, SSAValue]
    guards: list[SSAValue]

    def nested(self) -> Scope:
        return Scope(dict(self.copies), list(self.guards))


def _copy(v: SSAValue, b: CodeBuilder, scope: Scope, loop: Operation) -> SSAValue:
    """`v`'s value in the pre-pass, computed at `b` (its ops copied, operands first;
    loads guarded by their bounds)."""
    if not defined_inside(v, loop):
        return v
    if v in scope.copies:
        return scope.copies[v]
    assert isinstance(v, OpResult), "an induction variable is mapped by its level"
    op = v.op
    if isinstance(op, memref.DimOp) and (size := _dim_size(op)) is not None:
        copy = b.index(size) if isinstance(size, int) else _copy(size, b, scope, loop)
    elif isinstance(op, memref.LoadOp):
        copy = _guarded_load(op, b, scope, loop)
    else:
        for o in op.operands:
            _copy(o, b, scope, loop)
        clone = op.clone(value_mapper=dict(scope.copies))
        b.add(clone)
        copy = clone.results[v.index]
    scope.copies[v] = copy
    return copy


def _guarded_load(op: memref.LoadOp, b: CodeBuilder, scope: Scope,
                  loop: Operation) -> SSAValue:
    """The load if its indices are in bounds, else 0 (and the iteration does not
    count: Note [Sizes computable before a parallel loop])."""
    m = _copy(op.memref, b, scope, loop)
    indices = [_copy(i, b, scope, loop) for i in op.indices]
    zero = b.index(0)
    inside = [b.andi(b.cmpi("sle", zero, i),
                     b.cmpi("slt", i, b.val(memref.DimOp(m, b.index(k)))))
              for k, i in enumerate(indices)]
    ok = b.all_of(inside)
    scope.guards.append(ok)
    t = op.res.type
    assert isinstance(t, IntegerType | IndexType)
    (value,) = b.if_(ok, [t],
                     lambda bb: [bb.val(memref.LoadOp.get(m, indices))],
                     lambda bb: [bb.val(arith.ConstantOp(IntegerAttr(0, t)))])
    return value


def _count(b: CodeBuilder, alloc: memref.AllocOp, scope: Scope, loop: Operation) -> SSAValue:
    """The iteration's element count: sizes clamped at 0, -1 on overflow, 0 where the
    iteration does not count."""
    zero = b.index(0)
    sizes: list[SSAValue | int] = [
        s if isinstance(s, int) else b.maxsi(_copy(s, b, scope, loop), zero)
        for s in alloc_sizes(alloc)]
    count = checked_product(b, sizes)
    return b.select(b.all_of(scope.guards), count, zero)


def _combine(b: CodeBuilder, acc: SSAValue, count: SSAValue) -> SSAValue:
    """max(acc, count), -1 once either is -1 (an overflow)."""
    bad = b.cmpi("slt", b.val(arith.MinSIOp(acc, count)), b.index(0))
    return b.select(bad, b.index(-1), b.maxsi(acc, count))


def _prepass(allocs: list[memref.AllocOp], levels: list[Level],
             used_ivs: set[SSAValue]) -> list[SSAValue]:
    """Before the parallel loop: the maximum element count of each of `allocs` (all
    under `levels`) over the iterations, in one loop nest (module docstring)."""
    loop = levels[0].op
    assert isinstance(loop, scf.ParallelOp)
    b = CodeBuilder.before(loop)
    Accs = list[SSAValue]

    def run(k: int, bb: CodeBuilder, scope: Scope, accs: Accs) -> Accs:
        if k == len(levels):
            # A scope each: a load guards only the counts that need it.
            return [_combine(bb, acc, _count(bb, a, scope.nested(), loop))
                    for a, acc in zip(allocs, accs, strict=True)]
        op = levels[k].op
        if isinstance(op, scf.ParallelOp):
            dims: list[tuple[SSAValue, SSAValue, SSAValue, SSAValue]] = list(zip(
                op.body.block.args, op.lowerBound, op.upperBound, op.step, strict=True))
            return nest(dims, k, bb, scope, accs)
        if isinstance(op, scf.ForOp):
            return nest([(op.body.block.args[0], op.lb, op.ub, op.step)], k, bb, scope, accs)
        assert isinstance(op, scf.IfOp)
        inner = scope.nested()
        cond = _copy(op.cond, bb, inner, loop)
        inner.guards.append(cond if levels[k].then else bb.xori(cond, bb.bool(True)))
        return run(k + 1, bb, inner, accs)

    def nest(dims: list[tuple[SSAValue, SSAValue, SSAValue, SSAValue]], k: int,
             bb: CodeBuilder, scope: Scope, accs: Accs) -> Accs:
        if not dims:
            return run(k + 1, bb, scope, accs)
        iv, lb, ub, step = dims[0]
        lo, hi = _copy(lb, bb, scope, loop), _copy(ub, bb, scope, loop)
        if iv not in used_ivs:
            # The sizes do not depend on it: its body counts if it runs at all.
            inner = scope.nested()
            inner.guards.append(bb.cmpi("slt", lo, hi))
            return nest(dims[1:], k, bb, inner, accs)
        st = _copy(step, bb, scope, loop)

        def body(ib: CodeBuilder, i: SSAValue, carried: Sequence[SSAValue]) -> Accs:
            inner = scope.nested()
            inner.copies[iv] = i
            return nest(dims[1:], k, ib, inner, list(carried))

        return bb.for_(lo, hi, accs, body, step=st)

    return run(0, b, Scope({}, []), [b.index(0) for _ in allocs])


def _presize(allocs: list[tuple[memref.AllocOp, Free]], levels: list[Level],
             used_ivs: set[SSAValue]) -> None:
    """Make each of `allocs` (all under `levels`) a view of a flat buffer of its
    maximum size, allocated at the top of the parallel body (module docstring)."""
    loop = levels[0].op
    assert isinstance(loop, scf.ParallelOp)
    maxima = _prepass([a for a, _ in allocs], levels, used_ivs)
    for most in maxima:  # -1: fail, also when hoisted (`fails_if_negative`)
        if isinstance(most, OpResult):
            most.op.attributes[FAILING_COUNT_ATTR] = UnitAttr()
    body = loop.body.block
    first, term = body.first_op, body.last_op
    assert first is not None and term is not None
    for (alloc, free), most in zip(allocs, maxima, strict=True):
        t = alloc.memref.type
        assert isinstance(t, MemRefType)
        flat = CodeBuilder.before(first).val(
            memref.AllocOp([most], [], MemRefType(t.element_type, [DYNAMIC_INDEX])))
        CodeBuilder.before(term).add(memref.DeallocOp.get(flat))
        b = CodeBuilder.before(alloc)
        sizes = alloc_sizes(alloc)
        view = b.val(memref.ReinterpretCastOp.from_dynamic(
            flat, [0], sizes, row_major_strides(b, sizes), t))
        alloc.memref.replace_all_uses_with(view)
        Rewriter.erase_op(alloc)
        free.erase()


def _candidates(f: func.FuncOp, summaries: Summaries) -> list[tuple[memref.AllocOp, Free]]:
    """The allocations of `f` in parallel loops that live within their block."""
    found: list[tuple[memref.AllocOp, Free]] = []
    classes: dict[Block, UnionFind] = {}
    for op in walk_ops(f):
        if not isinstance(op, memref.AllocOp):
            continue
        t = op.memref.type
        block = op.parent_block()
        if (block is None or not isinstance(t, MemRefType)
                or not isinstance(t.layout, NoneAttr)):
            continue
        free = unconditional_free(op.memref, block)
        if free is None:
            continue
        if block not in classes:
            classes[block] = Aliases(summaries, UsedMemrefs()).block(block)
        if dies_at(op.memref, free, classes[block]):
            found.append((op, free))
    return found


@dataclass(frozen=True)
class PresizeAllocsPass(ModulePass):
    """A buffer each iteration of an `scf.parallel` allocates with a size that varies
    per iteration, computable before the loop: a sequential pre-pass takes the maximum,
    and the buffer becomes a view of one flat buffer of that size at the top of the
    body (which `expand-allocs` then expands). Runs after `dealloc`, before
    `chunk-parallel`.

    Before:
        "scf.parallel"(%c0, %n, %c1) ({
        ^bb0(%i: index):
          %buf = memref.alloc(%i) : memref<?xf64>
          ...
          memref.dealloc %buf : memref<?xf64>
          scf.reduce
        })
    After:
        %max = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
          ...                                       // max(%acc, %j), -1 on overflow
        }
        "scf.parallel"(%c0, %n, %c1) ({
        ^bb0(%i: index):
          %flat = memref.alloc(%max) : memref<?xf64>
          %buf = memref.reinterpret_cast %flat to offset: [0], sizes: [%i], strides: [1]
          ...
          memref.dealloc %flat : memref<?xf64>
          scf.reduce
        })
    """

    name = "presize-allocs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        summaries, _ = summarise(op)
        for f in op.ops:
            if not (isinstance(f, func.FuncOp) and f.body.blocks):
                continue
            # Frees made unconditional where flags are constant (as `hoist-allocs` does).
            while forward_invariant_carries(f) | fold_agreeing_ifs(f) | fold_constant_ifs(f):
                pass
            groups: dict[tuple[Level, ...], list[tuple[memref.AllocOp, Free]]] = {}
            used: dict[tuple[Level, ...], set[SSAValue]] = {}
            for alloc, free in _candidates(f, summaries):
                levels = levels_to_parallel(alloc)
                s = varying_in_parallel(alloc)
                if levels is None or s is None or not s.computable:
                    continue
                groups.setdefault(tuple(levels), []).append((alloc, free))
                used.setdefault(tuple(levels), set()).update(s.used_ivs)
            for nest_levels, allocs in groups.items():
                _presize(allocs, list(nest_levels), used[nest_levels])
