"""The syntax of the `soac` ops that bind lambda arguments (`soac.map`, `reduce`,
`scan`, `filter`, `redomap`), and `IntLiteral`, a directive of the declarative syntax
of the others.

A lambda's arguments are named where its operands are given: `(%x = %a : T)` binds the
lambda argument `%x` to the rows of `%a` (for folds, `(%acc = %ne : T) over(%x = %a :
A)` binds the accumulators, then the rows). Malformed IR (a lambda whose arguments do
not match its operands) prints, and parses, with unnamed operands `(%a : T)` and an
explicit entry block `{ ^bb0(%x: T): ... }`, so printing never fails. Certificates
and the source location follow as in the declarative syntax (`l0.dialects.soac.ops`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from xdsl.dialects.builtin import IntAttr, StringAttr
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, OptionalDef
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from l0.dialects.soac.types import CERT, row_type
from l0.dialects.soac.verify import plural

_Op = TypeVar("_Op", bound=type[IRDLOperation])


def _properties_printable(op: IRDLOperation) -> bool:
    """Whether `op` has the properties its declared syntax shows, of the right kinds."""
    for name, prop in type(op).get_irdl_definition().properties.items():
        value = op.properties.get(name)
        if value is None:
            if not isinstance(prop, OptionalDef):
                return False
        elif not prop.constr.verifies(value):
            return False
    return True


def tolerant_syntax(op_class: _Op) -> _Op:
    """Wrap the declared syntax of `op_class` (Note [Parse-time checks]): its parser
    reports a type its constraints reject (`soac.array [%x] : f64`) as a parse error at
    the op, as the hand-written parsers did, instead of a `VerifyException` without a
    location; its printer prints an op whose properties are missing or malformed
    (unverified IR) in the generic form, so that printing never fails and what it
    prints parses."""
    parse, print_ = op_class.parse, op_class.print

    def parse_located(cls: type[IRDLOperation], parser: Parser) -> IRDLOperation:
        start = parser.pos
        try:
            return parse.__func__(cls, parser)  # type: ignore[attr-defined]  # parse is a bound classmethod
        except VerifyException as err:
            # up to the end of the op's text, not to the next token
            end = len(parser.lexer.input.content[: parser.pos].rstrip())
            parser.raise_error(str(err), start, max(start, end))

    def print_or_generic(op: IRDLOperation, printer: Printer) -> None:
        if _properties_printable(op):
            print_(op, printer)
        else:
            printer.print_op_with_default_format(op)

    op_class.parse = classmethod(parse_located)  # type: ignore[assignment]  # wraps the declared parser
    op_class.print = print_or_generic  # type: ignore[assignment]  # wraps the declared printer
    return op_class


# Note [Parse-time checks]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# xDSL's declarative parser checks the types written in an op against the op's IRDL
# constraints while it parses (it needs them to infer the types left out), and raises a
# plain `VerifyException`, which has no location; its printer prints whatever
# properties an op has, so that an op without its `loc` prints as text that does not
# parse. l0-opt promises a located error for bad input and printing that never fails,
# so the soac ops wrap both (`tolerant_syntax`). Relations between types (a result that
# must be an array of the operand's type) are not checked while parsing but by the
# op's verifier (Note [Verifier messages]).


@irdl_custom_directive
class IntLiteral(CustomDirective):
    """`custom<IntLiteral>($p)`: an `IntAttr` property written as a bare integer
    (`soac.size(1) ...`), where the generic syntax would write `#builtin.int<1>`."""

    prop: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.prop.set(state, IntAttr(parser.parse_integer(allow_boolean=False)))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        value = self.prop.get(op)
        if isinstance(value, IntAttr):
            printer.print_string(str(value.data))
        elif value is not None:  # unverified IR: show it as it is
            printer.print_attribute(value)


@irdl_custom_directive
class IndexedType(CustomDirective):
    """`custom<IndexedType>(type($array), type($value), ref($indices))`: the type of
    `$array` alone, `$value` having the type of the array indexed by `$indices`
    (`soac.update %a[%i] = %v : tensor<?x?xf64>`: `%v` is a `tensor<?xf64>` row)."""

    array: TypeDirective
    value: TypeDirective
    indices: VariadicOperandVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        pos = parser.pos
        t = parser.parse_type()
        indices = state.operands[self.indices.index]
        self.array.set(state, (t,))
        self.value.set(state, (_row_or_error(parser, t, len(indices or ()), pos),))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        self.array.print(printer, state, op)


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


def print_attr_dict(printer: Printer, op: Operation, keyword: bool = False) -> None:
    printer.print_op_attributes(op.attributes, print_keyword=keyword)


def parse_attr_dict(parser: Parser, keyword: bool = False) -> dict[str, Attribute]:
    if keyword:
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return {} if attrs is None else dict(attrs.data)
    return parser.parse_optional_attr_dict()


def _print_types(printer: Printer, types: Sequence[Attribute]) -> None:
    printer.print_list(types, printer.print_attribute)


def _parse_types(parser: Parser) -> list[Attribute]:
    return parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)


def _row_or_error(parser: Parser, t: Attribute, count: int, pos: int) -> Attribute:
    """The type of `t` indexed by `count` indices, or a parse error."""
    r = row_type(t, count)
    if r is None:
        parser.raise_error(
            f"expected an array type with at least {plural(count, 'dimension')}, found {t}",
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


def print_lambda(printer: Printer, region: Region, bound: bool) -> None:
    printer.print_string(" ")
    printer.print_region(region, print_entry_block_args=not bound)


def _row_types_for_print(values: Sequence[SSAValue]) -> list[Attribute]:
    """Row types of a lambda's input arrays; a non-array (invalid IR) stands for itself,
    so that the lambda then prints with an explicit entry block."""
    return [row_type(v.type) or v.type for v in values]


def _row_types_or_error(parser: Parser, values: Sequence[SSAValue], pos: int) -> list[Attribute]:
    return [_row_or_error(parser, v.type, 1, pos) for v in values]



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


def print_row_lambda(printer: Printer, op: Operation, inputs: Sequence[SSAValue],
                     certs: Sequence[SSAValue], loc: Attribute | None = None,
                     result_types: Sequence[Attribute] | None = None) -> None:
    """`(%x = %a : A) <%c> at "loc" -> T { ... } attributes {...}`: the syntax of
    `soac.map` (`soac.filter` has neither location nor result types), whose lambda, the
    op's one region, takes one row of each input."""
    body = op.regions[0]
    args = _bound_args(body, _row_types_for_print(inputs))
    _print_bindings(printer, args, inputs)
    _print_certs(printer, certs)
    _print_loc(printer, loc)
    if result_types is not None:
        printer.print_string(" -> ")
        _print_types(printer, result_types)
    print_lambda(printer, body, args is not None)
    print_attr_dict(printer, op, keyword=True)


@dataclass
class RowLambda:
    """What `parse_row_lambda` read."""

    inputs: list[SSAValue]
    certs: list[SSAValue]
    loc: str | None
    result_types: list[Attribute]
    body: Region
    attributes: dict[str, Attribute]


def parse_row_lambda(parser: Parser, with_results: bool) -> RowLambda:
    """The syntax `print_row_lambda` prints; `-> T` only `with_results`, and then the
    location (`at "loc"`) may come too."""
    pos = parser.pos
    ins = _parse_bindings(parser)
    certs = _parse_certs(parser)
    loc = _parse_loc(parser) if with_results else None
    result_types: list[Attribute] = []
    if with_results:
        parser.parse_punctuation("->")
        result_types = _parse_types(parser)
    body = _parse_lambda(parser, ins.names, _row_types_or_error(parser, ins.operands, pos)
                        if ins.names else [])
    return RowLambda(ins.operands, certs, None if loc is None else loc.data, result_types,
                     body, parse_attr_dict(parser, keyword=True))


def print_fold(printer: Printer, neutral: Sequence[SSAValue], inputs: Sequence[SSAValue],
               certs: Sequence[SSAValue], body: Region) -> None:
    """`(%acc = %ne : T) over(%x = %a : A) <%c> { ... }`: a fold, the syntax of
    `soac.reduce` and `soac.scan`, and of `soac.redomap` and `soac.scanomap` with their
    inner lambda."""
    bound = _print_fold_header(printer, body, neutral, inputs)
    _print_certs(printer, certs)
    print_lambda(printer, body, bound)


def parse_fold(parser: Parser) -> tuple[list[SSAValue], list[SSAValue], list[SSAValue], Region]:
    """The neutral elements, inputs, certificates and lambda `print_fold` printed."""
    acc, ins, pos = _parse_fold_header(parser)
    certs = _parse_certs(parser)
    return acc.operands, ins.operands, certs, _parse_fold_lambda(parser, acc, ins, pos)
