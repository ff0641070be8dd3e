"""`RewriteWalker`: xDSL's `PatternRewriteWalker`, filling its worklist faster.

Before each sweep the walker pushes every op of the region onto its worklist, in the
order of `Region.walk`, a generator per op, region and block chained with `yield
from`: a fifth of a sweep of `simplify` that rewrites nothing. This walker lists the
same ops in the same order from xDSL's linked lists, with a stack of its own (as
`l0.passes.analysis.walk.walk_ops`). Its loop over the worklist
(`_process_worklist`) is xDSL's, with the rewriter's state reset per op by its fields
rather than through properties (Note [The walker's loop]); patterns, listeners and
the worklist are xDSL's, so a pass rewrites exactly as with `PatternRewriteWalker`.
"""

from __future__ import annotations

from typing import cast

from xdsl.ir import Block, Operation, Region
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriterListener, PatternRewriteWalker
from xdsl.rewriter import InsertPoint
from xdsl.utils.worklist import _MISSING  # pyright: ignore[reportPrivateUsage]


class RewriteWalker(PatternRewriteWalker):
    """`PatternRewriteWalker` with a faster walk to fill the worklist."""

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        if not isinstance(op, Region):
            super()._populate_worklist(op)
            return
        ops = walk_order(op, reverse=not self.walk_reverse,
                         region_first=not self.walk_regions_first)
        worklist = self._worklist
        if not worklist._map:  # pyright: ignore[reportPrivateUsage]
            # Empty (its stack holds at most removed items): filled at once, as pushing
            # each op would fill it (Note [The walker's loop]).
            worklist._stack = ops  # type: ignore[assignment]  # pyright: ignore[reportPrivateUsage]
            worklist._map = {o: i for i, o in enumerate(ops)}  # pyright: ignore[reportPrivateUsage]
            return
        push = worklist.push
        for sub_op in ops:
            push(sub_op)

    def _process_worklist(self, listener: PatternRewriterListener) -> bool:
        """Apply the pattern to every op popped from the worklist until it is empty;
        whether anything changed (xDSL's loop, Note [The walker's loop])."""
        worklist = self._worklist
        # The worklist's own stack and index, popped as `Worklist.pop` does; the
        # listeners push onto the same two objects while the pattern rewrites.
        stack = worklist._stack  # pyright: ignore[reportPrivateUsage]
        index = worklist._map  # pyright: ignore[reportPrivateUsage]
        pop = stack.pop
        rewriter: _Rewriter | None = None
        match_and_rewrite = self.pattern.match_and_rewrite
        changed = False
        while stack:
            op = pop()
            if op is _MISSING:  # removed from the worklist after it was pushed
                continue
            del index[op]
            if rewriter is None:
                rewriter = _Rewriter(op)
                rewriter.extend_from_listener(listener)
            rewriter.has_done_action = False
            rewriter._current_operation = op  # pyright: ignore[reportPrivateUsage]
            block = op.parent
            if block is None:
                raise ValueError("Operation insertion point must have a parent block")
            rewriter.point_before(block, op)
            rewriter._name_hint = None  # pyright: ignore[reportPrivateUsage]
            try:
                match_and_rewrite(op, rewriter)
            except Exception as err:
                op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
            changed |= rewriter.has_done_action
        return changed


class _Rewriter(PatternRewriter):
    """A `PatternRewriter` whose insertion point before the current op is built when a
    pattern first asks for it (most ops match no pattern: Note [The walker's loop])."""

    _point: InsertPoint | None
    _point_block: Block
    _point_op: Operation

    @property
    def insertion_point(self) -> InsertPoint:  # pyright: ignore[reportIncompatibleVariableOverride]
        point = self._point
        if point is None:
            # `InsertPoint(block, op)` as it was when set: valid then (the op's parent
            # was the block), so not checked again now.
            point = object.__new__(InsertPoint)
            object.__setattr__(point, "block", self._point_block)
            object.__setattr__(point, "insert_before", self._point_op)
            self._point = point
        return point

    @insertion_point.setter
    def insertion_point(self, point: InsertPoint) -> None:
        self._point = point

    def point_before(self, block: Block, op: Operation) -> None:
        """Set the insertion point before `op`, in its parent `block`."""
        self._point, self._point_block, self._point_op = None, block, op


# Note [The walker's loop]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# xDSL's `_process_worklist` resets the rewriter before each op through the setters
# of `current_operation` and `name_hint` (the latter validates the name it is given)
# and `InsertPoint.before(op)` (which asks the op for its parent block): a few
# Python calls per op, on every op of a module of thousands, pass after pass.
# `RewriteWalker._process_worklist` sets the same fields to the same values directly:
# the current op, the insertion point before it in its parent block (an op's parent
# is its block; built only if a pattern asks for it, `_Rewriter`), and no name
# hint. It pops as `Worklist.pop` does, from the
# worklist's own stack and index (skipping the entries `Worklist.remove` left as
# `_MISSING`), without a method call and an emptiness test per op; and
# `_populate_worklist` fills an empty worklist with one list and one dictionary
# holding what pushing each op in turn would (each op at its position), rather
# than a `push` per op.


def _contents(region: Region, reverse: bool) -> list[Operation]:
    """The ops directly in `region`'s blocks, in order (both reversed if `reverse`)."""
    out: list[Operation] = []
    add = out.append
    for block in reversed(region.blocks) if reverse else region.blocks:
        op = block._last_op if reverse else block._first_op
        while op is not None:
            add(op)
            op = op._prev_op if reverse else op._next_op
    return out


def walk_order(region: Region, *, reverse: bool, region_first: bool) -> list[Operation]:
    """The ops nested in `region` in the order of `region.walk(reverse=reverse,
    region_first=region_first)`."""
    out: list[Operation] = []
    emit = out.append
    # Items pop in walk order: an op to visit, or (op,) to emit an op after its regions.
    stack: list[Operation | tuple[Operation]] = list(reversed(_contents(region, reverse)))
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        item = pop()
        if type(item) is tuple:
            emit(item[0])
            continue
        item = cast(Operation, item)  # not `isinstance`: op classes are slow ABCs
        if not item.regions:
            emit(item)
            continue
        if region_first:
            push((item,))
        else:
            emit(item)
        inner: list[Operation] = []
        for r in reversed(item.regions) if reverse else item.regions:
            inner += _contents(r, reverse)
        extend(reversed(inner))
    return out
