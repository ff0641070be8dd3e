"""The pipeline's fixed-point check (`_fingerprint`, Note [Fingerprints by identity]),
the stack-based walk it uses and `block_ops` (`l0.passes.analysis.walk`), the definition order
(`l0.passes.analysis.order`) and the cycle collector's freeze around `optimise` (Note [The
cycle collector and the compiler])."""

from __future__ import annotations

import gc
from unittest.mock import patch

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.passes import ModulePass

from l0 import collector
from l0.collector import YOUNG_COLLECTION_EVERY
from l0.frontend import l0_to_module
from l0.passes import PASSES
from l0.passes.analysis.walk import walk_ops
from l0.passes.pipeline import _fingerprint, optimise

_PROGRAM = """
fun int main([int] a, int k) =
  let b = map(fn int (int x) => x * k + 3, a) in
  let s = reduce(op +, 0, b) in
  loop (t = s) = for i < k do t + i in
  if t < 0 then 1 else t
"""


def _module() -> ModuleOp:
    return l0_to_module(_PROGRAM, "f.l0")


def test_walk_ops_visits_what_walk_does_in_its_order() -> None:
    module = _module()
    assert list(walk_ops(module)) == list(module.walk())
    assert len(list(walk_ops(module))) >= 20  # nested three deep: lambdas, a loop, an if


def test_an_untouched_module_has_the_same_fingerprint() -> None:
    module = _module()
    assert _fingerprint(module).same(_fingerprint(module))


def test_a_changed_property_is_a_change() -> None:
    module = _module()
    before = _fingerprint(module)
    const = next(op for op in module.walk() if isinstance(op, arith.ConstantOp))
    const.properties["value"] = IntegerAttr(41, i64)
    assert not _fingerprint(module).same(before)


def test_swapped_operands_and_a_new_equal_op_are_changes() -> None:
    module = _module()
    before = _fingerprint(module)
    add = next(op for op in module.walk() if isinstance(op, arith.AddiOp))
    add.operands = list(reversed(add.operands))
    after = _fingerprint(module)
    assert not after.same(before)
    const = next(op for op in module.walk() if isinstance(op, arith.ConstantOp))
    twin = arith.ConstantOp(const.value)
    assert const.parent is not None
    const.parent.insert_op_before(twin, const)
    const.result.replace_all_uses_with(twin.result)
    const.detach()
    assert not _fingerprint(module).same(after)


def test_a_fingerprint_taken_after_another_reuses_its_entries() -> None:
    """Note [Fingerprints reuse their entries]: unchanged ops keep their entries; an op
    changed in place, or a new op, gets a new one, and the change is seen."""
    module = _module()
    before = _fingerprint(module)
    again = _fingerprint(module, before)
    assert again.same(before)
    assert all(a is b for a, b in zip(again.ops, before.ops, strict=True))
    const = next(op for op in module.walk() if isinstance(op, arith.ConstantOp))
    const.properties["value"] = IntegerAttr(41, i64)
    after = _fingerprint(module, again)
    assert not after.same(again)
    assert after.same(_fingerprint(module))
    changed = [a for a, b in zip(after.ops, again.ops, strict=True) if a is not b]
    assert [entry[0] for entry in changed] == [const]
    add = next(op for op in module.walk() if isinstance(op, arith.AddiOp))
    add.attributes["note"] = IntegerAttr(1, i64)
    assert not _fingerprint(module, after).same(after)


def test_optimise_leaves_nothing_frozen() -> None:
    # The worker may hold objects frozen by another test (test_matrix's cells freeze
    # what survives them): start from none, and give them back afterwards.
    held = collector.held()
    collector.release()
    try:
        optimise(_module())
        assert gc.get_freeze_count() == 0
    finally:
        if held:
            collector.hold()


def test_optimise_collects_less_often_and_restores_the_thresholds() -> None:
    # During the pipeline the collector's first threshold is raised (Note [The cycle
    # collector and the compiler]); afterwards it is the caller's again.
    held = collector.held()
    collector.release()
    seen: list[int] = []

    class Watch(ModulePass):
        name = "watch-thresholds"

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            seen.append(gc.get_threshold()[0])

    before = gc.get_threshold()
    try:
        with patch.dict(PASSES, {"watch-thresholds": lambda: Watch}):
            optimise(_module(), ["watch-thresholds"])
        assert seen and seen[0] >= YOUNG_COLLECTION_EVERY > before[0]
        assert gc.get_threshold() == before
    finally:
        if held:
            collector.hold()


def test_a_caller_that_holds_the_collector_keeps_its_freeze() -> None:
    # Note [Who froze the collector]: while the caller holds, a stage neither freezes
    # nor unfreezes, so what the caller froze stays frozen through a compile.
    # (The freeze count is no witness: a frozen object freed by its reference count
    # leaves the frozen generation, so the count may drop during the compile.)
    held = collector.held()
    collector.hold()
    try:
        with patch("gc.freeze") as freeze, patch("gc.unfreeze") as unfreeze:
            optimise(_module())
        assert not freeze.called and not unfreeze.called
        assert gc.get_freeze_count() > 0
    finally:
        if not held:
            collector.release()


def test_block_ops_lists_a_blocks_ops_in_order() -> None:
    from l0.passes.analysis.walk import block_ops

    module = _module()
    blocks = [b for op in walk_ops(module) for r in op.regions for b in r.blocks]
    assert len(blocks) >= 4
    for block in blocks:
        assert block_ops(block) == list(block.ops)


def test_definition_order_numbers_values_in_walk_order() -> None:
    """`DefinitionOrder` numbers an op's results, then its blocks' arguments, op after
    op in `walk` order, each value once, and later values when first asked."""
    from l0.passes.analysis.order import DefinitionOrder

    module = _module()
    expected: list[object] = []
    for op in module.walk():
        expected += op.results
        expected += [a for r in op.regions for b in r.blocks for a in b.args]
    order = DefinitionOrder(module)
    assert [order(v) for v in expected] == list(range(len(expected)))
    assert len(expected) >= 15
    new = arith.ConstantOp(IntegerAttr(7, i64))
    assert order(new.result) == len(expected) == order(new.result)
