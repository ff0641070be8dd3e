"""Faster named accessors (`op.inputs`, `op.outputs`, `op.body`) for IRDL op classes.

xDSL gives each named operand, result and region of an IRDL op a descriptor that
finds its part of the op's operands (results, regions) every time it is read: it
asks for the whole list through a `match` on the kind of construct, and for an op
with several variadic operands (`AttrSizedOperandSegments`, as every SOAC has) it
decodes the segment sizes from the bytes of their dense array attribute (building a
`struct` format string each time) and sums them. The passes read `op.inputs` of
SOACs on every visit, tens of thousands of times on a large module, and those reads
were a sixth of `fuse` (Note [Segment sizes decoded once]).

`speed_up_accessors(op_class)` replaces the descriptors of the three common kinds
with ones that return the same values (the same `SSAValues` slices, the same region
objects), computed directly from the op's own fields; other kinds stay xDSL's.
"""

from __future__ import annotations

from typing import Any, NoReturn

from xdsl.dialects.builtin import DenseArrayBase
from xdsl.ir import Attribute, Operation, SSAValues
from xdsl.irdl.operations import (
    AttrSizedOperandSegments,
    BeforeVariadicSingleAccessor,
    UniqueVariadicAccessor,
    VariadicAttrAccessor,
    VarIRConstruct,
)

_DECODED: dict[bytes, tuple[Attribute, tuple[slice, ...]]] = {}
"""Segment-size arrays decoded so far, by their bytes: the element type they were
decoded with and each segment's slice of the operands (Note [Segment sizes decoded
once])."""

_slice_of = tuple.__getitem__
"""A tuple's own slicing: `SSAValues` slices through a Python method that tests the
index's type and wraps the result, three times slower."""


def _segments(attr: DenseArrayBase) -> tuple[slice, ...]:
    """The slices of the operands that the segment sizes `attr` describes."""
    data = attr.data.data
    known = _DECODED.get(data)
    if known is not None and known[0] is attr.elt_type:
        return known[1]
    sizes = attr.get_values()
    slices = tuple(slice(sum(sizes[:i]), sum(sizes[:i + 1])) for i in range(len(sizes)))
    _DECODED[data] = (attr.elt_type, slices)
    return slices


# Note [Segment sizes decoded once]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A SOAC's `operandSegmentSizes` property is an immutable dense array of i32, and a
# module holds few distinct ones (map over one array with no certificate, over two
# with one, ...). They are decoded once each, keyed by their bytes, and the decoding
# is used for an attribute only when its element type is the very object the bytes
# were decoded with (the `i32` xDSL builds them with); any other attribute is
# decoded afresh (and becomes the remembered one). So `op.inputs` is a dictionary
# probe and a tuple slice, and always what xDSL's accessor returns.


class _ReadOnly:
    __slots__ = ()

    def __set__(self, instance: object, value: object) -> NoReturn:
        raise NotImplementedError(
            "Cannot write to named operands, regions, results, or successors.")


class _SegmentOperands(_ReadOnly):
    """Variadic operand number `idx` of an op with `AttrSizedOperandSegments`."""

    __slots__ = ("idx", "name", "as_property")

    def __init__(self, idx: int, name: str, as_property: bool) -> None:
        self.idx, self.name, self.as_property = idx, name, as_property

    def __get__(self, op: Operation | None, objtype: type | None = None) -> Any:
        if op is None:
            return self
        container = op.properties if self.as_property else op.attributes
        part = _segments(container[self.name])[self.idx]  # type: ignore[arg-type]
        return SSAValues(_slice_of(op._operands, part))  # pyright: ignore[reportPrivateUsage]


class _UniqueVariadicResults(_ReadOnly):
    """The one variadic result definition (number `idx` of `num_defs`)."""

    __slots__ = ("idx", "num_defs")

    def __init__(self, idx: int, num_defs: int) -> None:
        self.idx, self.num_defs = idx, num_defs

    def __get__(self, op: Operation | None, objtype: type | None = None) -> Any:
        if op is None:
            return self
        results = op.results
        part = slice(self.idx, self.idx + len(results) - self.num_defs + 1)
        return SSAValues(_slice_of(results, part))


class _SingleRegion(_ReadOnly):
    """Region number `idx`, before any variadic region definition."""

    __slots__ = ("idx",)

    def __init__(self, idx: int) -> None:
        self.idx = idx

    def __get__(self, op: Operation | None, objtype: type | None = None) -> Any:
        if op is None:
            return self
        return op.regions[self.idx]


def speed_up_accessors(op_class: type[Operation]) -> None:
    """Replace `op_class`'s accessors of the kinds above by the faster ones."""
    for name, accessor in list(vars(op_class).items()):
        kind = type(accessor)
        if kind is VariadicAttrAccessor and accessor.construct is VarIRConstruct.OPERAND \
                and isinstance(accessor.option, AttrSizedOperandSegments):
            faster: _ReadOnly = _SegmentOperands(accessor.idx, accessor.option.attribute_name,
                                                 accessor.option.as_property)
        elif kind is UniqueVariadicAccessor and accessor.construct is VarIRConstruct.RESULT:
            faster = _UniqueVariadicResults(accessor.idx, accessor.num_defs)
        elif kind is BeforeVariadicSingleAccessor \
                and accessor.construct is VarIRConstruct.REGION:
            faster = _SingleRegion(accessor.idx)
        else:
            continue
        setattr(op_class, name, faster)
