"""The `msoac` dialect: SOACs on memrefs, in destination-passing style.

The level between bufferisation (`bufferise`) and loops (`convert-soac-to-scf`), as
linalg on buffers sits between bufferisation and loops in MLIR. Bufferisation has made
every memory decision: where arrays live, which are views, which are updated in place,
which buffers a SOAC writes into. What is left are the iteration patterns, which
`convert-soac-to-scf` turns into `scf.for` loops with the lambdas inlined.

Lambdas are single-block regions ending in `msoac.yield`. Their block arguments are
the rows of the inputs (a scalar for a one-dimensional input, else a memref view of the
row, of the type `memref_types.row_of` gives), preceded for folds by the accumulators.

Outputs come two ways:

* destinations (`outs`): buffers allocated before the op, of the full result shape,
  into which row i of the result is written (a store, or a copy of the yielded row).
  `msoac.map` also passes, after the input rows, one block argument per destination
  of rank >= 2: the view of its row i. A lambda that computes its result directly into
  that view (a nested SOAC with the view as destination) yields the view itself, and
  then nothing is copied.
* allocated results: when the shape of a row cannot be known before the lambda runs,
  the op allocates the result when row 0 is known, and checks that every other row has
  the same shape (thesis 2.1: arrays are regular), failing with "irregular array" at
  the op's `loc` otherwise.

Ops: `msoac.map`, `msoac.reduce` (a left fold; also `soac.redomap`), `msoac.scan` (also
`soac.scanomap`), `msoac.filter`, `msoac.partition`, `msoac.iota`, `msoac.replicate`, `msoac.yield`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import MemRefType, StringAttr, i1, i64
from xdsl.ir import Attribute, Dialect, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    opt_region_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import (
    HasParent,
    IsTerminator,
    MemoryAllocEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    RecursiveMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException

from l0.dialects.lambda_yield import LambdaYield
from l0.dialects.memref_types import row_of


def _rows(values: Sequence[SSAValue]) -> list[Attribute]:
    return [row_of(v.type) if isinstance(v.type, MemRefType) else v.type for v in values]


def _check_args(region: Region, expected: Sequence[Attribute], what: str) -> YieldOp:
    block = region.block
    found = [a.type for a in block.args]
    if found != list(expected):
        raise VerifyException(
            f"expected the lambda's arguments to have types ({', '.join(map(str, expected))}) "
            f"({what}), found ({', '.join(map(str, found))})"
        )
    last = block.last_op
    if not isinstance(last, YieldOp):
        raise VerifyException(
            f"expected the lambda to end in msoac.yield, found {last.name if last else 'nothing'}"
        )
    return last


def _check_count(what: str, expected: int, found: int) -> None:
    if expected != found:
        raise VerifyException(f"expected {expected} {what}, found {found}")


OPERATOR_ATTR = "operator"
"""Unit attribute of an `msoac.reduce` whose lambda is the reduction's associative
operator itself (from `reduce`, not redomap's fused fold): accumulators and rows have
one type, and partial results may be combined with the lambda (a parallel reduction)."""


def _loc(loc: str | None) -> dict[str, Attribute]:
    return {} if loc is None else {"loc": StringAttr(loc)}


class _IntoOuts(IRDLOperation):
    """What map and scan share: they read the rows of `inputs` with one lambda, store
    scalar results into the destinations `outs` and allocate the array ones
    (`allocated`), and end their syntax the same way (`SYNTAX_TAIL`)."""

    inputs = var_operand_def(MemRefType)
    outs = var_operand_def(MemRefType)
    allocated = var_result_def(MemRefType)
    body = region_def("single_block")
    loc = opt_prop_def(StringAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), MemoryReadEffect(), MemoryWriteEffect(),
                        MemoryAllocEffect())

    SYNTAX_TAIL: ClassVar[str] = (
        "(`outs` `(` $outs^ `:` type($outs) `)`)? (`at` $loc^)? attr-dict-with-keyword "
        "(`->` type($allocated)^)? $body"
    )


@irdl_op_definition
class MapOp(_IntoOuts):
    """`map` over rows of `inputs` (of equal outer size), writing row i of each result.

    The lambda yields one value per destination in `outs`, then one per `allocated`
    result. Its arguments are the input rows, then the row views of the destinations
    of rank >= 2.

    Syntax:
        %r = msoac.map ins(%a : memref<?x?xf64>) outs(%o : memref<?x?xf64>)
                 at "p.l0:3:5" -> memref<?x?xi64> {
        ^bb0(%row: memref<?xf64, strided<[1], offset: ?>>,
             %dest: memref<?xf64, strided<[1], offset: ?>>):
          ...
          msoac.yield %dest, %other : memref<...>, memref<...>
        }
    """

    name = "msoac.map"
    assembly_format = (
        "`ins` `(` $inputs `:` type($inputs) `)` " + _IntoOuts.SYNTAX_TAIL
    )

    def __init__(self, inputs: Sequence[SSAValue], outs: Sequence[SSAValue],
                 allocated: Sequence[Attribute], body: Region, loc: str | None = None) -> None:
        super().__init__(operands=[inputs, outs], result_types=[allocated], regions=[body],
                         properties=_loc(loc))

    def dest_outs(self) -> list[SSAValue]:
        """The destinations that get a row view among the lambda's arguments."""
        return [o for o in self.outs if isinstance(o.type, MemRefType)
                and o.type.get_num_dims() >= 2]

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("expected at least one input, found 0")
        args = _rows(self.inputs) + _rows(self.dest_outs())
        y = _check_args(self.body, args, "the input rows, then the destination rows")
        _check_count("yielded values (one per destination and allocated result)",
                     len(self.outs) + len(self.allocated), len(y.values))


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """A left fold of the rows of `inputs` from the `neutral` accumulators (reduce, and
    redomap's inner lambda). The lambda takes the accumulators and one row per input.

    The optional `combine` region is redomap's outer lambda: the associative operator
    (two sets of accumulators -> one) that combines the folds of chunks of the rows, each
    from the neutral elements, into the fold of all of them; with it, and with
    `OPERATOR_ATTR` (the lambda is the operator itself), the fold may run in parallel.

    Syntax:
        %s = msoac.reduce (%zero : f64) over (%a : memref<?xf64>) -> f64 {
        ^bb0(%acc: f64, %x: f64):
          %y = arith.addf %acc, %x : f64
          msoac.yield %y : f64
        } combine {
        ^bb0(%p: f64, %q: f64):
          %y = arith.addf %p, %q : f64
          msoac.yield %y : f64
        }
    """

    name = "msoac.reduce"
    neutral = var_operand_def()
    inputs = var_operand_def(MemRefType)
    outputs = var_result_def()
    body = region_def("single_block")
    combine = opt_region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), MemoryReadEffect())
    assembly_format = (
        "`(` $neutral `:` type($neutral) `)` `over` `(` $inputs `:` type($inputs) `)` "
        "attr-dict-with-keyword `->` type($outputs) $body (`combine` $combine^)?"
    )

    def __init__(self, neutral: Sequence[SSAValue], inputs: Sequence[SSAValue],
                 result_types: Sequence[Attribute], body: Region,
                 combine: Region | None = None) -> None:
        super().__init__(operands=[neutral, inputs], result_types=[result_types],
                         regions=[body, combine])

    def operator(self) -> Region | None:
        """The associative operator combining partial results, if known: `combine`, or
        the lambda itself under `OPERATOR_ATTR`."""
        if self.combine is not None and self.combine.blocks:
            return self.combine
        return self.body if OPERATOR_ATTR in self.attributes else None

    def verify_(self) -> None:
        accs = [r.type for r in self.outputs]
        y = _check_args(self.body, accs + _rows(self.inputs), "the accumulators, then rows")
        _check_count("yielded values (one per accumulator)", len(accs), len(y.values))
        _check_count("neutral elements (one per accumulator)", len(accs), len(self.neutral))
        if self.combine is not None and self.combine.blocks:
            c = _check_args(self.combine, accs + accs, "two sets of accumulators")
            _check_count("values yielded by combine (one per accumulator)", len(accs),
                         len(c.values))


@irdl_op_definition
class ScanOp(_IntoOuts):
    """The inclusive scan of `inputs` with the fold's lambda: scalar accumulators are
    stored into the destinations `outs` (in order), array accumulators go to the
    `allocated` results (in order).

    `operator`, when present (from `soac.scanomap`, whose fold also maps each row), is
    the scan's associative operator on accumulators (2k accumulators -> k): a parallel
    scan combines the totals of chunks with it. Without it the fold's lambda is the
    operator itself (from `soac.scan`).

    Syntax:
        msoac.scan (%zero : i64) over (%a : memref<?xi64>) outs(%o : memref<?xi64>) {
        ^bb0(%acc: i64, %x: i64):
          ...
        } operator {
        ^bb0(%p: i64, %q: i64):
          ...
        }
    """

    name = "msoac.scan"
    neutral = var_operand_def()
    operator = opt_region_def("single_block")
    assembly_format = (
        "`(` $neutral `:` type($neutral) `)` `over` `(` $inputs `:` type($inputs) `)` "
        + _IntoOuts.SYNTAX_TAIL + " (`operator` $operator^)?"
    )

    def __init__(self, neutral: Sequence[SSAValue], inputs: Sequence[SSAValue],
                 outs: Sequence[SSAValue], allocated: Sequence[Attribute], body: Region,
                 loc: str | None = None, operator: Region | None = None) -> None:
        # (IRDL orders the region fields of the subclass first)
        super().__init__(operands=[neutral, inputs, outs], result_types=[allocated],
                         regions=[operator, body], properties=_loc(loc))

    def verify_(self) -> None:
        accs = [n.type for n in self.neutral]
        y = _check_args(self.body, accs + _rows(self.inputs), "the accumulators, then rows")
        _check_count("yielded values (one per accumulator)", len(accs), len(y.values))
        arrays = sum(isinstance(t, MemRefType) for t in accs)
        _check_count("allocated results (one per array accumulator)", arrays,
                     len(self.allocated))
        _check_count("destinations (one per scalar accumulator)", len(accs) - arrays,
                     len(self.outs))
        if self.operator is not None:
            y = _check_args(self.operator, accs + accs, "two sets of accumulators")
            _check_count("operator results (one per accumulator)", len(accs), len(y.values))


@irdl_op_definition
class FilterOp(IRDLOperation):
    """The rows of `inputs` (filtered alike) for which the lambda yields true: fresh
    buffers, one per input.

    Syntax:
        %r = msoac.filter ins(%a : memref<?xi64>) -> memref<?xi64> {
        ^bb0(%x: i64):
          ...
          msoac.yield %p : i1
        }
    """

    name = "msoac.filter"
    inputs = var_operand_def(MemRefType)
    outputs = var_result_def(MemRefType)
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), MemoryReadEffect(), MemoryAllocEffect())
    assembly_format = (
        "`ins` `(` $inputs `:` type($inputs) `)` attr-dict-with-keyword `->` type($outputs) "
        "$body"
    )

    def __init__(self, inputs: Sequence[SSAValue], result_types: Sequence[Attribute],
                 body: Region) -> None:
        super().__init__(operands=[inputs], result_types=[result_types], regions=[body])

    def verify_(self) -> None:
        y = _check_args(self.body, _rows(self.inputs), "the input rows")
        if [v.type for v in y.values] != [i1]:
            raise VerifyException("expected the lambda to yield one i1")
        _check_count("results (one per input)", len(self.inputs), len(self.outputs))


@irdl_op_definition
class PartitionOp(IRDLOperation):
    """The rows of `inputs` for which the lambda yields true, then those for which it
    yields false (each class in input order): fresh buffers, one per input for each
    class. Two complementary `msoac.filter`s over the same inputs, as one counting pass
    and one writing pass (`partition-filters` makes them).

    Syntax:
        %t, %f = msoac.partition ins(%a : memref<?xi64>) -> memref<?xi64>, memref<?xi64> {
        ^bb0(%x: i64):
          ...
          msoac.yield %p : i1
        }
    """

    name = "msoac.partition"
    inputs = var_operand_def(MemRefType)
    outputs = var_result_def(MemRefType)
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), MemoryReadEffect(), MemoryAllocEffect())
    assembly_format = (
        "`ins` `(` $inputs `:` type($inputs) `)` attr-dict-with-keyword `->` type($outputs) "
        "$body"
    )

    def __init__(self, inputs: Sequence[SSAValue], result_types: Sequence[Attribute],
                 body: Region) -> None:
        super().__init__(operands=[inputs], result_types=[result_types], regions=[body])

    @property
    def kept(self) -> Sequence[SSAValue]:
        """The rows for which the predicate holds, one buffer per input."""
        return self.outputs[:len(self.inputs)]

    @property
    def rejected(self) -> Sequence[SSAValue]:
        """The other rows, one buffer per input."""
        return self.outputs[len(self.inputs):]

    def verify_(self) -> None:
        y = _check_args(self.body, _rows(self.inputs), "the input rows")
        if [v.type for v in y.values] != [i1]:
            raise VerifyException("expected the lambda to yield one i1")
        _check_count("results (two per input)", 2 * len(self.inputs), len(self.outputs))
        half = len(self.inputs)
        if [r.type for r in self.outputs[:half]] != [r.type for r in self.outputs[half:]]:
            raise VerifyException("expected both classes to have the same types")


@irdl_op_definition
class IotaOp(IRDLOperation):
    """Fills the destination with 0, 1, ..., n-1.

    Syntax: `msoac.iota %o : memref<?xi64>`
    """

    name = "msoac.iota"
    out = operand_def(MemRefType)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$out attr-dict `:` type($out)"

    def __init__(self, out: SSAValue) -> None:
        super().__init__(operands=[out])

    def verify_(self) -> None:
        t = self.out.type
        assert isinstance(t, MemRefType)
        if t.get_num_dims() != 1 or t.get_element_type() != i64:
            raise VerifyException(f"expected a one-dimensional memref of i64, found {t}")


@irdl_op_definition
class ReplicateOp(IRDLOperation):
    """Writes `value` (a scalar or an array) into every row of the destination.

    Syntax: `msoac.replicate %v, %o : f64, memref<?xf64>`
    """

    name = "msoac.replicate"
    value = operand_def()
    out = operand_def(MemRefType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$value `,` $out attr-dict `:` type($value) `,` type($out)"

    def __init__(self, value: SSAValue, out: SSAValue) -> None:
        super().__init__(operands=[value, out])

    def verify_(self) -> None:
        t = self.out.type
        assert isinstance(t, MemRefType)
        if row_of(t) != self.value.type and not (
            isinstance(self.value.type, MemRefType)
            and self.value.type.get_num_dims() == t.get_num_dims() - 1
        ):
            raise VerifyException(
                f"expected a value of the row type of {t}, found {self.value.type}"
            )


@irdl_op_definition
class YieldOp(LambdaYield):
    """The terminator of every msoac lambda.

    Syntax: `msoac.yield %a, %b : f64, i64`
    """

    name = "msoac.yield"
    traits = lazy_traits_def(
        lambda: (IsTerminator(), Pure(), HasParent(MapOp, ReduceOp, ScanOp, FilterOp,
                                                    PartitionOp))
    )


MSOAC = Dialect(
    "msoac",
    [MapOp, ReduceOp, ScanOp, FilterOp, PartitionOp, IotaOp, ReplicateOp, YieldOp],
    [],
)
