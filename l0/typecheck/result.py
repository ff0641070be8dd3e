"""What checking an expression yields (`Res`) and what a call is given (`Arg`).

Kept apart from `checker.py` so that the topic modules (`arrays`, `soacs`, `calls`,
`bindings`) can build them without importing the checker itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from l0.diagnostics import Loc
from l0.typecheck.aliases import Als
from l0.typecheck.consumption import Occ
from l0.types import Type


@dataclass(slots=True)
class Res:
    """The type of an expression (with the uniqueness docs/reference.md §4.3 gives it), its
    alias information (4.4) and its occurrences (4.5)."""

    type: Type
    als: Als
    occ: Occ


@dataclass(slots=True)
class Arg:
    """An argument of a call, or a value a SOAC supplies to its function.

    `what` is the variable name when the argument is a variable; `shared` says that
    variable is unique where it was bound but not here (env Note [Uniqueness floor])."""

    type: Type
    als: Als
    occ: Occ
    loc: Loc
    what: str | None = None
    shared: bool = False
