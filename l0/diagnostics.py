"""User-facing diagnostics: source locations and the one error type for user errors.

Every error caused by what the user wrote (source text, values on stdin, a run-time
fault of their program) is an `L0Error`. Drivers print it as
`FILE:LINE:COL: error: message` and exit with status 2. Anything else escaping from
the compiler is a bug of ours (an internal error), never a user error.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A source position: 1-based line and column, plus where the construct ends."""

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def span(self) -> str:
        """`FILE:L1:C1-L2:C2`, the form the 2014 `trace` output uses."""
        return f"{self.file}:{self.line}:{self.col}-{self.end_line}:{self.end_col}"


NOWHERE = Loc("<unknown>", 0, 0)


class L0Error(Exception):
    """An error in the user's program or input, reported at a source location.

    `kind` is a short kebab-case code (e.g. `use-after-consume`, `parse-error`,
    `index-out-of-bounds`) so tests and docs can refer to error kinds by name.
    """

    def __init__(self, loc: Loc, message: str, kind: str = "error") -> None:
        super().__init__(message)
        self.loc = loc
        self.message = message
        self.kind = kind

    def render(self) -> str:
        return f"{self.loc}: error: {self.message}"

    def __str__(self) -> str:
        return self.render()
