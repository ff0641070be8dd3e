"""A numbering of the values of a function in the order of their definitions.

`cse` sorts the operands of commutative ops by it and `bounds` orders the symbols of
its affine forms by it, so that what a pass produces never depends on where Python
put an object in memory.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from l0.passes.analysis.walk import walk_ops


class DefinitionOrder:
    """Numbers the values under `root` in the order of their definitions (an op's
    results, then the arguments of its regions' blocks, then the ops inside), so that
    canonical operand orders never depend on object identities. Values created later
    get numbers when first asked."""

    def __init__(self, root: Operation) -> None:
        numbers: dict[SSAValue, int] = {}
        self._numbers = numbers
        # Every value is defined once, so each is new here: numbered directly, without
        # a call per value (and the blocks through their linked list, not a view).
        for op in walk_ops(root):  # `root.walk()`'s order, faster
            for v in op.results:
                numbers[v] = len(numbers)
            for region in op.regions:
                block = region._first_block  # pyright: ignore[reportPrivateUsage]
                while block is not None:
                    for a in block.args:
                        numbers[a] = len(numbers)
                    block = block._next_block  # pyright: ignore[reportPrivateUsage]

    def __call__(self, v: SSAValue) -> int:
        n = self._numbers.get(v)
        if n is None:
            n = self._numbers[v] = len(self._numbers)
        return n
