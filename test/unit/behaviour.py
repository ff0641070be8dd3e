"""What a program does on one input, as a string to compare: shared by the tests that
check that a pass keeps behaviour (`test_rebinder.py`, `test_fuse.py`)."""

from __future__ import annotations

import io

from xdsl.dialects.builtin import ModuleOp

from l0.diagnostics import L0Error
from l0.frontend import load_program
from l0.interp import Interpreter
from l0.types import flatten
from l0.values import format_result, from_ir_results, read_values, to_ir_arguments


def behaviour(module: ModuleOp, src: str, text: str) -> str:
    """`main` of `module` (internalised from `src`) run by the interpreter on the input
    `text`: its printed result, or its error, then ` | ` and what it traced."""
    prog = load_program(src, "p.l0")
    entry = next(f for f in prog.fundefs if f.name == "main")
    types = [c for p in entry.params for c in flatten(p.type)]
    trace = io.StringIO()
    try:
        values = read_values(text, types, "<stdin>")
        params = [p.type for p in entry.params]
        out = Interpreter(module, trace_stream=trace).call("main", to_ir_arguments(params, values))
        return f"{format_result(entry.ret, from_ir_results(entry.ret, out))} | {trace.getvalue()}"
    except L0Error as err:
        return f"{err.render()} | {trace.getvalue()}"
