"""The CUDA driver from Python: find the GPU, load PTX, get the kernels' handles.

Only the gpu back end imports this module. It talks to libcuda (the driver, which the
NVIDIA kernel driver installs; no toolkit needed) through ctypes, and loads it into the
process with llvmlite's `load_library_permanently`, so the compiled host code's calls
(`lowering/llvm/cuda_host.py`) resolve to the same library and the same context.

Note [The driver directly, not numba.cuda]
numba.cuda could load the PTX (`ctx.create_module_ptx`) and hand out the `CUfunction`
handles; what the back end needs from it is just that, three driver calls
(`cuModuleLoadData`, `cuModuleGetFunction`, and the context), while importing it costs
a second or so per process and ties the back end to numba-cuda's and numpy's versions
(numba-cuda 0.30 fails under numpy 2.5). The compiled host code calls libcuda anyway, so
the back end uses libcuda alone: one library, one context (the device's primary
context, the one numba.cuda and CuPy also use, so arrays and kernels of all three mix).
Launches are `cuLaunchKernel` calls in compiled code, not Python calls: about 5 us
each instead of 8 (cuda.core from Python).

`device()` gives the process's `Device` or raises `GpuUnavailable` with one line saying
why: no driver library, no device, or a driver error.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

LIBCUDA = "libcuda.so.1"
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CUDA_ERROR_NO_DEVICE = 100
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
    """A loaded PTX module: `functions` maps PTX kernel names to `CUfunction` handles."""

    module: int
    functions: dict[str, int]


class Device:
    """GPU 0 of the driver `lib`, with its primary context current in this thread."""

    def __init__(self, lib: Any) -> None:
        self.lib = lib
        self._check(lib.cuInit(0), "cuInit", no_device=True)
        count = ctypes.c_int(0)
        self._check(lib.cuDeviceGetCount(ctypes.byref(count)), "cuDeviceGetCount",
                    no_device=True)
        if count.value < 1:
            raise GpuUnavailable("--backend=gpu needs an NVIDIA GPU: the CUDA driver "
                                 "sees no device")
        dev = ctypes.c_int(0)
        self._check(lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        self.ordinal = dev.value
        ctx = ctypes.c_void_p()
        self._check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev),
                    "cuDevicePrimaryCtxRetain")
        self.context = ctx
        self.make_current()
        heap = int(os.environ.get("L0_GPU_HEAP", HEAP_BYTES))
        self._check(lib.cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, ctypes.c_size_t(heap)),
                    "cuCtxSetLimit")
        major, minor = ctypes.c_int(0), ctypes.c_int(0)
        self._check(lib.cuDeviceGetAttribute(ctypes.byref(major),
                                             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
                    "cuDeviceGetAttribute")
        self._check(lib.cuDeviceGetAttribute(ctypes.byref(minor),
                                             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
                    "cuDeviceGetAttribute")
        self.arch = f"sm_{major.value}{minor.value}"

    def make_current(self) -> None:
        """Make the device's context current in the calling thread (compiled host code
        runs in whatever thread calls it)."""
        self._check(self.lib.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")

    def load_ptx(self, text: str, kernels: Iterable[str]) -> LoadedPtx:
        """Load PTX (the driver compiles it for the device) and look up `kernels`."""
        self.make_current()
        module = ctypes.c_void_p()
        image = ctypes.c_char_p(text.encode("utf-8"))
        self._check(self.lib.cuModuleLoadData(ctypes.byref(module), image), "cuModuleLoadData")
        functions: dict[str, int] = {}
        for name in kernels:
            fn = ctypes.c_void_p()
            self._check(self.lib.cuModuleGetFunction(ctypes.byref(fn), module,
                                                     name.encode("utf-8")),
                        "cuModuleGetFunction")
            functions[name] = int(fn.value or 0)
        return LoadedPtx(int(module.value or 0), functions)

    def synchronize(self) -> None:
        self._check(self.lib.cuCtxSynchronize(), "cuCtxSynchronize")

    def _check(self, result: int, call: str, *, no_device: bool = False) -> None:
        if result == 0:
            return
        name = error_name(self.lib, result)
        if no_device:
            raise GpuUnavailable(f"--backend=gpu needs an NVIDIA GPU: {call} failed "
                                 f"({name})")
        raise GpuUnavailable(f"the CUDA driver failed: {call} returned {name}")


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
    """The process's GPU (the first time: load the driver, initialise, retain the
    primary context); `GpuUnavailable` if there is none."""
    global _device
    with _lock:
        if _device is None:
            _device = Device(_load_libcuda())
        return _device
