"""A faster `Operation.walk()`: every op nested in an op, in the same (textual) order.

xDSL's `walk` is a generator per op, region and block, chained with `yield from`, so
each op costs a resumption per level of nesting. The analyses that look at a whole
function on every run of a pass (the call graph, effects, the pipeline's fixed-point
check) walk thousands of ops, pass after pass; this walk keeps its own stack instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.ir import Operation


def walk_ops(root: Operation) -> Iterator[Operation]:
    """`root` and every op nested in it, in the order of `root.walk()` (pre-order)."""
    stack = [root]
    pop, push = stack.pop, stack.append
    while stack:
        op = pop()
        yield op
        if op.regions:
            for region in reversed(op.regions):
                for block in reversed(region.blocks):
                    inner = block.last_op
                    while inner is not None:
                        push(inner)
                        inner = inner.prev_op
