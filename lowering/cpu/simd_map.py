"""The `simd-map` pass: the iterations of a parallel loop whose body holds sequential
loops run W at a time in SIMD lanes, each lane its own iteration, in lock-step.

Note [SIMD across map iterations]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
n-body's map over bodies folds the pull of every body into three sums:

    scf.parallel (%i) = (lb) to (ub) {
      xi = x[i] ...
      ax, ay, az = scf.for %j = 0 to n iter_args(a...) { ... a + pull(i, j) }
      out[i] = ... ax ...
    }

LLVM vectorises innermost loops only, and the fold over j is a chain of real additions
that it may not reorder without fast-math: one scalar lane. The map's iterations, though,
are independent: strip-mined by the vector width W, the strip moved inside the fold
(unroll-and-jam), each lane keeps its own sums, in the program's order:

    scf.parallel (%s) = (0) to (ceil(n / W)) {
      base = lb + s * W
      scf.if ub - base >= W {                      // a full strip
        xi_0 = x[base], ..., xi_{W-1} = x[base + W - 1]
        a_0.., a_{W-1}.. = scf.for %j ... { each op once per lane, uniform ones once }
        out[base] = ..., ..., out[base + W - 1] = ...
      } else {                                     // the last n mod W iterations
        scf.for %i = base to ub { the body }
      }
    }

The W copies of each op stand side by side, isomorphic, on consecutive addresses where
the lanes load and store at their own index, which is the form LLVM's SLP vectoriser
turns into vector instructions (W scalar accumulators become one vector register per
W/lanes-per-register, `vaddpd`, `vsqrtpd`, `vdivpd` on 4 or 8 doubles). Each lane runs
its iteration's ops in order on its iteration's values, so results are bit for bit those
of the scalar loop. What may run in lanes, and which values are computed once for all
of them, is `l0.lowering.cpu.simd_lanes` (Note [Lanes in lock-step]).

A loop of the body whose upper bound differs between lanes and whose body only computes
runs to the lanes' largest bound, each lane's carried values selected to stay once past
its own (Note [Lanes in lock-step]).

Only loops that pay are strip-mined: one-dimensional `scf.parallel` loops without
reductions, innermost (no parallel loop inside), not a chunk loop (a blocked reduction's,
`chunk-parallel`'s or `tile-parallel`'s, whose iterations are threads), whose body holds a
sequential loop (a straight-line body is vectorised by LLVM's loop vectoriser as it
is). W is the number of 64-bit lanes of the host's widest vectors (8 with AVX-512, 4
with AVX or AVX2, 2 with SSE2; `lanes` below), or the pass option `width`.

`l0-run -v` reports each candidate loop: `simd-map: LOC: map went SIMD, W lanes`, or why
not (through `l0.lowering.loop_ir.decisions`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, ModuleOp, StringAttr
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import PassFailedException

from l0.lowering.cpu.simd_lanes import Lanes, analyse, gathers_pay
from l0.lowering.loop_ir import decisions
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.parallel_loops import (
    BLOCKED_REDUCTION_ATTR,
    CHUNK_LOOP_ATTR,
    MAP_LOC_ATTR,
    ceil_div,
)
from l0.lowering.loop_ir.profile import carry_tag
from l0.lowering.memory.memory_plan import constant_int
from l0.passes.analysis.walk import walk_ops


def lanes() -> int:
    """64-bit SIMD lanes of this CPU's widest vector registers (1: none)."""
    import llvmlite.binding as llvm  # the JIT's library, imported only when compiling

    features = llvm.get_host_cpu_features()
    if features.get("avx512f"):
        return 8
    if features.get("avx2") or features.get("avx"):
        return 4
    return 2 if features.get("sse2") else 1


@dataclass(frozen=True)
class SimdMapPass(ModulePass):
    """A one-dimensional `scf.parallel` whose body holds a sequential loop runs W
    iterations at once, one per SIMD lane: strip-mined by the vector width, the strip
    jammed into the body's loops, each lane keeping its own accumulators (cpu and
    multicore back ends; runs after `tile-parallel`; Note [SIMD across map
    iterations]). A loop of the body whose trip count differs between lanes runs to
    the largest under a mask when it only computes. Bodies that may fail, such loops
    that touch memory, stores outside the iteration's own place and gathers that do
    not pay fall back.

    Before:
        "scf.parallel"(%lb, %ub, %c1) ({
        ^bb0(%i: index):
          %xi = memref.load %x[%i]
          %s = scf.for %j = ... iter_args(%a = %z) -> (f64) { ... %a + f(%xi, %x[%j]) }
          memref.store %s, %out[%i]
          scf.reduce
        })
    After (W = 2):
        "scf.parallel"(%c0, ceil((ub - lb) / 2), %c1) ({
        ^bb0(%t: index):
          %base = lb + t * 2
          scf.if %base + 2 <= %ub {
            %xi0 = memref.load %x[%base]   %xi1 = memref.load %x[%base + 1]
            %s0, %s1 = scf.for %j = ... iter_args(%a0 = %z, %a1 = %z) { ... }
            memref.store %s0, %out[%base]   memref.store %s1, %out[%base + 1]
          } else {
            scf.for %i = %base to %ub { the body at %i }
          }
          scf.reduce
        })
    """

    name = "simd-map"

    width: int = 0
    """Lanes per strip; 0: the host's (`lanes()`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.width < 0:
            raise PassFailedException(f"simd-map: width must be 0 (the host's lanes) or "
                                      f"positive, not {self.width}")
        width = self.width or lanes()
        for f in op.ops:
            if not isinstance(f, func.FuncOp) or not f.body.blocks:
                continue
            loops = [o for o in walk_ops(f) if type(o) is scf.ParallelOp]
            for loop in loops:
                where = _where(loop, f)  # before the loop is replaced
                why_not = _why_not(loop, width)
                if why_not is None:
                    decisions.report(self.name, f"{where}: map went SIMD, {width} lanes")
                    continue
                if why_not:
                    decisions.report(self.name, f"{where}: map not SIMD: {why_not}")


def _where(loop: scf.ParallelOp, f: func.FuncOp) -> str:
    loc = loop.attributes.get(MAP_LOC_ATTR)
    if isinstance(loc, StringAttr) and loc.data:
        return loc.data
    return f"a parallel loop in {f.sym_name.data}"


def _why_not(loop: scf.ParallelOp, width: int) -> str | None:
    """None after strip-mining `loop`; else why not ("" for loops not worth a report:
    not the innermost, a chunk loop, or a body without a loop)."""
    if len(loop.lowerBound) != 1 or loop.initVals or constant_int(loop.step[0]) != 1:
        return ""
    if BLOCKED_REDUCTION_ATTR in loop.attributes or CHUNK_LOOP_ATTR in loop.attributes:
        return ""
    kinds = {type(o) for o in walk_ops(loop) if o is not loop}
    if scf.ParallelOp in kinds or not kinds & {scf.ForOp, scf.WhileOp}:
        return ""
    if width < 2:
        return f"no SIMD lanes for 64-bit values (width {width})"
    lanes_ = analyse(loop)
    if lanes_.why_not is not None:
        return lanes_.why_not
    if not gathers_pay(lanes_):
        return (f"its loops gather more than they compute ({lanes_.gathers} loads at "
                f"other indices than its own, {lanes_.arithmetic} operations)")
    strip_mine(lanes_, width)
    return None


# ---------------------------------------------------------------------------------------
# The rewrite
# ---------------------------------------------------------------------------------------

Env = list[dict[SSAValue, SSAValue]]
"""Per lane: the value of each of the body's values in that lane."""


def strip_mine(lanes_: Lanes, width: int) -> None:
    """Rewrite `lanes_.loop` into strips of `width` lanes (Note [SIMD across map
    iterations])."""
    loop = lanes_.loop
    b = CodeBuilder.before(loop)
    lb, ub = b.to_i64(loop.lowerBound[0]), b.to_i64(loop.upperBound[0])
    w = b.i64(width)
    n = b.maxsi(b.subi(ub, lb), b.i64(0))
    # ceil(n / W) and ub - base >= W, not (n + W - 1) / W and base + W <= ub: those
    # leave 64 bits near 2^63 (Note [Stepped loops without overflow]).
    strips = ceil_div(b, n, w)
    block = Block(arg_types=[IndexType()])
    sb = CodeBuilder.at_end(block)
    base = sb.addi(lb, sb.muli(sb.to_i64(block.args[0]), w))
    full = sb.cmpi("sge", sb.subi(ub, base), w)
    body = loop.body.block
    iv = body.args[0]

    def jammed(tb: CodeBuilder) -> list[SSAValue]:
        env: Env = [{iv: tb.to_index(tb.addi(base, tb.i64(k)))} for k in range(width)]
        _jam(lanes_, body, tb, env, width)
        return []

    def remainder(eb: CodeBuilder) -> list[SSAValue]:
        def one(fb: CodeBuilder, i: SSAValue, _: object) -> list[SSAValue]:
            term = fb.inline(loop.body, [fb.to_index(i)])
            Rewriter.erase_op(term)
            return []

        eb.for_(base, ub, [], one)
        return []

    sb.if_(full, [], jammed, remainder)
    sb.add(scf.ReduceOp())
    strip_loop = scf.ParallelOp([b.index(0)], [b.to_index(strips)], [b.index(1)],
                                Region(block))
    if MAP_LOC_ATTR in loop.attributes:
        strip_loop.attributes[MAP_LOC_ATTR] = loop.attributes[MAP_LOC_ATTR]
    carry_tag(loop, strip_loop)  # the profile's and the threshold's name of the map
    b.add(strip_loop)
    Rewriter.erase_op(loop)


def _lane(env: Env, k: int, v: SSAValue) -> SSAValue:
    return env[k].get(v, v)


def _jam(lanes_: Lanes, block: Block, b: CodeBuilder, env: Env, width: int) -> None:
    """Each op of `block` (its terminator excepted) once per lane, or once for all lanes
    where nothing it reads varies."""
    for op in block.ops:
        if isinstance(op, scf.ReduceOp | scf.YieldOp):
            continue
        if isinstance(op, scf.ForOp):
            _jam_for(lanes_, op, b, env, width)
        elif isinstance(op, scf.IfOp) and op in lanes_.selects:
            _select(op, b, env, width)
        elif isinstance(op, scf.IfOp):
            _jam_if(lanes_, op, b, env, width)
        elif any(r in lanes_.varying for r in op.results) or not op.results:
            for k in range(width):
                b.add(op.clone(value_mapper=env[k]))
        else:
            once = b.add(op.clone(value_mapper=env[0]))
            for k in range(1, width):
                env[k].update(zip(op.results, once.results, strict=True))


def _per_lane(values: list[SSAValue], env: Env, width: int) -> list[SSAValue]:
    """Each value in every lane, value by value (lanes side by side: the SLP
    vectoriser's order)."""
    return [_lane(env, k, v) for v in values for k in range(width)]


def _bind(olds: list[SSAValue], news: list[SSAValue], env: Env, width: int) -> None:
    for j, old in enumerate(olds):
        for k in range(width):
            env[k][old] = news[j * width + k]


def _jam_for(lanes_: Lanes, op: scf.ForOp, b: CodeBuilder, env: Env, width: int) -> None:
    """One loop for all lanes, carrying each lane's values; a loop whose upper bound
    varies (`Lanes.masked`) runs to the largest, each lane keeping its values once past
    its own bound (Note [Lanes in lock-step])."""
    carried = _per_lane(list(op.iter_args), env, width)
    bounds = [_lane(env, k, op.ub) for k in range(width)]
    ub = bounds[0]
    if op in lanes_.masked:
        for other in bounds[1:]:
            ub = b.val(arith.MaxSIOp(ub, other))
    old = op.body.block
    new = Block(arg_types=[old.args[0].type, *(v.type for v in carried)])
    for k in range(width):
        env[k][old.args[0]] = new.args[0]
    _bind(list(old.args[1:]), list(new.args[1:]), env, width)
    inner = CodeBuilder.at_end(new)
    _jam(lanes_, old, inner, env, width)
    term = old.last_op
    assert isinstance(term, scf.YieldOp)
    nexts = _per_lane(list(term.operands), env, width)
    if op in lanes_.masked:
        active = [inner.val(arith.CmpiOp(new.args[0], bounds[k], "slt")) for k in range(width)]
        olds = list(new.args[1:])
        nexts = [inner.select(active[j % width], v, olds[j]) for j, v in enumerate(nexts)]
    inner.add(scf.YieldOp(*nexts))
    loop = b.add(scf.ForOp(_lane(env, 0, op.lb), ub, _lane(env, 0, op.step), carried,
                           Region(new)))
    _bind(list(op.results), list(loop.results), env, width)


def _jam_if(lanes_: Lanes, op: scf.IfOp, b: CodeBuilder, env: Env, width: int) -> None:
    """A branch every lane takes the same way: one branch, each arm jammed."""
    regions: list[Region | None] = []  # None: an absent else
    for region in op.regions:
        if not region.blocks:
            regions.append(None)
            continue
        new = Block()
        inner = CodeBuilder.at_end(new)
        _jam(lanes_, region.block, inner, env, width)
        term = region.block.last_op
        assert isinstance(term, scf.YieldOp)
        inner.add(scf.YieldOp(*_per_lane(list(term.operands), env, width)))
        regions.append(Region(new))
    types = [r.type for r in op.results for _ in range(width)]
    then, otherwise = regions
    assert then is not None  # the then region always has its block
    branch = b.add(scf.IfOp(_lane(env, 0, op.cond), types, then, otherwise))
    _bind(list(op.results), list(branch.results), env, width)


def _select(op: scf.IfOp, b: CodeBuilder, env: Env, width: int) -> None:
    """A cheap branch whose condition varies: both arms in every lane, then a select
    per result (Note [Lanes in lock-step])."""
    for k in range(width):
        arms: list[list[SSAValue]] = []
        for region in op.regions:
            if not region.blocks:
                arms.append([])
                continue
            for o in region.block.ops:
                if isinstance(o, scf.YieldOp):
                    arms.append([_lane(env, k, v) for v in o.operands])
                else:
                    b.add(o.clone(value_mapper=env[k]))
        if not op.results:
            continue
        cond = _lane(env, k, op.cond)
        for r, t, e in zip(op.results, arms[0], arms[1], strict=True):
            env[k][r] = b.select(cond, t, e)

