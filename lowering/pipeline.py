"""The CPU back ends as one call: a soac-level module to a `JitModule` or a `CpuEngine`.

    bufferise -> convert-soac-to-scf -> forward-iota -> size-facts -> dealloc -> presize-allocs
        -> chunk-parallel -> hoist-allocs -> expand-allocs -> reuse-freed -> tile-parallel
        -> LLVM IR -> O3 -> MCJIT
    multicore: ... -> tile-parallel -> convert-parallel-to-omp -> LLVM IR calling libgomp
    gpu:       ... -> reuse-freed -> convert-parallel-to-gpu (the gpu level, docs/gpu.md)
    gpu-sim:   ... -> convert-parallel-to-gpu -> convert-gpu-to-sim -> LLVM IR for the CPU

The sequential back end (`cpu`) runs the parallel loops of `convert-soac-to-scf` as
plain loops; `multicore` (`threads` given: a thread count, 0 for all cores) turns the
outermost ones into OpenMP regions run by libgomp's threads (`docs/backend.md`).

`lower(module)` runs the lowering passes on a copy of the module (with `verify`,
the IR is verified after each: every stage is checked IR, docs/backend.md; tests do,
the drivers do not, verification costs as much as a pass); `compile_module`
JIT-compiles the result (`l0.lowering.jit`, which caches engines by module text, so
compiling one program twice in a process reuses the first compilation).

`entries` names the functions callable from Python (default: all). The others are
made private first, so that LLVM may inline and delete them and the dealloc pass
gives them no public wrapper.

`CpuEngine(module)` has the interpreter's interface (`call(name, args) -> list`), for
the drivers: flattened arguments and results (docs/CONTRIBUTING-helpers.md). Arrays a
function returns are owned by Python (freed when their last numpy array dies), or
views of its arguments (`docs/backend.md`); with `isolate` (the API's choice) the
engine copies arrays passed to unique parameters, which compiled code updates in
place, and results that may alias an argument, so callers see value semantics, as
with the interpreter.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, TensorType

from l0.dialects.context import l0_context
from l0.dialects.soac import UNIQUE_ATTR, CertType
from l0.lowering import alloc_stats, checked_memory, run_params, trace
from l0.lowering import profile as profile_ir
from l0.lowering.bufferise import BufferisePass
from l0.lowering.chunk_parallel import ChunkParallelPass
from l0.lowering.convert_gpu_to_sim import ConvertGpuToSimPass
from l0.lowering.convert_parallel_to_gpu import ConvertParallelToGpuPass
from l0.lowering.convert_parallel_to_omp import ConvertParallelToOmpPass
from l0.lowering.convert_soac_to_scf import ConvertSoacToScfPass
from l0.lowering.dealloc import DeallocPass
from l0.lowering.engine import EntryPoint, NativeEngine, RuntimeLinks
from l0.lowering.expand_allocs import ExpandAllocsPass
from l0.lowering.forward_iota import ForwardIotaPass
from l0.lowering.hoist_allocs import HoistAllocsPass
from l0.lowering.jit import JitModule, link_callbacks
from l0.lowering.presize_allocs import PresizeAllocsPass
from l0.lowering.reuse_freed import ReuseFreedPass
from l0.lowering.run_tables import Param, Site
from l0.lowering.size_facts import SizeFactsPass
from l0.lowering.tile_parallel import TileParallelPass

PIPELINE = (BufferisePass, ConvertSoacToScfPass, ForwardIotaPass, SizeFactsPass, DeallocPass,
            PresizeAllocsPass, ChunkParallelPass, HoistAllocsPass, ExpandAllocsPass, ReuseFreedPass)
MULTICORE = (TileParallelPass, ConvertParallelToOmpPass)
"""The passes after `PIPELINE` for the multicore back end."""
TARGETS: dict[str, tuple[type, ...]] = {
    "cpu": (TileParallelPass,),
    "multicore": MULTICORE,
    "gpu": (ConvertParallelToGpuPass,),
    "gpu-sim": (ConvertParallelToGpuPass, ConvertGpuToSimPass),
}
"""The passes after `PIPELINE` for each target of `lower`."""


def lower(module: ModuleOp, *, entries: Iterable[str] | None = None,
          verify: bool = False, multicore: bool = False, target: str = "cpu",
          profile: bool = False) -> ModuleOp:
    """The loop-level module (the back end's input) for the soac-level `module`, which
    is left unchanged; with `multicore` (or `target="multicore"`), at the omp level; with
    `target="gpu"` at the gpu level (kernels and launches, docs/gpu.md), with
    `"gpu-sim"` that level made CPU code. With `profile`, every OpenMP region and kernel
    launch is counted (`l0.lowering.profile`)."""
    lowered = module.clone()
    if entries is not None:
        keep = set(entries)
        for f in lowered.ops:
            if isinstance(f, func.FuncOp) and f.body.blocks and f.sym_name.data not in keep:
                f.sym_visibility = StringAttr("private")
    ctx = l0_context()
    if multicore:
        target = "multicore"
    for pass_class in (*PIPELINE, *TARGETS[target]):
        step = pass_class()
        if profile and pass_class is ConvertParallelToOmpPass:
            step = ConvertParallelToOmpPass(profile=True)
        elif profile and pass_class is ConvertParallelToGpuPass:
            step = ConvertParallelToGpuPass(profile=True, cuda_events=target == "gpu")
        step.apply(ctx, lowered)
        if verify:
            lowered.verify()
    return lowered


def compile_module(module: ModuleOp, *, fast_math: bool = False,
                   entries: Iterable[str] | None = None,
                   threads: int | None = None, gpu_sim: bool = False,
                   profile: bool = False) -> JitModule:
    """Compile the soac-level `module` to native code; `entries` and `profile` as for
    `lower`; `threads` None for the sequential back end, else multicore's thread count
    (0: all); `gpu_sim`: through the GPU's kernels, run on the CPU (`docs/gpu.md`)."""
    names = list(entries) if entries is not None else None
    link_callbacks(trace.CALLBACKS)
    target = "gpu-sim" if gpu_sim else "multicore" if threads is not None else "cpu"
    lowered = lower(module, entries=names, target=target, profile=profile)
    jit = JitModule(lowered, fast_math=fast_math, entries=names, threads=threads)
    jit.trace_sites = trace.sites_in(lowered)
    note_tables(jit, lowered)
    return jit


def note_tables(jit: Any, lowered: ModuleOp) -> None:
    """Record on `jit` the run-time parameters and profiled sites of its `lowered`
    module (`l0.lowering.run_tables`)."""
    jit.run_params = [Param(name, symbol, default)
                      for symbol, name, default in run_params.params_in(lowered)]
    jit.profile_sites = [Site(name, symbol) for symbol, name in profile_ir.sites_in(lowered)]


class CpuEngine(NativeEngine):
    """Runs the functions of a soac-level module as native code (module docstring)."""

    def __init__(self, module: ModuleOp, *, fast_math: bool = False,
                 entries: Iterable[str] | None = None, isolate: bool = True,
                 threads: int | None = None, gpu_sim: bool = False,
                 profile: bool = False) -> None:
        names = list(entries) if entries is not None else None
        self._gpu_sim = gpu_sim
        self._profile = profile
        # Kept: a back end's compiled module may own more than the code (GPU kernels).
        self._jit = jit = self._compile(module, fast_math, names, threads)
        points: dict[str, EntryPoint] = {}
        for f in module.ops:
            if isinstance(f, func.FuncOp) and (names is None or f.sym_name.data in names):
                unique = _unique_params(f)
                points[f.sym_name.data] = EntryPoint(
                    tuple((u, _is_cert_array(t))
                          for u, t in zip(unique, f.function_type.inputs.data, strict=True)),
                    tuple(_is_cert_array(t) for t in f.function_type.outputs.data))
        links = RuntimeLinks(checked_memory.enabled(), alloc_stats.enabled(), threads)
        super().__init__(jit.compiled, points, isolate=isolate, links=links,
                         trace_sites=getattr(jit, "trace_sites", None),
                         params=getattr(jit, "run_params", ()),
                         sites=getattr(jit, "profile_sites", ()))

    def _compile(self, module: ModuleOp, fast_math: bool, names: list[str] | None,
                 threads: int | None) -> Any:
        """The compiled module, with `compiled` (a `CompiledModule`) and `trace_sites`
        (a back end compiling otherwise overrides this)."""
        return compile_module(module, fast_math=fast_math, entries=names, threads=threads,
                              gpu_sim=self._gpu_sim, profile=self._profile)


def _unique_params(f: func.FuncOp) -> list[bool]:
    n = len(f.function_type.inputs.data)
    attrs = f.arg_attrs
    if not isinstance(attrs, ArrayAttr):
        return [False] * n
    return [isinstance(d, DictionaryAttr) and UNIQUE_ATTR in d.data for d in attrs.data]


def _is_cert_array(t: object) -> bool:
    return isinstance(t, TensorType) and isinstance(t.element_type, CertType)
