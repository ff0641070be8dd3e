"""The default optimisation pipeline (`-O`) and the driver that runs passes to a fixed point.

The order follows the thesis: inlining first, since every other optimisation is
intraprocedural (5.1); simplification (5.3) before anything that pattern-matches
definitions; hindrance removal (chapter 9) before the Rebinder (chapter 6), whose
hoisting it enables (9.1.3), and before fusion (chapter 7), whose legality it enables.
One round of the list is rarely enough (each pass exposes work for the others: an
inlined body has constants to fold, a rewritten size can be hoisted, a hoisted size
merged with another, a merged size proves a bounds check redundant...), so `optimise`
repeats the list until the module stops changing.

`-O` is one list of passes with options per target (`default_pipeline(target)`), as
Futhark has a pipeline per back end: the cost model of recomputation differs between
the CPU and the GPU (Note [One pipeline per target]).

`optimise(module, verify=True)` is what tests use: after every pass it verifies the
module and checks uniqueness (`verify-uniqueness`), as Futhark's pipeline type-checks
after every pass; a failure is the compiler's fault, reported as a `PipelineError`
naming the pass, with the IR it produced.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, parse_spec

from l0.collector import sparing_the_input
from l0.passes import PASSES
from l0.passes.analysis.walk import walk_ops
from l0.targets import pipeline_targets

DEFAULT: tuple[str, ...] = (
    # 5.1: all later passes are intraprocedural; inlining hands them the callee's SOACs,
    # sizes and checks (and the sizes of arrays returned by calls).
    "inline",
    # 5.3: copy/constant propagation and folding, index folding, pruning of checks that
    # hold: size-hindrance then sees `iota(n)` with `n` folded, literals instead of copies.
    "simplify",
    # 9.1: sizes of SOAC outputs become sizes of inputs or parameters, removing uses
    # that block fusion, and making checks inside loops and lambdas loop-invariant.
    "size-hindrance",
    # 9.2: `b[i]` of a cheap `b = map(f, a)` becomes `f(a[i])`, another fusion
    # hindrance gone; after size-hindrance, so that `b`'s other uses are already gone.
    "inline-map-index",
    # 6: hoist (now loop-invariant) sizes and checks out of loops and lambdas (9.1.3)
    # and merge equal computations, e.g. the many `size(0, a)` size-hindrance creates.
    "rebind",
    # Bounds checks proved by a loop bound or an earlier check: needs CSE to have made
    # the loop bound and the checked size one value.
    "bounds",
    # Fold what the passes above left: `Checked` certificates, constant selects of
    # size-hindrance, conditions made constant by bounds.
    "simplify",
    # Remove what no longer has uses: maps whose only uses were sizes or indexings,
    # functions inlined everywhere.
    "dce",
    # 7 and 9.1.2: fusion, after hindrance removal and the Rebinder (whose CSE makes
    # equal inputs one value) and after dce (an unused copy of an output is a use that
    # blocks fusion); the fixed-point loop then gives the "fuse, remove hindrances, fuse
    # again" order of 9.1.2 that undoes hindrances size-hindrance itself may create,
    # and cleans up after fusion (replicates left unused, hoisting out of fused lambdas).
    # 8.3: ISWIM before fusion: a reduction or scan of rows with an element-wise array
    # operator becomes a map over its columns, and fuse then composes the producer of
    # the rows into the column nest (FUSE-ISWIM); on the cpu only where it pays (Note
    # [One pipeline per target]).
    "iswim",
    "fuse",
)
"""The passes of `-O`, in order (one round; `optimise` repeats it to a fixed point)."""

TARGETS: tuple[str, ...] = pipeline_targets()
"""The targets `-O` is made for (`default_pipeline`): those the back ends' records name
(`l0.targets.Target.pipeline`; `gpu-sim` is optimised as `gpu`, whose kernels it
runs, and `interp` as `cpu`)."""

TARGET_OPTIONS: dict[str, dict[str, str]] = {
    "gpu": {"inline-map-index": "transcendental-weight=1"},
    "cpu": {"iswim": "scalar-rows-only=true"},
}
"""Per target, the options its `-O` gives passes of `DEFAULT` (in `-p` syntax, without
the braces); a target or pass not named here runs the pass's defaults (Note [One
pipeline per target])."""


# Note [One pipeline per target]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The passes of `-O` are the same on every back end, and so is their order; what
# differs is the price of recomputing work against the price of a trip through
# memory, which `inline-map-index` weighs when it recomputes an element of a map in
# the map's consumers instead of reading it from the array the map builds (Note
# [Transcendental functions] in `l0.passes.inline_map_index`):
#
# * cpu and multicore: an `exp` or a `log` costs tens of instructions, and the array
#   it saves is written and read back through caches, often without reaching memory.
#   Recomputing LocVolCalib's volatility (an `exp` and a `log` per point, read by four
#   consumer maps) made the benchmark 1.4 to 1.7 times slower on the CPU
#   (benchmarks/README.md, R1's miss 1). So each transcendental function weighs 8
#   arithmetic operations (the pass's default), and an element like it, read by
#   several consumers, is kept (one reader recomputes it at any weight: Note [The only
#   reader]).
# * gpu: the balance is the other way. A GPU of the H100's class does about 67 TFLOP/s
#   in f64 but moves about 3.35 TB/s: writing a double and reading it back (16 bytes)
#   takes the time of some 300 floating-point operations, more than the 20 to 30
#   instructions of the device library's `exp`. And every map left unfused is a kernel
#   launch and a full trip of its output through device memory (Black-Scholes with
#   every intermediate materialised took about 18 times as long as one fused kernel on
#   an H100: docs/gpu.md). So on the gpu a transcendental function weighs 1, like any
#   arithmetic (`inline-map-index{transcendental-weight=1}`), and a map of maps like
#   LocVolCalib's volatility is recomputed in each of its consumers, its map of maps
#   gone (`test/programs/fusion/dup_volatility.l0`: 6 maps on the cpu, 4 on the gpu).
#
# `iswim` (thesis 8.3) turns a fold of rows with an element-wise array operator
# (`reduce(fn (a, b) => map(op +, zip(a, b)), ne, rows)`) into a map over the columns
# of one fold per column. On the gpu and multicore the columns run in parallel and
# the fold stops being a host loop of one launch (or region) per row, so it always
# runs. (Multicore could instead run the fold of rows as its chunked reduction, a
# chunk of rows per thread into an accumulator of its own; measured slower than the
# columns on histograms of 16-256 buckets and a k-means centre update: docs/backend.md,
# "Reductions with array operators".) On the cpu (one core) the new form makes one
# pass over the rows per column: it pays when each pass reads one element per row, and
# costs when it re-reads wide rows. Measured on a loaded 2-core machine, `cpu`, 10^6
# rows, median of 5 runs, three repeats (the plain fold / the interchanged one): a
# histogram of 16 buckets (rows one-hot from a `[int]`, fused into the column folds)
# 35-42 ms / 2.3-14 ms; a
# k-means centre update (25 sums from points of 4 reals: each column re-reads the
# points) 202-251 ms / 271-294 ms; a column sum of a 10^6 x 16 parameter (columns read
# through the transposition) 53-70 ms / 41-64 ms, no clear difference. So the cpu's
# `-O` runs `iswim{scalar-rows-only=true}`: only a fold whose every array is made for
# it by a map over arrays of scalars whose lambda only maps arrays defined outside it
# (a one-hot row) and can neither fail nor print, which fusion composes into passes
# that read one element per row (SWAP-TRANSPOSE); any other producer could stay
# unfused, its rows read through the transposition.
#
# The other passes have no cost model that depends on the target; what differs besides
# is the flattening the gpu runs after the fixed point (`FLATTENING`, Note [Flattening
# after the fixed point]). The compile cache
# keys an entry by the pipeline's target (`l0.api`), so code optimised for one back
# end is never taken for another's.


FLATTENING: dict[str, tuple[str, ...]] = {
    "gpu": ("interchange{parallel-bodies=true}", "distribute", "simplify", "dce"),
    "multicore": ("interchange{parallel-bodies=true versioned=true}",
                  "distribute{versioned=true}", "simplify", "dce"),
}
"""Per target, the passes its `-O` runs after the fixed point of `DEFAULT`, to a fixed
point of their own (Note [Flattening after the fixed point]); a target not named here
runs none."""


# Note [Flattening after the fixed point]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Fusion makes nests; flattening takes them apart into perfect nests, one kernel each:
# `interchange` moves a sequential loop around parallel work out of a map, and
# `distribute` splits a map whose lambda holds several SOACs into a map per SOAC (and
# per run of scalar code between them). Run in the same list as `fuse`, the two would
# undo each other round after round: `fuse` merges the distributed maps back into one.
# So a target's flattening passes (`FLATTENING`) run after `DEFAULT` has reached its
# fixed point, as Futhark extracts kernels after its fusion, with `simplify` and `dce`
# to clean up after them (the `soac.checked` certificates of the distributed pieces,
# maps left without uses).
#
# * gpu: a kernel runs only the outermost parallel level in parallel, so a map over a
#   few elements whose lambda holds the work (LocVolCalib's 16 strikes, each with a
#   time loop over grid-wide maps) leaves the device idle. Flattened, the time loop
#   runs on the host and each step is a few kernels over strikes x rows
#   (docs/gpu.md, "Kernel forms"). The interchange moves only loops around parallel
#   work (Note [Only loops around parallel work] in `l0.passes.interchange`).
# * cpu: one thread; the flattened form only adds intermediate arrays.
# * multicore: flattened, the time loop on the host opens a parallel region per step
#   and allocates the step's intermediates, which costs more than the outer level's
#   parallelism leaves idle when the outer size keeps the threads busy (LocVolCalib
#   Small on 2 threads: 2.8 to 3.5 s unflattened, 6.8 to 9.2 s flattened, docs/gpu.md)
#   and pays only below the thread count. So multicore's passes keep each nest they
#   flatten as it was beside the flattened copy (`versioned`), and the outer size
#   chooses at run time (Note [Versions of a nest] in `l0.passes.cores.versions`).


CHECKS = frozenset({"verify-uniqueness"})
"""Registered passes that check the IR and change nothing."""

MAX_ROUNDS = 8
"""Rounds of the pipeline after which `optimise` stops even if the module still changes."""


class PipelineError(Exception):
    """A pass crashed, or left IR that does not verify or breaks uniqueness: a compiler
    bug. `pass_name` is the pass (None: the IR given to the pipeline was already
    wrong); `ir` is the module as the pass left it."""

    def __init__(self, pass_name: str | None, problem: str, ir: str) -> None:
        culprit = "the input of the pipeline" if pass_name is None else f"pass '{pass_name}'"
        dump = "input" if pass_name is None else f"after '{pass_name}'"
        super().__init__(f"{culprit} {problem}\n--- IR {dump} ---\n{ir}")
        self.pass_name = pass_name
        self.problem = problem
        self.ir = ir


def default_pipeline(target: str = "cpu") -> list[str]:
    """What `-O` runs for `target` (one of `TARGETS`): `DEFAULT` without the passes not
    registered (yet), each with the target's options (`TARGET_OPTIONS`) as a pass spec
    `name{option=value}`. Raises `ValueError` for an unknown target."""
    if target not in TARGETS:
        raise ValueError(f"unknown target '{target}'; expected one of: {', '.join(TARGETS)}")
    options = TARGET_OPTIONS.get(target, {})
    return [f"{name}{{{options[name]}}}" if name in options else name
            for name in DEFAULT if name in PASSES]


def flattening_pipeline(target: str = "cpu") -> list[str]:
    """What `-O` runs for `target` after the fixed point of `default_pipeline(target)`
    (`FLATTENING`; empty for most targets). Raises `ValueError` for an unknown target."""
    if target not in TARGETS:
        raise ValueError(f"unknown target '{target}'; expected one of: {', '.join(TARGETS)}")
    return list(FLATTENING.get(target, ()))


def optimisation_passes() -> list[str]:
    """Every registered pass that transforms the IR (not the checks), sorted by name."""
    return sorted(name for name in PASSES if name not in CHECKS)


def _instantiate(specs: Sequence[str]) -> list[ModulePass]:
    """The passes of `specs`, each a name or a spec with options (`name{option=value}`,
    as `l0-opt -p` takes them)."""
    parsed = [_parsed(s) for s in specs]
    unknown = [s.name for s in parsed if s.name not in PASSES]
    if unknown:
        raise ValueError(
            f"unknown pass '{unknown[0]}'; expected one of: {', '.join(sorted(PASSES))}"
        )
    return [_made(PASSES[p.name](), s) for p, s in zip(parsed, specs, strict=True)]


@functools.cache
def _parsed(spec: str) -> ArgSpec:
    return parse_spec(spec)


@functools.cache
def _made(pass_class: type[ModulePass], spec: str) -> ModulePass:
    """The pass `spec` names, made once per class and spec: every pass is a frozen
    dataclass with no mutable field (`test_passes_are_immutable`), so one instance
    serves every pipeline run, and `from_pass_spec` (which evaluates the class's type
    hints) runs once, not on every `optimise`."""
    return pass_class.from_pass_spec(_parsed(spec))


def module_text(module: ModuleOp) -> str:
    """`module` printed (even when it does not verify), for error reports."""
    from io import StringIO

    from xdsl.printer import Printer

    out = StringIO()
    try:
        Printer(stream=out).print_op(module)
    except Exception as err:  # the IR is broken enough to break the printer
        out.write(f"\n<the printer failed: {type(err).__name__}: {err}>")
    return out.getvalue()


@dataclass
class _Fingerprint:
    """The structure of a module (`_fingerprint`)."""

    ops: list[tuple[object, ...]]
    """Every op in textual order: the op, its parent and its operands, compared by
    identity, then copies of its properties and attributes, compared by value."""
    op_types: set[type[Operation]]
    """The classes of the ops in the module (Note [Passes known to change nothing])."""

    def same(self, other: _Fingerprint) -> bool:
        return self.ops == other.ops


_NOTHING: Mapping[str, Attribute] = MappingProxyType({})
"""The properties or attributes of an op that has none (equal to `{}`, and shared)."""


def _fingerprint(module: ModuleOp, earlier: _Fingerprint | None = None) -> _Fingerprint:
    """The structure of `module`, cheap to take and compare (printing costs twenty times
    more): every op in textual order with its parent, operands, properties and
    attributes (Note [Fingerprints by identity]). An op's entry in `earlier`, the
    fingerprint before a pass, is reused when nothing in it has changed
    (Note [Fingerprints reuse their entries])."""
    old = earlier.ops if earlier is not None else []
    n_old = len(old)
    ops: list[tuple[object, ...]] = []
    op_types: set[type[Operation]] = set()
    add, add_type = ops.append, op_types.add
    i = 0
    for op in walk_ops(module):
        add_type(type(op))
        parent, operands = op.parent, op._operands  # the op's own tuple, not a view
        properties, attributes = op.properties, op.attributes
        entry = old[i] if i < n_old else None
        i += 1
        if entry is not None and entry[0] is op and entry[1] is parent \
                and (entry[2] is operands or entry[2] == operands) \
                and entry[3] == properties and entry[4] == attributes:
            add(entry)
        else:
            add((op, parent, operands, properties.copy() if properties else _NOTHING,
                 attributes.copy() if attributes else _NOTHING))
    return _Fingerprint(ops, op_types)


# Note [Fingerprints by identity]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The fixed-point loop compares the module before and after every pass, which on a
# program of thousands of ops costs as much as a cheap pass when done by value. Ops,
# blocks and values compare by identity (xDSL defines their `==` as `is`, and list
# and tuple comparison tries `is` first), and that is meaningful because the
# fingerprint holds every object it names, so none can be freed and its identity
# reused by a new object: an object of the new module that is one in the old
# fingerprint is that object. One tuple per op: the op, its parent block and its
# operands' tuple, then copies of its properties and attributes (`_NOTHING` when it
# has none), which are values (a pass may replace one with an equal one, or change
# the op's dictionary in place) and compare by value.


# Note [Fingerprints reuse their entries]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Most passes change few ops, or none, yet the fingerprint after a pass built a tuple
# and two copies per op of the module: a tenth of `-O` on a thousand sibling maps.
# Taking it after a pass, `optimise` hands it the fingerprint from before, and the
# op at each position whose entry there still describes it (the same op, parent and
# operands, equal properties and attributes: what comparing a new entry with it
# would find) gets that very entry. An unchanged module then costs a walk and the
# comparisons, no allocation, and comparing the two fingerprints is a pass over two
# lists of identical objects. The result is the fingerprint taken afresh, entry for
# entry equal, so whether a pass changed the module is decided as before.


def _context() -> Context:
    from l0.dialects.context import l0_context

    return l0_context()


def check(module: ModuleOp, ctx: Context, after: str | None) -> None:
    """Verify `module` and check uniqueness (`verify-uniqueness`); a failure is a
    `PipelineError` blaming pass `after` (None: the input of the pipeline)."""
    try:
        module.verify()
    except Exception as err:
        problem = "left IR that does not verify" if after else "does not verify"
        raise PipelineError(after, f"{problem}: {err}", module_text(module)) from err
    try:
        PASSES["verify-uniqueness"]()().apply(ctx, module)
    except Exception as err:
        problem = "broke uniqueness" if after else "breaks uniqueness"
        raise PipelineError(after, f"{problem}: {err}", module_text(module)) from err


def run_pass(p: ModulePass, module: ModuleOp, ctx: Context, *, verify: bool) -> None:
    """Apply one pass; with `verify`, `check` the module afterwards. Any failure becomes
    a `PipelineError` that names the pass."""
    try:
        p.apply(ctx, module)
    except (RecursionError, MemoryError):
        raise  # resource limits: reported as such by the drivers
    except Exception as err:
        raise PipelineError(p.name, f"failed: {type(err).__name__}: {err}",
                            module_text(module)) from err
    if verify:
        check(module, ctx, p.name)


def optimise(
    module: ModuleOp,
    names: Sequence[str] | None = None,
    *,
    verify: bool = False,
    max_rounds: int = MAX_ROUNDS,
    ctx: Context | None = None,
    target: str = "cpu",
) -> int:
    """Run the passes `names` (default: `default_pipeline(target)`; a name may carry
    options, `name{option=value}`) over `module` in place, in
    order and then again from the first, until every pass in the list has run once
    more without changing the module (`_fingerprint`), or `max_rounds` times the list
    has run. Returns the number of passes run, counting those skipped because they
    are known to change nothing (Note [Passes known to change nothing]).

    One pass changing nothing does not end the loop: the module is at a fixed point
    when every pass of the list, one after the other, has left it as it was.

    With `verify`, the module is verified and checked for uniqueness before the first
    pass and after every pass (`check`). Raises `ValueError` for an unknown pass name
    or target and `PipelineError` for a failing pass.
    """
    stages = [names] if names is not None \
        else [default_pipeline(target), flattening_pipeline(target)]
    with sparing_the_input():  # Note [The cycle collector and the compiler], l0.collector
        return sum(_optimise(module, stage, verify=verify, max_rounds=max_rounds, ctx=ctx)
                   for stage in stages)


def _optimise(module: ModuleOp, names: Sequence[str], *, verify: bool,
              max_rounds: int, ctx: Context | None) -> int:
    passes = _instantiate(names)
    ctx = ctx or _context()
    if verify:
        check(module, ctx, None)
    if not passes:
        return 0
    state = _fingerprint(module)
    unchanged = 0  # passes run in a row without changing the module
    runs = 0
    version = 0  # how many passes have changed the module
    clean: dict[ModulePass, int] = {}  # pass -> the version it last left unchanged
    unchecked: str | None = None  # the first pass run since the last check
    while unchanged < len(passes) and runs < max_rounds * len(passes):
        p = passes[runs % len(passes)]
        runs += 1
        if clean.get(p) == version or not _may_rewrite(p, state):
            unchanged += 1
            continue
        run_pass(p, module, ctx, verify=False)
        after = _fingerprint(module, state)
        if after.same(state):
            unchanged += 1
            clean[p] = version
            unchecked = unchecked or p.name  # Note [Checking only what changed]
        else:
            unchanged = 0
            version += 1
            if verify:
                check(module, ctx, p.name)
            unchecked = None
        state = after
    if verify and unchecked:
        check(module, ctx, unchecked)
    return runs


# Note [Checking only what changed]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# With `verify`, the module is checked (`check`: the verifier and `verify-uniqueness`)
# after every pass that changed it, not after every pass: most runs of most passes in
# the fixed-point loop change nothing, and checking the same module again found
# nothing new while costing three times the pipeline itself (the corpus on three
# targets: 31 s of checks against 10 s of passes). The fingerprint does not see
# everything (a type set in place on a value), so a pass whose run it takes for no
# change is still checked, once, at the end of the list's loop when no check came
# after it: a broken module never leaves the pipeline, though the blame may then fall
# on the first such pass rather than the one that broke it.


def _may_rewrite(p: ModulePass, state: _Fingerprint) -> bool:
    """Whether the module `state` describes has ops of a class `p` rewrites (True for
    a pass that does not say: `REWRITES`, Note [Passes known to change nothing])."""
    rewrites: tuple[type[Operation], ...] | None = getattr(p, "REWRITES", None)
    return rewrites is None or not state.op_types.isdisjoint(rewrites)


# Note [Passes known to change nothing]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The fixed point needs a round in which no pass changes the module, and most runs
# of most passes change nothing; on a program of thousands of ops each such run
# still costs a visit of every op and a fingerprint. Two kinds of run are skipped,
# counted as runs that changed nothing, since they would be:
#
# * a pass that ran on this very module and left it unchanged (no pass has changed
#   the module since, `clean`): passes are deterministic, so it would again. The
#   default list has `simplify` twice; whichever ran last stands for both.
# * a pass whose class attribute `REWRITES` lists the op classes it can rewrite,
#   none of which is in the module (`_Fingerprint.op_types`, gathered by the walk the
#   fingerprint makes anyway): `bounds` rewrites checks, `size-hindrance` sizes,
#   `inline-map-index` indexing, and each pass run alone returns at once too
#   (`contains_op`) rather than build its analyses for nothing.
#
# The module goes through the same states as without skipping, so `-O` produces the
# same IR, only sooner.


@dataclass(frozen=True)
class OptimisePass(ModulePass):
    """Run the default pipeline to a fixed point (`l0-opt -O`; not a registered pass).

    Options: `verify` checks the IR and uniqueness after every pass (`check`);
    `target` (default cpu) picks the pipeline (`default_pipeline`; `l0-opt --target`)."""

    name = "optimise"

    verify: bool = False
    target: str = "cpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        optimise(op, verify=self.verify, ctx=ctx, target=self.target)
