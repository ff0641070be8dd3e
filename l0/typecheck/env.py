"""The checker's environment: variables, alias keys, functions (docs/reference.md §4.4-4.6).

Scoping is lexical and strictly nested, so the environment is one mutable structure
with an undo log instead of a persistent map copied at every binder: `mark()` before
binding, `undo(mark)` when the scope ends. This keeps a chain of n lets linear.

Variables map to `VarBinding`s. Every array component of a bound variable gets an
*alias key* (an int); `key_als[k]` is the set of keys that key `k` may share memory
with, as recorded in the environment (4.4). Binding `y` to a value aliasing `{x, ...}`
records `y` in the set of each `x` too (the relation is symmetric), and that addition
is undone when `y`'s scope ends.

Note [Tuple variables]
The original gives a tuple-typed variable no identity: its components carry the sets
of the tuple's parts, without the variable's own name. That loses track of tuples
built from fresh arrays (`let t = {iota(n), iota(n)} in {f(t), t}` with `f` consuming
its argument's first component is accepted by the original). Here every array
component of a tuple variable has its own key, so consuming component 0 conflicts
with later uses of `t` (and of component 0) but not with uses of component 1 taken
out by a pattern. For arrays and basic values this is exactly the original's scheme.

Note [Self alias]
Let-, pattern- and loop-bound variables contain their own key in `key_als`; function
and lambda parameters do not (they "start with empty alias sets", 4.5 rule 8). The
difference is observable: a let-with consumes the *recorded* set of its source, so
`let a[a[0]] = 1` conflicts for a let-bound `a` (observed and consumed in one
sequence) but not for a parameter (see Note [Parameter update] in `bindings.py` for
how far we follow this). A reference to a variable always includes its own key.

Note [Uniqueness floor]
Inside a lambda and inside a loop body, every variable bound outside is seen as
non-unique (4.5 rule 6, 4.6), so such code cannot consume it. Bindings are numbered
in order (`serial`); `floor` is the first number bound inside the innermost lambda or
loop body, and `view_type` strips uniqueness from older bindings.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from l0.diagnostics import Loc
from l0.typecheck import errors
from l0.typecheck.aliases import EMPTY, Als, keys_of
from l0.types import ArrayType, TupleType, Type, set_unique

# An alias key per array component of a variable, shaped like its type.
KeyShape = int | None | tuple["KeyShape", ...]


class Kind(Enum):
    """How a variable was bound (for Note [Self alias] and for error hints)."""

    PARAM = "param"  # function or lambda parameter
    LET = "let"  # let, let-with destination, pattern after a loop
    MERGE = "merge"  # loop merge variable (and the loop variable), inside the body


@dataclass(slots=True)
class VarBinding:
    name: str
    type: Type
    keys: KeyShape
    serial: int
    kind: Kind
    consumed_at: Loc | None = None


@dataclass(slots=True)
class FunSig:
    """A function as callers see it: parameter types (and names, for messages)."""

    name: str
    params: list[Type]
    param_names: list[str | None]
    ret: Type
    loc: Loc | None  # None for builtins


_VAR = 0
_ALS = 1


class Env:
    def __init__(self, funs: dict[str, FunSig]) -> None:
        self.funs = funs
        self.vars: dict[str, VarBinding] = {}
        self.key_names: list[str] = []
        self.key_als: list[set[int]] = []
        self.serial = 0
        self.floor = 0
        self._undo: list[tuple[int, object, object]] = []

    # -- scopes ----------------------------------------------------------------------

    def mark(self) -> int:
        return len(self._undo)

    def undo(self, mark: int) -> None:
        log = self._undo
        while len(log) > mark:
            kind, a, b = log.pop()
            if kind == _VAR:
                assert isinstance(a, str)
                if b is None:
                    del self.vars[a]
                else:
                    assert isinstance(b, VarBinding)
                    self.vars[a] = b
            else:
                assert isinstance(a, int) and isinstance(b, int)
                self.key_als[a].discard(b)

    def _set_var(self, name: str, b: VarBinding) -> None:
        self._undo.append((_VAR, name, self.vars.get(name)))
        self.vars[name] = b

    def enter_barrier(self) -> int:
        """Start a lambda or loop body: everything bound so far becomes non-unique.
        Returns the previous floor, to be passed back to `leave_barrier`."""
        old = self.floor
        self.floor = self.serial + 1
        return old

    def leave_barrier(self, old: int) -> None:
        self.floor = old

    def key_count(self) -> int:
        return len(self.key_names)

    # -- variables -------------------------------------------------------------------

    def bind(self, name: str, t: Type, als: Als, kind: Kind) -> VarBinding:
        """Bind `name` to a value of type `t` aliasing `als` (Note [Self alias])."""
        self.serial += 1
        keys = self._alloc(name, t, als, kind is not Kind.PARAM)
        b = VarBinding(name, t, keys, self.serial, kind)
        self._set_var(name, b)
        return b

    def _alloc(self, name: str, t: Type, als: Als, self_alias: bool) -> KeyShape:
        if isinstance(t, TupleType):
            parts = als if isinstance(als, tuple) and len(als) == len(t.elems) else None
            return tuple(
                self._alloc(name, e, parts[i] if parts is not None else EMPTY, self_alias)
                for i, e in enumerate(t.elems)
            )
        if not isinstance(t, ArrayType):
            return None
        k = len(self.key_names)
        self.key_names.append(name)
        own = set(keys_of(als))
        if self_alias:
            own.add(k)
        self.key_als.append(own)
        for n in own:
            if n != k:
                self.key_als[n].add(k)
                self._undo.append((_ALS, n, k))
        return k

    def lookup(self, name: str, loc: Loc) -> VarBinding:
        b = self.vars.get(name)
        if b is None:
            raise errors.unknown_variable(loc, name)
        if b.consumed_at is not None:
            raise errors.use_after_consume(loc, name, b.consumed_at)
        return b

    def mark_consumed(self, b: VarBinding, loc: Loc) -> None:
        """`b` was the source of a let-with: any later mention is an error (4.5 rule 1)."""
        if self.vars.get(b.name) is b:
            self._set_var(b.name, replace(b, consumed_at=loc))

    def below_floor(self, b: VarBinding) -> bool:
        return b.serial < self.floor

    def view_type(self, b: VarBinding) -> Type:
        """`b`'s type as seen here (Note [Uniqueness floor])."""
        return set_unique(b.type, False) if b.serial < self.floor else b.type

    def var_als(self, b: VarBinding) -> Als:
        """Aliases of a reference to `b`: its own keys and what they alias."""
        return self._ref_als(b.keys)

    def _ref_als(self, keys: KeyShape) -> Als:
        if keys is None:
            return EMPTY
        if isinstance(keys, int):
            s = set(self.key_als[keys])
            s.add(keys)
            return frozenset(s)
        return tuple(self._ref_als(k) for k in keys)

    def recorded_als(self, b: VarBinding) -> frozenset[int]:
        """The alias set recorded for a non-tuple variable (without its own key unless it
        is let-bound): what a let-with of it consumes (4.5 rule 8)."""
        if isinstance(b.keys, int):
            return frozenset(self.key_als[b.keys])
        return EMPTY


def flat_keys(keys: KeyShape) -> list[int]:
    """All alias keys of a binding."""
    if keys is None:
        return []
    if isinstance(keys, int):
        return [keys]
    return [k for c in keys for k in flat_keys(c)]


def leaf_keys(t: Type, keys: KeyShape) -> list[tuple[Type, int]]:
    """(component type, key) for every array component of a binding."""
    if isinstance(keys, int):
        return [(t, keys)]
    if isinstance(keys, tuple) and isinstance(t, TupleType):
        return [p for et, ek in zip(t.elems, keys, strict=True) for p in leaf_keys(et, ek)]
    return []

