"""`--backend=gpu`: a soac-level module to kernels on an NVIDIA GPU and host code
launching them.

    lower(module, target=gpu)            gpu-level module (kernel extraction)
      |-- gpu.module --> l0.lowering.llvm.ptx --> PTX --> numba.cuda's create_module_ptx
      `-- host funcs --> emit_module(handlers=cuda_host.HANDLERS) --> O3 --> MCJIT

The host code is compiled as the CPU back end compiles `main` (same calling
convention, same run-time error protocol), with the `gpu` ops calling the CUDA driver;
the kernels' handles, from the module numba.cuda loaded, are written into the host
module's kernel slots (`cuda_host.kernel_slot`) before the first call (Note [numba.cuda
loads, compiled code launches] in `l0.lowering.runtime.gpu_runtime`). `GpuEngine` has the
interface of the other engines and holds the host code's `NativeEngine`, whose public
functions are called through `DeviceFunction`, which moves arrays across with
numba.cuda (Note [Arrays at main's boundary] in `l0.lowering.runtime.gpu_boundary`), in
the device's context.

Without a GPU, a driver, numba.cuda or libdevice (the gpu extra), building a
`GpuEngine` raises `GpuUnavailable` or `GpuToolMissing`, each one line saying which
(`make_engine`, the gpu record's factory in `l0.targets`: `BackendUnavailable`).

Note [The compile cache on the GPU]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
`l0.compile(..., cache=True)` and `l0-run` keep a gpu program in the on-disk compile
cache (`l0.compile_cache`) as they keep a cpu one: an entry is `GpuEngine.save`'s data
(the CPU's entry points, error sites and links, plus the PTX text and the kernels'
names) and the host code's object code; its key has the options of the cpu back end's
and the device's architecture (`target_arch`), since the PTX is made for it. A hit
runs no part of the compiler: the object code is loaded as the CPU's is, the PTX
by numba.cuda, and the kernels' handles are written into the host code's
slots. An entry of another architecture (another GPU) is not used.
"""

from __future__ import annotations

import ctypes
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import llvmlite.binding as llvm
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp

from l0.diagnostics import L0Error
from l0.lowering.backends.cpu import entry_points
from l0.lowering.backends.jit import (
    CompiledModule,
    JitFunction,
    describe_signature,
    host_target_machine,
    optimise_module,
)
from l0.lowering.llvm import cuda_host, emit_module
from l0.lowering.llvm.ptx import GpuToolMissing, compile_ptx, find_libdevice
from l0.lowering.runtime import abi, alloc_stats, checked_memory
from l0.lowering.runtime.engine import Calls, NativeEngine, RuntimeLinks
from l0.lowering.runtime.gpu_boundary import DeviceFunction
from l0.lowering.runtime.gpu_runtime import Device, GpuUnavailable, LoadedPtx, device, error_name
from l0.targets import TARGETS, BackendUnavailable, Target

_lock = threading.Lock()
_cache: dict[tuple[str, bool, tuple[str, ...] | None, str], GpuJitModule] = {}


class GpuJitModule:
    """Compiled host code with its kernels loaded; `function(name)` as `JitModule`'s.
    `ptx` and `names` (kernel symbol -> PTX name) are what the compile cache keeps
    besides the host's object code."""

    def __init__(self, compiled: CompiledModule, kernels: LoadedPtx, ptx: str = "",
                 names: dict[str, str] | None = None) -> None:
        self.compiled = compiled
        self.kernels = kernels  # the loaded module stays as long as the code using it
        self.ptx = ptx
        self.names = dict(names or {})
        self._functions: dict[str, JitFunction] = {}

    def function(self, name: str) -> JitFunction:
        fn = self._functions.get(name)
        if fn is None:
            if name not in self.compiled.addresses:
                raise KeyError(f"no compiled entry point named {name!r}")
            fn = self._functions[name] = JitFunction(self.compiled, name)
        return fn


def lower_for_gpu(module: ModuleOp, entries: Sequence[str] | None,
                  profile: bool = False) -> ModuleOp:
    """The gpu-level module of the soac-level `module` (kernel extraction,
    `l0.lowering.pipeline.lower` with `target="gpu"`; `profile` as there)."""
    from l0.lowering.pipeline import lower

    return lower(module, entries=entries, target=TARGETS["gpu"], profile=profile)


def unavailable() -> str | None:
    """Why the gpu back end cannot run here (no driver, device or libdevice), in one
    line; None if it can."""
    try:
        device()
        find_libdevice()
    except (GpuUnavailable, GpuToolMissing) as err:
        return str(err)
    return None


def _host_module(module: ModuleOp, tm: llvm.TargetMachine, fast_math: bool,
                 entries: Sequence[str] | None) -> tuple[llvm.ModuleRef, abi.ErrorTable,
                                                         dict[str, Any]]:
    """The host functions of the gpu-level `module` as an LLVM module (not optimised)."""
    emitted = emit_module(module, fast_math=fast_math, entries=entries,
                          triple=llvm.get_process_triple(), data_layout=str(tm.target_data),
                          handlers=cuda_host.HANDLERS, skip=(gpu.ModuleOp,))
    mod = llvm.parse_assembly(str(emitted.llvm))
    mod.verify()
    signatures = {name: describe_signature(t) for name, t in emitted.entries.items()}
    return mod, emitted.errors, signatures


def host_llvm_ir(module: ModuleOp, *, fast_math: bool = False, optimize: bool = False) -> str:
    """The host code of the gpu-level `module` as LLVM IR text (`l0-opt --target=gpu
    -t 'llvm-ir{host=true}'`)."""
    tm = host_target_machine()
    mod, _, _ = _host_module(module, tm, fast_math, None)
    if optimize:
        optimise_module(mod, tm)
    return str(mod)


def compile_gpu_module(module: ModuleOp, dev: Device, *, fast_math: bool = False,
                       entries: Iterable[str] | None = None) -> GpuJitModule:
    """Compile the gpu-level `module`: its kernels to PTX loaded on `dev`, its host
    functions to native code calling them (cached by module text and options)."""
    names = tuple(entries) if entries is not None else None
    key = (str(module), fast_math, names, dev.arch)
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            return hit
        ptx = compile_ptx(module, arch=dev.arch, fast_math=fast_math)
        loaded = dev.load_ptx(ptx.text, ptx.kernels.values())
        tm = host_target_machine()
        mod, errors, signatures = _host_module(module, tm, fast_math, names)
        optimise_module(mod, tm)
        engine = llvm.create_mcjit_compiler(mod, tm)
        objects: list[bytes] = []
        engine.set_object_cache(lambda _module, code: objects.append(bytes(code)))
        engine.finalize_object()
        fill_kernel_slots(engine, ptx.kernels, loaded)
        addresses = {name: engine.get_function_address(abi.ENTRY_PREFIX + name)
                     for name in signatures}
        compiled = CompiledModule(engine, errors, signatures, addresses,
                                  object_code=b"".join(objects))
        result = _cache[key] = GpuJitModule(compiled, loaded, ptx.text, ptx.kernels)
        return result


def fill_kernel_slots(engine: llvm.ExecutionEngine, names: dict[str, str],
                      loaded: LoadedPtx) -> None:
    """Write each kernel's `CUfunction` into its slot in the host code (`names`:
    kernel symbol -> PTX name)."""
    for symbol, ptx_name in names.items():
        slot = engine.get_global_value_address(cuda_host.kernel_slot(symbol))
        if slot:  # a kernel no host code launches has no slot
            ctypes.c_void_p.from_address(slot).value = loaded.functions[ptx_name]


def target_arch() -> str | None:
    """The architecture code is compiled for here (`sm_XX` of GPU 0), or None when
    the gpu back end cannot run: part of its compile-cache key."""
    try:
        return device().arch
    except GpuUnavailable:
        return None


def make_engine(module: ModuleOp, *, target: Target, fast_math: bool = False,
                entries: Iterable[str] | None = None, isolate: bool = True,
                threads: int | None = None, profile: bool = False,
                lowered: ModuleOp | None = None) -> GpuEngine:
    """The gpu back end's engine (`Target.make_engine`), or `BackendUnavailable` saying
    what is missing (a GPU, its driver, numba.cuda, libdevice)."""
    try:
        return GpuEngine.compile(module, fast_math=fast_math, entries=entries,
                                 profile=profile, lowered=lowered)
    except (GpuUnavailable, GpuToolMissing) as err:
        raise BackendUnavailable(str(err)) from None


def cache_facts() -> dict[str, Any] | None:
    """What a gpu program's compile-cache key holds besides its source and options:
    the device's architecture (Note [The compile cache on the GPU]); None without one."""
    arch = target_arch()
    return None if arch is None else {"arch": arch}


class GpuEngine:
    """Runs the functions of a soac-level module on the GPU, with the interface of the
    other engines (`call(name, args)`, `save`, `load`): its host code is a
    `NativeEngine` whose entry points are called through the device boundary
    (`DeviceFunction`), so arguments are copied to the device and never isolated."""

    def __init__(self, dev: Device, jit: GpuJitModule, host: NativeEngine) -> None:
        """The engine of code compiled (`compile`) or loaded (`load`) for `dev`."""
        self._device, self._jit, self._host = dev, jit, host

    @classmethod
    def compile(cls, module: ModuleOp, *, fast_math: bool = False,
                entries: Iterable[str] | None = None, profile: bool = False,
                lowered: ModuleOp | None = None) -> GpuEngine:
        """Compile the soac-level `module` for GPU 0 (`entries` and `profile` as for
        `lower`; `lowered`: its gpu-level module, already made with them)."""
        from l0.lowering.backends.cpu import note_tables

        dev = device()  # first, so that a machine without a GPU says so
        find_libdevice()
        names = list(entries) if entries is not None else None
        if lowered is None:
            lowered = lower_for_gpu(module, names, profile)
        jit = compile_gpu_module(lowered, dev, fast_math=fast_math, entries=names)
        note_tables(jit, lowered)
        links = RuntimeLinks(checked_memory.enabled(), alloc_stats.enabled(), None)
        host = NativeEngine(jit.compiled, entry_points(module, names), isolate=False,
                            links=links, calls=_device_calls(dev),
                            params=getattr(jit, "run_params", ()),
                            sites=getattr(jit, "profile_sites", ()),
                            device=_param_device(dev))
        return cls(dev, jit, host)

    def save(self) -> tuple[dict[str, Any], bytes]:
        """`NativeEngine.save`'s data and the host's object code, with the PTX, the
        kernels' names and the architecture (Note [The compile cache on the GPU])."""
        data, object_code = self._host.save()
        jit = self._jit
        data["gpu"] = {"arch": self._device.arch, "ptx": jit.ptx, "kernels": jit.names}
        return data, object_code

    @classmethod
    def load(cls, data: Mapping[str, Any], object_code: bytes, *,
             isolate: bool = True) -> GpuEngine | None:
        """The engine `save` described: the host's object code loaded as the CPU back
        end loads its own, the PTX loaded on the device and the kernel slots filled;
        None when the entry is for another architecture or cannot run here. (`isolate`
        is the other engines' option: arguments are copied to the device anyway.)"""
        dev = device()
        saved = data.get("gpu")
        if not isinstance(saved, dict) or saved.get("arch") != dev.arch:
            return None
        host = NativeEngine.load(data, object_code, isolate=False, calls=_device_calls(dev),
                                 device=_param_device(dev))
        if host is None:
            return None
        names = {str(k): str(v) for k, v in saved["kernels"].items()}
        dev.make_current()
        loaded = dev.load_ptx(str(saved["ptx"]), names.values())
        fill_kernel_slots(host.compiled.engine, names, loaded)
        return cls(dev, GpuJitModule(host.compiled, loaded, str(saved["ptx"]), names), host)

    @property
    def compiled(self) -> CompiledModule:
        """The host code's compiled module."""
        return self._host.compiled

    @property
    def tables(self) -> Any:
        """The run-time parameters and profile counters of the host code
        (`l0.lowering.runtime.run_tables.RunTables`)."""
        return self._host.tables

    def call(self, name: str, args: Sequence[Any]) -> list[Any]:
        """Run `@name` on flattened host `args` (copied to the device and back)."""
        self._device.make_current()
        try:
            return self._host.call(name, args)
        except L0Error as err:
            raise _named(err, self._device) from None


def _param_device(dev: Device) -> Any:
    """What parameter defaults follow from on `dev`: its resident threads,
    multiprocessors times threads per multiprocessor (`l0.lowering.runtime.run_tables`)."""
    from l0.lowering.runtime.run_tables import Device as ParamDevice

    try:
        gpu_dev = dev.cuda.current_context().device
        resident = int(gpu_dev.MULTIPROCESSOR_COUNT) * \
            int(gpu_dev.MAX_THREADS_PER_MULTI_PROCESSOR)
    except Exception:  # numba.cuda's errors have no common base
        return ParamDevice()
    return ParamDevice(gpu_threads=resident)


def _device_calls(dev: Device) -> Calls:
    """Public functions called with host arrays (Note [Arrays at main's boundary])."""
    return lambda compiled, name: DeviceFunction(compiled, name, dev)


def _named(err: L0Error, dev: Device) -> L0Error:
    """`err` with a driver's error number named ("CUDA error 700" becomes
    "CUDA_ERROR_ILLEGAL_ADDRESS (700)"), as the compiled code knows only the number."""
    found = re.search(r"CUDA error (\d+)", err.message)
    if found is None:
        return err
    named = error_name(dev.lib, int(found.group(1)))
    return L0Error(err.loc, err.message.replace(found.group(0), named), err.kind)
