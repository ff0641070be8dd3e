"""The second-order array combinators of the `soac` dialect (thesis 2.2): `soac.map`,
`reduce`, `scan`, `filter`, `redomap` and `scanomap`, whose lambdas are single-block
regions ending in `soac.yield`. Their syntax names the lambda's arguments
(`l0.dialects.soac.syntax`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar, Self

from xdsl.dialects.builtin import StringAttr, i1
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from l0.dialects.fast_ops import init_with_segments
from l0.dialects.lambda_yield import LambdaYield
from l0.dialects.soac.syntax import (
    parse_attr_dict,
    parse_fold,
    parse_row_lambda,
    print_attr_dict,
    print_fold,
    print_lambda,
    print_row_lambda,
)
from l0.dialects.soac.types import ARRAY, CERT, VALUE, array_of
from l0.dialects.soac.verify import expect_result_types, expect_type, plural, rows


def _verify_lambda(
    region: Region,
    lam: str,
    args: Sequence[tuple[Attribute, str]],
    yields: Sequence[tuple[Attribute, str]] | None,
) -> YieldOp:
    """Check a lambda region: its arguments have the given (type, description) pairs;
    it ends in `soac.yield`, whose values have the given types when `yields` is given.
    Returns the yield."""
    block = region.block
    if len(block.args) != len(args):
        raise VerifyException(
            f"expected {lam} to take {plural(len(args), 'argument')}, found {len(block.args)}"
        )
    for i, (arg, (t, why)) in enumerate(zip(block.args, args, strict=True)):
        expect_type(f"{lam} argument {i}", t, arg.type, why)
    last = block.last_op
    if not isinstance(last, YieldOp):
        found = "an empty block" if last is None else last.name
        raise VerifyException(f"expected {lam} to end in soac.yield, found {found}")
    if yields is not None:
        if len(last.values) != len(yields):
            raise VerifyException(
                f"expected {lam} to yield {plural(len(yields), 'value')}, "
                f"found {len(last.values)}"
            )
        for i, (v, (t, why)) in enumerate(zip(last.values, yields, strict=True)):
            expect_type(f"{lam} result {i}", t, v.type, why)
    return last


def _verify_neutral_inputs(neutral: Sequence[SSAValue], inputs: Sequence[SSAValue]) -> None:
    """reduce/scan: one neutral element per input, of the input's row type."""
    if not inputs:
        raise VerifyException("expected at least one input array, found 0")
    if len(neutral) != len(inputs):
        raise VerifyException(
            f"expected one neutral element per input array, found "
            f"{plural(len(neutral), 'neutral element')} and {plural(len(inputs), 'input array')}"
        )
    for i, (n, r) in enumerate(zip(neutral, rows(inputs), strict=True)):
        expect_type(f"the rows of input {i}", n.type, r, f"the type of neutral element {i}")


def _acc_args(neutral: Sequence[SSAValue]) -> list[tuple[Attribute, str]]:
    return [(n.type, f"accumulator {i}: the type of neutral element {i}") for i, n in
            enumerate(neutral)]


def _row_args(inputs: Sequence[SSAValue]) -> list[tuple[Attribute, str]]:
    return [(r, f"a row of input {i}") for i, r in enumerate(rows(inputs))]


def _neutral_yields(neutral: Sequence[SSAValue]) -> list[tuple[Attribute, str]]:
    return [(n.type, f"the type of neutral element {i}") for i, n in enumerate(neutral)]


class _LambdaOverArrays(IRDLOperation):
    """What map, reduce, scan and filter share: input arrays of equal outer size (the
    certs guard the sizes) and one lambda that gets a row of each; the lambda's effects
    are the op's. Each op adds its results (and reduce and scan their neutral elements,
    which come first)."""

    inputs = var_operand_def(ARRAY)
    certs = var_operand_def(CERT)
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect())


@irdl_op_definition
class MapOp(_LambdaOverArrays):
    """`map(f, a, b, ...)` over arrays of equal outer size (a cert guards the sizes):
    the lambda gets one row of each input and yields one element or row per output.
    `loc` reports results of irregular shape (rows of different shapes).

    Syntax:
        %r, %s = soac.map(%x = %a, %y = %b : tensor<?xf64>, tensor<?x?xi64>) <%c> at "p.l0:4:1"
                     -> tensor<?xf64>, tensor<?xi1> {
          ...
          soac.yield %u, %v : f64, i1
        }
    """

    name = "soac.map"
    outputs = var_result_def(ARRAY)
    loc = opt_prop_def(StringAttr)

    def __init__(self, inputs: Sequence[SSAValue | Operation], result_types: Sequence[Attribute],
                 body: Region, certs: Sequence[SSAValue | Operation] = (),
                 loc: str | None = None) -> None:
        init_with_segments(self, [inputs, certs], result_types, [body],
                           None if loc is None else {"loc": StringAttr(loc)})

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("expected at least one input array, found 0")
        y = _verify_lambda(self.body, "the lambda", _row_args(self.inputs), None)
        if len(y.values) != len(self.outputs):
            raise VerifyException(
                f"expected the lambda to yield {plural(len(self.outputs), 'value')} "
                f"(one per result), found {len(y.values)}"
            )
        expect_result_types(self, [array_of(v.type) for v in y.values],
                             "arrays of the lambda's result types")

    def print(self, printer: Printer) -> None:
        print_row_lambda(printer, self, self.inputs, self.certs, self.loc, self.result_types)

    @classmethod
    def parse(cls, parser: Parser) -> MapOp:
        m = parse_row_lambda(parser, with_results=True)
        op = cls(m.inputs, m.result_types, m.body, m.certs, m.loc)
        op.attributes |= m.attributes
        return op


class _FoldOp(_LambdaOverArrays, ABC):
    """What `soac.reduce` and `soac.scan` share: k neutral elements, k input arrays and
    one lambda from k accumulators and a row of each input to k accumulators. They
    differ in their results, of the types `result_type` makes of the accumulators'."""

    neutral = var_operand_def(VALUE)

    RESULTS: ClassVar[str]
    """Where the result types come from, for the verifier's messages."""

    @staticmethod
    @abstractmethod
    def result_type(accumulator: Attribute) -> Attribute: ...

    def __init__(self, neutral: Sequence[SSAValue | Operation],
                 inputs: Sequence[SSAValue | Operation], body: Region,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        init_with_segments(self, [neutral, inputs, certs],
                           [self.result_type(SSAValue.get(n).type) for n in neutral], [body])

    def verify_(self) -> None:
        _verify_neutral_inputs(self.neutral, self.inputs)
        _verify_lambda(self.body, "the lambda",
                       _acc_args(self.neutral) + _row_args(self.inputs),
                       _neutral_yields(self.neutral))
        expect_result_types(self, [self.result_type(n.type) for n in self.neutral],
                            self.RESULTS)

    def print(self, printer: Printer) -> None:
        print_fold(printer, self.neutral, self.inputs, self.certs, self.body)
        print_attr_dict(printer, self, keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        neutral, inputs, certs, body = parse_fold(parser)
        op = cls(neutral, inputs, body, certs)
        op.attributes |= parse_attr_dict(parser, keyword=True)
        return op


@irdl_op_definition
class ReduceOp(_FoldOp):
    """`reduce(f, (n1, ..., nk), (a1, ..., ak))`: a left fold of the rows of the inputs,
    starting from the neutral elements. The lambda takes k accumulators and one row of
    each input (its type is the neutral element's) and yields k new accumulators.

    Syntax:
        %s = soac.reduce(%acc = %zero : f64) over(%x = %a : tensor<?xf64>) <%c> {
          %y = arith.addf %acc, %x : f64
          soac.yield %y : f64
        }
    """

    name = "soac.reduce"
    outputs = var_result_def(VALUE)
    RESULTS: ClassVar[str] = "the types of the neutral elements"

    @staticmethod
    def result_type(accumulator: Attribute) -> Attribute:
        return accumulator


@irdl_op_definition
class ScanOp(_FoldOp):
    """`scan(f, (n1, ..., nk), (a1, ..., ak))`: the inclusive prefix scan, with the same
    lambda and the same syntax as `soac.reduce` (`%s = soac.scan(%acc = %zero : f64)
    over(%x = %a : tensor<?xf64>) <%c> { ... }`); the results are arrays of the
    accumulator types."""

    name = "soac.scan"
    outputs = var_result_def(ARRAY)
    RESULTS: ClassVar[str] = "arrays of the neutral elements' types"

    @staticmethod
    def result_type(accumulator: Attribute) -> Attribute:
        return array_of(accumulator)


@irdl_op_definition
class FilterOp(_LambdaOverArrays):
    """`filter(p, a, b, ...)`: the rows of the inputs (all filtered alike) for which the
    lambda, given one row of each input, yields true.

    Syntax:
        %r = soac.filter(%x = %a : tensor<?xf64>) <%c> {
          %p = arith.cmpf olt, %x, %zero : f64
          soac.yield %p : i1
        }
    """

    name = "soac.filter"
    outputs = var_result_def(ARRAY)

    def __init__(self, inputs: Sequence[SSAValue | Operation], body: Region,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        init_with_segments(self, [inputs, certs], [SSAValue.get(v).type for v in inputs],
                           [body])

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("expected at least one input array, found 0")
        _verify_lambda(self.body, "the lambda", _row_args(self.inputs), [(i1, "the predicate")])
        expect_result_types(self, [v.type for v in self.inputs], "the types of the inputs")

    def print(self, printer: Printer) -> None:
        print_row_lambda(printer, self, self.inputs, self.certs)

    @classmethod
    def parse(cls, parser: Parser) -> FilterOp:
        f = parse_row_lambda(parser, with_results=False)
        op = cls(f.inputs, f.body, f.certs)
        op.attributes |= f.attributes
        return op


class _MapFoldOp(IRDLOperation, ABC):
    """What `soac.redomap` and `soac.scanomap` share: a map fused into a fold. Its
    meaning is a left fold with the `inner` lambda (k accumulators and one row of each
    input -> k accumulators) starting from the neutral elements; `outer` (2k
    accumulators -> k) is the associative operator that combines partial results of a
    parallel implementation. They differ in their results, of the types `result_type`
    makes of the accumulators'."""

    neutral = var_operand_def(VALUE)
    inputs = var_operand_def(ARRAY)
    certs = var_operand_def(CERT)
    outer = region_def("single_block")
    inner = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect())

    RESULTS: ClassVar[str]
    """Where the result types come from, for the verifier's messages."""

    @staticmethod
    @abstractmethod
    def result_type(accumulator: Attribute) -> Attribute: ...

    def __init__(self, neutral: Sequence[SSAValue | Operation],
                 inputs: Sequence[SSAValue | Operation], outer: Region, inner: Region,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        init_with_segments(self, [neutral, inputs, certs],
                           [self.result_type(SSAValue.get(n).type) for n in neutral],
                           [outer, inner])

    def verify_(self) -> None:
        if not self.neutral:
            raise VerifyException("expected at least one neutral element, found 0")
        if not self.inputs:
            raise VerifyException("expected at least one input array, found 0")
        accs = _acc_args(self.neutral)
        yields = _neutral_yields(self.neutral)
        _verify_lambda(self.outer, "the outer lambda", accs + accs, yields)
        _verify_lambda(self.inner, "the inner lambda", accs + _row_args(self.inputs), yields)
        expect_result_types(self, [self.result_type(n.type) for n in self.neutral],
                            self.RESULTS)

    def print(self, printer: Printer) -> None:
        print_fold(printer, self.neutral, self.inputs, self.certs, self.inner)
        printer.print_string(" outer")
        print_lambda(printer, self.outer, False)
        print_attr_dict(printer, self, keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        neutral, inputs, certs, inner = parse_fold(parser)
        parser.parse_keyword("outer")
        outer = parser.parse_region()
        op = cls(neutral, inputs, outer, inner, certs)
        op.attributes |= parse_attr_dict(parser, keyword=True)
        return op


@irdl_op_definition
class RedomapOp(_MapFoldOp):
    """`redomap(g, f, (n1, ..., nk), a, b, ...)`: a fused map and reduce. Its meaning is a
    left fold with the `inner` lambda (k accumulators and one row of each input -> k
    accumulators) starting from the neutral elements; `outer` (2k accumulators -> k) is
    the associative operator that combines partial results of a parallel implementation.

    Syntax (the header names the inner lambda's arguments):
        %s = soac.redomap(%acc = %zero : f64) over(%x = %a : tensor<?xf64>) <%c> {
          %sq = arith.mulf %x, %x : f64
          %y = arith.addf %acc, %sq : f64
          soac.yield %y : f64
        } outer {
        ^bb0(%p: f64, %q: f64):
          %y = arith.addf %p, %q : f64
          soac.yield %y : f64
        }
    """

    name = "soac.redomap"
    outputs = var_result_def(VALUE)
    RESULTS: ClassVar[str] = "the types of the neutral elements"

    @staticmethod
    def result_type(accumulator: Attribute) -> Attribute:
        return accumulator


@irdl_op_definition
class ScanomapOp(_MapFoldOp):
    """`scanomap(g, f, (n1, ..., nk), a, b, ...)`: a fused map and scan (the fusion of a
    map into a scan, redomap's pattern for scan). Its meaning is every intermediate
    result of the left fold with the `inner` lambda from the neutral elements (an
    inclusive scan); `outer` (2k accumulators -> k) is the scan's associative operator,
    which a parallel implementation uses to combine the totals of chunks. The results
    are arrays of the accumulator types. `scan(f, ne, a)` is `scanomap(f, f, ne, a)`.

    Syntax (as redomap's; the header names the inner lambda's arguments):
        %s = soac.scanomap(%acc = %zero : f64) over(%x = %a : tensor<?xf64>) <%c> {
          %sq = arith.mulf %x, %x : f64
          %y = arith.addf %acc, %sq : f64
          soac.yield %y : f64
        } outer {
        ^bb0(%p: f64, %q: f64):
          %y = arith.addf %p, %q : f64
          soac.yield %y : f64
        }
    """

    name = "soac.scanomap"
    outputs = var_result_def(ARRAY)
    RESULTS: ClassVar[str] = "arrays of the neutral elements' types"

    @staticmethod
    def result_type(accumulator: Attribute) -> Attribute:
        return array_of(accumulator)


def row_arguments(op: Operation) -> list[tuple[BlockArgument, SSAValue]]:
    """The lambda arguments of a SOAC that take rows of its input arrays, each with its
    input (after the accumulators of a fold); [] for any other op."""
    match op:
        case MapOp() | FilterOp():
            return list(zip(op.body.block.args, op.inputs, strict=False))
        case ReduceOp() | ScanOp():
            return list(zip(op.body.block.args[len(op.neutral):], op.inputs, strict=False))
        case RedomapOp() | ScanomapOp():
            return list(zip(op.inner.block.args[len(op.neutral):], op.inputs, strict=False))
        case _:
            return []


@irdl_op_definition
class YieldOp(LambdaYield):
    """The terminator of every lambda region: the lambda's results.

    Syntax: `soac.yield %a, %b : f64, i64`
    """

    name = "soac.yield"
    traits = lazy_traits_def(
        lambda: (IsTerminator(), Pure(), HasParent(MapOp, ReduceOp, ScanOp, FilterOp, RedomapOp,
                                                ScanomapOp))
    )

