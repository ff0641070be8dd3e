"""Internalisation: the typed L0 AST to soac-level IR (thesis chapter 4; docs/ir.md).

`internalise(prog)` turns a type-checked `ast.Program` into a `builtin.module` with one
`func.func` per L0 function, in the `func`, `soac`, `arith`, `scf` and `math` dialects:

* tuples vanish into several SSA values and arrays of tuples become tuples of arrays
  (thesis 4.1, `l0.types.flatten`); `zip`/`unzip` disappear, and SOACs are tupleless ops
  over the flattened arrays with their functional arguments as regions (4.1.1);
* every run-time check is an explicit `soac.assert` at the source location, whose
  certificate the guarded op takes (4.2): bounds, zip and T-SOAC sizes, counts, reshape,
  split, concat, division by zero, let-with shapes.

The work is split by idea: `types` (source to IR types), `env` (names to flattened
values and their certificates), `core` (emission state and dispatch), `checks`
(asserts), `operators` (scalar operators and builtins), `exprs`, `bindings` (let, let-with,
loop), `arrays`, `soacs`, and `functions` (signatures and the module).
"""

from __future__ import annotations

import sys

from xdsl.dialects.builtin import ModuleOp

# Importing the handler modules registers them with `core.handles`.
from l0.internalise import arrays, bindings, exprs, soacs  # noqa: F401
from l0.internalise.functions import internalise_program
from l0.syntax import ast

__all__ = ["internalise"]

# Nesting of non-let expressions (operands, branches, lambda bodies) recurses; let
# chains do not. Drivers run the compiler in a thread with a large stack.
_RECURSION_LIMIT = 20_000


def internalise(prog: ast.Program) -> ModuleOp:
    """The soac-level module of a type-checked program (it verifies; not re-verified here)."""
    if sys.getrecursionlimit() < _RECURSION_LIMIT:
        sys.setrecursionlimit(_RECURSION_LIMIT)
    return internalise_program(prog)
