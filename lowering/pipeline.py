"""The lowering pipeline of every back end: a soac-level module to the loop level.

    bufferise -> partition-filters -> convert-soac-to-scf -> forward-iota -> size-facts
        -> dealloc -> presize-allocs -> chunk-parallel -> hoist-allocs -> expand-allocs
        -> reuse-freed -> tile-parallel -> simd-map
    multicore: ... -> tile-parallel -> simd-map -> convert-parallel-to-omp (omp regions)
    gpu:       ... -> reuse-freed -> convert-parallel-to-gpu (the gpu level, docs/gpu.md)
    gpu-sim:   ... -> convert-parallel-to-gpu -> convert-gpu-to-sim (CPU code)

The sequential back end (`cpu`) runs the parallel loops of `convert-soac-to-scf` as
plain loops; `multicore` turns the outermost ones into OpenMP regions run by libgomp's
threads (`docs/backend.md`). The back ends compile the result (`l0.lowering.backends`).

`lower(module)` runs the lowering passes on a copy of the module (with `verify`,
the IR is verified after each: every stage is checked IR, docs/backend.md; tests do,
the drivers do not, verification costs as much as a pass).

`entries` names the functions callable from Python (default: all). The others are
made private first, so that LLVM may inline and delete them and the dealloc pass
gives them no public wrapper.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr

from l0.dialects.context import l0_context
from l0.lowering.bufferise import BufferisePass
from l0.lowering.cpu.convert_parallel_to_omp import ConvertParallelToOmpPass
from l0.lowering.cpu.simd_map import SimdMapPass
from l0.lowering.cpu.tile_parallel import TileParallelPass
from l0.lowering.gpu.convert_gpu_to_sim import ConvertGpuToSimPass
from l0.lowering.gpu.convert_parallel_to_gpu import ConvertParallelToGpuPass
from l0.lowering.memory.chunk_parallel import ChunkParallelPass
from l0.lowering.memory.dealloc import DeallocPass
from l0.lowering.memory.expand_allocs import ExpandAllocsPass
from l0.lowering.memory.forward_iota import ForwardIotaPass
from l0.lowering.memory.hoist_allocs import HoistAllocsPass
from l0.lowering.memory.presize_allocs import PresizeAllocsPass
from l0.lowering.memory.reuse_freed import ReuseFreedPass
from l0.lowering.memory.size_facts import SizeFactsPass
from l0.lowering.scf.convert_soac_to_scf import ConvertSoacToScfPass
from l0.lowering.scf.partition_filters import PartitionFiltersPass

PIPELINE = (BufferisePass, PartitionFiltersPass, ConvertSoacToScfPass, ForwardIotaPass,
            SizeFactsPass, DeallocPass, PresizeAllocsPass, ChunkParallelPass, HoistAllocsPass,
            ExpandAllocsPass, ReuseFreedPass)
MULTICORE = (TileParallelPass, SimdMapPass, ConvertParallelToOmpPass)
"""The passes after `PIPELINE` for the multicore back end."""
TARGETS: dict[str, tuple[type, ...]] = {
    "cpu": (TileParallelPass, SimdMapPass),
    "multicore": MULTICORE,
    "gpu": (ConvertParallelToGpuPass,),
    "gpu-sim": (ConvertParallelToGpuPass, ConvertGpuToSimPass),
}
"""The passes after `PIPELINE` for each target of `lower`."""


def lower(module: ModuleOp, *, entries: Iterable[str] | None = None,
          verify: bool = False, multicore: bool = False, target: str = "cpu",
          simd: bool = True) -> ModuleOp:
    """The loop-level module (the back end's input) for the soac-level `module`, which
    is left unchanged; with `multicore` (or `target="multicore"`), at the omp level; with
    `target="gpu"` at the gpu level (kernels and launches, docs/gpu.md), with
    `"gpu-sim"` that level made CPU code. Without `simd`, no map runs in SIMD lanes
    (`simd-map`: the results are the same, bit for bit; tests compare the two)."""
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
        if pass_class is SimdMapPass and not simd:
            continue
        pass_class().apply(ctx, lowered)
        if verify:
            lowered.verify()
    return lowered
