"""Source types to IR types (docs/ir.md "Types"; thesis 4.1, tuple transformation).

A source type becomes the list of IR types of its flattened components
(`l0.types.flatten` fixes the order everybody shares): `int` -> `i64`, `real` -> `f64`,
`bool` -> `i1`, `char` -> `i32`, `cert` -> `!soac.cert`, and an array of rank r of a
basic type -> `tensor<?x...x?xT>` with r dynamic dimensions. Uniqueness does not show in
IR types; it lives in function attributes (see `functions.py`).
"""

from __future__ import annotations

from functools import cache

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType, f64, i1, i32, i64
from xdsl.ir import Attribute

from l0.dialects import soac
from l0.types import ArrayType, Basic, BasicType, Type, flatten

_BASIC: dict[Basic, Attribute] = {
    Basic.INT: i64,
    Basic.REAL: f64,
    Basic.BOOL: i1,
    Basic.CHAR: i32,
    Basic.CERT: soac.CertType(),
}


def basic_ir_type(t: BasicType) -> Attribute:
    """The IR type of a scalar."""
    return _BASIC[t.kind]


@cache
def tensor_of(elem: Attribute, rank: int) -> TensorType[Attribute]:
    """`tensor<?x...xelem>` with `rank` dynamic dimensions (built once: attributes are
    immutable, and building one verifies it)."""
    return TensorType(elem, [DYNAMIC_INDEX] * rank)


def component_ir_type(t: BasicType | ArrayType) -> Attribute:
    """The IR type of one flattened component (a basic type or an array of one)."""
    if isinstance(t, BasicType):
        return basic_ir_type(t)
    assert isinstance(t.elem, BasicType), "flattened array components have basic elements"
    return tensor_of(basic_ir_type(t.elem), t.rank)


def ir_types(t: Type) -> list[Attribute]:
    """The IR types of the flattened components of a value of type `t`."""
    return [component_ir_type(c) for c in flatten(t)]


def width(t: Type) -> int:
    """How many SSA values a value of type `t` becomes."""
    return len(flatten(t))


def rank_of(t: Attribute) -> int:
    """The number of dimensions of an IR type (0 for scalars)."""
    if isinstance(t, TensorType):
        return len(t.get_shape())
    return 0


def elem_of(t: Attribute) -> Attribute:
    """The scalar type inside an IR type."""
    if isinstance(t, TensorType):
        return t.get_element_type()
    return t


def drop_dims(t: Attribute, k: int) -> Attribute:
    """The type of `t` indexed by `k` indices: `k` outer dimensions removed."""
    rank = rank_of(t)
    assert 0 <= k <= rank, f"cannot remove {k} dimensions from {t}"
    if k == rank:
        return elem_of(t)
    return tensor_of(elem_of(t), rank - k)


def row_of(t: Attribute) -> Attribute:
    """The type of one row of an array type (what a SOAC lambda receives)."""
    return drop_dims(t, 1)


def add_dims(t: Attribute, k: int) -> TensorType[Attribute]:
    """The type of an array whose rows have type `t`, with `k` dimensions added."""
    return tensor_of(elem_of(t), rank_of(t) + k)
