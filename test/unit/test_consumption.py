"""The one consumption analysis (`l0.passes.analysis.consumption`): how it follows
aliases, and that an op it does not know counts as returning its operands
(Note [Unknown ops alias])."""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import ModuleOp, UnregisteredOp
from xdsl.parser import Parser

from l0.dialects.context import l0_context
from l0.passes.analysis.consumption import (
    Consumption,
    alias_closure,
    alias_sources,
    consumes,
    may_be_consumed,
)


def parse(src: str) -> ModuleOp:
    ctx = l0_context()
    ctx.allow_unregistered = True
    module = Parser(ctx, src).parse_module()
    module.verify()
    return module


def op_named(module: ModuleOp, name: str) -> Any:
    return next(op for op in module.walk() if op.name == name)


def unknown_op(module: ModuleOp) -> UnregisteredOp:
    return next(op for op in module.walk() if isinstance(op, UnregisteredOp))


# `mystery.view` is an op no analysis knows: it might return `%a` itself.
_UNKNOWN = """
func.func @f(%a: tensor<?xi64>, %i: i64, %x: i64) -> (i64, tensor<?xi64>) {
  %v = "mystery.view"(%a) : (tensor<?xi64>) -> tensor<?xi64>
  %u = soac.update %a[%i] = %x : tensor<?xi64>
  %n = soac.size(0) %v : tensor<?xi64>
  func.return %n, %u : i64, tensor<?xi64>
}
"""


def test_an_unknown_op_may_return_its_operands() -> None:
    module = parse(_UNKNOWN)
    view = unknown_op(module)
    a = view.operands[0]
    assert alias_sources(view.results[0]) == [a]
    assert a in alias_closure(view.results[0])


def test_an_array_from_an_unknown_op_is_consumed_with_its_operand() -> None:
    module = parse(_UNKNOWN)
    view = unknown_op(module)
    update = op_named(module, "soac.update")
    size = op_named(module, "soac.size")
    assert may_be_consumed(view.results[0])
    consumption = Consumption(module)
    assert consumption.may_be_consumed(view.results[0])
    # the update of `%a` runs between the view and the size that reads it
    assert consumption.consumed_between([view.results[0]], view, size) is update


_KNOWN = """
func.func @f(%a: tensor<?xi64>, %m: tensor<?x?xi64>, %i: i64, %x: i64
             ) -> (i64, tensor<?xi64>) {
  %c = soac.copy %a : tensor<?xi64>
  %t = soac.transpose(0, 1) %m : tensor<?x?xi64>
  %u = soac.update %c[%i] = %x : tensor<?xi64>
  %n = soac.size(0) %t : tensor<?x?xi64>
  func.return %n, %u : i64, tensor<?xi64>
}
"""


def test_known_ops_fresh_or_view() -> None:
    module = parse(_KNOWN)
    copy = op_named(module, "soac.copy")
    view = op_named(module, "soac.transpose")
    update = op_named(module, "soac.update")
    assert alias_sources(copy.results[0]) == []
    assert alias_sources(view.results[0]) == [view.operands[0]]
    assert alias_sources(update.results[0]) == [copy.results[0]]  # in place
    assert may_be_consumed(copy.results[0])
    assert not may_be_consumed(view.results[0])  # only the copy is updated
    assert consumes(update) and not consumes(view)


_BETWEEN = """
func.func @f(%a: tensor<?xi64>, %d: tensor<?xi64>, %i: i64)
    -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %b = soac.copy %a : tensor<?xi64>
  %e = soac.update %d[%i] = %i : tensor<?xi64>
  %c = soac.copy %b : tensor<?xi64>
  func.return %b, %c, %e : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
"""


def test_consumed_between_without_numbering_for_unconsumed_arrays() -> None:
    """Note [Consumption queries in linear time]: asking about an array nothing consumes
    numbers no op; an array that is consumed is still found, after `forget_order`."""
    module = parse(_BETWEEN)
    first, last = (op for op in module.walk() if op.name == "soac.copy")
    update = op_named(module, "soac.update")
    facts = Consumption(module)
    a, d = first.operands[0], update.operands[0]
    assert facts.consumed_between([a], first, last) is None
    assert not facts.positions
    assert facts.consumed_between([d], first, last) is update
    facts.forget_order()
    assert not facts.positions
    assert facts.consumed_between([d], first, last) is update
