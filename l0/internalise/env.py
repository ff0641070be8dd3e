"""The internaliser's environment: names to flattened SSA values and their certificates.

Internal L0 has no tuple-typed variables (thesis 4.1): a source variable of type
`{int, [{real, bool}]}` stands for three SSA values. A value may also be *predicated*
on certificates (thesis 4.2): the arrays taken apart by `zip` are only meaningful
together once their sizes have been checked, so the cert of that check travels with
the value and every op that uses the value takes it (`Flat.certs`).

Scopes are handled with an undo log rather than a chain of dictionaries, so a lookup
costs the same however long the enclosing `let` chain is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xdsl.ir import SSAValue


@dataclass(frozen=True)
class Flat:
    """An internalised L0 value: its flattened components (in `l0.types.flatten`
    order) and the certificates it is predicated on."""

    values: tuple[SSAValue, ...]
    certs: tuple[SSAValue, ...] = ()

    @staticmethod
    def of(values: Iterable[SSAValue], certs: Iterable[SSAValue] = ()) -> Flat:
        return Flat(tuple(values), tuple(certs))

    @property
    def one(self) -> SSAValue:
        """The single component of a scalar (or basic-array) value."""
        assert len(self.values) == 1, f"expected one component, found {len(self.values)}"
        return self.values[0]


def join_certs(*groups: Iterable[SSAValue]) -> list[SSAValue]:
    """Concatenate cert lists, dropping repeats but keeping first-seen order."""
    seen: set[SSAValue] = set()
    out: list[SSAValue] = []
    for group in groups:
        for c in group:
            if c not in seen:
                seen.add(c)
                out.append(c)
    return out


def concat_flats(parts: Sequence[Flat]) -> Flat:
    """The flattened tuple of several values (a tuple literal, several SOAC arrays)."""
    values = [v for p in parts for v in p.values]
    return Flat.of(values, join_certs(*(p.certs for p in parts)))


class Env:
    """Lexically scoped map from source names to `Flat` values.

    `mark()` returns a position in the undo log; `restore(mark)` undoes every binding
    made since, bringing shadowed bindings back.
    """

    def __init__(self) -> None:
        self._map: dict[str, Flat] = {}
        self._log: list[tuple[str, Flat | None]] = []

    def bind(self, name: str, value: Flat) -> None:
        self._log.append((name, self._map.get(name)))
        self._map[name] = value

    def lookup(self, name: str) -> Flat:
        found = self._map.get(name)
        if found is None:
            # The type checker rejects unknown names, so this is a bug of ours.
            raise AssertionError(f"internaliser: unbound variable '{name}'")
        return found

    def mark(self) -> int:
        return len(self._log)

    def restore(self, mark: int) -> None:
        while len(self._log) > mark:
            name, old = self._log.pop()
            if old is None:
                del self._map[name]
            else:
                self._map[name] = old
