"""The reference interpreter for soac-level IR (func + soac + arith + scf + math).

`Interpreter(module, trace_stream=sys.stderr).call(name, args)` runs a function on
flattened run-time values (docs/CONTRIBUTING-helpers.md). See `core.py` for how it works.
"""

from __future__ import annotations

from l0.interp.core import InternalError, Interpreter

__all__ = ["InternalError", "Interpreter"]
