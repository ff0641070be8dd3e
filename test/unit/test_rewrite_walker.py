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
