"""Lowering of soac IR to native code (`docs/backend.md`).

    soac --bufferise--> memref + msoac --convert-soac-to-scf--> scf + memref
         --dealloc--> (frees inserted) --l0.lowering.llvm--> LLVM IR
         --l0.lowering.backends.jit--> code

`LOWERINGS` maps each lowering pass's pipeline name to a function importing its class
only when asked for (as `l0.passes.PASSES` does for the optimisations); the module of
pass `a-b` is `l0.lowering.STAGE.a_b`, in the folder of its stage.
`l0.lowering.pipeline.lower` runs those of a back end in order (its record's
`lowerings`, `l0.targets`); a back end (`l0.lowering.backends`)
compiles the result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importing `l0.lowering` must not import xDSL (a compile-cache hit)
    from xdsl.passes import ModulePass

from l0.passes import lazy_pass as _lazy

LOWERINGS: dict[str, Callable[[], type[ModulePass]]] = {
    "bufferise": _lazy("l0.lowering.bufferise", "BufferisePass"),
    "partition-filters": _lazy("l0.lowering.scf.partition_filters", "PartitionFiltersPass"),
    "segment-reductions": _lazy("l0.lowering.scf.segment_reductions", "SegmentReductionsPass"),
    "convert-soac-to-scf": _lazy("l0.lowering.scf.convert_soac_to_scf", "ConvertSoacToScfPass"),
    "forward-iota": _lazy("l0.lowering.memory.forward_iota", "ForwardIotaPass"),
    "size-facts": _lazy("l0.lowering.memory.size_facts", "SizeFactsPass"),
    "dealloc": _lazy("l0.lowering.memory.dealloc", "DeallocPass"),
    "presize-allocs": _lazy("l0.lowering.memory.presize_allocs", "PresizeAllocsPass"),
    "chunk-parallel": _lazy("l0.lowering.memory.chunk_parallel", "ChunkParallelPass"),
    "hoist-allocs": _lazy("l0.lowering.memory.hoist_allocs", "HoistAllocsPass"),
    "expand-allocs": _lazy("l0.lowering.memory.expand_allocs", "ExpandAllocsPass"),
    "reuse-freed": _lazy("l0.lowering.memory.reuse_freed", "ReuseFreedPass"),
    "tile-parallel": _lazy("l0.lowering.cpu.tile_parallel", "TileParallelPass"),
    "simd-map": _lazy("l0.lowering.cpu.simd_map", "SimdMapPass"),
    "convert-parallel-to-omp": _lazy("l0.lowering.cpu.convert_parallel_to_omp",
                                     "ConvertParallelToOmpPass"),
    "convert-parallel-to-gpu": _lazy("l0.lowering.gpu.convert_parallel_to_gpu",
                                     "ConvertParallelToGpuPass"),
    "convert-gpu-to-sim": _lazy("l0.lowering.gpu.convert_gpu_to_sim", "ConvertGpuToSimPass"),
}
"""Pipeline name -> factory of the lowering pass class, in pipeline order; those of
`OFF_PIPELINE` last."""

OFF_PIPELINE: frozenset[str] = frozenset()
"""Lowerings `l0.lowering.pipeline` does not run (`l0-opt -p` runs them when asked)."""
