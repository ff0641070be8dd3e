"""What `segment-reductions` segments: a nest of maps over folds, recognised on `msoac`.

`segmented(op)` reads a top-level `msoac.map` as a `SegmentedReduction` (Note [Segment
nests]), or None; `segment-reductions` (`l0.lowering.scf.segment_reductions`) then
emits the segmented form beside the nest as it was.

Note [Segment nests]
~~~~~~~~~~~~~~~~~~~~
A segment nest is d >= 1 perfect map levels: every level's lambda but the innermost
holds only scalar work (below: shape queries, checks of sizes) and the next level's
map, which maps rows of the level's inputs (or arrays of the nest's scope) into the
level's destination rows and is yielded as them. The innermost lambda holds, besides shape queries:
* one or more reductions (`msoac.reduce`: a reduce, a redomap), each over rows of the
  levels' inputs or arrays of the scope, with scalar accumulators; the innermost map
  yields one scalar per destination; or
* one scan (a scanomap) into the innermost destination row, and nothing else;
* scalar work (arith, math, `scf.if` of those; `soac.assert`s before the last fold,
  independent of the folds): values the folds may use (computed from the levels'
  scalar elements and the scope), and values computed from the folds' results (the
  yielded ones, say `w / (1.0 + reduce(op +, 0.0, row))`).
The d levels' index spaces collapse into one of m = m_1 * ... * m_d segments, row-major:
segment s has one index per level, and every array the nest reads is an array of the
scope indexed by some of the levels (`Indexed`): a 2-D grid of row sums reads
`xs[i, j, _]`, a matrix product's rows `a[i, _]` and columns `bt[j, _]`, a shared
vector `v[_]`. Irregular inner sizes cannot occur: an array the lambda computes
(`iota(i)`, a `concat`) is not indexed so and stops the nest.

Not a segment nest: a fold whose input, neutral elements or lambda use a value the
folds compute (a row's variance from its mean: the mean is not known before the
region), a fold over an array the lambda computes, array accumulators, a fold that
traces, an operator that may fail (it is applied to partial results the sequential
fold never forms), scalar work that may fail after the last fold or on a fold's
result (the segmented form runs it after all folds of all segments), any other op
(a load, a call, a loop, another SOAC), and a nest inside a SOAC's lambda or a
parallel loop (its version choice would read the threshold, a host global, in a
kernel).
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from l0.dialects import msoac, soac
from l0.dialects.memref_types import rank_of
from l0.dialects.soac import CertType
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import defined_inside, nested_in_parallel
from l0.passes.analysis.walk import walk_ops

KEPT_ATTR = "l0.unsegmented"
"""Marks the map of the version that runs as it was (never segmented again)."""

_SHAPE_QUERIES = (arith.ConstantOp, arith.IndexCastOp, memref.DimOp)
_PARALLEL_SOACS = (msoac.MapOp, msoac.ReduceOp, msoac.ScanOp, msoac.FilterOp,
                   msoac.PartitionOp)
"""The SOACs whose lambdas become the bodies of parallel loops."""
_SCALAR_DIALECTS = ("arith", "math")


@dataclass(frozen=True)
class Indexed:
    """An array of the nest's scope, `base`, subscripted by the indices of map levels
    `levels` (outermost first): with as many levels as `base` has dimensions an
    element, else a row of the remaining dimensions."""

    base: SSAValue
    levels: tuple[int, ...]

    @property
    def rank(self) -> int:
        """The rank of what it names (0: an element)."""
        return rank_of(self.base.type) - len(self.levels)

    def at(self, b: CodeBuilder, idx: list[SSAValue], rest: list[SSAValue]) -> SSAValue:
        """Element `rest` of it in the segment of level indices `idx`."""
        return b.load(self.base, [*(idx[lv] for lv in self.levels), *rest])

    def dim(self, b: CodeBuilder, k: int) -> SSAValue:
        """Its size k (the same in every segment: L0's arrays are regular)."""
        return b.dim(self.base, len(self.levels) + k)


@dataclass(frozen=True)
class Fold:
    """A fold of the innermost lambda: the op, its operator and its inputs' rows."""

    op: msoac.ReduceOp | msoac.ScanOp
    operator: Region
    inputs: list[Indexed]

    @property
    def plain(self) -> bool:
        """Whether the fold's lambda is its operator (a chunk past a row's first then
        folds from its first element, Note [Segmented reductions])."""
        return self.operator is self.op.body

    def elements(self, b: CodeBuilder, idx: list[SSAValue], j: SSAValue) -> list[SSAValue]:
        """Element j of each of its inputs in the segment `idx`."""
        return [a.at(b, idx, [j]) for a in self.inputs]

    def length(self, b: CodeBuilder, i: int) -> SSAValue:
        return self.inputs[i].dim(b, 0)


@dataclass(frozen=True)
class SegmentedReduction:
    """A segment nest (Note [Segment nests]): its maps (outermost first), the folds of
    the innermost lambda in order, and every block argument of every level as an
    indexed array of the scope (rows, elements and destination rows)."""

    maps: list[msoac.MapOp]
    folds: list[Fold]
    args: dict[SSAValue, Indexed]

    @property
    def map(self) -> msoac.MapOp:
        return self.maps[0]

    @property
    def body(self) -> Block:
        """The innermost lambda."""
        return self.maps[-1].body.block

    @property
    def scan(self) -> bool:
        return isinstance(self.folds[0].op, msoac.ScanOp)

    def level_sizes(self, b: CodeBuilder) -> list[SSAValue]:
        """m_1, ..., m_d: each level's number of rows."""
        return [_indexed(self.args, m.inputs[0]).dim(b, 0) for m in self.maps]

    def destinations(self) -> list[Indexed]:
        """The innermost map's destinations (one element per segment; a scan's row)."""
        return [_indexed(self.args, v) for v in self.maps[-1].outs]


def _indexed(args: dict[SSAValue, Indexed], v: SSAValue) -> Indexed:
    """An array a level maps (or writes) as an indexed array of the scope: a level's
    block argument, or an array of the scope itself."""
    return args.get(v) or Indexed(v, ())


def _in_soac_lambda(op: Operation) -> bool:
    """Whether `op` is in the lambda of a SOAC: it runs in a thread of that SOAC's
    parallel loop (a kernel's, on the gpu), where its version choice would read a host
    global (the threshold) from device code."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, _PARALLEL_SOACS):
            return True
        parent = parent.parent_op()
    return False


def segmented(op: msoac.MapOp) -> SegmentedReduction | None:
    """`op` as a segment nest (Note [Segment nests]), or None."""
    if KEPT_ATTR in op.attributes or nested_in_parallel(op) or _in_soac_lambda(op):
        return None
    maps = _levels(op)
    if maps is None:
        return None
    args = _indexed_args(maps)
    if args is None:
        return None
    # Between the levels, scalar work only (a check of the next level's sizes).
    if any(not isinstance(o, msoac.MapOp | msoac.YieldOp) and not _scalar_work(o, args)
           for m in maps[:-1] for o in m.body.block.ops):
        return None
    folds = _folds(maps, args)
    if folds is None:
        return None
    return SegmentedReduction(maps, folds, args)


def _levels(op: msoac.MapOp) -> list[msoac.MapOp] | None:
    """The perfect map levels from `op` in: each holds shape queries and the next."""
    maps = [op]
    while True:
        m = maps[-1]
        if m.allocated or not m.outs:
            return None
        block = m.body.block
        inner = [o for o in block.ops if isinstance(o, msoac.MapOp)]
        if not inner:
            return maps
        term = block.last_op
        dests = list(block.args[len(m.inputs):])
        nxt = inner[0]
        if len(inner) != 1 or nxt.parent_block() is not block or \
                not isinstance(term, msoac.YieldOp) or \
                list(term.values) != dests or list(nxt.outs) != dests:
            return None
        maps.append(nxt)


def _indexed_args(maps: list[msoac.MapOp]) -> dict[SSAValue, Indexed] | None:
    """Every level's block arguments as indexed arrays of the scope, or None where a
    level maps an array its lambda computes."""
    args: dict[SSAValue, Indexed] = {}
    for level, m in enumerate(maps):
        block = m.body.block
        for arg, array in zip(block.args, [*m.inputs, *m.dest_outs()], strict=True):
            if array in args:
                outer = args[array]
            elif not defined_inside(array, maps[0]):
                outer = Indexed(array, ())
            else:
                return None
            if outer.rank < 1:
                return None
            args[arg] = Indexed(outer.base, (*outer.levels, level))
    return args


def _folds(maps: list[msoac.MapOp], args: dict[SSAValue, Indexed]) -> list[Fold] | None:
    """The innermost lambda's folds, when it is a segment nest's (Note [Segment nests])."""
    inner = maps[-1]
    block = inner.body.block
    term = block.last_op
    if not isinstance(term, msoac.YieldOp):
        return None
    ops = [o for o in block.ops if o is not term]
    fold_ops = [o for o in ops if isinstance(o, msoac.ReduceOp | msoac.ScanOp)]
    if not fold_ops:
        return None
    if any(isinstance(o, msoac.ScanOp) for o in fold_ops):
        # A scan: alone, into the destination row the lambda yields.
        scan = fold_ops[0]
        dests = list(block.args[len(inner.inputs):])
        if len(fold_ops) != 1 or not isinstance(scan, msoac.ScanOp) or scan.allocated or \
                list(scan.outs) != dests or list(term.values) != dests or \
                any(args[d].rank != 1 for d in dests) or \
                any(o is not scan and not isinstance(o, _SHAPE_QUERIES) for o in ops):
            return None
    elif len(term.values) != len(inner.outs) or any(
            _indexed(args, o).rank != 1 for o in inner.outs):
        return None  # one scalar per segment and destination
    fold_results: set[SSAValue] = {r for f in fold_ops for r in f.results}
    after = depending_on(ops, fold_results)
    last = ops.index(fold_ops[-1])
    for i, o in enumerate(ops):
        if o in fold_ops:
            continue
        if not _scalar_work(o, args):
            return None
        if isinstance(o, soac.AssertOp) and (o in after or i > last):
            return None
    folds = []
    for f in fold_ops:
        fold = _fold(f, maps, args, after)
        if fold is None:
            return None
        folds.append(fold)
    return folds


def depending_on(ops: list[Operation], values: Set[SSAValue]) -> set[Operation]:
    """The ops of `ops` (in order) that use, through each other, one of `values`."""
    tainted = set(values)
    out: set[Operation] = set()
    for o in ops:
        if any(v in tainted for inner in walk_ops(o) for v in inner.operands):
            out.add(o)
            tainted.update(o.results)
    return out


def _scalar_work(o: Operation, args: dict[SSAValue, Indexed]) -> bool:
    """Whether `o`, in the innermost lambda, is scalar work a segment may recompute:
    arithmetic, an `scf.if` of arithmetic, a check, a shape query."""
    if any(isinstance(r.type, MemRefType) for r in o.results):
        return False
    if isinstance(o, soac.AssertOp | arith.ConstantOp):
        return True
    if isinstance(o, memref.DimOp):
        # Of an array of the scope, or of a row at a constant axis.
        return o.source not in args or constant_axis(o) is not None
    for inner in walk_ops(o):
        if not (inner.name.split(".")[0] in _SCALAR_DIALECTS
                or isinstance(inner, scf.IfOp | scf.YieldOp)):
            return False
        if any(isinstance(v.type, MemRefType) for v in inner.operands):
            return False
    return True


def constant_axis(o: memref.DimOp) -> int | None:
    """The axis `o` queries when it is a constant."""
    owner = o.index.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _fold(f: msoac.ReduceOp | msoac.ScanOp, maps: list[msoac.MapOp],
          args: dict[SSAValue, Indexed], after: set[Operation]) -> Fold | None:
    operator = f.operator() if isinstance(f, msoac.ReduceOp) else \
        (f.operator if f.operator is not None else f.body)
    if operator is None or may_fail(operator) or _may_trace(f):
        return None
    if any(isinstance(z.type, MemRefType | CertType) for z in f.neutral):
        return None
    inputs: list[Indexed] = []
    for v in f.inputs:
        row = args.get(v) or (Indexed(v, ()) if not defined_inside(v, maps[0]) else None)
        if row is None or row.rank != 1:
            return None
        inputs.append(row)
    fold = Fold(f, operator, inputs)
    # A plain fold's accumulators are elements (a chunk folds from its first).
    if fold.plain and [z.type for z in f.neutral] != [_element(a.base) for a in inputs]:
        return None
    # What the fold uses from the nest: scalars known before the region, no rows.
    used = [*f.neutral, *[v for inner in walk_ops(f) if inner is not f for v in inner.operands]]
    for v in used:
        if not defined_inside(v, maps[0]) or defined_inside(v, f):
            continue
        if isinstance(v.type, MemRefType) or (v.owner in after) or \
                (isinstance(v.owner, msoac.ReduceOp | msoac.ScanOp)):
            return None
    return fold


def _element(array: SSAValue) -> Attribute:
    t = array.type
    assert isinstance(t, MemRefType)
    return t.element_type


def may_fail(region: Region) -> bool:
    """Whether the lambda `region` may fail: a check, or a call (which may check)."""
    return any(isinstance(o, soac.AssertOp | func.CallOp) for o in walk_ops(region))


def _may_trace(fold: Operation) -> bool:
    """Whether `fold` traces (`l0_trace_*`) or calls a function with a body (which may)."""
    module = fold.get_toplevel_object()
    bodies = {f.sym_name.data for f in walk_ops(module) if isinstance(f, func.FuncOp)
              and f.body.blocks} if isinstance(module, ModuleOp) else set()
    for o in walk_ops(fold):
        if isinstance(o, soac.TraceOp):
            return True
        if isinstance(o, func.CallOp):
            callee = o.callee.root_reference.data
            if callee.startswith("l0_trace") or callee in bodies:
                return True
    return False
