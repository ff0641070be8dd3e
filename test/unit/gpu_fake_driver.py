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
"""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path
from typing import Any

import llvmlite.binding as llvm
import numpy as np
from xdsl.parser import Parser

from l0.diagnostics import L0Error
from l0.dialects.context import LOWERING_LEVELS, SOAC_LEVEL, l0_context
from l0.lowering.gpu_backend import compile_gpu_module
from l0.lowering.gpu_runtime import LoadedPtx

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


class KernelsDevice(FakeDevice):
    """Loads any PTX: kernel k of its list gets the handle 0x1000 + k."""

    def __init__(self) -> None:
        self.loaded: list[list[str]] = []

    def load_ptx(self, text: str, kernels: Any) -> LoadedPtx:
        names = list(kernels)
        assert all(f".entry {n}(" in text for n in names)
        self.loaded.append(names)
        return LoadedPtx(1, {name: 0x1000 + k for k, name in enumerate(names)})


def cached(cache_dir: str) -> dict[str, Any]:
    """An L0 program compiled for the gpu back end twice with the compile cache on
    (`cache_dir`): the second time from the cache, its PTX loaded on the device and its
    kernels' handles in the host code, so its driver calls are the first one's."""
    import os

    from l0.api import CompiledProgram
    from l0.lowering import gpu_backend

    os.environ["XDG_CACHE_HOME"] = cache_dir
    os.environ.pop("L0_NO_CACHE", None)  # the test suite turns the cache off
    dev = KernelsDevice()
    gpu_backend.device = lambda: dev  # type: ignore[assignment]
    driver = FakeDriver({})
    keep = driver.link()
    x = np.linspace(0.5, 3.0, 1000)
    out: dict[str, Any] = {"from_cache": [], "logs": []}
    for _ in range(2):
        prog = CompiledProgram("fun [real] main([real] xs) = map(fn real (real x) => "
                               "x * 2.0, xs)\n", "double.l0", "gpu", cache=True)
        out["from_cache"].append(prog.from_cache)
        driver.log = []
        prog.main(x)
        out["logs"].append(driver.log)
    out["loaded"] = dev.loaded
    out["entries"] = len(list(Path(cache_dir, "l0").iterdir()))
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
    print(json.dumps(cached(sys.argv[2]) if sys.argv[1] == "cache" else run(sys.argv[1])))
