"""The GPU from Python: find it, load PTX, move arrays across `main`'s boundary.

Only the gpu back end imports this module. Two libraries share the work:

* **numba.cuda** does what a library does: it owns the device's primary context
  (`cuda.current_context()`), loads the PTX (`ctx.create_module_ptx`) and gives the
  kernels' handles (`module.get_function(name).handle`), and holds the arrays that
  cross `main`'s boundary (`cuda.to_device` for the arguments,
  `cuda.from_cuda_array_interface(...).copy_to_host()` for the results).
* **libcuda** (the driver, which the NVIDIA kernel driver installs; no toolkit
  needed) is what the compiled host code calls (`lowering/llvm/cuda_host.py`:
  allocation, copies, `cuLaunchKernel`). It is loaded into the process with llvmlite's
  `load_library_permanently`, so those calls resolve to the library numba.cuda uses,
  and they act in numba.cuda's context, current in the calling thread.

Note [numba.cuda loads, compiled code launches]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
numba.cuda loads the module and holds the boundary's arrays, as the design asks; it
does not launch. A launch from Python (numba-cuda's dispatcher goes through
`cuda.core.launch`) costs about 7.8 us on an H100, a `cuLaunchKernel` call from
compiled host code about 4.8 us, which is what the GPU takes to run a small kernel; and
the host code around kernels (sequential loops, sizes, reading scalars back) is
compiled code anyway, so it launches too: no call back into Python per launch. The
`CUfunction` (a `CUkernel` of the loaded library, which `cuLaunchKernel` takes in the
current context) goes into the host code's kernel slot. Importing numba.cuda costs a
second or more per process, paid only by `--backend=gpu` (`l0-run` without it never
imports this module). numba-cuda 0.30 fails under numpy 2.5 (`numpy.row_stack` is gone):
the gpu extra pins numpy below 2.5, and `numba_cuda()` puts the name back where a newer
numpy is installed all the same.

`device()` gives the process's `Device` or raises `GpuUnavailable` with one line saying
why: no driver library, no device, no numba.cuda (the gpu extra), or a driver error.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

LIBCUDA = "libcuda.so.1"
CU_LIMIT_MALLOC_HEAP_SIZE = 2
HEAP_BYTES = 256 << 20
"""The device heap (`malloc` in kernels, `L0_GPU_HEAP` bytes if set): the driver's
default, 8 MiB, is too small for per-thread arrays of many threads."""

_lock = threading.Lock()
_device: Device | None = None


class GpuUnavailable(RuntimeError):
    """The gpu back end cannot run here: no driver, no device, or a driver failure."""


def _load_libcuda() -> Any:
    """libcuda via ctypes (also made global for JIT-compiled code), or GpuUnavailable."""
    name = os.environ.get("L0_LIBCUDA") or LIBCUDA
    try:
        lib = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
    except OSError:
        found = ctypes.util.find_library("cuda")
        if found is None:
            raise GpuUnavailable("--backend=gpu needs an NVIDIA GPU and its driver: "
                                 f"no CUDA driver library ({name}) on this machine") from None
        lib = ctypes.CDLL(found, mode=ctypes.RTLD_GLOBAL)
        name = found
    if not hasattr(lib, "cuInit"):
        raise GpuUnavailable(f"--backend=gpu needs the CUDA driver: {name} is not it")
    import llvmlite.binding as llvm

    llvm.load_library_permanently(name)
    return lib


@dataclass
class LoadedPtx:
    """A loaded PTX module (numba.cuda's): `functions` maps PTX kernel names to their
    handles, as the addresses the host code's kernel slots hold."""

    module: Any
    functions: dict[str, int]


def numba_cuda() -> ModuleType:
    """`numba.cuda`, or GpuUnavailable saying to install the gpu extra (Note [numba.cuda
    loads, compiled code launches]: numpy 2.5's missing `row_stack` put back first)."""
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    try:
        from numba import cuda
    except ImportError:
        raise GpuUnavailable("--backend=gpu needs numba.cuda: install the gpu extra "
                             "(pip install 'l0[gpu]')") from None
    module: ModuleType = cuda  # numba has no types: say what it is
    return module


def handle_address(handle: Any) -> int:
    """A driver handle of numba.cuda's (a `cuda.bindings` object, or a ctypes
    pointer) as an address."""
    if isinstance(handle, ctypes.c_void_p):
        return int(handle.value or 0)
    return int(handle)


class Device:
    """GPU 0, through numba.cuda's context (the device's primary context) and the
    driver `lib` that compiled host code calls."""

    def __init__(self, lib: Any, cuda: ModuleType) -> None:
        self.lib = lib
        self.cuda = cuda
        try:
            context = cuda.current_context()
        except Exception as err:  # numba.cuda's errors have no common base
            raise GpuUnavailable(f"--backend=gpu needs an NVIDIA GPU: numba.cuda found "
                                 f"none ({str(err).splitlines()[0] if str(err) else err!r})"
                                 ) from None
        heap = int(os.environ.get("L0_GPU_HEAP", HEAP_BYTES))
        self._check(lib.cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, ctypes.c_size_t(heap)),
                    "cuCtxSetLimit")
        major, minor = context.device.compute_capability
        self.arch = f"sm_{major}{minor}"

    def make_current(self) -> None:
        """Make the device's context current in the calling thread (compiled host code
        runs in whatever thread calls it); numba.cuda makes it so in a new thread."""
        self.cuda.current_context()

    def load_ptx(self, text: str, kernels: Iterable[str]) -> LoadedPtx:
        """Load PTX with numba.cuda (the driver compiles it for the device) and look up
        `kernels`' handles."""
        module = self.cuda.current_context().create_module_ptx(text)
        functions = {name: handle_address(module.get_function(name).handle)
                     for name in kernels}
        return LoadedPtx(module, functions)

    def to_device(self, host: np.ndarray) -> tuple[Any, int]:
        """A numba.cuda device array holding the C-contiguous `host`, and the address
        of its first element (0 for an empty array, which needs no memory)."""
        if host.size == 0:
            return None, 0
        array = self.cuda.to_device(host)
        return array, handle_address(array.device_ctypes_pointer)

    def to_host(self, address: int, shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
        """The dense device array at `address` copied into a fresh numpy array, through
        a numba.cuda device array over that memory."""
        if any(n == 0 for n in shape):
            return np.empty(shape, dtype=dtype)
        view = self.cuda.from_cuda_array_interface(
            {"shape": shape, "strides": None, "typestr": dtype.str,
             "data": (address, False), "version": 3}, owner=None, sync=False)
        return np.asarray(view.copy_to_host())

    def free(self, address: int) -> None:
        """Free device memory the compiled code allocated (`cuMemAlloc_v2`)."""
        self._check(self.lib.cuMemFree_v2(ctypes.c_uint64(address)), "cuMemFree_v2")

    def synchronize(self) -> None:
        self.cuda.synchronize()

    def _check(self, result: int, call: str) -> None:
        if result != 0:
            raise GpuUnavailable(f"the CUDA driver failed: {call} returned "
                                 f"{error_name(self.lib, result)}")


def _initialise(lib: Any) -> None:
    """`cuInit` and a device count through the driver itself, so that a machine without
    a GPU says so in the driver's words before numba.cuda is imported."""
    def check(result: int, call: str) -> None:
        if result != 0:
            raise GpuUnavailable(f"--backend=gpu needs an NVIDIA GPU: {call} failed "
                                 f"({error_name(lib, result)})")

    check(lib.cuInit(0), "cuInit")
    count = ctypes.c_int(0)
    check(lib.cuDeviceGetCount(ctypes.byref(count)), "cuDeviceGetCount")
    if count.value < 1:
        raise GpuUnavailable("--backend=gpu needs an NVIDIA GPU: the CUDA driver "
                             "sees no device")


def error_name(lib: Any, result: int) -> str:
    """`CUDA_ERROR_...` for a CUresult (the number if the driver cannot name it)."""
    text = ctypes.c_char_p()
    try:
        if lib.cuGetErrorName(result, ctypes.byref(text)) == 0 and text.value:
            return f"{text.value.decode()} ({result})"
    except AttributeError:
        pass
    return f"CUDA error {result}"


def device() -> Device:
    """The process's GPU (the first time: load the driver, initialise it, import
    numba.cuda and take its context); `GpuUnavailable` if there is none."""
    global _device
    with _lock:
        if _device is None:
            lib = _load_libcuda()
            _initialise(lib)
            if "L0_LIBCUDA" in os.environ:  # numba.cuda loads the same driver
                os.environ.setdefault("NUMBA_CUDA_DRIVER", os.environ["L0_LIBCUDA"])
            _device = Device(lib, numba_cuda())
        return _device
