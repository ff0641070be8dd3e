"""`-v`: how long each stage of compiling and running a program took, on stderr.

Note [Stage probes]
~~~~~~~~~~~~~~~~~~~
The compiler carries no timing code: each stage is one function that the drivers reach
through a module attribute (`l0.syntax.parser.parse_program`, `l0.lowering.backends.jit._optimise`,
...), so for the duration of one run `timed_stages` replaces those attributes by timing
wrappers and puts them back afterwards. Stages nest (the JIT stage calls LLVM IR
emission and LLVM's optimiser), so each reports its own time, without that of the
stages inside it. `STAGES` names the functions; `test/e2e/test_l0_stages.py` checks
that every one is reached, so a renamed function cannot silently drop out of the report
(`CACHE_STAGES` only with the compile cache on, "load cached code" only on a hit).
"""

from __future__ import annotations

import functools
import importlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

# (stage, module, attribute): the attribute is a function, or `Class.method`.
STAGES: tuple[tuple[str, str, str], ...] = (
    ("read program", "l0.cli.run", "_read_source"),
    ("compile cache (key, look-up, store)", "l0.compile_cache", "key"),
    ("compile cache (key, look-up, store)", "l0.compile_cache", "load"),
    ("compile cache (key, look-up, store)", "l0.compile_cache", "store"),
    ("load cached code", "l0.lowering.runtime.jit_call", "load_object"),
    ("parse", "l0.syntax.parser", "parse_program"),
    ("type check", "l0.typecheck", "check_program"),
    ("internalise", "l0.internalise", "internalise"),
    ("optimise (passes)", "l0.passes.pipeline", "optimise"),
    ("lower (bufferise, soac to scf, dealloc)", "l0.lowering.pipeline", "lower"),
    ("LLVM IR", "l0.lowering.backends.jit", "emit_module"),
    ("LLVM optimisation (O3)", "l0.lowering.backends.jit", "_optimise"),
    ("machine code (MCJIT)", "l0.lowering.backends.jit", "compile_module"),
    ("read input", "l0.values.binary", "read_input_bytes"),
    ("parse input", "l0.values", "read_arguments"),
    ("run main", "l0.api", "CompiledProgram.call_flat"),
    ("print result", "l0.values", "format_result"),
    ("print result", "l0.values.binary", "write_binary_values"),
)
COMPILE_STAGES: tuple[tuple[str, str, str], ...] = (
    ("read program", "l0.cli.compile", "_read_program"),
    *(stage for stage in STAGES if stage[0] in (
        "parse", "type check", "internalise", "optimise (passes)",
        "lower (bufferise, soac to scf, dealloc)", "LLVM optimisation (O3)")),
    ("LLVM IR", "l0.lowering.backends.native.build", "emit_module"),
    ("C tables", "l0.lowering.backends.native.build", "_tables"),
    ("object code", "l0.lowering.backends.native.build", "_object_code"),
    ("link (C compiler)", "l0.lowering.backends.native.build", "_run_cc"),
)
"""The stages of `l0 compile -v` (an executable or a library)."""

CACHE_STAGES = frozenset({"compile cache (key, look-up, store)", "load cached code"})
"""The stages of the compile cache (`l0.compile_cache`): a hit skips all others up to
"read input"."""


class StageTimes:
    """Seconds per stage, in the order first reached; nested stages counted once."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._lock = threading.Lock()
        self._inner: list[float] = []  # per open stage: the time of the stages inside it

    def wrap(self, stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            self._inner.append(0.0)
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                inner = self._inner.pop()
                with self._lock:
                    self.seconds[stage] = self.seconds.get(stage, 0.0) + elapsed - inner
                if self._inner:
                    self._inner[-1] += elapsed

        return timed

    def report(self, stream: TextIO) -> None:
        total = sum(self.seconds.values())
        width = max((len(s) for s in self.seconds), default=0)
        for stage, seconds in self.seconds.items():
            stream.write(f"{stage:<{width}}  {seconds * 1000:10.3f} ms\n")
        stream.write(f"{'total':<{width}}  {total * 1000:10.3f} ms\n")
        stream.flush()


@contextmanager
def timed_stages(stages: tuple[tuple[str, str, str], ...] = STAGES) -> Iterator[StageTimes]:
    """Time the `stages` of what runs inside the `with` (Note [Stage probes])."""
    times = StageTimes()
    restore: list[tuple[Any, str, Any]] = []
    try:
        for stage, module_name, attribute in stages:
            owner: Any = importlib.import_module(module_name)
            *path, name = attribute.split(".")
            for part in path:
                owner = getattr(owner, part)
            original = owner.__dict__[name]
            restore.append((owner, name, original))
            setattr(owner, name, times.wrap(stage, original))
        yield times
    finally:
        for owner, name, original in reversed(restore):
            setattr(owner, name, original)


def run_with_stage_times(work: Callable[[], int], stream: TextIO | None = None,
                         stages: tuple[tuple[str, str, str], ...] = STAGES) -> int:
    """`work()` with the time of each of `stages` reported on `stream` (stderr) afterwards."""
    with timed_stages(stages) as times:
        status = work()
    times.report(stream if stream is not None else sys.stderr)
    return status
