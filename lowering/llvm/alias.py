"""Alias scopes for element accesses: which allocations a memref may view.

Note [Alias scopes of allocation sites]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
`hoist-allocs` turns a buffer that a loop nest allocates in each iteration into a
growing flat buffer the nest carries (a loop phi that starts at an empty buffer and is
replaced by a fresh allocation when an iteration needs more). LLVM sees a pointer phi of
unknown provenance: it cannot tell two such buffers apart (they may start at the same
shared empty buffer), and its loop passes then assume that every store of a loop may
change what every load reads (LocVolCalib's tridiagonal solves reloaded `uu[i - 1]`
from the store of the iteration before).

Here every memref value of a `func.func` gets the set of `memref.alloc` ops whose
memory it may view: an allocation is its own site, a view (`subview`,
`reinterpret_cast`, `cast`, ...) has its source's sites, an `scf.if` result and an
`scf.for` carried value the union of what may flow into it (a fixpoint over the loops).
Anything else (a parameter, a call's result, a load of a memref, a `scf.while` value,
a `memref.alloca`, whose stack memory a later iteration's may take) is unknown.
Two live blocks of distinct allocation calls never overlap, so an access
whose sites are known gets one alias scope per site (`!alias.scope`) and is declared
not to alias the scopes of every other site of the function (`!noalias`); LLVM's scoped
alias analysis then separates two accesses only when their site sets are disjoint. An
access whose sites are unknown gets no scope and may alias anything, as may memmoves
and calls (no metadata). Why the reuse of freed memory does not matter: a buffer is
never used after its free (`dealloc`), and the calls to the allocator and to `free`
carry no scopes, so LLVM moves no access across them on the strength of the scopes.

An allocation of no elements (the empty buffer growing buffers start from) is no site:
no in-bounds access reads or writes it, and every access is in bounds (the producer's
checks, or the `bounds` proofs that removed them). Without that, every growing buffer
would share the empty buffer's site and none could be told apart.
"""

from __future__ import annotations

import llvmlite.ir as ir
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from l0.passes.analysis.walk import walk_ops

Sites = frozenset[Operation] | None
"""The allocations a memref may view; None: unknown (may be any memory)."""

_VIEWS = (
    memref.SubviewOp,
    memref.ReinterpretCastOp,
    memref.CastOp,
    memref.CollapseShapeOp,
    memref.ExpandShapeOp,
    memref.MemorySpaceCastOp,
    memref.AssumeAlignmentOp,
)


def _join(a: Sites, b: Sites) -> Sites:
    if a is None or b is None:
        return None
    return a | b


def _is_zero_constant(v: SSAValue) -> bool:
    op = v.owner
    return (isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr)
            and op.value.value.data == 0)


def _has_no_elements(op: memref.AllocOp) -> bool:
    """Whether the allocation's element count is 0 (a static or constant size 0)."""
    t = op.memref.type
    assert isinstance(t, MemRefType)
    if 0 in t.get_shape():
        return True
    return any(_is_zero_constant(s) for s in op.dynamic_sizes)


class AllocationSites:
    """The allocation sites of every memref value of one function (module docstring)."""

    def __init__(self, fn: Operation) -> None:
        self._sites: dict[SSAValue, Sites] = {}
        # Only ops that define memrefs (results or block arguments) take part.
        ops = [op for op in walk_ops(fn) if op.regions or any(
            isinstance(r.type, MemRefType) for r in op.results)]
        changed = True
        while changed:
            changed = False
            for op in ops:
                changed |= self._visit(op)
        self._all: frozenset[Operation] = frozenset().union(
            *(s for s in self._sites.values() if s is not None))

    def sites(self, v: SSAValue) -> Sites:
        """The sites `v` may view; None when unknown (also for values never seen)."""
        if isinstance(v, BlockArgument) and v not in self._sites:
            return None
        return self._sites.get(v, None)

    def is_site(self, op: Operation) -> bool:
        """Whether `op` is an allocation some memref value may view."""
        return op in self._all

    def others(self, sites: frozenset[Operation]) -> frozenset[Operation]:
        """Every site of the function not in `sites`."""
        return self._all - sites

    # ---- the fixpoint

    def _get(self, v: SSAValue) -> Sites:
        return self._sites.get(v, frozenset())

    def _update(self, v: SSAValue, s: Sites) -> bool:
        if not isinstance(v.type, MemRefType):
            return False
        old = self._sites.get(v, frozenset())
        new = _join(old, s)
        if v in self._sites and new == old:
            return False
        self._sites[v] = new
        return True

    def _visit(self, op: Operation) -> bool:
        changed = False
        for region in op.regions:
            for block in region.blocks:
                changed |= self._visit_block_args(op, block)
        if isinstance(op, memref.AllocOp):
            return self._update(op.memref, frozenset() if _has_no_elements(op)
                                else frozenset([op])) or changed
        if isinstance(op, _VIEWS):
            return self._update(op.results[0], self._get(op.operands[0])) or changed
        if isinstance(op, scf.IfOp):
            for region in op.regions:
                for block in region.blocks:
                    term = block.last_op
                    if isinstance(term, scf.YieldOp):
                        for r, y in zip(op.results, term.operands, strict=True):
                            changed |= self._update(r, self._get(y))
            return changed
        if isinstance(op, scf.ForOp):
            term = op.body.block.last_op
            assert isinstance(term, scf.YieldOp)
            for k, r in enumerate(op.results):
                s = _join(self._get(op.iter_args[k]), self._get(term.operands[k]))
                changed |= self._update(r, s)
            return changed
        for r in op.results:
            changed |= self._update(r, None)
        return changed

    def _visit_block_args(self, op: Operation, block: Block) -> bool:
        changed = False
        if isinstance(op, scf.ForOp):
            term = block.last_op
            assert isinstance(term, scf.YieldOp)
            for k, a in enumerate(block.args[1:]):
                s = _join(self._get(op.iter_args[k]), self._get(term.operands[k]))
                changed |= self._update(a, s)
            return changed
        if isinstance(op, scf.IfOp):
            return False
        for a in block.args:
            changed |= self._update(a, None)
        return changed


class AliasScopes:
    """The `!alias.scope`/`!noalias` metadata of one function's element accesses."""

    def __init__(self, module: ir.Module, fn: func.FuncOp) -> None:
        self._module = module
        self._sites = AllocationSites(fn)
        self._name = f"l0 alias {fn.sym_name.data}"
        self._domain = module.add_metadata([ir.MetaDataString(module, self._name)])
        self._ids: dict[Operation, int] = {
            op: k for k, op in enumerate(o for o in walk_ops(fn) if self._sites.is_site(o))}
        self._scopes: dict[Operation, ir.MDValue] = {}
        self._tags: dict[frozenset[Operation], tuple[ir.MDValue, ...]] = {}

    def tag(self, v: SSAValue, access: ir.Instruction) -> None:
        """Give `access` (a load or store through memref `v`) its scopes, where the
        sites of `v` are known and some other site exists."""
        sites = self._sites.sites(v)
        if not sites:
            return
        tags = self._tags.get(sites)
        if tags is None:
            others = self._sites.others(sites)
            tags = (self._list(sites), self._list(others)) if others else ()
            self._tags[sites] = tags
        if tags:
            access.set_metadata("alias.scope", tags[0])
            access.set_metadata("noalias", tags[1])

    def _list(self, sites: frozenset[Operation]) -> ir.MDValue:
        ordered = sorted(sites, key=lambda op: self._ids[op])
        return self._module.add_metadata([self._scope(op) for op in ordered])

    def _scope(self, op: Operation) -> ir.MDValue:
        scope = self._scopes.get(op)
        if scope is None:
            name = f"{self._name}: site {self._ids[op]}"
            scope = self._module.add_metadata(
                [ir.MetaDataString(self._module, name), self._domain])
            self._scopes[op] = scope
        return scope
