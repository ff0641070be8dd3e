"""A stand-in CUDA driver in host memory, to run the gpu back end's host code without a GPU.

Run as a script (`python gpu_fake_driver.py SCENARIO`), in a process of its own: the
fake driver functions become the process's `cuMemAlloc_v2` & co. for JIT-compiled code
(`llvm.add_symbol`), which must not leak into a process that uses a real driver. It
compiles the host module of `test/lit/gpu/gpu-host.mlir` with `compile_gpu_module`
(the real PTX is made, but a fake device "loads" it), calls `main` and prints one JSON
line: the result or the error, and what the driver saw. `test_gpu_backend.py` checks it.

Device memory is host memory here (a device pointer is a host address), so `cuMemcpy`
is `memmove`; a launch runs a Python model of the kernel on the parameters it decodes
from `void **params`, which checks how the host code passes exploded descriptors.

L0 programs run through the back end's own `Device` (`l0.lowering.runtime.gpu_runtime`) over a
stand-in `numba.cuda` (`FakeCuda`, put in `sys.modules`): what the back end asks of
numba.cuda (its context, `create_module_ptx`, `get_function(...).handle`, `to_device`,
`device_ctypes_pointer`, `from_cuda_array_interface`, `copy_to_host`) is done in host
memory and logged with the driver's calls.
"""

from __future__ import annotations

import ctypes
import json
import sys
import types
from pathlib import Path
from typing import Any

import llvmlite.binding as llvm
import numpy as np
from xdsl.parser import Parser

from l0.diagnostics import L0Error
from l0.dialects.context import LOWERING_LEVELS, SOAC_LEVEL, l0_context
from l0.lowering.backends.gpu import compile_gpu_module
from l0.lowering.runtime import gpu_runtime
from l0.lowering.runtime.gpu_runtime import LoadedPtx

HOST = Path(__file__).parent.parent / "lit" / "gpu" / "gpu-host.mlir"
SCALE = 0x5CA1E
U64P = ctypes.POINTER(ctypes.c_uint64)


class FakeDriver:
    """The driver calls host code makes; `fail` maps a call's name to a CUresult to
    return instead of doing it."""

    def __init__(self, fail: dict[str, int]) -> None:
        self.fail = fail
        self.buffers: dict[int, Any] = {}
        self.log: list[Any] = []
        self.on_launch: Any = None
        """Stands in for a kernel of an L0 program: called with the latest buffer."""

    def mem_alloc(self, out: Any, size: int) -> int:
        if "cuMemAlloc_v2" in self.fail:
            return self.fail["cuMemAlloc_v2"]
        buf = ctypes.create_string_buffer(size)
        address = ctypes.addressof(buf)
        self.buffers[address] = buf
        out[0] = address
        self.log.append(["alloc", size])
        return 0

    def mem_free(self, address: int) -> int:
        self.log.append(["free", address in self.buffers])
        self.buffers.pop(address, None)
        return 0

    def memcpy(self, dst: int, src: int, size: int) -> int:
        self.log.append(["copy", size])
        ctypes.memmove(dst, src, size)
        return 0

    def launch(self, f: int, gx: int, gy: int, gz: int, bx: int, by: int, bz: int,
               shared: int, stream: int, params: int, extra: int) -> int:
        if f != SCALE:  # a kernel of an L0 program: only the launch is seen
            self.log.append(["launch", f, gx, bx])
            if self.on_launch is not None:
                self.on_launch(list(self.buffers.values())[-1])
            return 0
        self.log.append(["launch", f == SCALE, gx, gy, gz, bx, by, bz, shared])
        if "cuLaunchKernel" in self.fail:
            return self.fail["cuLaunchKernel"]
        slots = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))

        def word(k: int) -> int:
            return int(ctypes.cast(slots[k], U64P)[0])

        # scale(n, x: allocated aligned offset size stride, y: the same)
        n, x, xoff, y, yoff = word(0), word(2), word(3), word(7), word(8)
        xs = np.ctypeslib.as_array(ctypes.cast(x, ctypes.POINTER(ctypes.c_double)),
                                   (xoff + n,))[xoff:]
        ys = np.ctypeslib.as_array(ctypes.cast(y, ctypes.POINTER(ctypes.c_double)),
                                   (yoff + n,))[yoff:]
        ys[:] = -(np.sqrt((xs + xs) * xs) - xs)
        return 0

    def synchronize(self) -> int:
        return 0

    # CUDA events (profiling): event k is recorded at k * 0.25 ms of a fake clock.

    def event_create(self, out: Any, flags: int) -> int:
        self.events = getattr(self, "events", {})
        handle = 0xE0 + len(self.events)
        self.events[handle] = None
        out[0] = handle
        return 0

    def event_record(self, event: int, stream: int) -> int:
        self.recorded = getattr(self, "recorded", 0) + 1
        self.events[event] = self.recorded * 0.25
        self.log.append(["record", event, stream])
        return 0

    def event_synchronize(self, event: int) -> int:
        self.log.append(["sync", event])
        return 0

    def event_elapsed(self, out: Any, start: int, end: int) -> int:
        out[0] = self.events[end] - self.events[start]
        return 0

    def event_destroy(self, event: int) -> int:
        del self.events[event]
        return 0

    def link(self) -> list[Any]:
        """Make the fake calls the symbols compiled code calls; returns what to keep."""
        i32, u64, vp = ctypes.c_int32, ctypes.c_uint64, ctypes.c_void_p
        u32 = ctypes.c_uint32
        callbacks = {
            "cuMemAlloc_v2": ctypes.CFUNCTYPE(i32, U64P, u64)(self.mem_alloc),
            "cuMemFree_v2": ctypes.CFUNCTYPE(i32, u64)(self.mem_free),
            "cuMemcpy": ctypes.CFUNCTYPE(i32, u64, u64, u64)(self.memcpy),
            "cuLaunchKernel": ctypes.CFUNCTYPE(i32, u64, u32, u32, u32, u32, u32, u32, u32,
                                               vp, u64, vp)(self.launch),
            "cuCtxSynchronize": ctypes.CFUNCTYPE(i32)(self.synchronize),
            "cuEventCreate": ctypes.CFUNCTYPE(i32, U64P, u32)(self.event_create),
            "cuEventRecord": ctypes.CFUNCTYPE(i32, u64, u64)(self.event_record),
            "cuEventSynchronize": ctypes.CFUNCTYPE(i32, u64)(self.event_synchronize),
            "cuEventElapsedTime": ctypes.CFUNCTYPE(i32, ctypes.POINTER(ctypes.c_float), u64,
                                                   u64)(self.event_elapsed),
            "cuEventDestroy_v2": ctypes.CFUNCTYPE(i32, u64)(self.event_destroy),
        }
        for name, cb in callbacks.items():
            llvm.add_symbol(name, ctypes.cast(cb, ctypes.c_void_p).value)
        return list(callbacks.values())


class FakeDevice:
    arch = "sm_80"

    def load_ptx(self, text: str, kernels: Any) -> LoadedPtx:
        assert ".entry scale(" in text
        return LoadedPtx(1, {name: SCALE for name in kernels})

    def make_current(self) -> None:
        pass


class Handle:
    """A driver handle as `cuda.bindings` gives it: an object `int()` makes an address."""

    def __init__(self, address: int) -> None:
        self.address = address

    def __int__(self) -> int:
        return self.address


class FakeModule:
    def __init__(self, text: str, loaded: list[list[str]]) -> None:
        self.text, self.names = text, []
        loaded.append(self.names)

    def get_function(self, name: str) -> Any:
        """Kernel k the module is asked for gets the handle 0x1000 + k."""
        assert f".entry {name}(" in self.text
        self.names.append(name)
        return types.SimpleNamespace(handle=Handle(0x1000 + len(self.names) - 1))


class FakeContext:
    device = types.SimpleNamespace(compute_capability=(8, 0))

    def __init__(self) -> None:
        self.loaded: list[list[str]] = []

    def create_module_ptx(self, text: str) -> FakeModule:
        return FakeModule(text, self.loaded)


class FakeArray:
    """A device array of `FakeCuda`: its memory is a host buffer."""

    def __init__(self, host: np.ndarray) -> None:
        self.buffer = ctypes.create_string_buffer(host.tobytes(), host.nbytes)
        self.device_ctypes_pointer = ctypes.c_void_p(ctypes.addressof(self.buffer))


class FakeView:
    """`from_cuda_array_interface`'s array over memory it does not own."""

    def __init__(self, desc: dict[str, Any], log: list[Any]) -> None:
        self.desc, self.log = desc, log

    def copy_to_host(self) -> np.ndarray:
        dtype = np.dtype(self.desc["typestr"])
        shape = self.desc["shape"]
        n = int(np.prod(shape)) * dtype.itemsize
        self.log.append(["copy_to_host", n])
        raw = ctypes.string_at(self.desc["data"][0], n)
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


class FakeCuda(types.ModuleType):
    """What the back end uses of `numba.cuda`, in host memory, logging into `log`."""

    def __init__(self, log: list[Any]) -> None:
        super().__init__("numba.cuda")
        self.log = log
        self.context = FakeContext()

    def current_context(self) -> FakeContext:
        return self.context

    def to_device(self, host: np.ndarray) -> FakeArray:
        assert host.flags.c_contiguous
        self.log.append(["to_device", host.nbytes])
        return FakeArray(host)

    def from_cuda_array_interface(self, desc: dict[str, Any], owner: object = None,
                                  sync: bool = True) -> FakeView:
        assert owner is None and desc["strides"] is None
        return FakeView(desc, self.log)

    def synchronize(self) -> None:
        pass


class FakeLib:
    """The driver calls the back end's Python side makes (compiled code calls the
    `FakeDriver`'s through its symbols)."""

    def __init__(self, driver: FakeDriver) -> None:
        self.driver = driver

    def cuCtxSetLimit(self, limit: int, size: Any) -> int:  # noqa: N802 (the driver's name)
        return 0

    def cuMemFree_v2(self, address: Any) -> int:  # noqa: N802
        return self.driver.mem_free(int(address.value))


def numba_device(driver: FakeDriver) -> gpu_runtime.Device:
    """The back end's `Device` over `FakeCuda` (as `numba.cuda`) and `driver`."""
    cuda = FakeCuda(driver.log)
    numba = types.ModuleType("numba")
    numba.cuda = cuda  # type: ignore[attr-defined]
    sys.modules["numba"], sys.modules["numba.cuda"] = numba, cuda
    assert gpu_runtime.numba_cuda() is cuda
    return gpu_runtime.Device(FakeLib(driver), cuda)


def cached(cache_dir: str) -> dict[str, Any]:
    """An L0 program compiled for the gpu back end twice with the compile cache on
    (`cache_dir`): the second time from the cache, its PTX loaded by numba.cuda and its
    kernels' handles in the host code, so its calls are the first one's."""
    import os

    from l0.api import CompiledProgram
    from l0.lowering.backends import gpu as gpu_backend

    os.environ["XDG_CACHE_HOME"] = cache_dir
    os.environ.pop("L0_NO_CACHE", None)  # the test suite turns the cache off
    driver = FakeDriver({})
    keep = driver.link()
    dev = numba_device(driver)
    gpu_backend.device = lambda: dev  # type: ignore[assignment]
    x = np.linspace(0.5, 3.0, 1000)
    out: dict[str, Any] = {"from_cache": [], "logs": []}
    for _ in range(2):
        prog = CompiledProgram("fun [real] main([real] xs) = map(fn real (real x) => "
                               "x * 2.0, xs)\n", "double.l0", "gpu", cache=True)
        out["from_cache"].append(prog.from_cache)
        driver.log.clear()
        prog.main(x)
        out["logs"].append(list(driver.log))
    out["loaded"] = dev.cuda.context.loaded  # type: ignore[attr-defined]
    out["entries"] = len(list(Path(cache_dir, "l0").iterdir()))
    del keep
    return out


def boundary() -> dict[str, Any]:
    """An L0 program returning its argument on the gpu back end: in with `to_device`,
    the result a fresh device array written by a copy kernel (which stands in for it
    here: it writes 3x into the latest allocation), back with `copy_to_host`, then
    freed."""
    from l0.api import CompiledProgram
    from l0.lowering.backends import gpu as gpu_backend

    driver = FakeDriver({})
    keep = driver.link()
    dev = numba_device(driver)
    gpu_backend.device = lambda: dev  # type: ignore[assignment]
    x = np.linspace(0.5, 3.0, 1000)

    def kernel(buffer: Any) -> None:
        ctypes.memmove(buffer, (3 * x).tobytes(), x.nbytes)

    driver.on_launch = kernel
    prog = CompiledProgram("fun [real] main([real] xs) = xs\n", "same.l0", "gpu")
    driver.log.clear()
    y = prog.main(x)
    out = {"same": bool(np.array_equal(y, 3 * x)), "log": list(driver.log)}
    del keep
    return out


def profiled() -> dict[str, Any]:
    """A map on the gpu back end with profiling: the launch timed by two CUDA events
    around it, the second waited for, and counted (l0-run --profile's records)."""
    from l0.api import CompiledProgram
    from l0.lowering.backends import gpu as gpu_backend

    driver = FakeDriver({})
    keep = driver.link()
    dev = numba_device(driver)
    gpu_backend.device = lambda: dev  # type: ignore[assignment]
    x = np.linspace(0.5, 3.0, 1000)

    def kernel(buffer: Any) -> None:
        ctypes.memmove(buffer, (2 * x).tobytes(), x.nbytes)

    driver.on_launch = kernel
    prog = CompiledProgram("fun [real] main([real] xs) = map(fn real (real x) => "
                           "x * 2.0, xs)\n", "double.l0", "gpu", profile=True)
    driver.log.clear()
    y = prog.main(x)
    out = {"same": bool(np.array_equal(y, 2 * x)), "profile": prog.profile_records(),
           "log": [e for e in driver.log if e[0] in ("record", "sync", "launch")],
           "events_left": len(driver.events)}
    del keep
    return out


def run(scenario: str) -> dict[str, Any]:
    fail = {"oom": {"cuMemAlloc_v2": 2}, "alloc-fails": {"cuMemAlloc_v2": 1},
            "launch-fails": {"cuLaunchKernel": 700}}.get(scenario, {})
    driver = FakeDriver(fail)
    keep = driver.link()
    module = Parser(l0_context(SOAC_LEVEL + LOWERING_LEVELS), HOST.read_text()).parse_module()
    jit = compile_gpu_module(module, FakeDevice(), entries=["main"])  # type: ignore[arg-type]
    n = 0 if scenario == "empty" else 1000
    x = np.linspace(0.5, 3.0, n)
    out: dict[str, Any] = {}
    try:
        y = jit.function("main")(x)
        expected = -(np.sqrt((x + x) * x) - x)
        out["same"] = bool(np.array_equal(y, expected))
    except L0Error as err:
        out["error"] = err.message
    out["log"] = driver.log
    del keep
    return out


if __name__ == "__main__":
    if sys.argv[1] == "cache":
        print(json.dumps(cached(sys.argv[2])))
    elif sys.argv[1] == "boundary":
        print(json.dumps(boundary()))
    elif sys.argv[1] == "profile":
        print(json.dumps(profiled()))
    else:
        print(json.dumps(run(sys.argv[1])))
