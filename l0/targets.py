"""The back ends, one `Target` record each: everything that differs between them, in one place.

    TARGETS["multicore"].pipeline          "multicore"   (the -O pipeline's target)
    TARGETS["gpu-sim"].lowerings           (..., "convert-parallel-to-gpu", "convert-gpu-to-sim")
    TARGETS["gpu"].make_engine(module, fast_math=False, entries=None, isolate=True)

Every driver (`l0.api`, `l0-run`, `l0-opt`, `l0`, `l0 compile`, `l0.distributed`, the
test matrix) and every back-end module asks its record what to do: none compares a
back end's name (`test/unit/test_targets.py` scans the source for it). Adding a back
end is one record here plus its own folder under `lowering/` (docs/architecture.md §6).

The record names code by dotted path (`module:attribute`), imported when used, so that
importing this module imports nothing else: `l0-run --help` and a compile-cache hit
stay fast, and every layer (passes, lowering, the runtime) may import it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

SHARED_LOWERINGS: tuple[str, ...] = (
    "bufferise", "partition-filters", "convert-soac-to-scf", "forward-iota", "size-facts",
    "dealloc", "presize-allocs", "chunk-parallel", "hoist-allocs", "expand-allocs",
    "reuse-freed")
"""The lowering passes every native back end runs first, in order: bufferisation,
filters splitting an array as partitions, SOACs to loops, memory planning
(`l0.lowering.LOWERINGS` names)."""


class BackendUnavailable(Exception):
    """The chosen back end cannot run on this machine (`gpu` without a GPU, its driver
    or the gpu extra); the message says why, in one line."""


@dataclass(frozen=True)
class Target:
    """One back end: what every driver needs to know of it (module docstring)."""

    name: str
    """What `--backend` (and `l0.compile(backend=...)`) calls it."""
    help: str
    """One phrase for `--help` and docs/tools.md: how it runs a program."""
    pipeline: str
    """The target of the `-O` pipeline that optimises its code
    (`l0.passes.pipeline.TARGETS`, Note [One pipeline per target] there)."""
    engine: str
    """`module:function` making its engine from a soac-level module
    (`make_engine`'s arguments); the engine has the interpreter's `call(name, args)`."""
    lowerings: tuple[str, ...] = ()
    """Its lowering passes, in order (`l0.lowering.LOWERINGS` names; `()`: it runs the
    soac-level module as it is)."""
    own_lowerings: tuple[str, ...] = ()
    """The last of `lowerings` that make its own level of IR: what `l0-opt -t llvm-ir`
    runs on loop-level input for it (omp regions, kernels)."""
    own_ops: str | None = None
    """The prefix of the op names only its `own_lowerings` make (`omp.`), or None: IR
    holding such ops is at its own level, which needs no lowering more and is emitted
    as its code, whatever back end `l0-opt --target` names (`at_own_level`)."""
    loader: str | None = None
    """`module:Class.method` loading its engine from a compile-cache entry; None: its
    code is never kept in the compile cache."""
    cache_facts: str | None = None
    """`module:function` giving what its cache key holds besides the source and the
    options (the gpu: the device's architecture), or None when it cannot run here."""
    threads: bool = False
    """Whether it runs parallel loops on threads (libgomp) and takes a thread count."""
    counts_allocations: bool = False
    """Whether its code counts heap allocations when asked (`l0-run -v`,
    `l0.lowering.runtime.alloc_stats`)."""
    device: bool = False
    """Whether it needs a GPU: kernels as NVPTX and PTX (`l0-opt -t llvm-ir`, `-t ptx`)."""
    unavailable_check: str | None = None
    """`module:function` saying why it cannot run here (one line), or None if it can;
    None: it runs wherever l0 does."""
    executable: bool = False
    """Whether `l0 compile` builds native executables and libraries with it."""
    distributed: bool = False
    """Whether `l0.distributed` compiles Dask tasks' kernels with it."""
    opt: bool = False
    """Whether `l0-opt --target` lowers and emits for it."""
    segmented: str | None = None
    """The default of its segmented reductions' thresholds (`segment-reductions`, run
    before `convert-soac-to-scf`; a `run_tables.default_value` spec: its parallelism),
    or None: it runs no segmented reductions."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """Fixed options of its engine (`make_engine`)."""

    def make_engine(self, module: Any, *, fast_math: bool = False,
                    entries: Iterable[str] | None = None, isolate: bool = True,
                    threads: int | None = None, profile: bool = False,
                    lowered: Any = None) -> Any:
        """Its engine for the soac-level `module`; `threads` only where it takes them;
        `profile`: parallel regions and kernel launches counted, where it has them;
        `lowered`: the module `l0.lowering.pipeline.lower` already made of `module` for
        it with these options, compiled as it is (None: lowered here; the interpreter
        lowers nothing). Raises `BackendUnavailable` when it cannot run here."""
        make = _resolve(self.engine)
        return make(module, target=self, fast_math=fast_math, entries=entries,
                    isolate=isolate, threads=threads if self.threads else None,
                    profile=profile, lowered=lowered, **self.options)

    def load_engine(self, data: Mapping[str, Any], object_code: bytes, *,
                    isolate: bool = True) -> Any:
        """Its engine from a compile-cache entry (`data` and object code), or None when
        the entry cannot run here."""
        if self.loader is None:
            return None
        return _resolve(self.loader)(data, object_code, isolate=isolate)

    def cache_key_facts(self) -> dict[str, Any] | None:
        """What its compile-cache key holds besides source and options (`cache_facts`);
        None: not cached here (never, or not on this machine)."""
        if self.loader is None:
            return None
        if self.cache_facts is None:
            return {}
        return _resolve(self.cache_facts)()

    @property
    def dask_kernels(self) -> Target:
        """The back end that compiles the kernels of Dask's tasks for this one
        (`l0.distributed`): itself where it can (`distributed`), else `DEFAULT`."""
        return self if self.distributed else DEFAULT

    def unavailable(self) -> str | None:
        """Why it cannot run on this machine (one line), or None."""
        return None if self.unavailable_check is None else _resolve(self.unavailable_check)()


def _resolve(path: str) -> Any:
    """The object `module:attr.attr` names, its module imported now."""
    module, _, attrs = path.partition(":")
    obj: Any = importlib.import_module(module)
    for attr in attrs.split("."):
        obj = getattr(obj, attr)
    return obj


_CPU_ENGINE = "l0.lowering.backends.cpu:make_engine"
_NATIVE_LOADER = "l0.lowering.runtime.engine:NativeEngine.load"

TARGETS: dict[str, Target] = {t.name: t for t in (
    Target("cpu", "compiled to native code", pipeline="cpu", engine=_CPU_ENGINE,
           lowerings=(*SHARED_LOWERINGS, "tile-parallel", "simd-map"), loader=_NATIVE_LOADER,
           counts_allocations=True, executable=True, distributed=True, opt=True),
    Target("multicore", "compiled, parallel loops on threads (OpenMP)", pipeline="multicore",
           engine=_CPU_ENGINE,
           lowerings=(*SHARED_LOWERINGS, "tile-parallel", "simd-map",
                      "convert-parallel-to-omp"),
           own_lowerings=("convert-parallel-to-omp",), own_ops="omp.", loader=_NATIVE_LOADER,
           threads=True, segmented="threads*1",
           counts_allocations=True,
           executable=True, distributed=True, opt=True),
    Target("interp", "the reference interpreter", pipeline="cpu",
           engine="l0.targets:interpreter_engine", distributed=True),
    Target("gpu-sim", "compiled to GPU kernels run on the CPU", pipeline="gpu",
           engine=_CPU_ENGINE,
           lowerings=(*SHARED_LOWERINGS, "convert-parallel-to-gpu", "convert-gpu-to-sim"),
           counts_allocations=True, segmented="gpu_threads*1"),
    Target("gpu", "compiled, parallel loops as kernels on an NVIDIA GPU", pipeline="gpu",
           engine="l0.lowering.backends.gpu:make_engine",
           lowerings=(*SHARED_LOWERINGS, "convert-parallel-to-gpu"),
           own_lowerings=("convert-parallel-to-gpu",),
           loader="l0.lowering.backends.gpu:GpuEngine.load",
           cache_facts="l0.lowering.backends.gpu:cache_facts", device=True,
           unavailable_check="l0.lowering.backends.gpu:unavailable", opt=True,
           segmented="gpu_threads*1"),
)}
"""Every back end, by name, in the order the tools list them."""

DEFAULT = TARGETS["cpu"]
"""The back end of `l0-run`, `l0.compile` and the lowering when none is named."""
REFERENCE = TARGETS["interp"]
"""The reference interpreter: what runs a program whose uniqueness was not checked
(`l0-run --inhibit-uniqueness-checking`), Dask's chunks included."""


def target(name_or_target: str | Target) -> Target:
    """The record of back end `name_or_target` (a record is itself); ValueError naming
    the known ones for an unknown name."""
    if isinstance(name_or_target, Target):
        return name_or_target
    found = TARGETS.get(name_or_target)
    if found is None:
        raise ValueError(f"unknown back end {name_or_target!r} "
                         f"(available: {', '.join(TARGETS)})")
    return found


def at_own_level(op_names: Iterable[str]) -> Target | None:
    """The back end at whose own level (`Target.own_ops`) IR with ops `op_names` is,
    or None."""
    owners = [(t.own_ops, t) for t in TARGETS.values() if t.own_ops is not None]
    for name in op_names:
        for prefix, owner in owners:
            if name.startswith(prefix):
                return owner
    return None


def names(*, executable: bool = False, distributed: bool = False,
          opt: bool = False) -> tuple[str, ...]:
    """The back ends (names, in `TARGETS` order) that have every capability asked for."""
    return tuple(t.name for t in TARGETS.values()
                 if (t.executable or not executable) and (t.distributed or not distributed)
                 and (t.opt or not opt))


TOOLS: dict[str, tuple[str, ...]] = {
    "l0-run --backend": names(),
    "l0.compile(backend=...)": names(),
    "l0 test --backend": names(),
    "l0 bench --backend": names(),
    "l0 autotune --backend": names(),
    "l0 repl --backend": names(),
    "%%l0 --backend": names(),
    "l0-opt --target": names(opt=True),
    "l0 compile --backend": names(executable=True),
    "l0.distributed kernels": names(distributed=True),
}
"""The back ends each tool accepts (docs/tools.md lists them; a test compares)."""


def by_pipeline() -> dict[str, tuple[str, ...]]:
    """Each target of the `-O` pipeline (`Target.pipeline`, in order of first use) ->
    the back ends it optimises for."""
    out: dict[str, tuple[str, ...]] = {}
    for t in TARGETS.values():
        out[t.pipeline] = (*out.get(t.pipeline, ()), t.name)
    return out


def pipeline_targets() -> tuple[str, ...]:
    """The targets of the `-O` pipeline, one per distinct `Target.pipeline`, in order."""
    return tuple(by_pipeline())


def interpreter_engine(module: Any, *, target: Target, fast_math: bool = False,
                       entries: Iterable[str] | None = None, isolate: bool = True,
                       threads: int | None = None, profile: bool = False,
                       lowered: Any = None) -> Any:
    """The `interp` back end's engine: the reference interpreter (it copies on every
    update, so the caller's arrays are never changed); it runs `module` itself, and
    has no `lowered` module."""
    from l0.interp import Interpreter

    return Interpreter(module)
