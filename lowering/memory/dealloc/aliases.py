"""May-alias classes of memref values, per block, for deallocation.

Two memref values are in one class of a block's `UnionFind` when they may share a
buffer: a view and its source (`subview`, `reinterpret_cast`, `cast`, ...), a call
result and the arguments the callee's result may alias (`Summaries`, computed to a
fixpoint over the call graph), a result of `scf.if`/`scf.for` and the values from
outside the op its regions may yield (found in the nested blocks' classes), a loop
result and its initial value. Classes of a block contain the values defined in it and
the values from enclosing blocks that it uses (directly or in nested regions); values
defined in nested blocks belong to the nested blocks' classes.

The analysis is bottom-up: a block's classes need those of the blocks nested in it.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from l0.passes.analysis.scope import defined_inside
from l0.passes.analysis.walk import walk_ops

VIEW_OPS = (memref.SubviewOp, memref.ReinterpretCastOp, memref.CastOp,
            memref.CollapseShapeOp, memref.ExpandShapeOp, memref.MemorySpaceCastOp,
            memref.AssumeAlignmentOp)
"""Ops whose memref result is a view of their first operand (same buffer)."""

_VIEW_CLASSES = frozenset(VIEW_OPS)
"""`VIEW_OPS` for exact-class tests (Note [Exact class tests in the alias classes])."""

Summaries = dict[str, list[frozenset[int]]]
"""Function name -> for each result, the parameters it may alias (memref ones only)."""


def is_memref(v: SSAValue) -> bool:
    return type(v.type) is MemRefType


def view_source(v: SSAValue) -> SSAValue | None:
    """The value `v` is a view of, if it is the result of a view op."""
    if type(v) is OpResult:
        op = v.op
        if type(op) in _VIEW_CLASSES:
            return op.operands[0]
        if type(op) is memref.ExtractStridedMetaDataOp and v is op.base_buffer:
            return op.source
    return None


# Note [Exact class tests in the alias classes]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The alias classes ask of every operand and result of every op, in four passes, whether
# it is a memref, a view or an extracted pointer. xDSL's op and attribute classes are
# ABCs: `isinstance` that fails (the common answer) runs `ABCMeta.__instancecheck__`,
# once per class of a tuple, where `type(x) is C` is a pointer comparison. None of the
# classes tested here has subclasses (in xDSL or l0), so the exact tests say the same
# (Note [Class tests by class] in `l0.passes.cores.common_subexpressions`).


POINTER_CASTS = (arith.IndexCastOp,)
"""Integer casts that keep a pointer extracted from a memref a pointer into its buffer."""

_POINTER_CAST_CLASSES = frozenset(POINTER_CASTS)


def pointer_source(v: SSAValue) -> SSAValue | None:
    """The memref whose buffer the integer `v` points into, if it is its extracted pointer.

    Such an integer (passed to the runtime, say) keeps the buffer in use: a free placed
    after the extraction but before the integer's last use would leave it dangling.
    """
    cur = v
    while type(cur) is OpResult and type(cur.op) in _POINTER_CAST_CLASSES:
        cur = cur.op.operands[0]
    if type(cur) is OpResult and type(cur.op) is memref.ExtractAlignedPointerAsIndexOp:
        return cur.op.source
    return None


def must_view(v: SSAValue, root: SSAValue) -> bool:
    """Whether `v` is `root` or a chain of views of it (certainly the same buffer)."""
    cur: SSAValue | None = v
    while cur is not None:
        if cur is root:
            return True
        cur = view_source(cur)
    return False


class UnionFind:
    """Disjoint classes of SSA values, with the members of each class."""

    def __init__(self) -> None:
        self._parent: dict[SSAValue, SSAValue] = {}
        self._members: dict[SSAValue, list[SSAValue]] = {}

    def add(self, v: SSAValue) -> None:
        if v not in self._parent:
            self._parent[v] = v
            self._members[v] = [v]

    def find(self, v: SSAValue) -> SSAValue:
        self.add(v)
        root = v
        while self._parent[root] is not root:
            root = self._parent[root]
        while self._parent[v] is not root:  # path compression
            self._parent[v], v = root, self._parent[v]
        return root

    def union(self, a: SSAValue, b: SSAValue) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra is rb:
            return
        if len(self._members[ra]) < len(self._members[rb]):
            ra, rb = rb, ra
        self._parent[rb] = ra
        self._members[ra].extend(self._members.pop(rb))

    def members(self, v: SSAValue) -> list[SSAValue]:
        return self._members[self.find(v)]

    def __contains__(self, v: SSAValue) -> bool:
        return v in self._parent

    def values(self) -> Iterator[SSAValue]:
        return iter(self._parent)


class UsedMemrefs:
    """The memref values each op uses, itself or in its regions (memoised)."""

    def __init__(self) -> None:
        self._memo: dict[Operation, tuple[SSAValue, ...]] = {}

    def __call__(self, op: Operation) -> tuple[SSAValue, ...]:
        got = self._memo.get(op)
        if got is not None:
            return got
        seen: dict[SSAValue, None] = {}
        for v in op.operands:
            source = v if is_memref(v) else pointer_source(v)
            if source is not None:
                seen[source] = None
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    for v in self(inner):
                        seen[v] = None
        out = tuple(seen)
        self._memo[op] = out
        return out


class Aliases:
    """The may-alias classes of every block of a function (module docstring)."""

    def __init__(self, summaries: Summaries, used: UsedMemrefs | None = None) -> None:
        self.summaries = summaries
        self.classes: dict[Block, UnionFind] = {}
        self.used = used if used is not None else UsedMemrefs()

    def block(self, block: Block) -> UnionFind:
        uf = UnionFind()
        for a in block.args:
            if is_memref(a):
                uf.add(a)
        for op in block.ops:
            for region in op.regions:
                for inner in region.blocks:
                    self.block(inner)
            self._op(op, uf)
        self.classes[block] = uf
        return uf

    def _op(self, op: Operation, uf: UnionFind) -> None:
        for v in self.used(op):
            uf.add(v)
        for r in op.results:
            if is_memref(r):
                uf.add(r)
        source = None
        for r in op.results:
            source = view_source(r)
            if source is not None:
                uf.union(r, source)
        if isinstance(op, func.CallOp):
            self._call(op, uf)
        elif isinstance(op, scf.ForOp):
            self._for(op, uf)
        elif op.regions:
            self._regions(op, uf)

    def _call(self, op: func.CallOp, uf: UnionFind) -> None:
        may = self.summaries.get(op.callee.root_reference.data)
        args = list(op.arguments)
        for j, r in enumerate(op.res):
            if not is_memref(r):
                continue
            params = may[j] if may is not None and j < len(may) else range(len(args))
            for p in params:
                if is_memref(args[p]):
                    uf.union(r, args[p])

    def _outer_members(self, op: Operation, inner: Block, v: SSAValue) -> list[SSAValue]:
        """Values from outside `op` in the class of `v` in the nested block `inner`."""
        return [m for m in self.classes[inner].members(v) if not defined_inside(m, op)]

    def _regions(self, op: Operation, uf: UnionFind) -> None:
        """scf.if (and any other op with regions): each result may alias what from
        outside the op its blocks may yield."""
        for region in op.regions:
            for inner in region.blocks:
                term = inner.last_op
                if term is None:
                    continue
                for r, y in zip(op.results, term.operands, strict=False):
                    if is_memref(r) and is_memref(y):
                        for m in self._outer_members(op, inner, y):
                            uf.union(r, m)

    def _for(self, op: scf.ForOp, uf: UnionFind) -> None:
        body = op.body.block
        term = body.last_op
        assert term is not None
        for k, r in enumerate(op.results):
            if not is_memref(r):
                continue
            uf.union(r, op.iter_args[k])  # no iteration at all
            y = term.operands[k]
            classes = self.classes[body]
            for m in classes.members(y):
                if not defined_inside(m, op):
                    uf.union(r, m)
                elif isinstance(m, BlockArgument) and m.block is body and m.index >= 1:
                    j = m.index - 1
                    uf.union(r, op.iter_args[j])
                    uf.union(r, op.results[j])


def summarise(module: ModuleOp) -> tuple[Summaries, dict[str, Aliases]]:
    """For every function result, the parameters it may alias (a fixpoint, starting
    from "none": recursion only adds what its base cases return); and the classes of
    every function under the final summaries."""
    functions = [f for f in module.ops if isinstance(f, func.FuncOp) and f.body.blocks]
    summaries: Summaries = {
        f.sym_name.data: [frozenset()] * len(f.function_type.outputs.data)
        for f in module.ops if isinstance(f, func.FuncOp)
    }
    used = UsedMemrefs()
    aliases: dict[str, Aliases] = {}
    stale = {f.sym_name.data for f in functions}
    while stale:
        changed: set[str] = set()
        for f in functions:
            name = f.sym_name.data
            if name not in stale:
                continue
            block = f.body.block
            a = Aliases(summaries, used)
            uf = a.block(block)
            aliases[name] = a
            ret = block.last_op
            assert ret is not None
            params: dict[SSAValue, int] = {arg: arg.index for arg in block.args if is_memref(arg)}
            new = [frozenset(params[m] for m in uf.members(v) if m in params)
                   if is_memref(v) else frozenset() for v in ret.operands]
            if new != summaries[name]:
                summaries[name] = new
                changed.add(name)
        # Only the callers of a function whose summary changed need another look.
        stale = {f.sym_name.data for f in functions if _calls_any(f, changed)}
    return summaries, aliases


def _calls_any(f: func.FuncOp, names: set[str]) -> bool:
    if not names:
        return False
    return any(isinstance(op, func.CallOp) and op.callee.root_reference.data in names
               for op in walk_ops(f))
