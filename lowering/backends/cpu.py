"""The CPU back ends as one call: a soac-level module to a `JitModule` or a `CpuEngine`.

    l0.lowering.pipeline.lower -> LLVM IR -> O3 -> MCJIT
    (multicore: LLVM IR calling libgomp; gpu-sim: the kernels made CPU code)

`compile_module` lowers the module (`l0.lowering.pipeline.lower`) for a back end
compiled for the CPU (`cpu`, `multicore`, `gpu-sim`: its record in `l0.targets`) and
JIT-compiles the result (`l0.lowering.backends.jit`, which caches engines by module
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
from l0.lowering.loop_ir import profile as profile_ir
from l0.lowering.loop_ir import run_params, trace
from l0.lowering.runtime import alloc_stats, checked_memory
from l0.lowering.runtime.engine import EntryPoint, NativeEngine, RuntimeLinks
from l0.lowering.runtime.run_tables import Param, Site
from l0.targets import DEFAULT, Target
from l0.targets import target as as_target


def compile_module(module: ModuleOp, *, target: str | Target = DEFAULT,
                   fast_math: bool = False, entries: Iterable[str] | None = None,
                   threads: int | None = None, simd: bool = True,
                   profile: bool = False, lowered: ModuleOp | None = None) -> JitModule:
    """Compile the soac-level `module` to native code for back end `target` (cpu,
    multicore, gpu-sim: its record, `l0.targets`, or its name); `entries`, `simd` and
    `profile` as for `lower`; `threads`, where the back end takes them, the thread count
    (0 or None: libgomp's default). `lowered`: what `lower` made of `module` with
    these options, compiled as it is (the tests share lowerings between checks)."""
    backend = as_target(target)
    names = list(entries) if entries is not None else None
    link_callbacks(trace.CALLBACKS)
    if lowered is None:
        # through the module: `l0-run -v` times `pipeline.lower` (Note [Stage probes])
        lowered = pipeline.lower(module, entries=names, target=backend, simd=simd,
                                 profile=profile)
    jit = JitModule(lowered, fast_math=fast_math, entries=names, target=backend,
                    threads=threads or 0)
    jit.trace_sites = trace.sites_in(lowered)
    note_tables(jit, lowered)
    return jit


def note_tables(jit: Any, lowered: ModuleOp) -> None:
    """Record on `jit` the run-time parameters and profiled sites of its `lowered`
    module (`l0.lowering.runtime.run_tables`)."""
    jit.run_params = [Param(name, symbol, default, seen)
                      for symbol, name, default, seen in run_params.params_in(lowered)]
    jit.profile_sites = [Site(name, symbol) for symbol, name in profile_ir.sites_in(lowered)]


def make_engine(module: ModuleOp, *, target: Target, fast_math: bool = False,
                entries: Iterable[str] | None = None, isolate: bool = True,
                threads: int | None = None, profile: bool = False,
                lowered: ModuleOp | None = None) -> CpuEngine:
    """The engine of the back ends compiled for the CPU (`Target.make_engine`)."""
    return CpuEngine(module, target=target, fast_math=fast_math, entries=entries,
                     isolate=isolate, threads=threads, profile=profile, lowered=lowered)


class CpuEngine(NativeEngine):
    """Runs the functions of a soac-level module as native code (module docstring)."""

    def __init__(self, module: ModuleOp, *, target: str | Target = DEFAULT,
                 fast_math: bool = False, entries: Iterable[str] | None = None,
                 isolate: bool = True, threads: int | None = None, simd: bool = True,
                 profile: bool = False, lowered: ModuleOp | None = None) -> None:
        backend = as_target(target)
        names = list(entries) if entries is not None else None
        threads = (threads or 0) if backend.threads else None
        self._jit = jit = compile_module(module, target=backend, fast_math=fast_math,
                                         entries=names, threads=threads, simd=simd,
                                         profile=profile, lowered=lowered)
        links = RuntimeLinks(checked_memory.enabled(), alloc_stats.enabled(), threads)
        super().__init__(jit.compiled, entry_points(module, names), isolate=isolate,
                         links=links, trace_sites=jit.trace_sites,
                         params=getattr(jit, "run_params", ()),
                         sites=getattr(jit, "profile_sites", ()))


def entry_points(module: ModuleOp, names: Iterable[str] | None) -> dict[str, EntryPoint]:
    """The soac-level signatures of the functions of `module` called from Python
    (`names`; None: all)."""
    wanted = None if names is None else set(names)
    points: dict[str, EntryPoint] = {}
    for f in module.ops:
        if isinstance(f, func.FuncOp) and (wanted is None or f.sym_name.data in wanted):
            unique = _unique_params(f)
            points[f.sym_name.data] = EntryPoint(
                tuple((u, _is_cert_array(t))
                      for u, t in zip(unique, f.function_type.inputs.data, strict=True)),
                tuple(_is_cert_array(t) for t in f.function_type.outputs.data))
    return points


def _unique_params(f: func.FuncOp) -> list[bool]:
    n = len(f.function_type.inputs.data)
    attrs = f.arg_attrs
    if not isinstance(attrs, ArrayAttr):
        return [False] * n
    return [isinstance(d, DictionaryAttr) and UNIQUE_ATTR in d.data for d in attrs.data]


def _is_cert_array(t: object) -> bool:
    return isinstance(t, TensorType) and isinstance(t.element_type, CertType)
