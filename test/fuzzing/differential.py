"""Differential testing: a random module on every back end against the interpreter.

`check_module(seed, functions)` compiles `random_programs.module(seed, functions)` for
the reference (the interpreter without the optimiser) and for every entry of `CONFIGS`
(the API's `CompiledProgram`, as `l0.compile` makes it), runs every function on every
input of `random_programs.INPUTS` and returns what differs: a `Finding` per function,
input and configuration whose printed result or located error (`FILE:LINE:COL: error:
...` with its excerpt) is not the reference's, and per configuration that crashed (an
exception other than `L0Error`, at compile time or at run time: an internal error).

The reference must accept the program; a program it rejects is the generator's fault,
reported as a finding of kind "generator".
"""

from __future__ import annotations

import os
import traceback
from dataclasses import dataclass
from typing import Any
from unittest.mock import patch

from random_programs import INPUTS, function_source, module

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
from l0.lowering.runtime import llvm_level

FILENAME = "fuzz.l0"


@dataclass(frozen=True)
class Config:
    """One way to run a program: a back end, with or without `-O`, a thread count."""

    backend: str
    optimise: bool = True
    threads: int | None = None
    shipped: bool = False
    """Whether `l0-run` runs it: compiled at LLVM's O3 whatever the suite's level; the
    others at the level of the environment (Note [LLVM's level in the tests] in
    `test/conftest.py`; `make fuzz`: O3)."""

    def __str__(self) -> str:
        threads = f" --threads {self.threads}" if self.threads is not None else ""
        return f"{self.backend} {'-O' if self.optimise else '-O0'}{threads}"


REFERENCE = Config("interp", optimise=False)
CONFIGS = (
    Config("cpu", optimise=False),
    Config("cpu", shipped=True),
    Config("multicore", threads=2, shipped=True),
    # The 2-thread program on other thread counts (`CompiledProgram.on_threads`: the count
    # is set per call, so nothing is compiled again):
    # one thread runs the parallel loops as one chunk, three more threads than cores.
    Config("multicore", threads=1),
    Config("multicore", threads=3),
    Config("gpu-sim"),
)


@dataclass(frozen=True)
class Finding:
    """What differs: `kind` is "crash", "hang" (`make fuzz` only), "disagreement",
    "rejected" (a compile-time error the reference did not report) or "generator"
    (the reference rejected the program)."""

    kind: str
    seed: int
    functions: int
    config: str
    function: int | None = None
    input: str | None = None
    expected: str | None = None
    got: str | None = None

    def report(self) -> str:
        where = f"seed {self.seed} ({self.functions} functions)"
        if self.function is not None:
            where += f", f{self.function}"
        lines = [f"{self.kind}: {where}, {self.config}"]
        if self.input is not None:
            lines.append(f"  input: {self.input!r}")
        if self.expected is not None:
            lines.append(f"  expected: {self.expected}")
        if self.got is not None:
            lines.append(f"  got: {self.got}")
        return "\n".join(lines)

    def repro(self) -> str:
        """The function alone, with a `main` of the module's signature (without
        `which`), and the input as a comment."""
        if self.function is None:
            return module(self.seed, self.functions)
        src = function_source(self.seed, self.functions, self.function)
        note = f"// {self.kind} on {self.config}, input:\n"
        args = (self.input or "").splitlines()[1:]  # without `which`
        note += "".join(f"//   {line}\n" for line in args)
        return note + src


class _Crash(Exception):
    """An exception other than `L0Error` escaped: an internal error."""


def _compile(src: str, config: Config) -> object:
    from l0.api import CompiledProgram

    def compile_it() -> object:
        return CompiledProgram(src, FILENAME, config.backend, optimise=config.optimise,
                               threads=config.threads)

    level = {llvm_level.ENV: str(llvm_level.DEFAULT)} if config.shipped else {}
    with patch.dict(os.environ, level):
        return call_with_big_stack(compile_it)


def _crash_text(err: BaseException) -> str:
    last = traceback.extract_tb(err.__traceback__)[-1:]
    where = f" at {last[0].filename}:{last[0].lineno}" if last else ""
    return f"{type(err).__name__}: {err}{where}"


def outcome(prog: object, text: str) -> str:
    """What `main` prints on `text`, or its located error; `_Crash` for anything else."""
    try:
        return prog.run_main(text)  # type: ignore[attr-defined]
    except L0Error as err:
        return err.render()
    except Exception as err:  # noqa: BLE001 - every other exception is a crash
        raise _Crash(_crash_text(err)) from err


def check_module(seed: int, functions: int, configs: tuple[Config, ...] = CONFIGS,
                 inputs: list[str] = INPUTS) -> tuple[list[Finding], int]:
    """The findings on the module of `seed`, and how many runs were compared."""
    src = module(seed, functions)

    def finding(kind: str, config: Config, **rest: object) -> Finding:
        return Finding(kind, seed, functions, str(config), **rest)  # type: ignore[arg-type]

    try:
        reference = _compile(src, REFERENCE)
    except L0Error as err:
        return [finding("generator", REFERENCE, got=err.render())], 0
    runs = [(f, f"{f}\n{text}") for f in range(functions) for text in inputs]
    expected = {}
    for f, text in runs:
        try:
            expected[text] = outcome(reference, text)
        except _Crash as err:
            return [finding("crash", REFERENCE, function=f, input=text, got=str(err))], 0
    findings: list[Finding] = []
    compared = 0
    on_threads: dict[tuple[str, bool], Any] = {}  # compiled once for every thread count
    for config in configs:
        try:
            earlier = on_threads.get((config.backend, config.optimise))
            if earlier is not None and config.threads is not None:
                prog = earlier.on_threads(config.threads)  # the same machine code
            else:
                prog = _compile(src, config)
                if config.threads is not None:
                    on_threads[(config.backend, config.optimise)] = prog
        except L0Error as err:
            findings.append(finding("rejected", config, got=err.render()))
            continue
        except Exception as err:  # noqa: BLE001 - an internal compiler error
            findings.append(finding("crash", config, got=_crash_text(err)))
            continue
        for f, text in runs:
            try:
                got = outcome(prog, text)
            except _Crash as err:
                findings.append(finding("crash", config, function=f, input=text,
                                        expected=expected[text], got=str(err)))
                continue
            compared += 1
            if got != expected[text]:
                findings.append(finding("disagreement", config, function=f, input=text,
                                        expected=expected[text], got=got))
    return findings, compared
