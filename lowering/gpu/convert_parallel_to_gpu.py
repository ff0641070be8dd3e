"""The `convert-parallel-to-gpu` pass: the parallel loop form becomes host code that
launches kernels of xDSL's `gpu` dialect (`docs/gpu.md`).

The GPU back end's step between the parallel form (`convert-soac-to-scf`, after memory
planning, so parallel bodies allocate nothing or, where a size varies per iteration,
from the device heap) and code generation, where `convert-parallel-to-omp` is for the
multicore back end. The module gets `gpu.container_module` and one
`gpu.module @l0_kernels`:

* outermost `scf.parallel` loops become kernels (`l0.lowering.gpu.kernels`, Note
  [Kernel forms]): a map nest one kernel over its flattened iteration space, a
  reduction a kernel of per-block partial results and a final one-block kernel; the
  blocked scan and filter of `convert-soac-to-scf` are such loops and sequential code
  between them, so their phases become kernels too;
* host code that touches device memory without launching anything becomes serial
  kernels, sequential loops and branches around kernels stay on the host, and arrays
  live on the device (`l0.lowering.gpu.host`, Note [Host and device memory]);
* run-time errors in kernels go through the error word (`l0.lowering.gpu.errors`,
  Note [The error word]);
* public functions take device arrays and hand back fresh device arrays their caller
  owns (`l0.lowering.gpu.entry`; Python copies them in and out with numba.cuda).

The parallel width (Note [Parallel width] in `l0.lowering.loop_ir.parallel_loops`) is 1 in
device code and HOST_WIDTH on the host. A module without arrays or parallel loops (only
scalars) is left as it is: it runs on the host.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, gpu, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, i64
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from l0.dialects import soac
from l0.lowering.gpu.entry import wrap_entry
from l0.lowering.gpu.host import HostFunction
from l0.lowering.gpu.kernels import HOST_WIDTH, DeviceCode
from l0.lowering.loop_ir.parallel_loops import WIDTH_FUNCTION
from l0.passes.analysis.walk import walk_ops


def _uses_device(module: ModuleOp) -> bool:
    return any(isinstance(op, scf.ParallelOp)
               or any(isinstance(r.type, MemRefType) for r in op.results)
               or isinstance(op, func.FuncOp)
               and any(isinstance(t, MemRefType) for t in op.function_type.inputs.data)
               for op in walk_ops(module))


def _public(f: func.FuncOp) -> bool:
    visibility = f.sym_visibility
    return bool(f.body.blocks) and (visibility is None or visibility.data != "private")


def _takes_arrays(f: func.FuncOp) -> bool:
    return any(isinstance(t, MemRefType) for t in
               (*f.function_type.inputs.data, *f.function_type.outputs.data))


@dataclass(frozen=True)
class ConvertParallelToGpuPass(ModulePass):
    """Outermost scf.parallel loops -> gpu.func kernels launched from the host
    (gpu.launch_func), arrays in device memory (gpu.alloc/dealloc, gpu.memcpy at the
    public functions' boundary), run-time errors in kernels through an error word; the
    GPU back ends' input level (`docs/gpu.md`).

    Runs after memory planning (`reuse-freed`), where `convert-parallel-to-omp` runs for
    multicore. A map nest becomes one kernel over its flattened iteration space
    (grid-stride loop, 256 threads a block); a reduction a kernel of per-block partial
    results (contiguous rows per thread, a tree in workgroup memory with barriers) and a
    one-block final kernel; host code that reads or writes device memory without
    launching anything (a sequential fold, the carry loop of a blocked scan) a serial
    kernel of one thread, its scalars read back. Sequential loops and branches around
    kernels stay on the host. Every public function copies its arrays to the device and
    its results back. Does nothing to a module of scalars.

        scf.parallel (%i) = (%z) to (%n) step (%one) {        "gpu.launch_func"(...)
          %x = memref.load %a[%i]                        ->     <{kernel = @l0_kernels::@f_map_0}>
          memref.store %x, %o[%i]                             gpu.module @l0_kernels {
        }                                                       gpu.func @f_map_0(...) kernel {
                                                                  scf.for %g = tid to n step threads
    """

    name = "convert-parallel-to-gpu"

    profile: bool = False
    """Count each kernel's launches, threads, iterations and time
    (`l0.lowering.loop_ir.profile`)."""

    cuda_events: bool = False
    """With `profile`: time each launch with CUDA events, as on a GPU (the `gpu` back
    end; `gpu-sim`, whose launches are calls, reads the host's clock)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if any(isinstance(o, gpu.ModuleOp) for o in op.ops) or not _uses_device(op):
            return
        checks = [o for o in walk_ops(op) if isinstance(o, soac.AssertOp)]
        error_words = 1 + max((len(c.values) for c in checks), default=0)
        functions = [f for f in op.ops if isinstance(f, func.FuncOp) and f.body.blocks]
        code = DeviceCode(op, error_words)
        sites: set[str] = set()
        for f in functions:
            HostFunction(code, f, self.profile, sites, self.cuda_events).convert()
        for f in functions:
            for call in [o for o in walk_ops(f) if isinstance(o, func.CallOp)]:
                if call.callee.root_reference.data == WIDTH_FUNCTION:
                    Rewriter.replace_op(call, arith.ConstantOp(IntegerAttr(HOST_WIDTH, i64)))
        for f in functions:
            if _public(f) and _takes_arrays(f):
                wrap_entry(code, op, f)
