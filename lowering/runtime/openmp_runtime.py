"""The OpenMP runtime the multicore back end calls: GNU libgomp, loaded into the process.

JIT-compiled multicore code calls `GOMP_parallel`, `omp_get_thread_num`,
`omp_get_num_threads`, `omp_get_max_threads` and `omp_in_parallel`
(`l0.lowering.llvm.omp`); `load()` makes them resolvable by MCJIT with llvmlite's
`load_library_permanently`. The library is the system's gcc runtime, `libgomp.so.1`
(Debian/Ubuntu package `libgomp1`, installed with gcc and by most toolchains); where
the system has none, a copy shipped inside an installed wheel (`*.libs/libgomp*.so*`,
as scikit-learn's or torch's) is used (`docs/backend.md`). `L0_LIBGOMP=PATH` names the
library to load instead. A library that cannot be found or loaded is `OpenMPUnavailable`
(`l0.diagnostics.Unavailable`: the drivers print one line and exit with status 2).

Worker threads get `OMP_STACKSIZE` of stack (default here 256 MiB of virtual memory:
only touched pages cost), so deep recursion inside a parallel loop reports "stack
overflow" about as late as on the calling thread's big stack (`l0.bigstack`). libgomp
reads it when it is loaded, so `load()` sets it first unless the user has.

The thread count is a run-time setting, not part of the code: compiled code forks
`omp_get_max_threads()` threads, the calling thread's OpenMP setting, and an engine
with a count sets it around each call (`thread_count`), as the executables of
`l0 compile` do for `--threads`. One compilation of a program thus serves every
count (the JIT's cache, the compile cache), and engines with different counts may run
at once on different Python threads: the setting is per thread.
"""

from __future__ import annotations

import contextlib
import ctypes.util
import glob
import os
import site
import sys
import threading
from collections.abc import Iterator

import llvmlite.binding as llvm

from l0.diagnostics import Unavailable

STACK_SIZE = "256M"

LIBRARY_VARIABLE = "L0_LIBGOMP"
"""The environment variable naming the libgomp to load (default: found as `find` says)."""

_lock = threading.Lock()
_loaded: str | None = None
_library: ctypes.CDLL | None = None


class OpenMPUnavailable(Unavailable):
    """No libgomp could be found or loaded: the multicore back end cannot run."""


def find() -> str | None:
    """The path (or soname) of a libgomp to load, or None."""
    chosen = os.environ.get(LIBRARY_VARIABLE, "").strip()
    if chosen:
        return chosen
    name = ctypes.util.find_library("gomp")
    if name:
        return name
    roots = [*site.getsitepackages(), site.getusersitepackages(), *sys.path]
    for root in roots:
        for path in sorted(glob.glob(os.path.join(root, "*.libs", "libgomp*.so*"))):
            return path
    return None


def load() -> str:
    """Load libgomp into the process once (module docstring); returns its path."""
    global _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        path = find()
        if path is None:
            raise OpenMPUnavailable(
                "the multicore back end needs libgomp, the GNU OpenMP runtime "
                "(install the system package libgomp1, which comes with gcc)")
        os.environ.setdefault("OMP_STACKSIZE", STACK_SIZE)
        try:
            llvm.load_library_permanently(path)
        except RuntimeError as err:
            reason = str(err).strip().splitlines()[0] if str(err).strip() else "not loadable"
            raise OpenMPUnavailable(
                f"the multicore back end cannot load libgomp, the GNU OpenMP runtime, "
                f"from {path}: {reason}") from None
        _loaded = path
        return path


@contextlib.contextmanager
def thread_count(count: int) -> Iterator[None]:
    """Compiled code called inside runs on `count` threads (0: the calling thread's
    setting as it is, libgomp's default): the calling thread's OpenMP thread count is
    set, and restored after (module docstring)."""
    if not count:
        yield
        return
    lib = _openmp()
    saved = lib.omp_get_max_threads()
    lib.omp_set_num_threads(count)
    try:
        yield
    finally:
        lib.omp_set_num_threads(saved)


def threads_of(count: int) -> int:
    """The threads a region forks when run on `count` (0: libgomp's default)."""
    return count or int(_openmp().omp_get_max_threads())


def _openmp() -> ctypes.CDLL:
    """libgomp's functions, callable from Python (`load()` first)."""
    global _library
    if _library is None:
        lib = ctypes.CDLL(load())
        lib.omp_get_max_threads.restype = ctypes.c_int
        lib.omp_get_max_threads.argtypes = []
        lib.omp_set_num_threads.restype = None
        lib.omp_set_num_threads.argtypes = [ctypes.c_int]
        _library = lib
    return _library
