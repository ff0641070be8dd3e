"""Verifier helpers of the `soac` dialect.

Note [Verifier messages]
~~~~~~~~~~~~~~~~~~~~~~~~
Messages are as in MLIR: lower case, what was expected, then what was found, and
where the expectation comes from in parentheses ("expected the result to have type
tensor<?xf64> (the type of the array), found ..."). IRDL constraints check only what
one operand or result must be on its own (an array, a scalar); relations between them
are checked by the ops' `verify_` with these helpers, so that the message can say
which relation failed.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from l0.dialects.soac.types import row_type


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def expect_type(what: str, expected: Attribute, found: Attribute, why: str = "") -> None:
    if expected != found:
        why = f" ({why})" if why else ""
        raise VerifyException(f"expected {what} to have type {expected}{why}, found {found}")


def expect_result_types(op: Operation, expected: Sequence[Attribute], why: str) -> None:
    """Check the op's results against `expected`; `why` says where the types come from."""
    found = op.result_types
    if len(found) != len(expected):
        raise VerifyException(
            f"expected {plural(len(expected), 'result')} ({why}), found {len(found)}"
        )
    for i, (e, f) in enumerate(zip(expected, found, strict=True)):
        expect_type(f"result {i}", e, f, why)


def rows(inputs: Sequence[SSAValue]) -> list[Attribute]:
    """Row types of input arrays (IRDL has already checked that they are arrays)."""
    out: list[Attribute] = []
    for v in inputs:
        r = row_type(v.type)
        assert r is not None
        out.append(r)
    return out


def check_dim(what: str, value: int, rank: int) -> None:
    if not 0 <= value < rank:
        raise VerifyException(
            f"expected {what} in [0, {rank}) for an array of rank {rank}, found {value}"
        )


def check_index_count(array: SSAValue, count: int) -> Attribute:
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


def without_dims(count: int) -> str:
    return f"the array's type without its {plural(count, 'outer dimension')}"
