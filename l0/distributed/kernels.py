"""Chunk kernels: the compiled functions Dask tasks run, and how workers get them.

A `Kernel` is one function of a soac-level module, kept as the module's text and the
back end's options. It pickles as that text (a few kilobytes), so sending it to a
cluster needs nothing of the user's on the workers but l0 itself. Each process
compiles a kernel once, on first use, and keeps the engine in `_engines`, a cache of
this importable module (functions defined in `__main__` would be pickled by value,
cache included). Native kernels also go through the on-disk compile cache
(`l0.compile_cache`): a worker process on a machine where the kernel was compiled
before (by the client, or by another worker) loads its object code instead of
compiling it. `counts` says, per process, which of the two happened.
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

counts = {"compiled": 0, "loaded": 0}
"""How many kernels this process compiled, and how many it loaded from the compile
cache (the tests read them on the workers)."""


class Kernel:
    """A soac-level module whose function `kernel` a task calls, with the options of the
    back end that compiles it (a name of `l0.targets`; one that cannot compile kernels
    hands them to its record's `dask_kernels`)."""

    def __init__(self, text: str, backend: str = "cpu", fast_math: bool = False,
                 threads: int | None = None) -> None:
        self.text, self.backend, self.fast_math, self.threads = text, backend, fast_math, threads

    def __reduce__(self) -> tuple[Any, ...]:
        return (Kernel, (self.text, self.backend, self.fast_math, self.threads))

    def __dask_tokenize__(self) -> tuple[Any, ...]:  # same kernel, same task names
        return (self.text, self.backend, self.fast_math, self.threads)

    def __repr__(self) -> str:  # Dask shows it in task names and errors
        return f"<l0 kernel, {len(self.text)} characters of IR>"

    def __call__(self, *args: Any) -> list[Any]:
        """Run the kernel on its IR arguments (arrays, scalars, certs); its IR results."""
        from l0.bigstack import call_with_big_stack

        ins = [np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a for a in args]
        # Compiling (the lowering passes recurse) and running (recursive L0 functions)
        # both want the big stack.
        return call_with_big_stack(lambda: self._engine().call(KERNEL, ins))

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
    """The engine of a kernel: from the compile cache when it is there, else compiled
    (and stored there)."""
    from l0 import compile_cache
    from l0.targets import target

    record = target(backend).dask_kernels
    facts = record.cache_key_facts()  # None: its code is not cached
    key = None if facts is None else compile_cache.program_key(
        text, KERNEL_FILE, {"backend": record.name, "threads": threads,
                            "fast_math": fast_math, "entries": [KERNEL], **facts})
    if key is not None:
        hit: tuple[Any, Any] | None = compile_cache.load_engine(key, record.load_engine)
        if hit is not None:
            counts["loaded"] += 1
            return hit[0]
    from xdsl.parser import Parser

    from l0.dialects.context import l0_context

    module = Parser(l0_context(), text).parse_module()
    counts["compiled"] += 1
    engine = record.make_engine(module, fast_math=fast_math, threads=threads,
                                entries=[KERNEL])
    if key is not None:
        compile_cache.store_engine(key, engine)
    return engine


KERNEL_FILE = "<l0 kernel>"
"""The file name under which kernels are keyed in the compile cache (their errors
carry the locations of the program's source, kept in the text)."""


class Failed:
    """What a chunk's task returns when its kernel fails a check: the error, kept as a
    value so that the error of the first failing chunk is the one raised.

    Note [The first failing chunk wins]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A local run stops at the smallest index that fails a check. Dask raises the error
    of whichever task fails first in time. So a chunk's task returns its error, and
    what reads the chunk's results raises the error of the first failing chunk at or
    before it: a map's output chunk i looks at the status of chunks 0..i-1 (a chain of
    small tasks, `status`), a reduction's combine takes the first error among its
    partial results in order, a scan's carry passes an error on. Whatever Dask raises
    first is then the error of the smallest failing chunk: the local run's error, whose
    message has the global index (the chunks hold global values: a chunk of `iota` is
    cut from the whole one)."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def run(kernel: Kernel, *args: Any) -> tuple[Any, ...] | Failed:
    """A chunk's task: the kernel's results as a tuple, or `Failed`."""
    from l0.diagnostics import L0Error

    try:
        return tuple(kernel(*args))
    except L0Error as err:
        return Failed(err)


def run_client(kernel: Kernel, *args: Any) -> tuple[Any, ...]:
    """A client task: the kernel's results; a check that fails raises."""
    return tuple(kernel(*args))


def pick(results: tuple[Any, ...] | Failed, j: int, before: Failed | None) -> Any:
    """Result `j` of a chunk's task, unless it or a chunk before it failed."""
    if before is not None:
        raise before.error
    if isinstance(results, Failed):
        raise results.error
    return results[j]


def status(before: Failed | None, results: tuple[Any, ...] | Failed) -> Failed | None:
    """The first failure among the chunks up to this one."""
    if before is not None:
        return before
    return results if isinstance(results, Failed) else None


def run_stacked(kernel: Kernel, neutral: Sequence[Any], free: Sequence[Any],
                parts: Sequence[tuple[Any, ...] | Failed]) -> tuple[Any, ...] | Failed:
    """A combine task of a tree reduction: the kernel (a reduce from `neutral` over
    arrays of partial results, then the captured values `free`) over `parts`, each a
    tuple of partial results, taken in order; the first failure among them instead."""
    rows: list[tuple[Any, ...]] = []
    for p in parts:
        if isinstance(p, Failed):
            return p
        rows.append(p)
    columns = [np.stack([np.asarray(r[j]) for r in rows]) for j in range(len(neutral))]
    return run(kernel, *neutral, *columns, *free)


def run_scan(kernel: Kernel, carry: Sequence[Any] | Failed, *args: Any) -> tuple[Any, ...] | Failed:
    """A chunk of a scan, from the carry of the chunks before it (or their failure)."""
    if isinstance(carry, Failed):
        return carry
    return run(kernel, *carry, *args)


def carry_on(kernel: Kernel, carry: Sequence[Any] | Failed, free: Sequence[Any],
             total: tuple[Any, ...] | Failed) -> tuple[Any, ...] | Failed:
    """The carry into the next chunk of a scan: this one's carry combined with its total."""
    if isinstance(carry, Failed):
        return carry
    return run_stacked(kernel, list(carry), free, [total])
