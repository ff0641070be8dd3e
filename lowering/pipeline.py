"""The lowering pipeline of every back end: a soac-level module to the loop level.

    bufferise -> partition-filters -> convert-soac-to-scf -> forward-iota -> size-facts
        -> dealloc -> presize-allocs -> chunk-parallel -> hoist-allocs -> expand-allocs
        -> reuse-freed -> tile-parallel -> simd-map
    multicore: ... -> tile-parallel -> simd-map -> convert-parallel-to-omp (omp regions)
    gpu:       ... -> reuse-freed -> convert-parallel-to-gpu (the gpu level, docs/gpu.md)
    gpu-sim:   ... -> convert-parallel-to-gpu -> convert-gpu-to-sim (CPU code)

Before `convert-soac-to-scf`, the back ends whose record names a default threshold
(`l0.targets.Target.segmented`: multicore, gpu, gpu-sim) run `segment-reductions`
with it (maps of reductions over few rows, docs/gpu.md "Kernel forms").

The sequential back end (`cpu`) runs the parallel loops of `convert-soac-to-scf` as
plain loops; `multicore` turns the outermost ones into OpenMP regions run by libgomp's
threads (`docs/backend.md`). The back ends compile the result (`l0.lowering.backends`).

Which passes a back end runs, in order, its record says (`l0.targets.Target.lowerings`).
`lower(module)` runs the lowering passes on a copy of the module (with `verify`,
the IR is verified after each: every stage is checked IR, docs/backend.md; tests do,
the drivers do not, verification costs as much as a pass).

`entries` names the functions callable from Python (default: all). The others are
made private first, so that LLVM may inline and delete them and the dealloc pass
gives them no public wrapper.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from l0.collector import sparing_the_input
from l0.dialects.context import l0_context
from l0.lowering import LOWERINGS
from l0.targets import DEFAULT, SHARED_LOWERINGS, Target, target
from l0.targets import target as as_target


def passes_of(backend: str | Target) -> tuple[type[ModulePass], ...]:
    """The lowering pass classes of back end `backend`, in order (its record's
    `lowerings`, `l0.targets`)."""
    return tuple(LOWERINGS[name]() for name in target(backend).lowerings)


PIPELINE: tuple[type[ModulePass], ...] = tuple(LOWERINGS[name]() for name in SHARED_LOWERINGS)
"""The passes every native back end runs first (`l0.targets.SHARED_LOWERINGS`)."""


_PROFILE_OPTIONS: dict[str, Callable[[Target], dict[str, bool]]] = {
    "convert-soac-to-scf": lambda _backend: {"profile": True},  # versions' thresholds
    "convert-parallel-to-omp": lambda _backend: {"profile": True},
    "convert-parallel-to-gpu": lambda backend: {"profile": True, "cuda_events": backend.device},
}
"""The options of the lowerings that count parallel regions and launches, or note the
sizes thresholds compare, for `lower`'s `profile` (on a device, launches are timed by
CUDA events)."""


def target_options(backend: Target, name: str) -> dict[str, bool]:
    """The options back end `backend` gives its lowering `name`: the kernels of a GPU
    back end (`convert-parallel-to-gpu` among its lowerings) take every perfect nest of
    two maps as one loop, the CPU's only maps of maps over rows (`wide_nests`, Note
    [Perfect nests of two maps] in `l0.lowering.scf.convert_soac_to_scf`: a matrix
    product's inner map vectorises better on the CPU as a loop of its own), and fold
    interleaved chunks of reductions whose operator commutes (`interleave`); on
    multicore, `expand-allocs` keeps the threads' slices on cache lines of their own
    (`threads_apart`)."""
    if name == "convert-soac-to-scf" and "convert-parallel-to-gpu" in backend.lowerings:
        # Note [Interleaved chunks] in `l0.lowering.scf.segment_reductions`
        return {"wide_nests": True, "interleave": True}
    if name == "expand-allocs" and "convert-parallel-to-omp" in backend.lowerings:
        return {"threads_apart": True}  # Note [Slices of threads] in expand_allocs
    return {}


def segmenting(backend: Target, profile: bool = False) -> ModulePass | None:
    """`segment-reductions` with `backend`'s default threshold, run right before
    `convert-soac-to-scf`, where the back end runs segmented reductions
    (`l0.targets.Target.segmented`), else None. With `profile`, it notes the sizes its
    thresholds compare (`l0 autotune`)."""
    if backend.segmented is None:
        return None
    # A GPU's threads fold interleaved chunks (coalesced loads, Note [Interleaved
    # chunks] in `l0.lowering.scf.segment_reductions`); a CPU thread contiguous ones,
    # and, with few columns over shared rows, all columns over its chunk of the rows
    # (Note [Chunks of rows under the columns]).
    gpu = "convert-parallel-to-gpu" in backend.lowerings
    return LOWERINGS["segment-reductions"]()(**{"threshold": backend.segmented,
                                                  "profile": profile, "interleave": gpu,
                                                  "columns": not gpu})


def steps(target: str | Target = DEFAULT, *, simd: bool = True,
          profile: bool = False) -> tuple[ModulePass, ...]:
    """The passes `lower` runs for back end `target`, in order, each with the options
    the back end gives it (`segment-reductions` included where it runs; `simd` and
    `profile` as for `lower`). Passes are frozen dataclasses, equal when their options
    are: two back ends whose steps start alike lower a module alike up to where they
    differ (gpu and gpu-sim: up to `convert-gpu-to-sim`)."""
    backend = as_target(target)
    out: list[ModulePass] = []
    for pass_class in passes_of(backend):
        if not simd and pass_class.name == "simd-map":
            continue
        if pass_class.name == "convert-soac-to-scf":
            segment = segmenting(backend, profile)
            if segment is not None:
                out.append(segment)
        options = target_options(backend, pass_class.name)
        profiling = _PROFILE_OPTIONS.get(pass_class.name) if profile else None
        if profiling is not None:
            options.update(profiling(backend))
        out.append(pass_class(**options))  # a pass's options are its dataclass's fields
    return tuple(out)


def hide_all_but(module: ModuleOp, entries: Iterable[str] | None) -> None:
    """Make every defined function of `module` but `entries` private (None: leave all
    public), so that LLVM may inline and delete them and the dealloc pass gives them
    no public wrapper: what `lower` does first."""
    if entries is None:
        return
    keep = set(entries)
    for f in module.ops:
        if isinstance(f, func.FuncOp) and f.body.blocks and f.sym_name.data not in keep:
            f.sym_visibility = StringAttr("private")


def lower(module: ModuleOp, *, entries: Iterable[str] | None = None,
          verify: bool = False, target: str | Target = DEFAULT, simd: bool = True,
          profile: bool = False) -> ModuleOp:
    """The loop-level module (the back end's input) for the soac-level `module`, which
    is left unchanged, lowered by the passes of back end `target` (a record of
    `l0.targets` or its name): multicore's at the omp level, the gpu's at the gpu level
    (kernels and launches, docs/gpu.md), gpu-sim's that level made CPU code. Without
    `simd`, no map runs in SIMD lanes (`simd-map`: the results are the same, bit for
    bit; tests compare the two). With `profile`, every OpenMP region and kernel launch
    is counted (`l0.lowering.loop_ir.profile`; on a device, timed by CUDA events).
    It runs `hide_all_but(entries)`, then `steps(target, simd, profile)` in order."""
    lowered = module.clone()
    hide_all_but(lowered, entries)
    apply_steps(lowered, steps(target, simd=simd, profile=profile), verify=verify)
    return lowered


def apply_steps(module: ModuleOp, passes: Iterable[ModulePass], *,
                verify: bool = False) -> None:
    """Run `passes` (some of a back end's `steps`, in order) on `module` in place, with
    `verify` checking the IR after each."""
    ctx = l0_context()
    with sparing_the_input():  # Note [The cycle collector and the compiler]
        for step in passes:
            step.apply(ctx, module)
            if verify:
                module.verify()
