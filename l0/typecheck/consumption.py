"""Occurrences of arrays and the sequence discipline of consumption (docs/reference.md §4.5).

This is the uniqueness half of the checker, kept apart from term typing as Futhark
keeps `Consumption.hs` apart. While checking, every expression yields an `Occ`: what
it observes (reads) and consumes, per alias key, with source locations.

The reference's recipe works on lists of occurrences `(observed-set, consumed-set)`:
* siblings concatenate their lists;
* `seq(A, B)` (A happens before B, e.g. a let's right-hand side and its body) drops
  from A every observation of a key that B consumes;
* `alt(A, B)` (the branches of an `if`) are alternatives;
* a list is valid iff no key appears in two occurrences of which one consumes it.

An occurrence here is a single observation or a single consumption, so the list can
be stored grouped by key (`Use`): validity of a key is then "no consumption, or only
one occurrence in all". Grouping makes every operation cost the size of the smaller
operand (the merges move the smaller dict into the larger one), and leaving a scope
costs the number of keys it bound, which keeps long let chains linear. `Occ` values
are *moved* by these functions: an argument must not be used after being passed.

`alt` is the symmetric version of the reference's rule 4: the original forgave only
uses in the then-branch of what the else-branch consumes; here each branch forgives
the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from l0.diagnostics import L0Error, Loc
from l0.typecheck import errors


@dataclass(slots=True)
class Site:
    """Where a key was observed or consumed; `what` names the variable written there,
    when there is one (messages name what the programmer wrote, not the alias)."""

    loc: Loc
    what: str | None = None


class Use:
    """All occurrences of one key: observation sites and consumption sites."""

    __slots__ = ("cons", "obs")

    def __init__(self) -> None:
        self.obs: list[Site] = []
        self.cons: list[Site] = []


class Occ:
    """A list of occurrences, grouped by alias key."""

    __slots__ = ("uses",)

    def __init__(self) -> None:
        self.uses: dict[int, Use] = {}

    def observe(self, keys: Iterable[int], loc: Loc, what: str | None = None) -> Occ:
        site = Site(loc, what)
        for k in keys:
            self._use(k).obs.append(site)
        return self

    def consume(self, keys: Iterable[int], loc: Loc, what: str | None = None) -> Occ:
        site = Site(loc, what)
        for k in keys:
            self._use(k).cons.append(site)
        return self

    def _use(self, k: int) -> Use:
        u = self.uses.get(k)
        if u is None:
            u = self.uses[k] = Use()
        return u

    def consumed_keys(self) -> set[int]:
        return {k for k, u in self.uses.items() if u.cons}

    def only_observations(self) -> Occ:
        """The same occurrences with consumptions dropped (in place)."""
        for k in [k for k, u in self.uses.items() if u.cons]:
            u = self.uses[k]
            u.cons = []
            if not u.obs:
                del self.uses[k]
        return self

    def pop(self, keys: Iterable[int]) -> list[tuple[int, Use]]:
        """Remove and return the occurrences of `keys` (a scope binding them ends)."""
        out: list[tuple[int, Use]] = []
        for k in keys:
            u = self.uses.pop(k, None)
            if u is not None:
                out.append((k, u))
        return out


def concat(a: Occ, b: Occ) -> Occ:
    """Sibling occurrences: A then B in one sequence."""
    if len(a.uses) < len(b.uses):
        a, b = b, a
    for k, v in b.uses.items():
        u = a.uses.get(k)
        if u is None:
            a.uses[k] = v
        else:
            u.obs.extend(v.obs)
            u.cons.extend(v.cons)
    return a


def seq(a: Occ, b: Occ) -> Occ:
    """A strictly before B: observations in A of what B consumes are harmless."""
    if len(a.uses) <= len(b.uses):
        for k, u in a.uses.items():
            v = b.uses.get(k)
            if v is not None and v.cons:
                u.obs = []
    else:
        for k, v in b.uses.items():
            if v.cons:
                ua = a.uses.get(k)
                if ua is not None:
                    ua.obs = []
    return concat(_prune(a), b)


def alt(a: Occ, b: Occ) -> Occ:
    """A or B (never both): what one branch consumes may occur in the other.

    A key consumed in both branches keeps one consumption; a key consumed in one and
    observed in the other keeps only the consumption (it is consumed after the `if`)."""
    small, large = (a, b) if len(a.uses) <= len(b.uses) else (b, a)
    for k, u in small.uses.items():
        v = large.uses.get(k)
        if v is None:
            continue
        if v.cons:
            if u.cons:
                u.cons = []
            u.obs = []
        elif u.cons:
            v.obs = []
    return concat(_prune(small), _prune(large))


def _prune(o: Occ) -> Occ:
    empty = [k for k, u in o.uses.items() if not u.obs and not u.cons]
    for k in empty:
        del o.uses[k]
    return o


# ----------------------------------------------------------------------------------
# Validation.


def conflict(k: int, u: Use, names: list[str]) -> L0Error | None:
    """The error for key `k` if its occurrences break the discipline, else None."""
    if not u.cons or len(u.cons) + len(u.obs) < 2:
        return None
    cons = sorted(u.cons, key=_order)
    first = cons[0]
    if len(cons) >= 2:
        return errors.consumed_twice(cons[1].loc, cons[1].what or names[k], first.loc, first.what)
    later = [s for s in u.obs if _order(s) > _order(first)]
    if later:
        use = min(later, key=_order)
        return errors.use_after_consume(use.loc, use.what or names[k], first.loc, first.what)
    use = max(u.obs, key=_order)
    return errors.consumed_in_same_sequence(use.loc, use.what or names[k], first.loc, first.what)


def _order(s: Site) -> tuple[int, int]:
    return (s.loc.line, s.loc.col)


def validate(o: Occ, names: list[str]) -> None:
    """Raise `use-after-consume` if the occurrences of any key conflict."""
    for k, u in o.uses.items():
        err = conflict(k, u, names)
        if err is not None:
            raise err


def validate_popped(popped: list[tuple[int, Use]], names: list[str]) -> None:
    for k, u in popped:
        err = conflict(k, u, names)
        if err is not None:
            raise err
