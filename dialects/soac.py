"""The `soac` dialect: internal L0 as xDSL IR (thesis chapter 4, `docs/ir.md`).

Internal L0 is SSA (so let-normalisation and unique names come for free), has no tuples
(arrays of tuples are tuples of arrays, thesis 4.1), and makes every run-time check an
explicit `soac.assert` whose `!soac.cert` result is passed to the ops it guards
(certificates, thesis 4.2). Arrays are builtin `tensor<?x...xT>` values with every
dimension dynamic and `T` one of i64 (int), f64 (real), i1 (bool), i32 (char) or
`!soac.cert`. The second-order array combinators (thesis 2.2) carry their lambdas as
single-block regions ending in `soac.yield`.

Every op has a custom syntax, shown in its docstring; the generic form works as well.
The common pieces of that syntax are:

* certificates, when there are any, follow the other operands in angle brackets:
  `soac.index %a[%i] <%c1, %c2> : ...`;
* a source location follows the operands as `at "file:line:col"`;
* a lambda's arguments are named where its operands are given: `(%x = %a : T)` binds
  the lambda argument `%x` to the rows of `%a`. Malformed IR (a lambda whose arguments
  do not match its operands) prints, and parses, with unnamed operands `(%a : T)` and an
  explicit entry block `{ ^bb0(%x: T): ... }`, so printing never fails.

Effects (what generic passes may do): ops without regions are `Pure`, except
`soac.array` and `soac.concat` (no memory effect, but they can fail at run time on
irregular arrays, so they are not speculatable) and `soac.assert` / `soac.trace`, which
have effects and are never erased, merged or moved by xDSL's dce, cse or licm. An op
guarded by a certificate is still pure: the certificate operand carries the dependence
on its check. SOACs have the effects of their lambdas (`RecursiveMemoryEffect`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IntAttr,
    StringAttr,
    TensorType,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import (
    Attribute,
    BlockArgument,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.constraints import AttrConstraint, VerificationContext
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    NoMemoryEffect,
    Pure,
    RecursiveMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException

UNIQUE_ATTR = "soac.unique"
"""Discardable attribute marking unique (`*[T]`) parameters and results of a function."""


# ---------------------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------------------


@irdl_attr_definition
class CertType(ParametrizedAttribute, TypeAttribute):
    """`!soac.cert`: a certificate, the proof that some run-time check succeeded."""

    name = "soac.cert"


def _is_scalar(t: Attribute) -> bool:
    return t in (i64, f64, i1, i32) or isinstance(t, CertType)


def is_array_type(t: Attribute) -> bool:
    """Whether `t` is an L0 array type: `tensor<?x...xT>`, all dims dynamic, T scalar."""
    return (
        isinstance(t, TensorType)
        and t.get_num_dims() >= 1
        and all(d == DYNAMIC_INDEX for d in t.get_shape())
        and _is_scalar(t.element_type)
    )


def is_value_type(t: Attribute) -> bool:
    """Whether `t` is the type of an L0 value: a scalar type or an array type."""
    return _is_scalar(t) or is_array_type(t)


def array_type(element: Attribute, rank: int = 1) -> TensorType:
    """`tensor<?x...xelement>` with `rank` dynamic dimensions."""
    return TensorType(element, [DYNAMIC_INDEX] * rank)


def array_of(t: Attribute) -> TensorType:
    """The type of an array whose rows have type `t` (`f64` -> `tensor<?xf64>`)."""
    if isinstance(t, TensorType):
        return array_type(t.element_type, t.get_num_dims() + 1)
    return array_type(t, 1)


def row_type(t: Attribute, count: int = 1) -> Attribute | None:
    """The type of `t` with its `count` outer dimensions removed (indexing by `count`
    indices): a row for `count == 1`, the element type when `count` is the rank.
    None when `t` is not a tensor or has fewer than `count` dimensions."""
    if not isinstance(t, TensorType) or not 0 <= count <= t.get_num_dims():
        return None
    rank = t.get_num_dims() - count
    return t if count == 0 else (t.element_type if rank == 0 else array_type(t.element_type, rank))


_ARRAY_DESCRIPTION = "an array type tensor<?x...xT> with T one of i64, f64, i1, i32, !soac.cert"


@dataclass(frozen=True)
class _ArrayConstraint(AttrConstraint[TensorType]):
    """IRDL constraint: an L0 array type (see `is_array_type`)."""

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        if not is_array_type(attr):
            raise VerifyException(f"expected {_ARRAY_DESCRIPTION}, found {attr}")

    def mapping_type_vars(self, type_var_mapping: object) -> _ArrayConstraint:
        return self


@dataclass(frozen=True)
class _ValueConstraint(AttrConstraint[Attribute]):
    """IRDL constraint: the type of an L0 value, scalar or array (see `is_value_type`)."""

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        if not is_value_type(attr):
            raise VerifyException(
                f"expected i64, f64, i1, i32, !soac.cert or {_ARRAY_DESCRIPTION}, found {attr}"
            )

    def mapping_type_vars(self, type_var_mapping: object) -> _ValueConstraint:
        return self


ARRAY = _ArrayConstraint()
VALUE = _ValueConstraint()
CERT = CertType()


# ---------------------------------------------------------------------------------------
# Verifier helpers (messages as in MLIR: lower-case, expected vs found)
# ---------------------------------------------------------------------------------------


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _expect_type(what: str, expected: Attribute, found: Attribute, why: str = "") -> None:
    if expected != found:
        why = f" ({why})" if why else ""
        raise VerifyException(f"expected {what} to have type {expected}{why}, found {found}")


def _expect_result_types(
    op: Operation, expected: Sequence[Attribute], why: str
) -> None:
    """Check the op's results against `expected`; `why` says where the types come from."""
    found = op.result_types
    if len(found) != len(expected):
        raise VerifyException(
            f"expected {_plural(len(expected), 'result')} ({why}), found {len(found)}"
        )
    for i, (e, f) in enumerate(zip(expected, found, strict=True)):
        _expect_type(f"result {i}", e, f, why)


def _rows(inputs: Sequence[SSAValue]) -> list[Attribute]:
    """Row types of input arrays (IRDL has already checked that they are arrays)."""
    rows: list[Attribute] = []
    for v in inputs:
        r = row_type(v.type)
        assert r is not None
        rows.append(r)
    return rows


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
            f"expected {lam} to take {_plural(len(args), 'argument')}, found {len(block.args)}"
        )
    for i, (arg, (t, why)) in enumerate(zip(block.args, args, strict=True)):
        _expect_type(f"{lam} argument {i}", t, arg.type, why)
    last = block.last_op
    if not isinstance(last, YieldOp):
        found = "an empty block" if last is None else last.name
        raise VerifyException(f"expected {lam} to end in soac.yield, found {found}")
    if yields is not None:
        if len(last.values) != len(yields):
            raise VerifyException(
                f"expected {lam} to yield {_plural(len(yields), 'value')}, "
                f"found {len(last.values)}"
            )
        for i, (v, (t, why)) in enumerate(zip(last.values, yields, strict=True)):
            _expect_type(f"{lam} result {i}", t, v.type, why)
    return last


def _verify_neutral_inputs(neutral: Sequence[SSAValue], inputs: Sequence[SSAValue]) -> None:
    """reduce/scan: one neutral element per input, of the input's row type."""
    if not inputs:
        raise VerifyException("expected at least one input array, found 0")
    if len(neutral) != len(inputs):
        raise VerifyException(
            f"expected one neutral element per input array, found "
            f"{_plural(len(neutral), 'neutral element')} and {_plural(len(inputs), 'input array')}"
        )
    for i, (n, r) in enumerate(zip(neutral, _rows(inputs), strict=True)):
        _expect_type(f"the rows of input {i}", n.type, r, f"the type of neutral element {i}")


def _acc_args(neutral: Sequence[SSAValue]) -> list[tuple[Attribute, str]]:
    return [(n.type, f"accumulator {i}: the type of neutral element {i}") for i, n in
            enumerate(neutral)]


def _row_args(inputs: Sequence[SSAValue]) -> list[tuple[Attribute, str]]:
    return [(r, f"a row of input {i}") for i, r in enumerate(_rows(inputs))]


def _neutral_yields(neutral: Sequence[SSAValue]) -> list[tuple[Attribute, str]]:
    return [(n.type, f"the type of neutral element {i}") for i, n in enumerate(neutral)]


# ---------------------------------------------------------------------------------------
# Syntax helpers
# ---------------------------------------------------------------------------------------


def _print_certs(printer: Printer, certs: Sequence[SSAValue]) -> None:
    if certs:
        printer.print_string(" <")
        printer.print_list(certs, printer.print_operand)
        printer.print_string(">")


def _parse_certs(parser: Parser) -> list[SSAValue]:
    if parser.parse_optional_punctuation("<") is None:
        return []
    names = parser.parse_comma_separated_list(
        Parser.Delimiter.NONE, parser.parse_unresolved_operand
    )
    parser.parse_punctuation(">")
    return [parser.resolve_operand(n, CERT) for n in names]


def _print_loc(printer: Printer, loc: Attribute | None) -> None:
    if loc is None:
        return
    printer.print_string(" at ")
    if isinstance(loc, StringAttr):
        printer.print_string_literal(loc.data)
    else:  # unverified IR: show it as it is
        printer.print_attribute(loc)


def _parse_loc(parser: Parser) -> StringAttr | None:
    if parser.parse_optional_keyword("at") is None:
        return None
    return StringAttr(parser.parse_str_literal(" (a source location)"))


def _print_attr_dict(printer: Printer, op: Operation, keyword: bool = False) -> None:
    printer.print_op_attributes(op.attributes, print_keyword=keyword)


def _custom_printable(printer: Printer, op: Operation, **props: type[Attribute]) -> bool:
    """Whether `op` has the properties its custom syntax shows; if not (unverified IR),
    print the rest of it in the generic form instead, so that printing never fails."""
    if all(isinstance(op.properties.get(name), kind) for name, kind in props.items()):
        return True
    printer.print_op_with_default_format(op)
    return False


def _parse_attr_dict(parser: Parser, keyword: bool = False) -> dict[str, Attribute]:
    if keyword:
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return {} if attrs is None else dict(attrs.data)
    return parser.parse_optional_attr_dict()


def _print_types(printer: Printer, types: Sequence[Attribute]) -> None:
    printer.print_list(types, printer.print_attribute)


def _parse_types(parser: Parser) -> list[Attribute]:
    return parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)


def _parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """`%a, %b, ...` (at least one)."""
    return parser.parse_comma_separated_list(
        Parser.Delimiter.NONE, parser.parse_unresolved_operand
    )


def _row_or_error(parser: Parser, t: Attribute, count: int, pos: int) -> Attribute:
    """The type of `t` indexed by `count` indices, or a parse error."""
    r = row_type(t, count)
    if r is None:
        parser.raise_error(
            f"expected an array type with at least {_plural(count, 'dimension')}, found {t}",
            pos,
        )
    return r


def _bound_args(region: Region, types: Sequence[Attribute]) -> Sequence[BlockArgument] | None:
    """The entry block args of a lambda when they can be printed bound to its operands
    (a single block with one argument of the expected type per operand), else None."""
    block = region.blocks.first
    if block is None or block is not region.blocks.last or len(block.args) != len(types):
        return None
    if any(a.type != t for a, t in zip(block.args, types, strict=True)):
        return None
    return block.args


def _print_bindings(printer: Printer, args: Sequence[BlockArgument] | None,
                    operands: Sequence[SSAValue]) -> None:
    """`(%x = %a, %y = %b : T1, T2)`, or `(%a, %b : T1, T2)` when `args` is None."""
    printer.print_string("(")
    for i, v in enumerate(operands):
        if i:
            printer.print_string(", ")
        if args is not None:
            printer.print_ssa_value(args[i])
            printer.print_string(" = ")
        printer.print_operand(v)
    if operands:
        printer.print_string(" : ")
        _print_types(printer, [v.type for v in operands])
    printer.print_string(")")


@dataclass
class _Bindings:
    """A parsed `(%x = %a, ... : T, ...)` list: `names` is None when unnamed."""

    names: list[Parser.UnresolvedArgument] | None
    operands: list[SSAValue]


def _parse_bindings(parser: Parser) -> _Bindings:
    pos = parser.pos
    parser.parse_punctuation("(")
    names: list[Parser.UnresolvedArgument] = []
    refs: list[UnresolvedOperand] = []
    types: list[Attribute] = []
    if parser.parse_optional_punctuation(")") is None:
        while True:
            first = parser.parse_unresolved_operand()
            if parser.parse_optional_punctuation("=") is not None:
                names.append(Parser.UnresolvedArgument(first.span))
                refs.append(parser.parse_unresolved_operand())
            else:
                refs.append(first)
            if parser.parse_optional_punctuation(",") is None:
                break
        parser.parse_punctuation(":")
        types = _parse_types(parser)
        parser.parse_punctuation(")")
    if names and len(names) != len(refs):
        parser.raise_error("expected every lambda argument to be named, or none", pos)
    operands = list(parser.resolve_operands(refs, types, pos))
    return _Bindings(names if names else None, operands)


def _parse_lambda(parser: Parser, names: Sequence[Parser.UnresolvedArgument] | None,
                  arg_types: Sequence[Attribute]) -> Region:
    """The lambda region; its entry block args are `names` (typed `arg_types`) when the
    header named them, else the region spells out its entry block."""
    if names is None:
        return parser.parse_region()
    return parser.parse_region([n.resolve(t) for n, t in zip(names, arg_types, strict=True)])


def _print_lambda(printer: Printer, region: Region, bound: bool) -> None:
    printer.print_string(" ")
    printer.print_region(region, print_entry_block_args=not bound)


def _row_types_for_print(values: Sequence[SSAValue]) -> list[Attribute]:
    """Row types of a lambda's input arrays; a non-array (invalid IR) stands for itself,
    so that the lambda then prints with an explicit entry block."""
    return [row_type(v.type) or v.type for v in values]


def _row_types_or_error(parser: Parser, values: Sequence[SSAValue], pos: int) -> list[Attribute]:
    return [_row_or_error(parser, v.type, 1, pos) for v in values]


# ---------------------------------------------------------------------------------------
# Certificates
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class CheckedOp(IRDLOperation):
    """The certificate constant `Checked`.

    Syntax: `%c = soac.checked`
    """

    name = "soac.checked"
    result = result_def(CERT)
    traits = traits_def(Pure())

    def __init__(self) -> None:
        super().__init__(result_types=[CERT])

    def print(self, printer: Printer) -> None:
        _print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> CheckedOp:
        op = cls()
        op.attributes |= _parse_attr_dict(parser)
        return op


_PLACEHOLDER = re.compile(r"\{(\d+)\}")


@irdl_op_definition
class AssertOp(IRDLOperation):
    """A run-time check: fails with `msg` at `loc` when `cond` is false, else yields a
    certificate. `{0}`, `{1}`, ... in `msg` stand for the i64 `values` (other braces are
    literal). It has effects (it may fail), so generic passes never erase or merge it.

    Syntax:
        %c = soac.assert %ok, "assertion failed" at "p.l0:3:7"
        %c = soac.assert %ok, "index {0} out of bounds, size {1}" (%i, %n : i64, i64) at "a.l0:3:7"
    """

    name = "soac.assert"
    cond = operand_def(i1)
    values = var_operand_def(i64)
    msg = prop_def(StringAttr)
    loc = prop_def(StringAttr)
    cert = result_def(CERT)

    def __init__(self, cond: SSAValue | Operation, msg: str, loc: str,
                 values: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(
            operands=[cond, values],
            result_types=[CERT],
            properties={"msg": StringAttr(msg), "loc": StringAttr(loc)},
        )

    def verify_(self) -> None:
        count = len(self.values)
        for m in _PLACEHOLDER.finditer(self.msg.data):
            if int(m.group(1)) < count:
                continue
            allowed = f"{{0}} to {{{count - 1}}}" if count else "none"
            raise VerifyException(
                f"expected the message's placeholders to refer to the "
                f"{_plural(count, 'value')} given ({allowed}), found {m.group(0)}"
            )

    def print(self, printer: Printer) -> None:
        if not _custom_printable(printer, self, msg=StringAttr, loc=StringAttr):
            return
        printer.print_string(" ")
        printer.print_operand(self.cond)
        printer.print_string(", ")
        printer.print_string_literal(self.msg.data)
        if self.values:
            printer.print_string(" ")
            _print_bindings(printer, None, self.values)
        _print_loc(printer, self.loc)
        _print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> AssertOp:
        cond = parser.resolve_operand(parser.parse_unresolved_operand(), i1)
        parser.parse_punctuation(",")
        msg = parser.parse_str_literal(" (the assertion message)")
        values: list[SSAValue] = []
        if parser.parse_optional_punctuation("(") is not None:
            pos = parser.pos
            refs = _parse_operand_list(parser)
            parser.parse_punctuation(":")
            types = _parse_types(parser)
            parser.parse_punctuation(")")
            values = list(parser.resolve_operands(refs, types, pos))
        parser.parse_keyword("at", " (the location of the assertion)")
        loc = parser.parse_str_literal(" (a source location)")
        op = cls(cond, msg, loc, values)
        op.attributes |= _parse_attr_dict(parser)
        return op


@irdl_op_definition
class ConjoinOp(IRDLOperation):
    """The conjunction of certificates (`conjoin(c1, c2)`).

    Syntax: `%c = soac.conjoin(%c1, %c2)`
    """

    name = "soac.conjoin"
    certs = var_operand_def(CERT)
    result = result_def(CERT)
    traits = traits_def(Pure())

    def __init__(self, certs: Sequence[SSAValue | Operation]) -> None:
        super().__init__(operands=[certs], result_types=[CERT])

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.certs, printer.print_operand)
        printer.print_string(")")
        _print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> ConjoinOp:
        names = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        op = cls([parser.resolve_operand(n, CERT) for n in names])
        op.attributes |= _parse_attr_dict(parser)
        return op


# ---------------------------------------------------------------------------------------
# Array construction
# ---------------------------------------------------------------------------------------


_I64_ARRAY = array_type(i64)


@irdl_op_definition
class IotaOp(IRDLOperation):
    """`iota(n)`: the array `[0, ..., n-1]` (a cert guards `n >= 0`).

    Syntax: `%r = soac.iota %n <%c>` (the result is `tensor<?xi64>`)
    """

    name = "soac.iota"
    n = operand_def(i64)
    certs = var_operand_def(CERT)
    result = result_def(_I64_ARRAY)
    traits = traits_def(Pure())

    def __init__(self, n: SSAValue | Operation,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[n, certs], result_types=[_I64_ARRAY])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.n)
        _print_certs(printer, self.certs)
        _print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> IotaOp:
        n = parser.resolve_operand(parser.parse_unresolved_operand(), i64)
        op = cls(n, _parse_certs(parser))
        op.attributes |= _parse_attr_dict(parser)
        return op


def _print_count_and_operand(printer: Printer, op: IRDLOperation, count: SSAValue,
                             operand: SSAValue) -> None:
    """` %n, %v <certs> {attrs} : T` (T the type of `%v`): replicate's and split's syntax."""
    printer.print_string(" ")
    printer.print_operand(count)
    printer.print_string(", ")
    printer.print_operand(operand)
    _print_certs(printer, op.certs)  # type: ignore[attr-defined]
    _print_attr_dict(printer, op)
    printer.print_string(" : ")
    printer.print_attribute(operand.type)


def _parse_count_and_operand(parser: Parser) -> tuple[SSAValue, SSAValue, list[SSAValue],
                                                      dict[str, Attribute]]:
    """The count (an i64), the operand, the certs and the attributes of
    `_print_count_and_operand`'s syntax."""
    count = parser.resolve_operand(parser.parse_unresolved_operand(), i64)
    parser.parse_punctuation(",")
    operand = parser.parse_unresolved_operand()
    certs = _parse_certs(parser)
    attrs = _parse_attr_dict(parser)
    parser.parse_punctuation(":")
    return count, parser.resolve_operand(operand, parser.parse_type()), certs, attrs


@irdl_op_definition
class ReplicateOp(IRDLOperation):
    """`replicate(n, v)`: an array of `n` copies of `v` (a cert guards `n >= 0`).

    Syntax: `%r = soac.replicate %n, %v <%c> : f64` (the type of `%v`; the result is
    `tensor<?xf64>`)
    """

    name = "soac.replicate"
    n = operand_def(i64)
    value = operand_def(VALUE)
    certs = var_operand_def(CERT)
    result = result_def(ARRAY)
    traits = traits_def(Pure())

    def __init__(self, n: SSAValue | Operation, value: SSAValue | Operation,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[n, value, certs],
                         result_types=[array_of(SSAValue.get(value).type)])

    def verify_(self) -> None:
        _expect_type("the result", array_of(self.value.type), self.result.type,
                     "an array of the replicated value's type")

    def print(self, printer: Printer) -> None:
        _print_count_and_operand(printer, self, self.n, self.value)

    @classmethod
    def parse(cls, parser: Parser) -> ReplicateOp:
        n, value, certs, attrs = _parse_count_and_operand(parser)
        op = cls(n, value, certs)
        op.attributes |= attrs
        return op


@irdl_op_definition
class ArrayOp(IRDLOperation):
    """An array literal `[e1, ..., en]`, n >= 1, all elements of one type. When the
    elements are arrays of different shapes the op fails at run time, reporting `loc`.

    Syntax: `%r = soac.array [%x, %y] at "p.l0:1:9" : tensor<?xf64>` (the result type)
    """

    name = "soac.array"
    elems = var_operand_def(VALUE)
    result = result_def(ARRAY)
    loc = opt_prop_def(StringAttr)
    traits = traits_def(NoMemoryEffect())

    def __init__(self, elems: Sequence[SSAValue | Operation], result_type: Attribute,
                 loc: str | None = None) -> None:
        super().__init__(operands=[elems], result_types=[result_type],
                         properties={} if loc is None else {"loc": StringAttr(loc)})

    def verify_(self) -> None:
        if not self.elems:
            raise VerifyException("expected at least one element, found 0 (use soac.empty)")
        first = self.elems[0].type
        for i, e in enumerate(self.elems):
            _expect_type(f"element {i}", first, e.type, "the type of element 0")
        _expect_type("the result", array_of(first), self.result.type,
                     "an array of the elements' type")

    def print(self, printer: Printer) -> None:
        printer.print_string(" [")
        printer.print_list(self.elems, printer.print_operand)
        printer.print_string("]")
        _print_loc(printer, self.loc)
        _print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> ArrayOp:
        names = parser.parse_comma_separated_list(
            Parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        loc = _parse_loc(parser)
        attrs = _parse_attr_dict(parser)
        parser.parse_punctuation(":")
        pos = parser.pos
        result_type = parser.parse_type()
        elem_type = _row_or_error(parser, result_type, 1, pos)
        op = cls([parser.resolve_operand(n, elem_type) for n in names], result_type,
                 None if loc is None else loc.data)
        op.attributes |= attrs
        return op


@irdl_op_definition
class EmptyOp(IRDLOperation):
    """`empty(T)`: an array with every dimension 0.

    Syntax: `%e = soac.empty : tensor<?xf64>`
    """

    name = "soac.empty"
    result = result_def(ARRAY)
    traits = traits_def(Pure())

    def __init__(self, result_type: Attribute) -> None:
        super().__init__(result_types=[result_type])

    def print(self, printer: Printer) -> None:
        _print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> EmptyOp:
        attrs = _parse_attr_dict(parser)
        parser.parse_punctuation(":")
        op = cls(parser.parse_type())
        op.attributes |= attrs
        return op


@irdl_op_definition
class CopyOp(IRDLOperation):
    """`copy(a)`: a fresh (unique) copy of an array.

    Syntax: `%r = soac.copy %a : tensor<?xf64>`
    """

    name = "soac.copy"
    array = operand_def(ARRAY)
    result = result_def(ARRAY)
    traits = traits_def(Pure())

    def __init__(self, array: SSAValue | Operation) -> None:
        super().__init__(operands=[array], result_types=[SSAValue.get(array).type])

    def verify_(self) -> None:
        _expect_type("the result", self.array.type, self.result.type, "the type of the array")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.array)
        _print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.array.type)

    @classmethod
    def parse(cls, parser: Parser) -> CopyOp:
        array = parser.parse_unresolved_operand()
        attrs = _parse_attr_dict(parser)
        parser.parse_punctuation(":")
        op = cls(parser.resolve_operand(array, parser.parse_type()))
        op.attributes |= attrs
        return op


# ---------------------------------------------------------------------------------------
# Array access and shape
# ---------------------------------------------------------------------------------------


def _check_dim(what: str, value: int, rank: int) -> None:
    if not 0 <= value < rank:
        raise VerifyException(
            f"expected {what} in [0, {rank}) for an array of rank {rank}, found {value}"
        )


@irdl_op_definition
class SizeOp(IRDLOperation):
    """`size(dim, a)`: the length of dimension `dim` of `a`.

    Syntax: `%s = soac.size(1) %a <%c> : tensor<?x?xf64>`
    """

    name = "soac.size"
    array = operand_def(ARRAY)
    certs = var_operand_def(CERT)
    dim = prop_def(IntAttr)
    result = result_def(i64)
    traits = traits_def(Pure())

    def __init__(self, array: SSAValue | Operation, dim: int,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[array, certs], result_types=[i64],
                         properties={"dim": IntAttr(dim)})

    def verify_(self) -> None:
        assert isinstance(self.array.type, TensorType)
        _check_dim("dim", self.dim.data, self.array.type.get_num_dims())

    def print(self, printer: Printer) -> None:
        if not _custom_printable(printer, self, dim=IntAttr):
            return
        printer.print_string(f"({self.dim.data}) ")
        printer.print_operand(self.array)
        _print_certs(printer, self.certs)
        _print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.array.type)

    @classmethod
    def parse(cls, parser: Parser) -> SizeOp:
        parser.parse_punctuation("(")
        dim = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(")")
        array = parser.parse_unresolved_operand()
        certs = _parse_certs(parser)
        attrs = _parse_attr_dict(parser)
        parser.parse_punctuation(":")
        op = cls(parser.resolve_operand(array, parser.parse_type()), dim, certs)
        op.attributes |= attrs
        return op


def _print_indices(printer: Printer, indices: Sequence[SSAValue]) -> None:
    printer.print_string("[")
    printer.print_list(indices, printer.print_operand)
    printer.print_string("]")


def _parse_indices(parser: Parser) -> list[SSAValue]:
    names = parser.parse_comma_separated_list(
        Parser.Delimiter.SQUARE, parser.parse_unresolved_operand
    )
    return [parser.resolve_operand(n, i64) for n in names]


def _check_index_count(array: SSAValue, count: int) -> Attribute:
    """The type of `array` indexed by `count` indices, or a verify error."""
    assert isinstance(array.type, TensorType)
    rank = array.type.get_num_dims()
    if count > rank:
        raise VerifyException(
            f"expected at most {rank} {'index' if rank == 1 else 'indices'} for an array "
            f"of rank {rank}, found {count}"
        )
    t = row_type(array.type, count)
    assert t is not None
    return t


def _without_dims(count: int) -> str:
    return f"the array's type without its {_plural(count, 'outer dimension')}"


@irdl_op_definition
class IndexOp(IRDLOperation):
    """`a[i, j]`: an element (all dimensions indexed) or a row of lower rank. It does no
    check of its own: a bounds `soac.assert` guards it through a cert.

    Syntax: `%e = soac.index %a[%i, %j] <%c> : tensor<?x?xf64> -> f64`
    """

    name = "soac.index"
    array = operand_def(ARRAY)
    indices = var_operand_def(i64)
    certs = var_operand_def(CERT)
    result = result_def(VALUE)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    def __init__(self, array: SSAValue | Operation, indices: Sequence[SSAValue | Operation],
                 result_type: Attribute, certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[array, indices, certs], result_types=[result_type])

    def verify_(self) -> None:
        expected = _check_index_count(self.array, len(self.indices))
        _expect_type("the result", expected, self.result.type, _without_dims(len(self.indices)))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.array)
        _print_indices(printer, self.indices)
        _print_certs(printer, self.certs)
        _print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.array.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> IndexOp:
        array = parser.parse_unresolved_operand()
        indices = _parse_indices(parser)
        certs = _parse_certs(parser)
        attrs = _parse_attr_dict(parser)
        parser.parse_punctuation(":")
        array_type_ = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls(parser.resolve_operand(array, array_type_), indices, result_type, certs)
        op.attributes |= attrs
        return op


@irdl_op_definition
class UpdateOp(IRDLOperation):
    """let-with (`a with [i] <- v`): `a` with the element or row at the indices replaced
    by `value`. It consumes `array`. A bounds `soac.assert` guards it through a cert.

    Syntax: `%b = soac.update %a[%i] = %v <%c> : tensor<?x?xf64>` (the array's type;
    here `%v` is a `tensor<?xf64>` row)
    """

    name = "soac.update"
    array = operand_def(ARRAY)
    indices = var_operand_def(i64)
    value = operand_def(VALUE)
    certs = var_operand_def(CERT)
    result = result_def(ARRAY)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    def __init__(self, array: SSAValue | Operation, indices: Sequence[SSAValue | Operation],
                 value: SSAValue | Operation,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[array, indices, value, certs],
                         result_types=[SSAValue.get(array).type])

    def verify_(self) -> None:
        expected = _check_index_count(self.array, len(self.indices))
        _expect_type("the value", expected, self.value.type, _without_dims(len(self.indices)))
        _expect_type("the result", self.array.type, self.result.type, "the type of the array")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.array)
        _print_indices(printer, self.indices)
        printer.print_string(" = ")
        printer.print_operand(self.value)
        _print_certs(printer, self.certs)
        _print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.array.type)

    @classmethod
    def parse(cls, parser: Parser) -> UpdateOp:
        array = parser.parse_unresolved_operand()
        indices = _parse_indices(parser)
        parser.parse_punctuation("=")
        value = parser.parse_unresolved_operand()
        certs = _parse_certs(parser)
        attrs = _parse_attr_dict(parser)
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_type()
        value_type = _row_or_error(parser, t, len(indices), pos)
        op = cls(parser.resolve_operand(array, t), indices,
                 parser.resolve_operand(value, value_type), certs)
        op.attributes |= attrs
        return op


@irdl_op_definition
class ReshapeOp(IRDLOperation):
    """`reshape((d1, ..., dm), a)`: the elements of `a` in row-major order, regrouped in
    an array of rank m. A cert guards the element count.

    Syntax: `%r = soac.reshape (%d0, %d1) %a <%c> : tensor<?xf64> -> tensor<?x?xf64>`
    """

    name = "soac.reshape"
    array = operand_def(ARRAY)
    shape = var_operand_def(i64)
    certs = var_operand_def(CERT)
    result = result_def(ARRAY)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    def __init__(self, array: SSAValue | Operation, shape: Sequence[SSAValue | Operation],
                 result_type: Attribute, certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[array, shape, certs], result_types=[result_type])

    def verify_(self) -> None:
        assert isinstance(self.array.type, TensorType)
        _expect_type("the result", array_type(self.array.type.element_type, len(self.shape)),
                     self.result.type,
                     f"the array's element type, {_plural(len(self.shape), 'dimension')}: "
                     "one per shape operand")

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list(self.shape, printer.print_operand)
        printer.print_string(") ")
        printer.print_operand(self.array)
        _print_certs(printer, self.certs)
        _print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.array.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> ReshapeOp:
        names = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        shape = [parser.resolve_operand(n, i64) for n in names]
        array = parser.parse_unresolved_operand()
        certs = _parse_certs(parser)
        attrs = _parse_attr_dict(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        parser.parse_punctuation("->")
        op = cls(parser.resolve_operand(array, t), shape, parser.parse_type(), certs)
        op.attributes |= attrs
        return op


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """`transpose(k, n, a)`: dimension k of `a` moves to position k+n (n may be
    negative); `transpose(a)` is `transpose(0, 1, a)`.

    Syntax: `%t = soac.transpose(0, 1) %a <%c> : tensor<?x?xf64>`
    """

    name = "soac.transpose"
    array = operand_def(ARRAY)
    certs = var_operand_def(CERT)
    k = prop_def(IntAttr)
    n = prop_def(IntAttr)
    result = result_def(ARRAY)
    traits = traits_def(Pure())

    def __init__(self, array: SSAValue | Operation, k: int, n: int,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[array, certs], result_types=[SSAValue.get(array).type],
                         properties={"k": IntAttr(k), "n": IntAttr(n)})

    def verify_(self) -> None:
        assert isinstance(self.array.type, TensorType)
        rank = self.array.type.get_num_dims()
        _check_dim("k", self.k.data, rank)
        _check_dim("k + n", self.k.data + self.n.data, rank)
        _expect_type("the result", self.array.type, self.result.type, "the type of the array")

    def print(self, printer: Printer) -> None:
        if not _custom_printable(printer, self, k=IntAttr, n=IntAttr):
            return
        printer.print_string(f"({self.k.data}, {self.n.data}) ")
        printer.print_operand(self.array)
        _print_certs(printer, self.certs)
        _print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.array.type)

    @classmethod
    def parse(cls, parser: Parser) -> TransposeOp:
        parser.parse_punctuation("(")
        k = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(",")
        n = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(")")
        array = parser.parse_unresolved_operand()
        certs = _parse_certs(parser)
        attrs = _parse_attr_dict(parser)
        parser.parse_punctuation(":")
        op = cls(parser.resolve_operand(array, parser.parse_type()), k, n, certs)
        op.attributes |= attrs
        return op


@irdl_op_definition
class SplitOp(IRDLOperation):
    """`split(i, a)`: the first `i` rows of `a` and the rest. A cert guards `i`.

    Syntax: `%x, %y = soac.split %i, %a <%c> : tensor<?xf64>`
    """

    name = "soac.split"
    at = operand_def(i64)
    array = operand_def(ARRAY)
    certs = var_operand_def(CERT)
    first = result_def(ARRAY)
    second = result_def(ARRAY)
    traits = traits_def(Pure())

    def __init__(self, at: SSAValue | Operation, array: SSAValue | Operation,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        t = SSAValue.get(array).type
        super().__init__(operands=[at, array, certs], result_types=[t, t])

    def verify_(self) -> None:
        _expect_result_types(self, [self.array.type] * 2, "the type of the array")

    def print(self, printer: Printer) -> None:
        _print_count_and_operand(printer, self, self.at, self.array)

    @classmethod
    def parse(cls, parser: Parser) -> SplitOp:
        at, array, certs, attrs = _parse_count_and_operand(parser)
        op = cls(at, array, certs)
        op.attributes |= attrs
        return op


@irdl_op_definition
class ConcatOp(IRDLOperation):
    """`concat(a, b)`: the rows of `a`, then those of `b`. A cert guards the row shapes;
    `loc` reports a failure the certs do not cover.

    Syntax: `%r = soac.concat %a, %b <%c> at "p.l0:2:3" : tensor<?xf64>`
    """

    name = "soac.concat"
    a = operand_def(ARRAY)
    b = operand_def(ARRAY)
    certs = var_operand_def(CERT)
    result = result_def(ARRAY)
    loc = opt_prop_def(StringAttr)
    traits = traits_def(NoMemoryEffect())

    def __init__(self, a: SSAValue | Operation, b: SSAValue | Operation,
                 certs: Sequence[SSAValue | Operation] = (), loc: str | None = None) -> None:
        super().__init__(operands=[a, b, certs], result_types=[SSAValue.get(a).type],
                         properties={} if loc is None else {"loc": StringAttr(loc)})

    def verify_(self) -> None:
        _expect_type("the second array", self.a.type, self.b.type, "the type of the first")
        _expect_type("the result", self.a.type, self.result.type, "the type of the arrays")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.a)
        printer.print_string(", ")
        printer.print_operand(self.b)
        _print_certs(printer, self.certs)
        _print_loc(printer, self.loc)
        _print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.a.type)

    @classmethod
    def parse(cls, parser: Parser) -> ConcatOp:
        a = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        certs = _parse_certs(parser)
        loc = _parse_loc(parser)
        attrs = _parse_attr_dict(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(parser.resolve_operand(a, t), parser.resolve_operand(b, t), certs,
                 None if loc is None else loc.data)
        op.attributes |= attrs
        return op


# ---------------------------------------------------------------------------------------
# Second-order array combinators
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class MapOp(IRDLOperation):
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
    inputs = var_operand_def(ARRAY)
    certs = var_operand_def(CERT)
    outputs = var_result_def(ARRAY)
    body = region_def("single_block")
    loc = opt_prop_def(StringAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, inputs: Sequence[SSAValue | Operation], result_types: Sequence[Attribute],
                 body: Region, certs: Sequence[SSAValue | Operation] = (),
                 loc: str | None = None) -> None:
        super().__init__(operands=[inputs, certs], result_types=[result_types], regions=[body],
                         properties={} if loc is None else {"loc": StringAttr(loc)})

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("expected at least one input array, found 0")
        y = _verify_lambda(self.body, "the lambda", _row_args(self.inputs), None)
        if len(y.values) != len(self.outputs):
            raise VerifyException(
                f"expected the lambda to yield {_plural(len(self.outputs), 'value')} "
                f"(one per result), found {len(y.values)}"
            )
        _expect_result_types(self, [array_of(v.type) for v in y.values],
                             "arrays of the lambda's result types")

    def print(self, printer: Printer) -> None:
        args = _bound_args(self.body, _row_types_for_print(self.inputs))
        _print_bindings(printer, args, self.inputs)
        _print_certs(printer, self.certs)
        _print_loc(printer, self.loc)
        printer.print_string(" -> ")
        _print_types(printer, self.result_types)
        _print_lambda(printer, self.body, args is not None)
        _print_attr_dict(printer, self, keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> MapOp:
        pos = parser.pos
        ins = _parse_bindings(parser)
        certs = _parse_certs(parser)
        loc = _parse_loc(parser)
        parser.parse_punctuation("->")
        result_types = _parse_types(parser)
        body = _parse_lambda(parser, ins.names, _row_types_or_error(parser, ins.operands, pos)
                             if ins.names else [])
        op = cls(ins.operands, result_types, body, certs, None if loc is None else loc.data)
        op.attributes |= _parse_attr_dict(parser, keyword=True)
        return op


def _print_fold_header(printer: Printer, region: Region, neutral: Sequence[SSAValue],
                       inputs: Sequence[SSAValue]) -> bool:
    """`(%acc = %ne : T) over(%x = %a : A)` for reduce, scan and redomap's inner lambda.
    Returns whether the lambda's args were printed bound (so the region omits them)."""
    args = _bound_args(region, [v.type for v in neutral] + _row_types_for_print(inputs))
    _print_bindings(printer, None if args is None else args[: len(neutral)], neutral)
    printer.print_string(" over")
    _print_bindings(printer, None if args is None else args[len(neutral):], inputs)
    return args is not None


def _parse_fold_header(parser: Parser) -> tuple[_Bindings, _Bindings, int]:
    pos = parser.pos
    acc = _parse_bindings(parser)
    parser.parse_keyword("over")
    ins = _parse_bindings(parser)
    if (acc.names is None) != (ins.names is None):
        parser.raise_error("expected every lambda argument to be named, or none", pos)
    return acc, ins, pos


def _parse_fold_lambda(parser: Parser, acc: _Bindings, ins: _Bindings, pos: int) -> Region:
    if acc.names is None or ins.names is None:
        return parser.parse_region()
    types = [v.type for v in acc.operands] + _row_types_or_error(parser, ins.operands, pos)
    return _parse_lambda(parser, acc.names + ins.names, types)


@irdl_op_definition
class ReduceOp(IRDLOperation):
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
    neutral = var_operand_def(VALUE)
    inputs = var_operand_def(ARRAY)
    certs = var_operand_def(CERT)
    outputs = var_result_def(VALUE)
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, neutral: Sequence[SSAValue | Operation],
                 inputs: Sequence[SSAValue | Operation], body: Region,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[neutral, inputs, certs],
                         result_types=[[SSAValue.get(n).type for n in neutral]], regions=[body])

    def verify_(self) -> None:
        _verify_neutral_inputs(self.neutral, self.inputs)
        _verify_lambda(self.body, "the lambda",
                       _acc_args(self.neutral) + _row_args(self.inputs),
                       _neutral_yields(self.neutral))
        _expect_result_types(self, [n.type for n in self.neutral],
                             "the types of the neutral elements")

    def print(self, printer: Printer) -> None:
        bound = _print_fold_header(printer, self.body, self.neutral, self.inputs)
        _print_certs(printer, self.certs)
        _print_lambda(printer, self.body, bound)
        _print_attr_dict(printer, self, keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        acc, ins, pos = _parse_fold_header(parser)
        certs = _parse_certs(parser)
        body = _parse_fold_lambda(parser, acc, ins, pos)
        op = cls(acc.operands, ins.operands, body, certs)
        op.attributes |= _parse_attr_dict(parser, keyword=True)
        return op


@irdl_op_definition
class ScanOp(IRDLOperation):
    """`scan(f, (n1, ..., nk), (a1, ..., ak))`: the inclusive prefix scan, with the same
    lambda as `soac.reduce`; the results are arrays of the accumulator types.

    Syntax:
        %s = soac.scan(%acc = %zero : f64) over(%x = %a : tensor<?xf64>) <%c> {
          %y = arith.addf %acc, %x : f64
          soac.yield %y : f64
        }
    """

    name = "soac.scan"
    neutral = var_operand_def(VALUE)
    inputs = var_operand_def(ARRAY)
    certs = var_operand_def(CERT)
    outputs = var_result_def(ARRAY)
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, neutral: Sequence[SSAValue | Operation],
                 inputs: Sequence[SSAValue | Operation], body: Region,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[neutral, inputs, certs],
                         result_types=[[array_of(SSAValue.get(n).type) for n in neutral]],
                         regions=[body])

    def verify_(self) -> None:
        _verify_neutral_inputs(self.neutral, self.inputs)
        _verify_lambda(self.body, "the lambda",
                       _acc_args(self.neutral) + _row_args(self.inputs),
                       _neutral_yields(self.neutral))
        _expect_result_types(self, [array_of(n.type) for n in self.neutral],
                             "arrays of the neutral elements' types")

    def print(self, printer: Printer) -> None:
        bound = _print_fold_header(printer, self.body, self.neutral, self.inputs)
        _print_certs(printer, self.certs)
        _print_lambda(printer, self.body, bound)
        _print_attr_dict(printer, self, keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> ScanOp:
        acc, ins, pos = _parse_fold_header(parser)
        certs = _parse_certs(parser)
        body = _parse_fold_lambda(parser, acc, ins, pos)
        op = cls(acc.operands, ins.operands, body, certs)
        op.attributes |= _parse_attr_dict(parser, keyword=True)
        return op


@irdl_op_definition
class FilterOp(IRDLOperation):
    """`filter(p, a, b, ...)`: the rows of the inputs (all filtered alike) for which the
    lambda, given one row of each input, yields true.

    Syntax:
        %r = soac.filter(%x = %a : tensor<?xf64>) <%c> {
          %p = arith.cmpf olt, %x, %zero : f64
          soac.yield %p : i1
        }
    """

    name = "soac.filter"
    inputs = var_operand_def(ARRAY)
    certs = var_operand_def(CERT)
    outputs = var_result_def(ARRAY)
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, inputs: Sequence[SSAValue | Operation], body: Region,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[inputs, certs],
                         result_types=[[SSAValue.get(v).type for v in inputs]], regions=[body])

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("expected at least one input array, found 0")
        _verify_lambda(self.body, "the lambda", _row_args(self.inputs), [(i1, "the predicate")])
        _expect_result_types(self, [v.type for v in self.inputs], "the types of the inputs")

    def print(self, printer: Printer) -> None:
        args = _bound_args(self.body, _row_types_for_print(self.inputs))
        _print_bindings(printer, args, self.inputs)
        _print_certs(printer, self.certs)
        _print_lambda(printer, self.body, args is not None)
        _print_attr_dict(printer, self, keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> FilterOp:
        pos = parser.pos
        ins = _parse_bindings(parser)
        certs = _parse_certs(parser)
        body = _parse_lambda(parser, ins.names, _row_types_or_error(parser, ins.operands, pos)
                             if ins.names else [])
        op = cls(ins.operands, body, certs)
        op.attributes |= _parse_attr_dict(parser, keyword=True)
        return op


@irdl_op_definition
class RedomapOp(IRDLOperation):
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
    neutral = var_operand_def(VALUE)
    inputs = var_operand_def(ARRAY)
    certs = var_operand_def(CERT)
    outputs = var_result_def(VALUE)
    outer = region_def("single_block")
    inner = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, neutral: Sequence[SSAValue | Operation],
                 inputs: Sequence[SSAValue | Operation], outer: Region, inner: Region,
                 certs: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[neutral, inputs, certs],
                         result_types=[[SSAValue.get(n).type for n in neutral]],
                         regions=[outer, inner])

    def verify_(self) -> None:
        if not self.neutral:
            raise VerifyException("expected at least one neutral element, found 0")
        if not self.inputs:
            raise VerifyException("expected at least one input array, found 0")
        accs = _acc_args(self.neutral)
        yields = _neutral_yields(self.neutral)
        _verify_lambda(self.outer, "the outer lambda", accs + accs, yields)
        _verify_lambda(self.inner, "the inner lambda", accs + _row_args(self.inputs), yields)
        _expect_result_types(self, [n.type for n in self.neutral],
                             "the types of the neutral elements")

    def print(self, printer: Printer) -> None:
        bound = _print_fold_header(printer, self.inner, self.neutral, self.inputs)
        _print_certs(printer, self.certs)
        _print_lambda(printer, self.inner, bound)
        printer.print_string(" outer")
        _print_lambda(printer, self.outer, False)
        _print_attr_dict(printer, self, keyword=True)

    @classmethod
    def parse(cls, parser: Parser) -> RedomapOp:
        acc, ins, pos = _parse_fold_header(parser)
        certs = _parse_certs(parser)
        inner = _parse_fold_lambda(parser, acc, ins, pos)
        parser.parse_keyword("outer")
        outer = parser.parse_region()
        op = cls(acc.operands, ins.operands, outer, inner, certs)
        op.attributes |= _parse_attr_dict(parser, keyword=True)
        return op


def row_arguments(op: Operation) -> list[tuple[BlockArgument, SSAValue]]:
    """The lambda arguments of a SOAC that take rows of its input arrays, each with its
    input (after the accumulators of a fold); [] for any other op."""
    match op:
        case MapOp() | FilterOp():
            return list(zip(op.body.block.args, op.inputs, strict=False))
        case ReduceOp() | ScanOp():
            return list(zip(op.body.block.args[len(op.neutral):], op.inputs, strict=False))
        case RedomapOp():
            return list(zip(op.inner.block.args[len(op.neutral):], op.inputs, strict=False))
        case _:
            return []


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The terminator of every lambda region: the lambda's results.

    Syntax: `soac.yield %a, %b : f64, i64`
    """

    name = "soac.yield"
    values = var_operand_def()
    traits = lazy_traits_def(
        lambda: (IsTerminator(), Pure(), HasParent(MapOp, ReduceOp, ScanOp, FilterOp, RedomapOp))
    )
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue | Operation) -> None:
        super().__init__(operands=[values])


# ---------------------------------------------------------------------------------------
# Tracing
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class TraceOp(IRDLOperation):
    """`trace(e)`: prints `loc: value` to stderr (as the 2014 compiler did) and returns
    its operands unchanged. It has effects, so generic passes never erase it.

    Syntax: `%r, %s = soac.trace(%a, %b : f64, tensor<?xi64>) at "p.l0:1:5-1:12"`
    """

    name = "soac.trace"
    inputs = var_operand_def(VALUE)
    outputs = var_result_def(VALUE)
    loc = prop_def(StringAttr)

    def __init__(self, inputs: Sequence[SSAValue | Operation], loc: str) -> None:
        super().__init__(operands=[inputs],
                         result_types=[[SSAValue.get(v).type for v in inputs]],
                         properties={"loc": StringAttr(loc)})

    def verify_(self) -> None:
        _expect_result_types(self, [v.type for v in self.inputs], "the types of the operands")

    def print(self, printer: Printer) -> None:
        if not _custom_printable(printer, self, loc=StringAttr):
            return
        _print_bindings(printer, None, self.inputs)
        _print_loc(printer, self.loc)
        _print_attr_dict(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> TraceOp:
        pos = parser.pos
        ins = _parse_bindings(parser)
        if ins.names is not None:
            parser.raise_error("expected operands without names", pos)
        parser.parse_keyword("at", " (the location of the trace)")
        loc = parser.parse_str_literal(" (a source location)")
        op = cls(ins.operands, loc)
        op.attributes |= _parse_attr_dict(parser)
        return op


SOAC = Dialect(
    "soac",
    [
        CheckedOp,
        AssertOp,
        ConjoinOp,
        IotaOp,
        ReplicateOp,
        ArrayOp,
        EmptyOp,
        CopyOp,
        SizeOp,
        IndexOp,
        UpdateOp,
        ReshapeOp,
        TransposeOp,
        SplitOp,
        ConcatOp,
        MapOp,
        ReduceOp,
        ScanOp,
        FilterOp,
        RedomapOp,
        YieldOp,
        TraceOp,
    ],
    [CertType],
)
