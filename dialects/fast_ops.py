"""What xDSL's generic IRDL machinery does on each read and construction of a SOAC,
done directly: named accessors (`op.inputs`, `op.outputs`, `op.body`) and building.

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

Building an IRDL op (`IRDLOperation.__init__`) checks its arguments against the op's
definition and encodes a new segment-size array for every op: four times the cost of
the `Operation.__init__` it ends with. Fusion and simplification rebuild SOACs by the
thousand; `init_with_segments` builds a SOAC as that does, from the same pieces
(Note [Building a SOAC]).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from xdsl.dialects.builtin import DenseArrayBase, IntegerType, i32
from xdsl.ir import Attribute, Operation, Region, SSAValue, SSAValues
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


def _segments(attr: DenseArrayBase[IntegerType]) -> tuple[slice, ...]:
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
        part = _segments(container[self.name])[self.idx]  # type: ignore[arg-type]  # segment sizes are i32 arrays; unchecked on this hot path
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


_SIZES_ATTRS: dict[tuple[int, ...], DenseArrayBase] = {}
"""The segment-size array of each list of sizes built so far (Note [Building a SOAC])."""


def init_with_segments(op: Operation, segments: Sequence[Sequence[SSAValue | Operation]],
                       result_types: Sequence[Attribute], regions: Sequence[Region],
                       properties: Mapping[str, Attribute | None] | None = None) -> None:
    """Initialise `op`, of an IRDL op class whose operand definitions are all variadic,
    sized by an `operandSegmentSizes` property, as
    `IRDLOperation.__init__(operands=segments, result_types=[result_types],
    regions=regions, properties=properties)` does when given an op's right number of
    segments and regions (Note [Building a SOAC])."""
    sizes = tuple(len(s) for s in segments)
    sizes_attr = _SIZES_ATTRS.get(sizes)
    if sizes_attr is None:
        sizes_attr = _SIZES_ATTRS[sizes] = DenseArrayBase.from_list(i32, sizes)
    props = {k: v for k, v in (properties or {}).items() if v is not None}
    props["operandSegmentSizes"] = sizes_attr
    Operation.__init__(op, operands=[SSAValue.get(v) for s in segments for v in s],
                       result_types=result_types, properties=props, regions=regions)


# Note [Building a SOAC]
# ~~~~~~~~~~~~~~~~~~~~~~
# For the SOACs' definitions (variadic operand segments sized by a property, one
# variadic result definition, single regions), `IRDLOperation.__init__` comes down
# to: each operand as `SSAValue.get` makes it, flattened in segment order; the result
# types as given; the properties without those given as None, then the segment sizes
# as a dense array of i32; the regions as given; then `Operation.__init__`, which
# also fills in default properties (`IRDLOperation.__post_init__`). The rest is
# checking arguments that the SOACs' constructors always pass right (the number of
# segments and regions), and that verification checks anyway. `init_with_segments`
# does exactly that, and shares one segment-size array among the ops with the same
# sizes: attributes are immutable values, which xDSL's `clone` shares the same way.
