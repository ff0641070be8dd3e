"""`RewriteWalker` (`l0.passes.cores.rewrite_walker`) fills its worklist in the order of
xDSL's own walk, so passes using it rewrite exactly as with `PatternRewriteWalker`."""

from __future__ import annotations

import pytest

from l0.frontend import l0_to_module
from l0.passes.cores.rewrite_walker import walk_order

_NESTED = """
fun [int] main([[int]] m, int n) =
  let s = reduce(op +, 0, map(fn int ([int] r) => reduce(op +, 0, r), m)) in
  let t = if n < s then map(fn int (int x) => x * 2, iota(n)) else iota(n) in
  loop (t) = for i < n do map(fn int (int x) => x + i, t) in
  t
"""


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("region_first", [False, True])
def test_walk_order_is_xdsls(reverse: bool, region_first: bool) -> None:
    region = l0_to_module(_NESTED, "nested.l0").body
    expected = list(region.walk(reverse=reverse, region_first=region_first))
    got = walk_order(region, reverse=reverse, region_first=region_first)
    assert len(got) == len(expected) > 20
    assert all(a is b for a, b in zip(got, expected, strict=True))


def test_simplify_rewrites_as_with_xdsls_walker() -> None:
    """The walker's own loop and worklist filling (Note [The walker's loop]) rewrite
    exactly as xDSL's `PatternRewriteWalker`: ops erased (removed from the worklist)
    and created (pushed) on the way, sweep after sweep."""
    from xdsl.pattern_rewriter import PatternRewriteWalker

    from l0.passes.pipeline import module_text
    from l0.passes.simplify import simplify_walker

    source = _NESTED.replace("x * 2", "(x + 0) * (2 - 1) + (3 - 3)")
    ours, theirs = l0_to_module(source, "n.l0"), l0_to_module(source, "n.l0")
    assert simplify_walker(ours).rewrite_module(ours)
    walker = simplify_walker(theirs)
    assert PatternRewriteWalker(walker.pattern).rewrite_module(theirs)
    assert module_text(ours) == module_text(theirs)
    assert "arith.muli" not in module_text(ours)
