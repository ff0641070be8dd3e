"""Which reduction operators count as commutative (`l0.lowering.scf.commutative`): the
segmented reductions of the GPU back ends fold interleaved chunks only for those
(Note [Interleaved chunks] in `l0.lowering.scf.segment_reductions`)."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, scf

from l0.dialects import msoac
from l0.dialects.context import l0_context
from l0.frontend import l0_to_module
from l0.lowering.bufferise import BufferisePass
from l0.lowering.scf.commutative import commutative_operator

OPERATORS = {
    "op +": ("int", True), "op *": ("int", True), "op &&": ("bool", True),
    "op ||": ("bool", True), "op -": ("int", False), "op /": ("int", False),
    "fn int (int a, int b) => if a < b then a else b": ("int", True),
    "fn int (int a, int b) => if b <= a then a else b": ("int", True),
    "fn int (int a, int b) => if a = b then a else b": ("int", False),
    "fn int (int a, int b) => if a < b then b else b": ("int", False),
    "fn int (int a, int b) => a + b + 1": ("int", False),
    "fn real (real a, real b) => a + b": ("real", True),
    "fn real (real a, real b) => b * a": ("real", True),
    "fn real (real a, real b) => if a < b then a else b": ("real", False),
    "fn real (real a, real b) => a - b": ("real", False),
}


def _operator(op: str, element: str) -> msoac.ReduceOp:
    zero = {"int": "0", "bool": "True", "real": "0.0"}[element]
    text = f"fun {element} main([{element}] xs) = reduce({op}, {zero}, xs)\n"
    module = l0_to_module(text, "op.l0")
    BufferisePass().apply(l0_context(), module)
    (red,) = [o for o in module.walk() if isinstance(o, msoac.ReduceOp)]
    return red


@pytest.mark.parametrize("op", list(OPERATORS))
def test_commutative_operators(op: str) -> None:
    element, commutes = OPERATORS[op]
    red = _operator(op, element)
    region = red.operator()
    assert region is not None
    assert commutative_operator(region) == commutes


def test_a_select_choosing_one_of_the_two_is_min_or_max() -> None:
    """The optimiser may write min as `arith.select` instead of an `scf.if`."""
    red = _operator("fn int (int a, int b) => if a < b then a else b", "int")
    region = red.operator()
    assert region is not None
    (branch,) = [o for o in region.walk() if isinstance(o, scf.IfOp)]
    cond = branch.cond
    select = arith.SelectOp(cond, branch.true_region.block.last_op.operands[0],
                            branch.false_region.block.last_op.operands[0])
    branch.parent_block().insert_op_before(select, branch)
    branch.results[0].replace_all_uses_with(select.result)
    branch.detach()
    branch.erase()
    assert commutative_operator(region)


TUPLES = {
    # sibling folds fused horizontally: each component on its own
    "{a1 + a2, b1 * b2}": True,
    "{min1, b1 + b2}": True,
    # components that read each other: an affine map's composition, crossed components
    "{a1 * a2, b1 * a2 + b2}": False,
    "{a1 + b2, b1 + a2}": False,
}


@pytest.mark.parametrize("body", list(TUPLES))
def test_tuple_operators_commute_componentwise(body: str) -> None:
    value = body.replace("min1", "if a1 < a2 then a1 else a2")
    text = ("fun {[int], [int]} main([int] xs, [int] ys) =\n"
            "  let {s, t} = reduce(fn {int, int} ({int, int} f, {int, int} g) =>\n"
            "      let {a1, b1} = f in let {a2, b2} = g in " + value + ",\n"
            "    {0, 1}, zip(xs, ys)) in {[s], [t]}\n")
    module = l0_to_module(text, "tuple.l0")
    BufferisePass().apply(l0_context(), module)
    (red,) = [o for o in module.walk() if isinstance(o, msoac.ReduceOp)]
    region = red.operator()
    assert region is not None
    assert commutative_operator(region) == TUPLES[body]
