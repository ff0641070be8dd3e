"""Source-level L0 types (docs/reference.md §4.1, thesis chapter 2).

These are the types the programmer writes and the type checker reasons about. They
know nothing of xDSL: the internaliser maps them to IR types (thesis chapter 4).

An array type is kept in the "rank + element" form used by Futhark's core IR:
`[[int]]` is `ArrayType(INT, rank=2)`; its element type is never itself an array.
Uniqueness (`*`) belongs to the whole array value, so it sits on `ArrayType` only;
a tuple is unique per component.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Basic(Enum):
    """The basic (scalar) types of L0."""

    INT = "int"
    REAL = "real"
    BOOL = "bool"
    CHAR = "char"
    CERT = "cert"


@dataclass(frozen=True)
class BasicType:
    kind: Basic

    def __str__(self) -> str:
        return self.kind.value


@dataclass(frozen=True)
class TupleType:
    elems: tuple[Type, ...]

    def __str__(self) -> str:
        return "{" + ", ".join(str(t) for t in self.elems) + "}"


@dataclass(frozen=True)
class ArrayType:
    """An array of `rank` dimensions whose innermost elements have type `elem`."""

    elem: BasicType | TupleType
    rank: int
    unique: bool = False

    def __post_init__(self) -> None:
        assert self.rank >= 1, "an array type has at least one dimension"

    def __str__(self) -> str:
        inner = str(self.elem)
        for _ in range(self.rank):
            inner = f"[{inner}]"
        return ("*" if self.unique else "") + inner


Type = BasicType | TupleType | ArrayType

INT = BasicType(Basic.INT)
REAL = BasicType(Basic.REAL)
BOOL = BasicType(Basic.BOOL)
CHAR = BasicType(Basic.CHAR)
CERT = BasicType(Basic.CERT)


def array_of(t: Type, unique: bool = False) -> ArrayType:
    """The type `[t]` (adds one dimension to an array type)."""
    if isinstance(t, ArrayType):
        return ArrayType(t.elem, t.rank + 1, unique)
    return ArrayType(t, 1, unique)


def row_type(t: ArrayType) -> Type:
    """The type of one row of `t`: `[[int]]` -> `[int]`, `[int]` -> `int`.

    A row keeps the uniqueness of its array (docs/reference.md §4.3, indexing)."""
    if t.rank == 1:
        return t.elem
    return ArrayType(t.elem, t.rank - 1, t.unique)


def set_unique(t: Type, unique: bool) -> Type:
    """`t` with every array in it (also inside tuples) made unique or non-unique."""
    if isinstance(t, ArrayType):
        return ArrayType(t.elem, t.rank, unique)
    if isinstance(t, TupleType):
        return TupleType(tuple(set_unique(e, unique) for e in t.elems))
    return t


def subtype(a: Type, b: Type) -> bool:
    """`a <= b`: a value of type `a` may be used where `b` is expected (4.2).

    Unique arrays may be used as non-unique ones, never the other way round."""
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        return (
            a.rank == b.rank
            and elem_equal(a.elem, b.elem)
            and (a.unique or not b.unique)
        )
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        return len(a.elems) == len(b.elems) and all(
            subtype(x, y) for x, y in zip(a.elems, b.elems, strict=True)
        )
    return isinstance(a, BasicType) and a == b


def elem_equal(a: BasicType | TupleType, b: BasicType | TupleType) -> bool:
    """Element types of arrays compare up to uniqueness of nested arrays in tuples."""
    return similar(a, b)


def similar(a: Type, b: Type) -> bool:
    """Equal up to uniqueness: `a <= b` or `b <= a` (4.2)."""
    return set_unique(a, False) == set_unique(b, False)


def flatten(t: Type) -> list[BasicType | ArrayType]:
    """The components a value of type `t` becomes after internalisation (thesis 4.1).

    Tuples vanish into their components; an array of tuples becomes one array per
    (flattened) component, each with the array's rank added and its uniqueness:
    `{int, [{real, [bool]}]}` -> `int, [real], [[bool]]`. The result contains only
    basic types and arrays of basic types. The value reader and printer use the same
    order as the internaliser, which is what lets `main`'s results be printed.
    """
    if isinstance(t, BasicType):
        return [t]
    if isinstance(t, TupleType):
        return [c for e in t.elems for c in flatten(e)]
    if isinstance(t.elem, BasicType):
        return [t]
    out: list[BasicType | ArrayType] = []
    for c in flatten(t.elem):
        if isinstance(c, ArrayType):
            out.append(ArrayType(c.elem, c.rank + t.rank, t.unique))
        else:
            out.append(ArrayType(c, t.rank, t.unique))
    return out


def needs_cert(t: Type) -> bool:
    """Whether a function parameter or result of type `t` carries a certificate (thesis 4.2.1).

    True for an array of tuples whose elements flatten to two or more components (the
    components are separate arrays after flattening, and the cert of the `zip` check
    that their outer sizes agree must travel with them), and for a tuple containing
    such an array at any depth. The internaliser then gives the function one
    `!soac.cert` parameter right before the parameter's flattened values, or one
    `!soac.cert` result first (docs/ir.md "Modules").
    """
    if isinstance(t, TupleType):
        return any(needs_cert(e) for e in t.elems)
    if isinstance(t, ArrayType) and isinstance(t.elem, TupleType):
        return len(flatten(t.elem)) >= 2
    return False


def type_to_json(t: Type) -> object:
    """`t` as JSON-able data (`type_from_json` reads it back): for the compile cache."""
    if isinstance(t, BasicType):
        return t.kind.value
    if isinstance(t, TupleType):
        return {"tuple": [type_to_json(e) for e in t.elems]}
    return {"array": type_to_json(t.elem), "rank": t.rank, "unique": t.unique}


def type_from_json(data: object) -> Type:
    """The type `type_to_json` wrote as `data`; ValueError for anything else."""
    if isinstance(data, str):
        return BasicType(Basic(data))
    if isinstance(data, dict) and isinstance(data.get("tuple"), list):
        return TupleType(tuple(type_from_json(e) for e in data["tuple"]))
    if isinstance(data, dict) and isinstance(data.get("rank"), int) and data["rank"] >= 1:
        elem = type_from_json(data.get("array"))
        if isinstance(elem, ArrayType):
            raise ValueError("an array type's element is not an array")
        return ArrayType(elem, data["rank"], bool(data.get("unique", False)))
    raise ValueError(f"not a type: {data!r}")
