"""Alias (sharing) information of values (docs/reference.md §4.4, thesis 3.1).

Only arrays carry alias sets. The alias information of a value mirrors its type:
a basic value has the empty set, an array (of anything, tuples included) one set,
and a tuple one alias shape per component (thesis 3.1: tuples have no identity of
their own). The sets hold *alias keys*: small integers that `env.Env` hands out, one
for every array leaf of every bound variable (so a tuple-typed variable `t` has a key
per array component; see Note [Tuple variables] in `env.py`).

The functions here are pure; the checker combines them as 4.4 prescribes.
"""

from __future__ import annotations

from collections.abc import Iterator

from l0.types import ArrayType, BasicType, TupleType, Type

Als = frozenset[int] | tuple["Als", ...]

EMPTY: frozenset[int] = frozenset()


def none_for(t: Type) -> Als:
    """No aliases, shaped like `t` (fresh values: literals, `copy`, `iota`, ...)."""
    if isinstance(t, TupleType):
        return tuple(none_for(e) for e in t.elems)
    return EMPTY


def broadcast(t: Type, keys: frozenset[int]) -> Als:
    """Every array component of a value of type `t` aliases `keys` (e.g. a row of an array)."""
    if isinstance(t, TupleType):
        return tuple(broadcast(e, keys) for e in t.elems)
    if isinstance(t, ArrayType):
        return keys
    return EMPTY


def keys_of(a: Als) -> frozenset[int]:
    """All keys anywhere in `a` (the thesis treats sharing information as one set)."""
    if isinstance(a, frozenset):
        return a
    out: set[int] = set()
    for c in a:
        out |= keys_of(c)
    return frozenset(out)


def union(a: Als, b: Als) -> Als:
    """Component-wise union (the thesis's s1 (+) s2), for values of similar types."""
    if isinstance(a, frozenset) and isinstance(b, frozenset):
        return a | b
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(union(x, y) for x, y in zip(a, b, strict=True))
    # Shapes differ only after a type error that is reported elsewhere; stay conservative.
    return keys_of(a) | keys_of(b)


def minus(a: Als, keys: frozenset[int] | set[int]) -> Als:
    if not keys:
        return a
    if isinstance(a, frozenset):
        return a - keys
    return tuple(minus(c, keys) for c in a)


def leaves(t: Type, a: Als) -> Iterator[tuple[Type, frozenset[int]]]:
    """Pairs of (component type, its alias set) for the non-tuple components of `t`."""
    if isinstance(t, TupleType):
        if isinstance(a, tuple) and len(a) == len(t.elems):
            for et, ea in zip(t.elems, a, strict=True):
                yield from leaves(et, ea)
        else:
            yield t, keys_of(a)
        return
    yield t, keys_of(a)


def result_als(ret: Type, nonconsumed: frozenset[int]) -> Als:
    """Aliases of the result of a call (4.4): a unique array component aliases nothing;
    a non-unique one aliases every argument the call did not consume."""
    if isinstance(ret, TupleType):
        return tuple(result_als(e, nonconsumed) for e in ret.elems)
    if isinstance(ret, ArrayType) and not ret.unique:
        return nonconsumed
    return EMPTY


def unique_or_basic(t: Type) -> bool:
    """Whether a value of type `t` owns all its arrays: basic, unique, or a tuple of such.

    Decides the uniqueness of arrays built from such values (`map`, `replicate`, 4.3)."""
    if isinstance(t, BasicType):
        return True
    if isinstance(t, ArrayType):
        return t.unique
    return all(unique_or_basic(e) for e in t.elems)


def has_unique(t: Type) -> bool:
    """Whether any array in `t` is unique (a parameter of this type consumes something)."""
    if isinstance(t, ArrayType):
        return t.unique
    if isinstance(t, TupleType):
        return any(has_unique(e) for e in t.elems)
    return False
