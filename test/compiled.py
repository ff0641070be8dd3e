"""Each corpus program's modules, made once per test process and shared by the tests.

The matrix (`test_matrix.py`), the memory-planning check (`test_memory_plan.py`) and
the PTX check (`test_ptx.py`) all start from a corpus program's front-end module or
its module after the default pipeline. Both are made once per worker process
(`front_end`, `optimised`, per pipeline target); a test clones before it changes one.
The tests of one program carry its xdist group (`same_worker`; `make test` runs
`--dist loadgroup`), so one worker makes a program's modules and every test of that
program reuses them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import pytest
from corpus import Program
from xdsl.dialects.builtin import ModuleOp

from l0.dialects.context import l0_context
from l0.frontend import load_program, to_module
from l0.passes.pipeline import PipelineError, check, optimise
from l0.syntax import ast


@dataclass(frozen=True)
class FrontEnd:
    entry: ast.FunDef
    module: ModuleOp
    problem: str | None  # why the front end's module fails verification, if it does


@functools.cache
def front_end(prog: Program) -> FrontEnd:
    """The program's `main` and its module as the front end makes it (call on a big
    stack: `l0.bigstack`)."""
    tree = load_program(prog.source, prog.name)
    entry = next(f for f in tree.fundefs if f.name == "main")
    module = to_module(tree)
    try:
        check(module.clone(), l0_context(), None)
        problem = None
    except PipelineError as err:
        problem = str(err).split("\n", 1)[0]
    return FrontEnd(entry, module, problem)


@functools.cache
def optimised(prog: Program, target: str = "cpu") -> ModuleOp:
    """The program's module after the default pipeline (`-O`) of `target`
    (`l0.passes.pipeline.TARGETS`), each pass's output verified unless the front end's
    already fails (do not change it: clone)."""
    front = front_end(prog)
    module = front.module.clone()
    optimise(module, verify=front.problem is None, ctx=l0_context(), target=target)
    return module


def same_worker(prog: Program) -> pytest.MarkDecorator:
    """The mark that sends every test of `prog` to one xdist worker (module docstring)."""
    return pytest.mark.xdist_group(prog.name)
