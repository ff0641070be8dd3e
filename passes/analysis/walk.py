"""A faster `Operation.walk()`: every op nested in an op, in the same (textual) order.

xDSL's `walk` is a generator per op, region and block, chained with `yield from`, so
each op costs a resumption per level of nesting. The analyses that look at a whole
function on every run of a pass (the call graph, effects, the pipeline's fixed-point
check) walk thousands of ops, pass after pass; this walk keeps its own stack instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xdsl.ir import Block, Operation, Region


def walk_ops(root: Operation | Region | Block) -> Iterator[Operation]:
    """`root` and every op nested in it (a region's or block's: every op in it), in the
    order of `root.walk()` (pre-order). The ops of each block are read when the walk
    reaches the op around it: a caller that inserts or erases ops while it walks should
    walk a list of them (as it should with xDSL's walk); changing operands and
    attributes is safe."""
    if isinstance(root, Operation):
        stack = [root]
    else:
        stack = [op for block in ([root] if isinstance(root, Block) else root.blocks)
                 for op in block_ops(block)]
        stack.reverse()
    pop, push = stack.pop, stack.append
    while stack:
        op = pop()
        yield op
        if op.regions:
            # The linked lists' own fields: `region.blocks` builds a view object and
            # `block.last_op`, `op.prev_op` are properties, per op of every walk.
            for region in reversed(op.regions):
                block = region._last_block
                while block is not None:
                    inner = block._last_op
                    while inner is not None:
                        push(inner)
                        inner = inner._prev_op
                    block = block._prev_block


def block_ops(block: Block) -> list[Operation]:
    """The ops of `block`, in order: `list(block.ops)` without its cost (`list` asks
    `len(block.ops)` first, which counts them with a Python loop, then iterates with
    a Python iterator: two walks of Python calls, where this is one tight loop)."""
    out: list[Operation] = []
    add = out.append
    op = block._first_op
    while op is not None:
        add(op)
        op = op._next_op
    return out


def contains_op(root: Operation, op_classes: Iterable[type[Operation]]) -> bool:
    """Whether `root` or an op nested in it is of one of `op_classes` (exactly: op
    classes are ABCs, slow to test with `isinstance`, and l0's are never subclassed).

    A pass that can only rewrite ops of some classes asks this first and returns at
    once when there are none: on a module without them, its analyses (built before
    the rewrite walk, over the whole module) would be wasted, round after round of
    the pipeline's fixed point."""
    wanted = frozenset(op_classes)
    return any(type(op) in wanted for op in walk_ops(root))
