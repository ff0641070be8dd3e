"""Every pass preserves the meaning of every program of the corpus (`test/programs/`).

For each run test (`X.l0` with `X.in` and `X.out`, or `X.err` for a run-time fault),
`main` runs in the interpreter on the unoptimised module, after each registered
optimisation pass alone (every name in `l0.passes.PASSES` but the checks; passes are
picked up as they are registered), and after the default pipeline
(`l0.passes.pipeline.optimise`). The printed result (or the error, with its location)
and the `trace` output must be those of the unoptimised module. After every pass the
module must verify and pass `verify-uniqueness` (`run_pass(..., verify=True)`), as
must the unoptimised module (if it does not, the test fails blaming the front end, but
still compares the outputs, verifying only the IR after each pass).

Each program is compiled once; every pass gets a clone of the module. One test per
program, so pytest-xdist spreads the corpus over the cores.
"""

from __future__ import annotations

import copy
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from l0.dialects.context import l0_context
from l0.passes import PASSES
from l0.passes.pipeline import PipelineError, check, optimisation_passes, optimise, run_pass
from xdsl.dialects.builtin import ModuleOp

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
from l0.frontend import load_program, to_module
from l0.interp import Interpreter
from l0.types import flatten
from l0.values import format_result, from_ir_results, read_values, to_ir_arguments

ROOT = Path(__file__).parent / "programs"
PROGRAMS = [
    p
    for p in sorted(ROOT.rglob("*.l0"))
    if p.with_suffix(".in").exists()
    and (p.with_suffix(".out").exists() or p.with_suffix(".err").exists())
]

Runner = Callable[[ModuleOp], tuple[str, str]]


def _runner(path: Path) -> tuple[ModuleOp, Runner]:
    """The unoptimised module of `path`, and a function running `main` of a module on
    the program's input, returning (printed result or error, trace output)."""
    prog = load_program(path.read_text(encoding="utf-8"), str(path))
    entry = next(f for f in prog.fundefs if f.name == "main")
    params = [p.type for p in entry.params]
    types = [c for p in entry.params for c in flatten(p.type)]
    text = path.with_suffix(".in").read_text(encoding="utf-8")
    inputs = read_values(text, types, "<stdin>") if types else []

    def run(module: ModuleOp) -> tuple[str, str]:
        trace = io.StringIO()
        args: list[Any] = copy.deepcopy(inputs)  # main may update unique arguments in place
        try:
            ir_args = to_ir_arguments(params, args)
            results = Interpreter(module, trace_stream=trace).call("main", ir_args)
        except L0Error as err:
            return f"error: {err.render()}", trace.getvalue()
        return format_result(entry.ret, from_ir_results(entry.ret, results)), trace.getvalue()

    return to_module(prog), run


def _check_program(path: Path) -> list[str]:
    module, run = _runner(path)
    ctx = l0_context()
    failures: list[str] = []
    try:
        check(module.clone(), ctx, None)
        verify = True
    except PipelineError as err:
        # No pass is to blame: say so, and still compare outputs, verifying the IR only.
        failures.append(str(err).split("\n", 1)[0])
        verify = False
    expected = run(module.clone())

    def compare(what: str, optimised: ModuleOp) -> None:
        if not verify:
            optimised.verify()
        actual = run(optimised)
        if actual != expected:
            failures.append(f"{what}: expected {expected!r}, found {actual!r}")

    for name in optimisation_passes():
        clone = module.clone()
        run_pass(PASSES[name]()(), clone, ctx, verify=verify)
        compare(f"-p {name}", clone)
    clone = module.clone()
    optimise(clone, verify=verify, ctx=ctx)
    compare("the default pipeline", clone)
    return failures


@pytest.mark.parametrize("path", PROGRAMS, ids=[str(p.relative_to(ROOT)) for p in PROGRAMS])
def test_passes_preserve_output(path: Path) -> None:
    failures = call_with_big_stack(lambda: _check_program(path))
    assert not failures, "\n".join(failures)
