"""Where buffers are freed: ownership decisions block by block, top-down.

Note [Ownership]
~~~~~~~~~~~~~~~~
In each block, the *roots* are the buffers the block is responsible for: its
`memref.alloc`s (owned for certain), the memref results of its calls, loops and
branches and a loop body's carried memrefs (owned when their flag says so, see
`flags.py`), and buffers handed to it by its parent (below). A root must be freed
after the last use, in the block, of any value of its may-alias class
(`aliases.py`), unless it leaves the block:

* handed to a nested op: if a `scf.if` (with both branches) is the last op using the
  values of the class that exist before it, the root is handed to both branches, which
  free it (or yield it) themselves; if a `scf.for` is, and takes a view of the root
  as the initial value of a carried memref (and uses the class nowhere else), the
  root's flag becomes that carried value's initial flag: the loop owns it from then
  on, and frees it in the first iteration that no longer needs it. That is what makes
  a loop that builds a new array every iteration run in constant memory.
* yielded (or returned): when exactly one value of the class is yielded, the class has
  one root and the value is a view of it, the flag of the yielded value is the root's.
  When a class owns nothing (parameters, values from outside), its flags are false.
  Otherwise (a call result that may be its argument updated in place, or a new array;
  two values of one class yielded) the decision is made at run time (Note [Run-time
  ownership]).

Note [Run-time ownership]
~~~~~~~~~~~~~~~~~~~~~~~~~
Buffers are identified by their aligned pointer (views keep it, and two live
allocations never share one; even empty arrays get a block of their own). Where a
block yields values of a class with owned roots and the static rule does not apply,
each yielded value takes the ownership of the first owned root whose buffer it is
(pointer equality), and the roots nobody took are freed before the yield. A value
that aliases a buffer another yielded value took gets `false`: the receiver keeps both
in one class, so the buffer lives as long as either. This is MLIR's
`bufferization.dealloc` with its `retained` values, in a few comparisons.

A flag-guarded root is freed by `scf.if %flag { memref.dealloc }`. Freeing a view frees
its whole buffer (`memref.dealloc` frees the allocated pointer), so any value of a root
that is a view of the buffer can stand for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsTerminator

from l0.dialects.memref_types import Kind, with_kind
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.memory.dealloc.aliases import Aliases, UnionFind, UsedMemrefs, is_memref, must_view
from l0.lowering.memory.dealloc.flags import Flags
from l0.passes.analysis.walk import walk_ops

OUTER = -2
ARG = -1


@dataclass
class Root:
    """A buffer a block is responsible for: `value` (or any view of it) frees it;
    `flag` says whether it is owned (None: always)."""

    value: SSAValue
    flag: SSAValue | None


def flag_value(root: Root, b: CodeBuilder) -> SSAValue:
    return root.flag if root.flag is not None else b.bool(True)


def emit_free(b: CodeBuilder, root: Root) -> None:
    if root.flag is None:
        b.add(memref.DeallocOp.get(root.value))
        return

    def then(t: CodeBuilder) -> list[SSAValue]:
        t.add(memref.DeallocOp.get(root.value))
        return []

    b.if_(root.flag, [], then)


class BlockPlan:
    """The facts about one block that placement needs (positions, uses, classes)."""

    def __init__(self, block: Block, uf: UnionFind, used: UsedMemrefs) -> None:
        self.block = block
        self.uf = uf
        self.ops = list(block.ops)
        self.pos = {op: i for i, op in enumerate(self.ops)}
        self.uses: dict[SSAValue, list[int]] = {}
        for i, op in enumerate(self.ops):
            for v in used(op):
                lst = self.uses.setdefault(v, [])
                if not lst or lst[-1] != i:
                    lst.append(i)

    def def_index(self, v: SSAValue) -> int:
        if isinstance(v, BlockArgument):
            return ARG if v.block is self.block else OUTER
        assert isinstance(v, OpResult)
        return self.pos.get(v.op, OUTER) if v.op.parent_block() is self.block else OUTER

    def last_use(self, v: SSAValue) -> int | None:
        lst = self.uses.get(v)
        return lst[-1] if lst else None

    def class_last_use(self, members: list[SSAValue], before: int | None = None) -> int | None:
        """The last op using a member (of those defined before op `before`, if given)."""
        last: int | None = None
        for m in members:
            if before is not None and self.def_index(m) >= before:
                continue
            u = self.last_use(m)
            if u is not None and (last is None or u > last):
                last = u
        return last


class Placer:
    """Inserts frees, sets flags and makes escape copies in one function."""

    def __init__(self, aliases: Aliases, flags: Flags) -> None:
        self.aliases = aliases
        self.flags = flags

    def function(self, f: func.FuncOp) -> None:
        self.block(f.body.block, [], lambda v: v)

    # -- one block ------------------------------------------------------------------------

    def block(self, block: Block, handed: list[Root],
              outer_class: Callable[[SSAValue], SSAValue]) -> None:
        plan = BlockPlan(block, self.aliases.classes[block], self.aliases.used)
        self._seed(plan, handed, outer_class)
        roots = [*handed, *self._roots(plan)]
        moved: dict[Operation, list[Root]] = {}
        pending = [r for r in roots if not self._hand_down(plan, r, moved)]
        pending = self._escapes(plan, pending)
        for r in pending:
            self._free(plan, r)
        uf = plan.uf
        for op in plan.ops:
            for region in op.regions:
                for inner in region.blocks:
                    self.block(inner, list(moved.get(op, [])), uf.find)

    def _seed(self, plan: BlockPlan, handed: list[Root],
              outer_class: Callable[[SSAValue], SSAValue]) -> None:
        """Values from outside that are one class outside are one class here; a root
        handed down joins the values of its class outside."""
        groups: dict[SSAValue, list[SSAValue]] = {}
        outer = [v for v in plan.uses if plan.def_index(v) == OUTER]
        for v in [*outer, *(r.value for r in handed)]:
            plan.uf.add(v)
            groups.setdefault(outer_class(v), []).append(v)
        for vs in groups.values():
            for v in vs[1:]:
                plan.uf.union(vs[0], v)

    def _roots(self, plan: BlockPlan) -> list[Root]:
        roots: list[Root] = []
        for a in plan.block.args:
            flag = self.flags.flag(a)
            if flag is not None:
                roots.append(Root(a, flag))
        for op in plan.ops:
            if isinstance(op, memref.AllocOp):
                roots.append(Root(op.memref, None))
            elif isinstance(op, func.CallOp | scf.ForOp | scf.IfOp):
                for r in op.results:
                    flag = self.flags.flag(r)
                    if flag is not None:
                        roots.append(Root(r, flag))
        return roots

    # -- handing a root to a nested op ------------------------------------------------------

    def _hand_down(self, plan: BlockPlan, root: Root, moved: dict[Operation, list[Root]]
                   ) -> bool:
        """Hand `root` to the op after which no value of its class that exists before it
        is used, if that op can take it (Note [Ownership]). Returns whether it did."""
        members = plan.uf.members(root.value)
        start = plan.def_index(root.value)
        candidates = sorted({i for m in members for i in plan.uses.get(m, []) if i > start})
        for x in candidates:
            op = plan.ops[x]
            if not isinstance(op, scf.IfOp | scf.ForOp):
                continue
            if plan.class_last_use(members, before=x) != x:
                continue
            if isinstance(op, scf.IfOp):
                if not op.false_region.blocks:
                    return False
                moved.setdefault(op, []).append(root)
                return True
            return self._into_loop(plan, op, root, set(members))
        return False

    def _into_loop(self, plan: BlockPlan, loop: scf.ForOp, root: Root,
                   members: set[SSAValue]) -> bool:
        inits = [k for k, v in enumerate(loop.iter_args) if is_memref(v) and v in members]
        if len(inits) != 1 or not must_view(loop.iter_args[inits[0]], root.value):
            return False
        for inner in walk_ops(loop):
            if inner is not loop and any(v in members for v in inner.operands):
                return False  # the class is used in the body, not only through the init
        Flags.set_init_flag(loop, inits[0], flag_value(root, CodeBuilder.before(loop)))
        return True

    # -- yielded values -------------------------------------------------------------------

    def _escapes(self, plan: BlockPlan, pending: list[Root]) -> list[Root]:
        """Set the flags of the memrefs the block yields (Note [Ownership]); return the
        roots still to free."""
        term = plan.ops[-1] if plan.ops else None
        if not isinstance(term, scf.YieldOp | func.ReturnOp):
            return pending
        by_class: dict[SSAValue, list[int]] = {}
        for k, v in enumerate(term.operands):
            if is_memref(v):
                by_class.setdefault(plan.uf.find(v), []).append(k)
        rest = list(pending)
        for cls, positions in by_class.items():
            owned = [r for r in rest if plan.uf.find(r.value) is cls]
            if not owned:
                continue  # flags stay false
            b = CodeBuilder.before(term)
            v = term.operands[positions[0]]
            if len(positions) == 1 and len(owned) == 1 and must_view(v, owned[0].value):
                Flags.set_terminator_flag(term, positions[0], flag_value(owned[0], b))
            else:
                _decide_at_run_time(b, term, positions, owned)
            for r in owned:
                rest.remove(r)
        return rest

    # -- frees ----------------------------------------------------------------------------

    def _free(self, plan: BlockPlan, root: Root) -> None:
        members = plan.uf.members(root.value)
        d = plan.def_index(root.value)
        last = plan.class_last_use(members)
        if last is None or last < d:
            last = d
        if last == len(plan.ops) - 1 and plan.ops[-1].has_trait(IsTerminator):
            b = CodeBuilder.before(plan.ops[-1])
        elif last >= 0:
            b = CodeBuilder(InsertPoint.after(plan.ops[last]))
        else:
            b = CodeBuilder.at_start(plan.block)
        emit_free(b, root)


def _fresh_copy(b: CodeBuilder, v: SSAValue) -> SSAValue:
    """A fresh buffer holding the elements of `v`, as `v`'s type."""
    t = v.type
    assert isinstance(t, MemRefType)
    buf = b.alloc(with_kind(t, Kind.IDENTITY), b.dims(v))
    b.copy(v, buf)
    return b.cast(buf, t)


def _decide_at_run_time(b: CodeBuilder, term: Operation, positions: list[int],
                        owned: list[Root]) -> None:
    """Yielded values that may or may not be views of owned roots (Note [Run-time
    ownership]): compare buffers, pass each owned buffer on with the first yielded value
    that is a view of it, free the others."""
    bases: dict[SSAValue, SSAValue] = {}

    def base(v: SSAValue) -> SSAValue:
        if v not in bases:
            bases[v] = b.val(memref.ExtractAlignedPointerAsIndexOp.get(v))
        return bases[v]

    taken: list[SSAValue | None] = [None] * len(owned)
    for k in positions:
        v = term.operands[k]
        flag: SSAValue | None = None
        for j, r in enumerate(owned):
            same = b.bool(True) if must_view(v, r.value) else b.cmpi("eq", base(v), base(r.value))
            give = b.andi(flag_value(r, b), same)
            before = taken[j]
            if before is not None:
                give = b.andi(give, b.xori(before, b.bool(True)))
            flag = give if flag is None else b.ori(flag, give)
            taken[j] = give if before is None else b.ori(before, give)
        assert flag is not None
        Flags.set_terminator_flag(term, k, flag)
    for r, t in zip(owned, taken, strict=True):
        keep = flag_value(r, b) if t is None else b.andi(flag_value(r, b),
                                                         b.xori(t, b.bool(True)))
        emit_free(b, Root(r.value, keep))
