"""The host side of `convert-parallel-to-gpu`: a function's body becomes host code that
allocates device memory and launches kernels (`docs/gpu.md`).

Note [Host and device memory]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Every array lives on the device: `memref.alloc`/`dealloc` outside kernels become
`gpu.alloc`/`gpu.dealloc`, and functions take and return device arrays (the entry
wrappers of `l0.lowering.gpu.entry` take device arrays and hand back fresh ones, which
the back end's Python side copies in and out with numba.cuda).
The only host memory is what the host's own `memref.alloca`s make (the trace's
descriptors, the staging buffers below). Host code never dereferences a device
pointer; it walks a function's blocks and sorts each op:

* an outermost `scf.parallel` becomes a kernel (map or reduction, Note [Kernel forms]
  in `l0.lowering.gpu.kernels`), a `memref.copy` between device arrays a map kernel;
* an op that must stay on the host (allocation, a call of a function, `trace`) ends
  the current run; control flow containing such ops stays on the host and its blocks
  are sorted in turn (sequential loops and branches around kernels);
* loads, stores, checks and control flow that only reads and writes device memory form
  runs with the pure ops that depend on them; each run becomes a serial kernel (one
  thread), launched where the run ended. Pure ops that do not depend on a run stay on
  the host, so sizes and shapes are computed there. A scalar a run defines and the host
  uses is read back: stored by the kernel into a one-element device buffer, copied
  into a host staging buffer (`gpu.memcpy`), loaded. A loop that carries an array it
  updates in place (LU's row loops) hands back the array it was given, so it can run
  in a serial kernel too (`origin`); any other op with array results stays on the host.

Run-time errors in kernels: `l0.lowering.gpu.errors` (Note [The error word]).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from xdsl.dialects import arith, func, gpu, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import PassFailedException

from l0.dialects import soac
from l0.dialects.soac import CertType
from l0.lowering.gpu import kernels as k
from l0.lowering.gpu import trace as gpu_trace
from l0.lowering.gpu.errors import ErrorWord
from l0.lowering.loop_ir import profile as profile_ir
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import (
    BLOCKED_REDUCTION_ATTR,
    INTERLEAVED_ATTR,
    WIDTH_FUNCTION,
    ceil_div,
)
from l0.lowering.loop_ir.trace import emit_array_call
from l0.lowering.runtime.min_chunk import min_chunk
from l0.lowering.runtime.trace_runtime import ARRAY
from l0.passes.analysis.walk import walk_ops


class Kind(Enum):
    HOST = 1  # stays on the host, ends a run
    DEVICE = 2  # reads or writes device memory: goes into a run
    PURE = 3  # no memory effects: joins a run only if it depends on it
    STRUCTURE = 4  # control flow holding host ops: stays, its blocks are sorted


VIEW_OPS = (memref.SubviewOp, memref.CastOp, memref.ReinterpretCastOp, memref.DimOp,
            memref.ExtractStridedMetaDataOp, memref.ExtractAlignedPointerAsIndexOp,
            memref.CollapseShapeOp, memref.ExpandShapeOp, memref.RankOp)


def dense_type(t: MemRefType) -> MemRefType:
    """The identity-layout type of `t`'s shape (what `gpu.alloc` and copies use)."""
    return MemRefType(t.element_type, t.get_shape())


def dynamic_sizes(b: CodeBuilder, m: SSAValue) -> list[SSAValue]:
    t = m.type
    assert isinstance(t, MemRefType)
    return [b.val(memref.DimOp(m, b.index(d)))
            for d, n in enumerate(t.get_shape()) if n == DYNAMIC_INDEX]


class HostFunction:
    """Converts one function's body (Note [Host and device memory])."""

    def __init__(self, code: k.DeviceCode, f: func.FuncOp, profiling: bool = False,
                 sites: set[str] | None = None, cuda_events: bool = False) -> None:
        self.code, self.f = code, f
        self.profiling = profiling
        """Count each launch (`l0.lowering.loop_ir.profile`)."""
        self.cuda_events = cuda_events
        """Time launches with CUDA events (a GPU), not the host's clock (gpu-sim)."""
        self.sites = set() if sites is None else sites
        """The site names given so far in the module (made unique)."""
        self.name = f.sym_name.data.replace(".", "_")
        self.host_memory: set[SSAValue] = set()
        self._staging: dict[Attribute, SSAValue] = {}
        self._gone: set[Operation] = set()
        """Ops erased ahead of the walk (a blocked reduction's combining loop)."""
        self.errors = ErrorWord(code, f)

    def convert(self) -> None:
        for block in list(self.f.body.blocks):
            self.block(block)
        self.errors.free_at_returns()

    # -- sorting ------------------------------------------------------------------------

    def kind(self, op: Operation) -> Kind:
        if isinstance(op, scf.ParallelOp | memref.AllocOp | memref.DeallocOp):
            return Kind.HOST
        if isinstance(op, memref.AllocaOp):
            self.host_memory.add(op.memref)
            return Kind.HOST
        if isinstance(op, memref.GetGlobalOp):
            # The run-time tables (a parameter read where host code decides,
            # `l0.lowering.loop_ir.run_params`) live in host memory: the driver writes them.
            self.host_memory.add(op.memref)
            return Kind.HOST
        if isinstance(op, memref.CopyOp):
            if self._on_host(op.source) and self._on_host(op.destination):
                return Kind.HOST
            return Kind.HOST if self._copy_kernel(op) else Kind.DEVICE
        if isinstance(op, memref.LoadOp | memref.StoreOp):
            return Kind.HOST if self._on_host(op.memref) else Kind.DEVICE
        if isinstance(op, func.CallOp):
            return Kind.PURE if self._pure_call(op) else Kind.HOST
        if isinstance(op, soac.AssertOp):
            return Kind.DEVICE
        if op.has_trait(IsTerminator):
            return Kind.HOST
        if isinstance(op, VIEW_OPS):
            if any(v in self.host_memory for v in op.operands):
                self.host_memory.update(op.results)
            return Kind.PURE
        if op.regions:
            inner = [o for r in op.regions for o in walk_ops(r)]
            if any(self._host_only(o) for o in inner) or \
                    not all(k.is_scalar(r.type) or origin(r) is not r or not r.uses
                            for r in op.results):
                return Kind.STRUCTURE
            if any(isinstance(o, memref.LoadOp | memref.StoreOp | memref.CopyOp
                              | soac.AssertOp) for o in inner):
                return Kind.DEVICE
            return Kind.PURE
        return Kind.PURE

    def _host_only(self, op: Operation) -> bool:
        if isinstance(op, scf.ParallelOp | memref.AllocOp | memref.DeallocOp
                      | memref.AllocaOp):
            return True
        if isinstance(op, memref.CopyOp):
            return self._copy_kernel(op)
        if isinstance(op, memref.LoadOp | memref.StoreOp):
            return self._on_host(op.memref)
        return isinstance(op, func.CallOp) and not self._pure_call(op)

    def _on_host(self, m: SSAValue) -> bool:
        return m in self.host_memory

    def _copy_kernel(self, op: memref.CopyOp) -> bool:
        """Whether `op` copies between device arrays of rank > 0 (a copy kernel)."""
        t = op.source.type
        return isinstance(t, MemRefType) and t.get_num_dims() > 0 \
            and not self._on_host(op.source) and not self._on_host(op.destination)

    def _pure_call(self, op: func.CallOp) -> bool:
        callee = self.code.host.get(op.callee.root_reference.data)
        if callee is None or callee.body.blocks:
            return False
        name = callee.sym_name.data
        return name == WIDTH_FUNCTION or (bool(op.results) and not name.startswith("l0_trace"))

    def block(self, block: Block) -> None:
        run: list[Operation] = []
        for op in list(block.ops):
            if op in self._gone:
                continue
            kind = self.kind(op)
            if isinstance(op, soac.AssertOp) and not run:
                continue  # a check of host values stays on the host
            if kind is Kind.DEVICE:
                run.append(op)
            elif kind is Kind.PURE:
                if run and self._depends_on(op, run):
                    if all(k.is_scalar(r.type) for r in op.results):
                        run.append(op)
                    else:
                        self.flush(run)
                        run = []
            else:
                self.flush(run)
                run = []
                self.host_op(op, kind)
        self.flush(run)

    @staticmethod
    def _depends_on(op: Operation, run: Sequence[Operation]) -> bool:
        defined = {r for o in run for r in o.results}
        inner = [op, *[o for r in op.regions for o in walk_ops(r)]]
        return any(v in defined for o in inner for v in o.operands)

    # -- host ops -----------------------------------------------------------------------

    def host_op(self, op: Operation, kind: Kind) -> None:
        if kind is Kind.STRUCTURE:
            for region in op.regions:
                for blk in region.blocks:
                    self.block(blk)
        elif isinstance(op, scf.ParallelOp):
            if op.initVals:
                self.reduction(op)
            elif (shape := blocked_shape(op)) is not None:
                self.blocked_reduction(op, shape)
            else:
                self.map(op)
        elif isinstance(op, memref.AllocOp):
            new = gpu.AllocOp(op.memref.type, list(op.dynamic_sizes))
            new.attributes |= op.attributes  # its `loc`, where running out of memory is reported
            Rewriter.replace_op(op, new)
        elif isinstance(op, memref.DeallocOp):
            if op.memref not in self.host_memory:
                Rewriter.replace_op(op, gpu.DeallocOp(op.memref))
        elif isinstance(op, memref.CopyOp) and self._copy_kernel(op):
            self.copy(op)
        elif isinstance(op, func.CallOp) and op.callee.root_reference.data == ARRAY:
            self.trace_array(op)

    def trace_array(self, call: func.CallOp) -> None:
        """`trace` of a device array on the host: the callback reads a dense host copy
        (made through a copy kernel where the array is strided), freed after it."""
        site, data, _, _ = call.arguments
        ptr = data.owner.operands[0] if isinstance(data.owner, arith.IndexCastOp) else None
        owner = ptr.owner if ptr is not None else None
        if not isinstance(owner, memref.ExtractAlignedPointerAsIndexOp):
            return
        array = owner.source
        t = array.type
        if array in self.host_memory or not isinstance(t, MemRefType):
            return
        b = CodeBuilder.before(call)
        dense = dense_type(t)
        sizes = dynamic_sizes(b, array)
        source = array
        if t.layout != dense.layout:
            source = b.val(gpu.AllocOp(dense, sizes))
            copy = b.add(memref.CopyOp(array, source))
            self.copy(copy)
        host = b.val(memref.AllocOp(sizes, [], dense))
        b.add(gpu.MemcpyOp(source, host))
        new = emit_array_call(b, site, host)
        Rewriter.erase_op(call)
        after = CodeBuilder.after(new)
        after.add(memref.DeallocOp.get(host))
        if source is not array:
            after.add(gpu.DeallocOp(source))

    # -- kernels ------------------------------------------------------------------------

    def _launch(self, b: CodeBuilder, name: str, body: Block, grid: SSAValue,
                threads: int = k.BLOCK, *, site: str, iterations: SSAValue) -> None:
        """Launch `body` as a kernel on `grid` blocks of `threads`; with profiling, count
        it as the site `site` doing `iterations` work items (`l0.lowering.loop_ir.profile`)."""
        kernel, params, checks = self.code.kernel(self.code.fresh_name(name), body)
        err = self.errors.word() if checks else None
        traced = kernel.attributes.get(gpu_trace.TRACE_ATTR)
        start: SSAValue | None = None
        if self.profiling:  # on a GPU, the kernel's time between CUDA events
            start = profile_ir.events_begin(b, self.f) if self.cuda_events else \
                profile_ir.now(b, self.f)
        if isinstance(traced, StringAttr):  # Note [Traces in kernels]
            log, host_log = gpu_trace.before_launch(b)
            launch = k.launch(b, kernel, [*params, log], grid, err, threads)
            gpu_trace.after_launch(b, log, host_log, traced.data)
        else:
            launch = k.launch(b, kernel, params, grid, err, threads)
        if start is not None:
            elapsed = profile_ir.events_elapsed(b, launch, start) if self.cuda_events else \
                profile_ir.since(b, launch, start)
            profile_ir.record(b, launch, site, b.muli(grid, b.i64(threads)), iterations,
                              elapsed)
        if checks:
            self.errors.check(b, sorted(checks))

    def _site(self, op: Operation, kind: str) -> str:
        """The unique name of the kernel(s) made for `op` (Note [Names of parallel sites]
        in `l0.lowering.loop_ir.profile`): its tag, else its location and `kind`."""
        name = profile_ir.name_of(op, kind) if isinstance(op, scf.ParallelOp) else \
            profile_ir.site_name(op, kind)
        return profile_ir.unique_name(self.sites, name)

    def map(self, par: scf.ParallelOp) -> None:
        """A map kernel (Note [Kernel forms])."""
        b = CodeBuilder.before(par)
        lbs, extents, steps = self._space(b, par)
        total = b.product(extents)
        body = Block()
        kb = CodeBuilder.at_end(body)

        def element(eb: CodeBuilder, g: SSAValue) -> None:
            ivs = self._ivs(eb, g, lbs, extents, steps)
            k.move_body(eb, par, ivs)

        serial = gpu_trace.traces(par)  # Note [Traces in kernels]: in order, one thread
        k.grid_stride(kb, total, element)
        grid = b.i64(1) if serial else \
            k.clamp(b, ceil_div(b, total, b.i64(k.BLOCK)), 1, k.MAX_GRID)
        self._launch(b, f"{self.name}_map", body, grid, threads=1 if serial else k.BLOCK,
                     site=self._site(par, "map"), iterations=total)
        Rewriter.erase_op(par)

    def _space(self, b: CodeBuilder, par: scf.ParallelOp
               ) -> tuple[list[SSAValue], list[SSAValue], list[SSAValue]]:
        """Lower bounds, trip counts and steps (i64) of `par`'s dimensions."""
        lbs, extents, steps = [], [], []
        for lb, ub, st in zip(par.lowerBound, par.upperBound, par.step, strict=True):
            lo, hi, s = b.to_i64(lb), b.to_i64(ub), b.to_i64(st)
            extents.append(b.maxsi(ceil_div(b, b.subi(hi, lo), s), b.i64(0)))
            lbs.append(lo)
            steps.append(s)
        return lbs, extents, steps

    @staticmethod
    def _ivs(b: CodeBuilder, g: SSAValue, lbs: Sequence[SSAValue],
             extents: Sequence[SSAValue], steps: Sequence[SSAValue]) -> list[SSAValue]:
        idx = k.delinearise(b, g, extents)
        return [b.addi(lo, b.muli(i, s)) for lo, i, s in zip(lbs, idx, steps, strict=True)]

    def reduction(self, par: scf.ParallelOp) -> None:
        """Partial results per block, then one block folds them (Note [Kernel forms])."""
        b = CodeBuilder.before(par)
        reduce_op = par.body.block.last_op
        assert isinstance(reduce_op, scf.ReduceOp)
        types = [v.type for v in par.initVals]
        for t in types:
            if not k.is_scalar(t):
                raise PassFailedException(
                    f"convert-parallel-to-gpu: in {self.f.sym_name.data}: expected scalar "
                    f"accumulators in a parallel reduction, found {t}")
        lbs, extents, steps = self._space(b, par)
        total = b.product(extents)
        serial = gpu_trace.traces(par)  # Note [Traces in kernels]: one chunk, the left fold
        grid = b.i64(1) if serial else \
            k.clamp(b, ceil_div(b, total, b.i64(k.BLOCK)), 1, k.REDUCE_GRID)
        bufs = Partials.alloc(b, types, grid)
        outs = bufs.outs

        def combine(cb: CodeBuilder, acc: Sequence[SSAValue],
                    vals: Sequence[SSAValue]) -> list[SSAValue]:
            out: list[SSAValue] = []
            for region, a, v in zip(reduce_op.reductions, acc, vals, strict=True):
                ret = cb.inline(region, [a, v])
                assert isinstance(ret, scf.ReduceReturnOp)
                out.append(ret.result)
                Rewriter.erase_op(ret)
            return out

        # The final kernel first: the first one moves the body out of `par`.
        final = Block()
        fb = CodeBuilder.at_end(final)
        tid, _, wg_f, wg_v = k.block_fold(fb, types, grid, bufs.partial, combine, None)

        def result(tb: CodeBuilder) -> None:
            inits = list(par.initVals)
            vals = [tb.load(m, [tb.i64(0)]) for m in wg_v]
            res = tb.if_(tb.load(wg_f, [tb.i64(0)]), types, lambda cb: vals,
                         lambda eb: inits)
            for v, m in zip(res, outs, strict=True):
                tb.store(v, m, [tb.i64(0)])

        k.thread_zero(fb, tid, result)

        first = Block()
        pb = CodeBuilder.at_end(first)

        def element(eb: CodeBuilder, g: SSAValue) -> tuple[SSAValue | None, list[SSAValue]]:
            return None, k.copy_body(eb, par, self._ivs(eb, g, lbs, extents, steps))

        tid, bid, wg_f, wg_v = k.block_fold(pb, types, total, element, combine,
                                            list(par.initVals), one_chunk=serial,
                                            interleave=_interleaved(par))
        bufs.publish(pb, tid, bid, wg_f, wg_v)
        Rewriter.replace_op(par, [], self._run_reduction(b, first, final, grid, bufs,
                                                         self._site(par, "reduce"),
                                                         total))

    def blocked_reduction(self, par: scf.ParallelOp, shape: BlockedShape) -> None:
        """A blocked reduction (Note [Blocked reductions] in `l0.lowering.loop_ir.parallel_loops`)
        as a scalar reduction's two kernels: a chunk per thread of the grid, folded with
        the chunk loop's body, the block's chunks combined in workgroup memory with the
        operator (the combining loop's body), then one block folding the partial results
        (Note [Kernel forms])."""
        loop, parts, count = shape
        b = CodeBuilder.before(par)
        types = [v.type for v in loop.iter_args]
        single = b.bool(True) if gpu_trace.traces(par) or gpu_trace.traces(loop) else \
            b.cmpi("sle", count, b.i64(1))  # Note [Traces in kernels]: one chunk
        # count >= 2 means at least count * MIN_CHUNK rows: every thread gets a row (with
        # the tests' smaller MIN_CHUNK, `l0.lowering.runtime.min_chunk`, some fold no row).
        spread = k.clamp(b, b.muli(count, b.i64(min_chunk() // k.BLOCK)), 1, k.REDUCE_GRID)
        grid = b.select(single, b.i64(1), spread)
        threads = b.select(single, b.i64(1), b.muli(grid, b.i64(k.BLOCK)))
        bufs = Partials.alloc(b, types, grid)

        def combine(cb: CodeBuilder, acc: Sequence[SSAValue],
                    vals: Sequence[SSAValue]) -> list[SSAValue]:
            return _apply_combining(cb, loop, parts, acc, vals)

        first = Block()
        kb = CodeBuilder.at_end(first)
        wg_f = k.workgroup(kb, i1)
        wg_v = [k.workgroup(kb, t) for t in types]
        tid, bid, gt, _ = k.thread_ids(kb)
        active = kb.cmpi("slt", gt, threads)
        acc = kb.if_(active, types,
                     lambda tb: _chunk_fold(tb, par, parts, count, threads, gt),
                     lambda eb: [k.zero(eb, t) for t in types])
        k.block_combine(kb, tid, active, acc, wg_f, wg_v, combine)
        bufs.publish(kb, tid, bid, wg_f, wg_v)

        final = Block()
        fb = CodeBuilder.at_end(final)
        tid, _, _, wg_v = k.block_fold(fb, types, grid, bufs.partial, combine, None)

        def result(tb: CodeBuilder) -> None:  # thread 0 of block 0 always had chunk 0
            for m, o in zip(wg_v, bufs.outs, strict=True):
                tb.store(tb.load(m, [tb.i64(0)]), o, [tb.i64(0)])

        k.thread_zero(fb, tid, result)
        results = self._run_reduction(b, first, final, grid, bufs,
                                      self._site(par, "reduce"), threads)
        self._erase_blocked(par, loop, parts, results)

    def _run_reduction(self, b: CodeBuilder, first: Block, final: Block, grid: SSAValue,
                       bufs: Partials, site: str, iterations: SSAValue) -> list[SSAValue]:
        """Launch a reduction's two kernels (the first doing `iterations` work items,
        the final one a partial result per block of the first), read its results back,
        free its buffers."""
        self._launch(b, f"{self.name}_reduce", first, grid, site=site, iterations=iterations)
        self._launch(b, f"{self.name}_reduce_final", final, b.i64(1), site=f"{site}.final",
                     iterations=grid)
        results = [self.read_back(b, m) for m in bufs.outs]
        for m in [*bufs.parts, bufs.flags, *bufs.outs]:
            b.add(gpu.DeallocOp(m))
        return results

    def _erase_blocked(self, par: scf.ParallelOp, loop: scf.ForOp,
                       parts: Sequence[SSAValue], results: Sequence[SSAValue]) -> None:
        """Replace the combining loop by `results` and erase both loops, the loads
        of the first partials and the chunk partials' buffers where nothing else uses
        them."""
        firsts = [v.owner for v in loop.iter_args]
        Rewriter.replace_op(loop, [], list(results))
        Rewriter.erase_op(par)
        gone: list[Operation] = [loop]
        for load in firsts:
            if isinstance(load, memref.LoadOp) and not load.res.uses:
                Rewriter.erase_op(load)
                gone.append(load)
        for m in parts:
            users = [u.operation for u in m.uses]
            if isinstance(m.owner, gpu.AllocOp) and \
                    all(isinstance(u, memref.DeallocOp | gpu.DeallocOp) for u in users):
                for u in users:
                    Rewriter.erase_op(u)
                gone.extend(users)
                Rewriter.erase_op(m.owner)
        self._gone.update(gone)

    def copy(self, op: memref.CopyOp) -> None:
        """A map kernel copying element by element (any layouts on either side)."""
        src, dst = op.source, op.destination
        b = CodeBuilder.before(op)
        t = src.type
        assert isinstance(t, MemRefType)
        extents = b.dims(src)
        total = b.product(extents)
        body = Block()
        kb = CodeBuilder.at_end(body)

        def element(eb: CodeBuilder, g: SSAValue) -> None:
            idx = k.delinearise(eb, g, extents)
            eb.store(eb.load(src, idx), dst, idx)

        k.grid_stride(kb, total, element)
        grid = k.clamp(b, ceil_div(b, total, b.i64(k.BLOCK)), 1, k.MAX_GRID)
        self._launch(b, f"{self.name}_copy", body, grid,
                     site=self._site(op, "copy"), iterations=total)
        Rewriter.erase_op(op)

    def flush(self, run: list[Operation]) -> None:
        """A serial kernel for `run` (Note [Host and device memory])."""
        if not run:
            return
        last = run[-1]
        site = self._site(last, "serial")
        anchor = last.next_op
        assert anchor is not None  # a block ends with its terminator, never in a run
        b = CodeBuilder.before(anchor)
        members = set(run)
        live: list[SSAValue] = []
        for o in run:
            for r in o.results:
                if any(not _within(u.operation, members) for u in r.uses):
                    live.append(r)
        outs: dict[SSAValue, SSAValue] = {}
        for v in live:
            if k.is_scalar(v.type):
                outs[v] = b.val(gpu.AllocOp(MemRefType(v.type, [1]), []))
        body = Block()
        for o in run:
            o.detach()
            body.add_op(o)
        kb = CodeBuilder.at_end(body)
        for v, m in outs.items():
            kb.store(v, m, [kb.i64(0)])
        uses = {v: [u for u in v.uses if not k._op_inside(u.operation, body)] for v in live}
        self._launch(b, f"{self.name}_serial", body, b.i64(1), threads=1,
                     site=site, iterations=b.i64(1))
        for v in live:
            if v in outs:
                new = self.read_back(b, outs[v])
                b.add(gpu.DeallocOp(outs[v]))
            elif isinstance(v.type, CertType):
                new = b.val(soac.CheckedOp())
            elif origin(v) is not v:
                new = origin(v)
            else:
                raise PassFailedException(
                    f"convert-parallel-to-gpu: in {self.f.sym_name.data}: expected a serial "
                    f"kernel to define scalars for the host, found {v.type}")
            for u in uses[v]:
                u.operation.operands[u.index] = new

    # -- host buffers -------------------------------------------------------------------

    def staging(self, t: Attribute) -> SSAValue:
        """A one-element host buffer of `t` at the function's entry."""
        if t not in self._staging:
            entry = CodeBuilder(InsertPoint.at_start(self.f.body.block))
            self._staging[t] = entry.val(memref.AllocaOp.get(t, shape=[1]))
        return self._staging[t]

    def read_back(self, b: CodeBuilder, device: SSAValue) -> SSAValue:
        """The scalar in the one-element device buffer `device`, on the host."""
        t = device.type
        assert isinstance(t, MemRefType)
        host = self.staging(t.element_type)
        b.add(gpu.MemcpyOp(device, host))
        return b.load(host, [b.i64(0)])


@dataclass
class Partials:
    """A reduction's device buffers: each block's partial results (one array per
    accumulator) with a flag saying the block had rows, and the one-element results."""

    parts: list[SSAValue]
    flags: SSAValue
    outs: list[SSAValue]

    @staticmethod
    def alloc(b: CodeBuilder, types: Sequence[Attribute], grid: SSAValue) -> Partials:
        blocks = b.to_index(grid)
        return Partials([b.val(gpu.AllocOp(MemRefType(t, [DYNAMIC_INDEX]), [blocks]))
                         for t in types],
                        b.val(gpu.AllocOp(MemRefType(i1, [DYNAMIC_INDEX]), [blocks])),
                        [b.val(gpu.AllocOp(MemRefType(t, [1]), [])) for t in types])

    def publish(self, kb: CodeBuilder, tid: SSAValue, bid: SSAValue, wg_f: SSAValue,
                wg_v: Sequence[SSAValue]) -> None:
        """Thread 0 stores its block's flag and values (workgroup memory) as block
        `bid`'s partial."""
        def store(tb: CodeBuilder) -> None:
            tb.store(tb.load(wg_f, [tb.i64(0)]), self.flags, [bid])
            for m, p in zip(wg_v, self.parts, strict=True):
                tb.store(tb.load(m, [tb.i64(0)]), p, [bid])

        k.thread_zero(kb, tid, store)

    def partial(self, eb: CodeBuilder, g: SSAValue) -> tuple[SSAValue | None, list[SSAValue]]:
        """Block `g`'s flag and partial values (the final kernel's rows)."""
        return eb.load(self.flags, [g]), [eb.load(m, [g]) for m in self.parts]


def _interleaved(par: scf.ParallelOp) -> bool:
    """Whether the threads of reduction `par` fold interleaved rows: marked so (its
    operator commutes, Note [Interleaved chunks] in `l0.lowering.scf.segment_reductions`)
    and reading its rows from memory. Rows it computes (`iota`'s, which `forward-iota`
    made indices) gain nothing from coalescing, and their contiguous fold is one LLVM
    sums in closed form (a reduction over `iota(2^46)` runs in no time)."""
    return INTERLEAVED_ATTR in par.attributes and \
        any(isinstance(o, memref.LoadOp) for o in walk_ops(par.body))


BlockedShape = tuple[scf.ForOp, list[SSAValue], SSAValue]
"""A blocked reduction's combining loop, its partials arrays (one per accumulator)
and its chunk count."""


def blocked_shape(par: scf.ParallelOp) -> BlockedShape | None:
    """The combining loop, partials and chunk count of the marked chunk loop `par`
    (Note [Blocked reductions] in `l0.lowering.loop_ir.parallel_loops`), or None where `par` is
    not one or its loops are not as that note says (then it is a map kernel and the
    combining loop a serial kernel, as any other code)."""
    if BLOCKED_REDUCTION_ATTR not in par.attributes or len(par.lowerBound) != 1:
        return None
    loop = par.next_op
    while loop is not None and not (isinstance(loop, scf.ForOp)
                                    and BLOCKED_REDUCTION_ATTR in loop.attributes):
        if not isinstance(loop, memref.LoadOp | arith.ConstantOp | arith.IndexCastOp):
            return None
        loop = loop.next_op
    if loop is None or not loop.iter_args:
        return None
    parts: list[SSAValue] = []
    for init in loop.iter_args:
        load = init.owner
        if not isinstance(load, memref.LoadOp) or not k.is_scalar(init.type):
            return None
        parts.append(load.memref)
    stored = {op.memref for op in par.body.block.ops if isinstance(op, memref.StoreOp)}
    if not set(parts) <= stored or len(set(parts)) != len(parts) or \
            any(isinstance(op, memref.StoreOp) for op in walk_ops(loop.body)):
        return None
    return loop, parts, loop.ub


def _chunk_fold(b: CodeBuilder, par: scf.ParallelOp, parts: Sequence[SSAValue],
                count: SSAValue, threads: SSAValue, gt: SSAValue) -> list[SSAValue]:
    """A copy of the chunk loop's body for chunk `gt` of `threads` (in place of the
    host's chunk count `count`), the values it would store into `parts` instead."""
    term = b.inline(par.body, [b.to_index(gt)])
    block = term.parent_block()
    assert block is not None
    for op in walk_ops(block):
        for i, v in enumerate(op.operands):
            if v is count:
                op.operands[i] = threads
    stored: dict[SSAValue, SSAValue] = {}
    for op in list(block.ops):
        if isinstance(op, memref.StoreOp) and op.memref in parts:
            stored[op.memref] = op.value
            Rewriter.erase_op(op)
    Rewriter.erase_op(term)
    return [stored[m] for m in parts]


def _apply_combining(b: CodeBuilder, loop: scf.ForOp, parts: Sequence[SSAValue],
                     acc: Sequence[SSAValue], vals: Sequence[SSAValue]) -> list[SSAValue]:
    """The operator of a blocked reduction, from a copy of its combining loop's body:
    the loads of the partials become `vals`, the carried values `acc`."""
    block = loop.body.clone().block
    for op in list(walk_ops(block)):
        if isinstance(op, memref.LoadOp) and op.memref in parts:
            op.res.replace_all_uses_with(vals[list(parts).index(op.memref)])
            Rewriter.erase_op(op)
    term = block.last_op
    assert isinstance(term, scf.YieldOp)
    out = list(term.operands)
    Rewriter.erase_op(term)
    lb_type = loop.lb.type
    assert isinstance(lb_type, IntegerType | IndexType)
    iv = b.val(arith.ConstantOp(IntegerAttr(0, lb_type)))
    Rewriter.inline_block(block, b.ip, [iv, *acc])
    return out


def origin(v: SSAValue) -> SSAValue:
    """The value `v` is, through loops that carry an array they update in place and
    branches whose arms yield the same array: their results are their inputs, so a
    serial kernel running them hands back no array (Note [Host and device memory])."""
    owner = v.owner
    if isinstance(owner, scf.ForOp) and isinstance(v, OpResult):
        body = owner.body.block
        yielded = body.last_op
        assert yielded is not None
        init = origin(owner.iter_args[v.index])
        if origin(yielded.operands[v.index]) in (body.args[v.index + 1], init):
            return init
    elif isinstance(owner, scf.IfOp) and isinstance(v, OpResult) and owner.false_region.blocks:
        arms = [owner.true_region.block.last_op, owner.false_region.block.last_op]
        sources = {origin(a.operands[v.index]) for a in arms if a is not None}
        if len(sources) == 1:
            (source,) = sources
            if not _defined_in(source, owner):
                return source
    return v


def _defined_in(v: SSAValue, op: Operation) -> bool:
    owner = v.owner
    o = owner.parent_op() if isinstance(owner, Block) else owner
    while o is not None:
        if o is op:
            return True
        o = o.parent_op()
    return False


def _within(op: Operation, members: set[Operation]) -> bool:
    o: Operation | None = op
    while o is not None:
        if o in members:
            return True
        o = o.parent_op()
    return False

