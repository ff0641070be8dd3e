"""Allocation statistics: how many heap allocations compiled code makes.

With `L0_COUNT_ALLOCATIONS=1` in the environment, code compiled from then on adds one to
a process-wide counter in every call of the runtime's allocator (`l0.rt.alloc`,
`lowering/llvm/runtime.py`): `count()` reads it, so a driver can report the allocations
of one call (`l0-run -v`, `benchmarks.run`). Every allocation of a buffer counts,
whether the memory planning passes left it in a loop or not; frees are not counted.

The counter is an `i64` owned by this module; compiled code finds it by the symbol name
`l0_alloc_count` (`jit.link_symbols`) and increments it atomically (`monotonic`), so
that parallel code counts correctly too. Off by default: a production run pays nothing.
"""

from __future__ import annotations

import ctypes
import os

ENV = "L0_COUNT_ALLOCATIONS"
SYMBOL = "l0_alloc_count"

_counter = ctypes.c_int64(0)


def enabled() -> bool:
    """Whether code compiled now should count its allocations."""
    return os.environ.get(ENV, "") not in ("", "0")


def count() -> int:
    """The allocations counted so far in this process."""
    return _counter.value


def address() -> int:
    """Where the counter lives, for the JIT's linker."""
    return ctypes.addressof(_counter)
