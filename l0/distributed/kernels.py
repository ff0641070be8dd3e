"""Chunk kernels: the compiled functions Dask tasks run, and how workers get them.

A `Kernel` is one function of a soac-level module, kept as the module's text and the
back end's options. It pickles as that text (a few kilobytes), so sending it to a
cluster needs nothing of the user's on the workers but l0 itself. Each process
compiles a kernel once, on first use, and keeps the engine in `_engines`, a cache of
this importable module (functions defined in `__main__` would be pickled by value,
cache included).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

KERNEL = "kernel"
"""The name of the one function of a kernel's module."""

_engines: dict[tuple[str, str, bool, int | None], Any] = {}
_lock = threading.Lock()


class Kernel:
    """A soac-level module whose function `kernel` a task calls, with the options of the
    back end that compiles it ("cpu", "multicore" or "interp")."""

    def __init__(self, text: str, backend: str = "cpu", fast_math: bool = False,
                 threads: int | None = None) -> None:
        self.text, self.backend, self.fast_math, self.threads = text, backend, fast_math, threads

    def __reduce__(self) -> tuple[Any, ...]:
        return (Kernel, (self.text, self.backend, self.fast_math, self.threads))

    def __repr__(self) -> str:  # Dask shows it in task names and errors
        return f"<l0 kernel, {len(self.text)} characters of IR>"

    def __call__(self, *args: Any) -> list[Any]:
        """Run the kernel on its IR arguments (arrays, scalars, certs); its IR results."""
        from l0.bigstack import call_with_big_stack

        engine = self._engine()
        ins = [np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a for a in args]
        return call_with_big_stack(lambda: engine.call(KERNEL, ins))

    def _engine(self) -> Any:
        key = (self.text, self.backend, self.fast_math, self.threads)
        engine = _engines.get(key)
        if engine is None:
            with _lock:
                engine = _engines.get(key)
                if engine is None:
                    engine = _engines[key] = _compile(*key)
        return engine


def _compile(text: str, backend: str, fast_math: bool, threads: int | None) -> Any:
    from xdsl.parser import Parser

    from l0.dialects.context import l0_context

    module = Parser(l0_context(), text).parse_module()
    if backend == "interp":
        from l0.interp import Interpreter

        return Interpreter(module)
    from l0.lowering.pipeline import CpuEngine

    return CpuEngine(module, fast_math=fast_math, threads=threads, entries=[KERNEL])


def run(kernel: Kernel, *args: Any) -> tuple[Any, ...]:
    """A task: the kernel's results as a tuple (Dask's `nout` takes them apart)."""
    return tuple(kernel(*args))


def run_stacked(kernel: Kernel, neutral: Sequence[Any], free: Sequence[Any],
                parts: Sequence[Sequence[Any]]) -> tuple[Any, ...]:
    """A combine task of a tree reduction: the kernel (a reduce from `neutral` over
    arrays of partial results, then the captured values `free`) over `parts`, each a
    tuple of partial results, taken in order."""
    columns = [np.stack([np.asarray(p[j]) for p in parts]) for j in range(len(neutral))]
    return run(kernel, *neutral, *columns, *free)
