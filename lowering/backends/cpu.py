"""The CPU back ends as one call: a soac-level module to a `JitModule` or a `CpuEngine`.

    l0.lowering.pipeline.lower -> LLVM IR -> O3 -> MCJIT
    (multicore: LLVM IR calling libgomp; gpu-sim: the kernels made CPU code)

`compile_module` lowers the module for its target (`l0.lowering.pipeline.lower`: `cpu`;
`multicore` when `threads` is given, a thread count, 0 for all cores; `gpu-sim` with
`gpu_sim`) and JIT-compiles the result (`l0.lowering.backends.jit`, which caches engines by module
text, so compiling one program twice in a process reuses the first compilation);
`entries` as for `lower`.

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
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, TensorType

from l0.dialects.soac import UNIQUE_ATTR, CertType
from l0.lowering import pipeline
from l0.lowering.backends.jit import JitModule, link_callbacks
from l0.lowering.loop_ir import trace
from l0.lowering.runtime import alloc_stats, checked_memory
from l0.lowering.runtime.engine import EntryPoint, NativeEngine, RuntimeLinks


def compile_module(module: ModuleOp, *, fast_math: bool = False,
                   entries: Iterable[str] | None = None,
                   threads: int | None = None, gpu_sim: bool = False,
                   simd: bool = True) -> JitModule:
    """Compile the soac-level `module` to native code; `entries` and `simd` as for `lower`;
    `threads` None for the sequential back end, else multicore's thread count (0: all);
    `gpu_sim`: through the GPU's kernels, run on the CPU (`docs/gpu.md`)."""
    names = list(entries) if entries is not None else None
    link_callbacks(trace.CALLBACKS)
    target = "gpu-sim" if gpu_sim else "multicore" if threads is not None else "cpu"
    # through the module: `l0-run -v` times `pipeline.lower` (Note [Stage probes])
    lowered = pipeline.lower(module, entries=names, target=target, simd=simd)
    jit = JitModule(lowered, fast_math=fast_math, entries=names, threads=threads)
    jit.trace_sites = trace.sites_in(lowered)
    return jit


class CpuEngine(NativeEngine):
    """Runs the functions of a soac-level module as native code (module docstring)."""

    def __init__(self, module: ModuleOp, *, fast_math: bool = False,
                 entries: Iterable[str] | None = None, isolate: bool = True,
                 threads: int | None = None, gpu_sim: bool = False,
                 simd: bool = True) -> None:
        names = list(entries) if entries is not None else None
        self._gpu_sim = gpu_sim
        self._simd = simd
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
                         trace_sites=getattr(jit, "trace_sites", None))

    def _compile(self, module: ModuleOp, fast_math: bool, names: list[str] | None,
                 threads: int | None) -> Any:
        """The compiled module, with `compiled` (a `CompiledModule`) and `trace_sites`
        (a back end compiling otherwise overrides this)."""
        return compile_module(module, fast_math=fast_math, entries=names, threads=threads,
                              gpu_sim=self._gpu_sim, simd=self._simd)


def _unique_params(f: func.FuncOp) -> list[bool]:
    n = len(f.function_type.inputs.data)
    attrs = f.arg_attrs
    if not isinstance(attrs, ArrayAttr):
        return [False] * n
    return [isinstance(d, DictionaryAttr) and UNIQUE_ATTR in d.data for d in attrs.data]


def _is_cert_array(t: object) -> bool:
    return isinstance(t, TensorType) and isinstance(t.element_type, CertType)
