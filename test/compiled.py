"""Each corpus program's modules, made once per test process and shared by the tests.

The matrix (`test_matrix.py`), the memory-planning check (`test_memory_plan.py`) and
the PTX check (`test_ptx.py`) all start from a corpus program's front-end module or
its module after the default pipeline. Both are made once per worker process
(`front_end`, `optimised`, per pipeline target); a test clones before it changes one.
So are the modules lowered from them for a back end (`lowered`, Note [Sharing
lowered modules]). The tests of one program carry its xdist group (`same_worker`;
`make test` runs `--dist loadgroup`), so one worker makes a program's modules and
every test of that program reuses them.

Note [Sharing lowered modules]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Several files lower the same module through the same passes: the matrix's `gpu-sim`
`O` cell lowers the gpu `-O` module through the shared lowerings and
`convert-parallel-to-gpu`, then `convert-gpu-to-sim`; the PTX check lowers it through
the same passes but the last; the memory-planning check reads the cpu `-O` module
where the shared lowerings end and the matrix's `cpu` `O` cell's whole lowering.
`lowered(prog, pipeline, backend, through=...)` gives the module after the back end's
lowering steps (`l0.lowering.pipeline.steps`, each pass with its options) up to and
including `through`, made from the longest prefix of those steps already made for
the program. Passes are frozen dataclasses, so a prefix is its tuple of steps, and two
back ends share the prefix where their steps agree. While lowering, it keeps the module
where the shared lowerings end (`l0.targets.SHARED_LOWERINGS`) and where the steps part
from another back end's on the same module, so that whichever file comes first, the
others find them. The key also holds `L0_MIN_CHUNK` (which changes the lowering) and
the entry points left public (`["main"]`, as the matrix compiles). Only the current
program's modules are kept: a program's tests run one after another on one worker,
and a loop-level module is large. Each clone costs about a tenth of a lowering.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import pytest
from corpus import Program
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from l0.dialects.context import l0_context
from l0.frontend import load_program, to_module
from l0.lowering import pipeline as pipeline_module
from l0.lowering.pipeline import hide_all_but, steps
from l0.lowering.runtime.min_chunk import min_chunk
from l0.passes.pipeline import PipelineError, check, optimise
from l0.syntax import ast
from l0.targets import SHARED_LOWERINGS, TARGETS


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


def optimised(prog: Program, target: str = "cpu") -> ModuleOp:
    """The program's module after the default pipeline (`-O`) of `target`
    (`l0.passes.pipeline.TARGETS`), each pass's output verified unless the front end's
    already fails (do not change it: clone)."""
    return _optimised(prog, target)  # one cache key for `optimised(p)` and `(p, "cpu")`


@functools.cache
def _optimised(prog: Program, target: str) -> ModuleOp:
    front = front_end(prog)
    module = front.module.clone()
    optimise(module, verify=front.problem is None, ctx=l0_context(), target=target)
    return module


def soac_module(prog: Program, pipeline: str, backend: str) -> ModuleOp:
    """The program's module after `pipeline` (`O0`: the front end's; `O`: the `-O`
    pipeline of `backend`'s target): shared, do not change it."""
    if pipeline == "O0":
        return front_end(prog).module
    assert pipeline == "O", pipeline
    return optimised(prog, TARGETS[backend].pipeline)


_Key = tuple[str, str, int, tuple[str, ...], tuple[ModulePass, ...]]
_lowered: dict[_Key, ModuleOp] = {}
"""The current program's lowered modules (Note [Sharing lowered modules]), by (program,
source module, `L0_MIN_CHUNK`, public entries, steps run)."""


def lowered(prog: Program, pipeline: str, backend: str, *, through: str | None = None,
            entries: tuple[str, ...] = ("main",)) -> ModuleOp:
    """The program's module after `pipeline` (`soac_module`) lowered for `backend` by
    its steps up to and including the pass named `through` (None: all of them), every
    function but `entries` private, as `lower(..., entries=entries)` makes it (Note
    [Sharing lowered modules]). Shared: do not change it (clone)."""
    program = steps(backend)
    if through is not None:
        program = program[:1 + [s.name for s in program].index(through)]
    assert pipeline in ("O0", "O"), pipeline
    source_key = f"O {TARGETS[backend].pipeline}" if pipeline == "O" else "O0"
    key = (prog.name, source_key, min_chunk(), entries)
    if any(k[0] != prog.name for k in _lowered):
        _lowered.clear()  # another program's: its tests are done
    done = next((n for n in range(len(program), 0, -1) if (*key, program[:n]) in _lowered), 0)
    if done == len(program):
        return _lowered[(*key, program)]
    if done:
        module = _lowered[(*key, program[:done])].clone()
    else:
        module = soac_module(prog, pipeline, backend).clone()
        hide_all_but(module, entries)
    keep = sorted(n for n in _kept_prefixes(program, backend, pipeline) if done < n < len(program))
    for start, stop in zip([done, *keep], [*keep, len(program)], strict=True):
        pipeline_module.apply_steps(module, program[start:stop])
        if stop < len(program):
            _lowered[(*key, program[:stop])] = module.clone()
    _lowered[(*key, program)] = module
    return module


def _kept_prefixes(program: tuple[ModulePass, ...], backend: str, pipeline: str) -> set[int]:
    """Where `lowered` keeps a copy while running `program`: where the shared lowerings
    end, and where it parts from another back end's steps on the same module."""
    names = [s.name for s in program]
    keep = {1 + names.index(SHARED_LOWERINGS[-1])} if SHARED_LOWERINGS[-1] in names else set()
    for other in TARGETS.values():
        if other.name == backend or not other.lowerings or (
                pipeline == "O" and other.pipeline != TARGETS[backend].pipeline):
            continue
        theirs = steps(other)
        agree = next((n for n, (a, b) in enumerate(zip(program, theirs, strict=False))
                      if a != b), min(len(program), len(theirs)))
        if agree:
            keep.add(agree)
    return keep


def same_worker(prog: Program) -> pytest.MarkDecorator:
    """The mark that sends every test of `prog` to one xdist worker (module docstring)."""
    return pytest.mark.xdist_group(prog.name)
