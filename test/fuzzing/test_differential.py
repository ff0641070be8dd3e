"""Random programs give the interpreter's result or error on every back end.

Each test is one module of `FUNCTIONS` random functions (`random_programs`, Note [Many
programs in one module] there) run on every input by the interpreter without `-O` and
by every configuration of `differential.CONFIGS` (cpu -O0 and -O, multicore -O on 1, 2
and 3 threads, gpu-sim -O): the printed results and located errors must be the same,
and nothing may crash. `make fuzz` runs thousands more (docs/testing.md).

The seeds are fixed, so the suite is reproducible; `L0_FUZZ_SEED` moves them (a
different sample on each run of a loop). A failure prints the finding; `python
test/fuzzing/fuzz.py --seed S -n F --functions F` writes its reproduction.
"""

from __future__ import annotations

import os
import re
from collections import Counter

import pytest
from differential import REFERENCE, check_module, outcome
from random_programs import INPUTS, module

FUNCTIONS = 12
MODULES = 5
"""5 modules of 12 functions, each on 4 inputs: 240 programs-and-inputs, each on 6
configurations (about 7 s of CPU per module)."""

FIRST_SEED = int(os.environ.get("L0_FUZZ_SEED", "0"))
SEEDS = range(FIRST_SEED, FIRST_SEED + MODULES)


@pytest.mark.parametrize("seed", SEEDS)
def test_backends_agree_with_the_interpreter(seed: int) -> None:
    findings, compared = check_module(seed, FUNCTIONS)
    assert not findings, "\n".join(f.report() for f in findings)
    assert compared > 0


def test_the_generator_covers_the_language() -> None:
    """The modules of the suite use every construct the fuzzer is for, and their runs
    end both in results and in run-time errors of several kinds (in the interpreter,
    which costs little)."""
    from l0.api import CompiledProgram
    from l0.bigstack import call_with_big_stack

    sources = [module(seed, FUNCTIONS) for seed in SEEDS]
    text = "\n".join(sources)
    for construct in ["map(", "filter(", "reduce(", "scan(", "redomap(", "loop (",
                      "if ", "] = ", "unzip(", "zip(", "{", "replicate(", "iota(",
                      "size(", "concat(", "transpose(", "reshape(", "split(", "copy(",
                      "[[int]]"]:
        assert construct in text, construct
    kinds: Counter[str] = Counter()
    for src in sources[:2]:
        prog = call_with_big_stack(lambda src=src: CompiledProgram(
            src, "fuzz.l0", REFERENCE.backend, optimise=REFERENCE.optimise))
        for f in range(FUNCTIONS):
            for args in INPUTS:
                got = outcome(prog, f"{f}\n{args}")
                match = re.search(r"error: (\w+)", got)
                kinds[match.group(1) if match else "result"] += 1
    assert kinds["result"] >= sum(kinds.values()) // 3, kinds
    assert len(kinds) >= 4, kinds  # results and at least three kinds of error


def test_a_killed_module_is_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    """`make fuzz` runs each module in a child process: code that kills it (as a
    segmentation fault would) is reported as a crash of that module."""
    import signal

    import fuzz

    monkeypatch.setattr(fuzz, "check_module",
                        lambda seed, functions: os.kill(os.getpid(), signal.SIGKILL))
    findings, compared = fuzz.run_isolated(7, 3)
    assert compared == 0
    assert [(f.kind, f.seed) for f in findings] == [("crash", 7)]
    assert f"signal {int(signal.SIGKILL)}" in (findings[0].got or "")


def test_a_module_past_its_time_is_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    import fuzz

    monkeypatch.setattr(fuzz, "check_module", lambda seed, functions: time.sleep(60))
    findings, _ = fuzz.run_isolated(7, 3, timeout=0.5)
    assert [(f.kind, f.seed) for f in findings] == [("hang", 7)]


def test_a_reproduction_runs_the_function_alone() -> None:
    """A finding's reproduction is its function with a `main` of the module's
    parameters: on the finding's input (without `which`) the interpreter prints what
    the module printed for that function."""
    from differential import Finding

    from l0.api import CompiledProgram
    from l0.bigstack import call_with_big_stack

    seed, functions, index = 3, 4, 2
    whole = call_with_big_stack(lambda: CompiledProgram(
        module(seed, functions), "fuzz.l0", "interp", optimise=False))
    repro = Finding("disagreement", seed, functions, "cpu -O", function=index,
                    input=f"{index}\n{INPUTS[0]}").repro()
    assert "main(int which" not in repro
    assert len(re.findall(r"^fun ", repro, re.MULTILINE)) == 3  # h, the function, main
    alone = call_with_big_stack(lambda: CompiledProgram(repro, "r.l0", "interp",
                                                        optimise=False))
    for args in INPUTS:
        expected = re.sub(r"\S+\.l0:\d+:\d+", "", outcome(whole, f"{index}\n{args}"))
        assert re.sub(r"\S+\.l0:\d+:\d+", "", outcome(alone, args)) == expected
