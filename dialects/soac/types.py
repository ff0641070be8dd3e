"""The types of the `soac` dialect and the IRDL constraints its ops declare.

L0 values are scalars (i64 int, f64 real, i1 bool, i32 char, `!soac.cert`) and arrays
of them, builtin `tensor<?x...xT>` with every dimension dynamic.

`Derived` and `SameRange` let the declarative syntax of an op leave out a type that
follows from another (the result of `soac.copy` has the type of its operand). They only
infer: the relation itself is checked by the op's `verify_`, which says in words what
was expected (Note [Verifier messages]).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass

from typing_extensions import TypeVar  # as xDSL's constraints name it
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType, f64, i1, i32, i64
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.irdl.constraints import (
    AttrConstraint,
    InferenceContext,
    IntConstraint,
    RangeConstraint,
    RangeOf,
    VerificationContext,
)
from xdsl.utils.exceptions import VerifyException

UNIQUE_ATTR = "soac.unique"
"""Discardable attribute marking unique (`*[T]`) parameters and results of a function."""


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


@dataclass(frozen=True)
class Derived(AttrConstraint[Attribute]):
    """`base`, and in the declarative syntax the type `derive` makes of the type bound
    to the constraint variable `var` (a `VarConstraint` of another operand or result)."""

    var: str
    derive: Callable[[Attribute], Attribute | None]
    base: AttrConstraint[Attribute]

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        self.base.verify(attr, constraint_context)

    def can_infer(self, var_constraint_names: Set[str]) -> bool:
        return self.var in var_constraint_names

    def infer(self, context: InferenceContext) -> Attribute:
        source = context.get_variable(self.var)
        derived = None if source is None else self.derive(source)
        if derived is None:  # the source was verified: only a bug in `derive` gets here
            raise VerifyException(f"cannot derive a type from {source}")
        return derived

    def mapping_type_vars(
        self, type_var_mapping: Mapping[TypeVar, AttrConstraint | IntConstraint]
    ) -> Derived:
        return self


def same(t: Attribute) -> Attribute:
    """`Derived`'s `derive` for a type equal to its source."""
    return t


@dataclass(frozen=True)
class SameRange(RangeConstraint[Attribute]):
    """Each element `base`, and in the declarative syntax the types bound to the range
    variable `var` (a `RangeVarConstraint` of another operand or result)."""

    var: str
    base: AttrConstraint[Attribute]

    def verify(self, attrs: Sequence[Attribute], constraint_context: VerificationContext) -> None:
        RangeOf(self.base).verify(attrs, constraint_context)

    def verify_length(self, length: int, constraint_context: VerificationContext) -> None:
        pass

    def can_infer(self, var_constraint_names: Set[str], *, length_known: bool) -> bool:
        return self.var in var_constraint_names

    def infer(self, context: InferenceContext, *, length: int | None) -> Sequence[Attribute]:
        return context.get_range_variable(self.var) or ()

    def mapping_type_vars(
        self, type_var_mapping: Mapping[TypeVar, AttrConstraint | IntConstraint]
    ) -> SameRange:
        return self
