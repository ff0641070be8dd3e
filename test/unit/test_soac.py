"""The soac dialect's Python API (`l0.dialects.soac`), as the internaliser and passes use it.

Ops are built with their constructors, read through their accessors, verified, printed
and parsed back; the effect traits are those generic passes rely on. The textual syntax
and every verifier message are tested by `test/lit/dialects/soac/`.
"""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO

import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import FloatAttr, IntAttr, ModuleOp, StringAttr, f64, i1, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import get_effects, is_speculatable
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import VerifyException

from l0.dialects import soac
from l0.dialects.context import l0_context

F64S = soac.array_type(f64)
F64SS = soac.array_type(f64, 2)
I64S = soac.array_type(i64)


def in_function(
    arg_types: list[Attribute], build: Callable[[list[SSAValue]], list[Operation]]
) -> tuple[ModuleOp, list[Operation]]:
    """A module with one function `@f` taking `arg_types`; `build(args)` returns the ops
    of its body (a `func.return` is added)."""
    block = Block(arg_types=arg_types)
    ops = build(list(block.args))
    block.add_ops([*ops, func.ReturnOp()])
    fn = func.FuncOp("f", (arg_types, ()), Region(block))
    return ModuleOp([fn]), ops


def lambda_region(
    arg_types: list[Attribute],
    body: Callable[[list[SSAValue]], tuple[list[Operation], list[SSAValue]]],
) -> Region:
    """A lambda: `body(args)` returns (ops, yielded values)."""
    block = Block(arg_types=arg_types)
    ops, values = body(list(block.args))
    block.add_ops([*ops, soac.YieldOp(*values)])
    return Region(block)


def round_trip(module: ModuleOp) -> None:
    for generic in (False, True):
        text = StringIO()
        Printer(stream=text, print_generic_format=generic).print_op(module)
        parsed = Parser(l0_context(), text.getvalue()).parse_module()
        parsed.verify()
        assert parsed.is_structurally_equivalent(module), text.getvalue()


def test_type_helpers() -> None:
    assert str(F64SS) == "tensor<?x?xf64>"
    assert soac.array_of(f64) == F64S
    assert soac.array_of(F64S) == F64SS
    assert soac.row_type(F64SS) == F64S
    assert soac.row_type(F64SS, 2) == f64
    assert soac.row_type(F64S, 2) is None
    assert soac.row_type(f64) is None
    assert soac.is_array_type(soac.array_type(soac.CertType()))
    assert soac.is_array_type(soac.array_type(i32, 3))
    assert not soac.is_array_type(soac.array_type(IntAttr(1)))
    assert soac.is_value_type(i1) and not soac.is_value_type(soac.array_type(i1, 0))
    assert soac.UNIQUE_ATTR == "soac.unique"


def test_certificates_and_array_ops() -> None:
    def build(args: list[SSAValue]) -> list[Operation]:
        ok, i, n, x, a, m = args
        checked = soac.CheckedOp()
        cert = soac.AssertOp(ok, "index {0} out of bounds, size {1}", "p.l0:3:7", [i, n])
        both = soac.ConjoinOp([checked.result, cert.cert])
        iota = soac.IotaOp(n, [both.result])
        rep = soac.ReplicateOp(n, a)
        lit = soac.ArrayOp([x, x], F64S, loc="p.l0:1:1")
        empty = soac.EmptyOp(F64SS)
        size = soac.SizeOp(m, 1, [cert.cert])
        elem = soac.IndexOp(m, [i, i], f64, [cert.cert])
        row = soac.IndexOp(m, [i], F64S)
        upd = soac.UpdateOp(m, [i], a, [cert.cert])
        shp = soac.ReshapeOp(a, [n, n], F64SS)
        tr = soac.TransposeOp(m, 1, -1)
        spl = soac.SplitOp(i, a, [cert.cert])
        cat = soac.ConcatOp(a, a, loc="p.l0:2:2")
        cp = soac.CopyOp(a)
        trace = soac.TraceOp([x, a], "p.l0:4:4")
        return [checked, cert, both, iota, rep, lit, empty, size, elem, row, upd, shp, tr,
                spl, cat, cp, trace]

    module, ops = in_function([i1, i64, i64, f64, F64S, F64SS], build)
    module.verify()
    by_type = {type(op): op for op in ops}
    cert = by_type[soac.AssertOp]
    assert isinstance(cert, soac.AssertOp)
    assert cert.msg == StringAttr("index {0} out of bounds, size {1}")
    assert cert.loc.data == "p.l0:3:7" and len(cert.values) == 2
    assert cert.cert.type == soac.CertType()
    assert by_type[soac.IotaOp].result.type == I64S
    assert by_type[soac.ReplicateOp].result.type == F64SS
    size = by_type[soac.SizeOp]
    assert isinstance(size, soac.SizeOp) and size.dim.data == 1 and size.result.type == i64
    tr = by_type[soac.TransposeOp]
    assert isinstance(tr, soac.TransposeOp) and (tr.k.data, tr.n.data) == (1, -1)
    spl = by_type[soac.SplitOp]
    assert isinstance(spl, soac.SplitOp) and spl.first.type == spl.second.type == F64S
    upd = by_type[soac.UpdateOp]
    assert isinstance(upd, soac.UpdateOp) and upd.result.type == F64SS and len(upd.certs) == 1
    assert by_type[soac.TraceOp].result_types == (f64, F64S)
    round_trip(module)


def test_soacs() -> None:
    def build(args: list[SSAValue]) -> list[Operation]:
        a, m, zero, c = args
        one = arith.ConstantOp(FloatAttr(1.0, f64))

        def add(xs: list[SSAValue]) -> tuple[list[Operation], list[SSAValue]]:
            s = arith.AddfOp(xs[0], xs[1])
            return [s], [s.result]

        mp = soac.MapOp(
            [a, m], [F64S, F64SS],
            lambda_region([f64, F64S], lambda xs: (
                [p := arith.AddfOp(xs[0], one.result)], [p.result, xs[1]])),
            [c], loc="p.l0:1:1",
        )
        red = soac.ReduceOp([zero], [a], lambda_region([f64, f64], add), [c])
        scan = soac.ScanOp([zero], [a], lambda_region([f64, f64], add))
        flt = soac.FilterOp(
            [a, m],
            lambda_region([f64, F64S], lambda xs: (
                [b := arith.CmpfOp(xs[0], zero, "olt")], [b.result])),
        )
        rdm = soac.RedomapOp([zero], [a], lambda_region([f64, f64], add),
                             lambda_region([f64, f64], add), [c])
        return [one, mp, red, scan, flt, rdm]

    module, ops = in_function([F64S, F64SS, f64, soac.CertType()], build)
    module.verify()
    _, mp, red, scan, flt, rdm = ops
    assert isinstance(mp, soac.MapOp) and mp.result_types == (F64S, F64SS)
    assert len(mp.inputs) == 2 and len(mp.certs) == 1 and len(mp.body.block.args) == 2
    assert isinstance(red, soac.ReduceOp) and red.outputs[0].type == f64
    assert isinstance(scan, soac.ScanOp) and scan.outputs[0].type == F64S
    assert isinstance(flt, soac.FilterOp) and flt.result_types == (F64S, F64SS)
    assert isinstance(rdm, soac.RedomapOp) and len(rdm.outer.block.args) == 2
    assert len(rdm.inner.block.args) == 2 and len(rdm.neutral) == 1
    round_trip(module)


def test_effects_seen_by_generic_passes() -> None:
    def build(args: list[SSAValue]) -> list[Operation]:
        a, ok, i = args
        cert = soac.AssertOp(ok, "m", "p.l0:1:1")
        idx = soac.IndexOp(a, [i], f64, [cert.cert])
        lit = soac.ArrayOp([idx.result], F64S, loc="p.l0:1:1")
        trace = soac.TraceOp([idx.result], "p.l0:1:1")
        pure_map = soac.MapOp([a], [F64S], lambda_region([f64], lambda xs: ([], xs)))
        checking_map = soac.MapOp([a], [soac.array_type(soac.CertType())], lambda_region(
            [f64], lambda xs: ([c := soac.AssertOp(ok, "m", "p.l0:1:1")], [c.cert])))
        return [cert, idx, lit, trace, pure_map, checking_map]

    module, ops = in_function([F64S, i1, i64], build)
    module.verify()
    cert, idx, lit, trace, pure_map, checking_map = ops
    assert get_effects(cert) is None and get_effects(trace) is None  # unknown: kept
    assert get_effects(idx) == set() and is_speculatable(idx)
    assert get_effects(lit) == set() and not is_speculatable(lit)  # may fail at run time
    assert get_effects(pure_map) == set()
    assert get_effects(checking_map) is None


GENERIC_PASSES_INPUT = """
func.func @f(%a: tensor<?x?xf64>, %n: i64, %i: i64, %ok: i1, %x: f64) -> (f64, f64, !soac.cert) {
  %c1 = soac.assert %ok, "index out of bounds" at "p.l0:1:1"
  %c2 = soac.assert %ok, "index out of bounds" at "p.l0:1:1"
  %dead_iota = soac.iota %n <%c1>
  %e1 = soac.index %a[%i, %i] <%c1> : tensor<?x?xf64> -> f64
  %e2 = soac.index %a[%i, %i] <%c1> : tensor<?x?xf64> -> f64
  %dead_map = soac.map(%r = %a : tensor<?x?xf64>) -> tensor<?xf64> {
    %y = soac.index %r[%i] : tensor<?xf64> -> f64
    soac.yield %y : f64
  }
  %checking_map = soac.map(%r = %a : tensor<?x?xf64>) -> tensor<?x!soac.cert> {
    %d = soac.assert %ok, "in a lambda" at "p.l0:2:2"
    soac.yield %d : !soac.cert
  }
  %tr = soac.trace(%x : f64) at "p.l0:3:3"
  func.return %e1, %e2, %c2 : f64, f64, !soac.cert
}
"""


def test_generic_passes_respect_the_effects() -> None:
    """xDSL's own dce and cse (which l0's passes may build on) erase and merge pure ops
    only: asserts and traces stay, and so does a SOAC whose lambda asserts."""
    module = Parser(l0_context(), GENERIC_PASSES_INPUT).parse_module()
    region_dce(module.body)
    cse(module)
    module.verify()
    names = [op.name for op in module.walk()][2:]  # after builtin.module, func.func
    assert names == [
        "soac.assert", "soac.assert", "soac.index",
        "soac.map", "soac.assert", "soac.yield",
        "soac.trace", "func.return",
    ]


def test_verifier_rejects_malformed_ops() -> None:
    def build(args: list[SSAValue]) -> list[Operation]:
        (a,) = args
        bad = soac.MapOp([a], [F64S], lambda_region([f64, f64], lambda xs: ([], [xs[0]])))
        return [bad]

    module, _ = in_function([F64S], build)
    with pytest.raises(VerifyException, match="expected the lambda to take 1 argument, found 2"):
        module.verify()
    # the custom printer falls back to an explicit entry block instead of failing
    text = StringIO()
    Printer(stream=text).print_op(module)
    assert "soac.map(%0 : tensor<?xf64>) -> tensor<?xf64> {" in text.getvalue()
    assert "^bb0(%2: f64, %3: f64):" in text.getvalue()


def test_context_has_the_internal_l0_dialects() -> None:
    ctx = l0_context()
    for name in ("builtin", "func", "arith", "scf", "math", "soac"):
        assert ctx.get_optional_dialect(name) is not None, name
