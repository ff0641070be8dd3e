"""Built-in functions and the typing of operators (docs/reference.md §3 and 4.3).

The builtins `toReal trunc sqrt log exp` are ordinary monomorphic functions in the
function namespace (defining one is a duplicate definition). `trace` is there too,
but it takes any single argument and cannot be a SOAC function, so the checker
types it specially. `op not` and `op ~` exist only as operator sections.
"""

from __future__ import annotations

from l0.typecheck.env import FunSig
from l0.types import BOOL, INT, REAL, Type

TRACE = "trace"

_SIGS: tuple[tuple[str, Type, Type], ...] = (
    ("toReal", INT, REAL),
    ("trunc", REAL, INT),
    ("sqrt", REAL, REAL),
    ("log", REAL, REAL),
    ("exp", REAL, REAL),
)

BUILTIN_NAMES: frozenset[str] = frozenset([name for name, _, _ in _SIGS] + [TRACE])


def builtin_sigs() -> dict[str, FunSig]:
    """The monomorphic builtins, as function-table entries (`trace` is not among them)."""
    return {name: FunSig(name, [p], [None], r, None) for name, p, r in _SIGS}


# Binary operators: the operand types each accepts (both operands alike, 4.3), and
# whether the result is bool rather than the operand type.
_NUMERIC: tuple[Type, ...] = (INT, REAL)
BINOP_OPERANDS: dict[str, tuple[Type, ...]] = {
    "+": _NUMERIC,
    "-": _NUMERIC,
    "*": _NUMERIC,
    "/": _NUMERIC,
    "pow": _NUMERIC,
    "%": (INT,),
    "<<": (INT,),
    ">>": (INT,),
    "&": (INT,),
    "|": (INT,),
    "^": (INT,),
    "&&": (BOOL,),
    "||": (BOOL,),
    "=": _NUMERIC,
    "<": _NUMERIC,
    "<=": _NUMERIC,
}
COMPARISONS: frozenset[str] = frozenset({"=", "<", "<="})

# Unary operator sections: `op not` on bool, `op ~` (negation) on int or real.
UNARY_SECTION_OPERANDS: dict[str, tuple[Type, ...]] = {"not": (BOOL,), "~": _NUMERIC}


def binop_result(op: str, operand: Type) -> Type:
    return BOOL if op in COMPARISONS else operand
