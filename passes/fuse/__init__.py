"""`fuse`: producer-driven SOAC fusion (thesis chapter 7).

`FusePass` (the pass, its rules and examples are in its docstring) is two rewrite
patterns applied bottom-up until nothing changes:

* `FuseProducer`: a `map` or `filter` whose every output feeds SOACs it can fuse with
  is composed into each of them and erased: the T2 reduction of 7.4, with SSA use
  lists for the thesis's ARRINPUTS/UNFUSIBLE sets (`legality.py`) and the compositions
  of 7.2 (`compose.py`);
* `FuseReplicate`: an input `replicate(n, v)` of a map or fold becomes `v` used
  directly in the lambda (7.1.1 "replicate fusion");
* `FuseIswim`: a scan of row-wise maps over transposed arrays becomes per-row scans
  (8.3, where the interchange's transpositions cancel), and `SinkIntoIswim`: a SOAC
  consuming its result moves into the new form, `iswim_rule.py`.
* `IndexAsRow`: `b[i]` in the lambda of a SOAC over `iota(n)`, for a map's output `b`
  of n rows, becomes a row of `b` as an input, so that its producer fuses, and
  `IndexOfInputRow`: `b[i, k]` anywhere in such a lambda, `b` an input beside the
  iota, reads `b`'s row argument instead (`iota_rows.py`).
* `IntoBranches`: a SOAC whose input an `if` computes, where a branch builds it with
  a map or filter, moves into both branches to meet it (`into_branches.py`).

Modules: `legality.py` (which pairs may fuse), `compose.py` (composing lambdas),
`repeated_checks.py` (moving a fold's neutral element's check the producer repeats),
`transpose.py` (moving a transposition between them out of the way, 8.1),
`scanomap.py` (a map into a scan), `reshape.py` (moving a reshape between them onto
the producer's inputs, 8.2), `iswim_rule.py` (interchanging a scan of transposed
arrays with its inner maps, 8.3).

When those patterns are done, two more rules run, each in its own module, in this
order (`FusePass.apply`, repeated until nothing changes):

* `horizontal.py`: sibling SOACs of one size and no dependence become one
  (`fuse_siblings`), which often gives a map one consumer where it had several;
* `duplicate.py`: a map still unfused is split between its consumers, duplicating only
  cheap work (`SplitProducer`; its cost model is Note [What may be duplicated]).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TextIO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from l0.dialects import soac
from l0.passes.analysis.consumption import Consumption
from l0.passes.analysis.effects import lambda_effects
from l0.passes.analysis.speculation import Speculation
from l0.passes.cores.rewrite_walker import RewriteWalker
from l0.passes.fuse.compose import (
    as_redomap,
    compose_guarded,
    compose_map,
    dedupe_inputs,
    detach_region,
    merged_certs,
    rebuilt,
    rows_block,
)
from l0.passes.fuse.duplicate import SplitProducer
from l0.passes.fuse.horizontal import explain_apart, fuse_siblings
from l0.passes.fuse.into_branches import IntoBranches
from l0.passes.fuse.iota_rows import IndexAsRow, IndexOfInputRow
from l0.passes.fuse.iswim_rule import FuseIswim, SinkIntoIswim
from l0.passes.fuse.legality import Fusibility, regular
from l0.passes.fuse.repeated_checks import movable_checks, move_checks
from l0.passes.fuse.reshape import pull_reshape, uniform_reshape
from l0.passes.fuse.reshape import why_not as why_not_pull_reshape
from l0.passes.fuse.scanomap import SCAN_CONSUMERS, as_scanomap
from l0.passes.fuse.transpose import (
    can_push,
    moved_depth,
    nest_levels,
    pull_transpose,
    push_transpose,
    swap_transpose,
    swappable,
    uniform_transpose,
)

_MAP_CONSUMERS = (soac.MapOp, soac.ReduceOp, soac.RedomapOp, *SCAN_CONSUMERS)
_FILTER_CONSUMERS = (soac.FilterOp, soac.ReduceOp, soac.RedomapOp)


@dataclass
class _Analyses:
    """The module's analyses, kept across rewrites: a rewrite forgets only the facts
    that depend on where ops are (Note [Consumption queries in linear time] in
    `l0.passes.analysis.consumption`), so that fusing n SOACs does not walk the module
    n times."""

    module: ModuleOp
    failing: frozenset[str]
    _fusibility: Fusibility | None = field(default=None)

    def get(self) -> Fusibility:
        if self._fusibility is None:
            self._fusibility = Fusibility(self.failing, Consumption(self.module))
        return self._fusibility

    def changed(self) -> None:
        if self._fusibility is not None:
            self._fusibility.consumption.forget_order()


def _fused(rewriter: PatternRewriter, producer: soac.MapOp | soac.FilterOp,
           producer_block: Block, consumer: Operation) -> tuple[Operation, list[SSAValue]]:
    """The SOAC computing `consumer`'s results with `producer` composed into it, and
    the values that replace `consumer`'s results. Takes `consumer`'s regions and
    `producer_block`."""
    certs = merged_certs(consumer, producer)
    original = consumer
    outer: Region | None = None
    if isinstance(consumer, soac.ReduceOp):
        # The redomap `as_redomap` would make, built once the lambdas are composed
        # rather than also before (building an op costs more than composing them).
        outer = consumer.body.clone()
        block, first = consumer.body.block, len(consumer.neutral)
    else:
        if isinstance(consumer, soac.ScanOp):
            consumer = as_scanomap(consumer)
        assert isinstance(consumer, soac.MapOp | soac.FilterOp | soac.RedomapOp
                          | soac.ScanomapOp)
        block, first = rows_block(consumer)
    inputs = list(consumer.inputs)
    if isinstance(producer, soac.MapOp):
        new_inputs = compose_map(rewriter, block, first, inputs, producer, producer_block)
        new_inputs = dedupe_inputs(rewriter, block, first, new_inputs)
    else:
        otherwise = None if isinstance(consumer, soac.FilterOp) else list(block.args[:first])
        new_inputs = compose_guarded(rewriter, block, first, inputs, producer, producer_block,
                                     otherwise)
    if isinstance(original, soac.ReduceOp):
        assert outer is not None
        new: Operation = soac.RedomapOp(list(original.neutral), new_inputs, outer,
                                        detach_region(original.body), certs)
        new.attributes |= original.attributes
    else:
        new = rebuilt(consumer, new_inputs, certs)  # type: ignore[arg-type]  # legality made it a Consumer
    if isinstance(new, soac.FilterOp):  # its results follow its inputs, the producer's
        where: dict[SSAValue, int] = {r: i for i, r in enumerate(producer.results)}
        values: list[SSAValue] = [new.results[where[v]] for v in inputs]
    else:
        values = list(new.results)
    if consumer is not original:
        consumer.erase()  # the intermediate scanomap, now without regions
    return new, values


@dataclass
class FuseProducer(RewritePattern):
    """A `map` or `filter` composed into all its consumers, then erased."""

    analyses: _Analyses
    unfused: dict[Operation, str] = field(default_factory=dict)
    """Producers left alone, with the reason (for `fuse{explain=true}`)."""

    def problem(self, op: soac.MapOp | soac.FilterOp) -> list[Operation] | str:
        """The consumers to fuse `op` into, or why it may not be fused."""
        if not regular(op):
            return "its rows may differ in shape (the irregularity check would vanish)"
        check = self.analyses.get()
        accepts = _MAP_CONSUMERS if isinstance(op, soac.MapOp) else _FILTER_CONSUMERS
        consumers = check.consumers(op, accepts)
        if isinstance(consumers, str):
            return consumers
        outputs = set(op.results)
        for c in consumers:
            if isinstance(op, soac.FilterOp) and not all(v in outputs for v in c.inputs):  # type: ignore[attr-defined]  # consumers are SOACs
                return "a consumer of the filter has other inputs too"
            why = check.problem(op, c)
            if why is not None:
                return why
        return consumers

    def transposed_route(self, op: soac.MapOp) -> (
            tuple[str, int, int, list[soac.TransposeOp], list[Operation]] | str):
        """Thesis 8.1: when every output of `op` reaches its consumers through the same
        transposition, ("pull" or "push", k, n, the transposes, the consumers) if
        moving the transposition lets `op` fuse; else why not."""
        found = uniform_transpose(op)
        if found is None:
            return "its outputs are transposed in different ways"
        k, n, transposes = found
        through = [t.result for t in transposes]
        check = self.analyses.get()
        consumers = check.consumers(op, _MAP_CONSUMERS, through)
        if isinstance(consumers, str):
            return f"after a transposition, {consumers}"
        for c in consumers:
            why = check.problem(op, c, through)
            if why is not None:
                return why
        # Moving a transposition reorders the elements a nest computes: only a nest
        # that can neither fail nor print may be reordered.
        failing = self.analyses.failing
        depth, needed = len(nest_levels(op)), moved_depth(k, n)
        if depth >= needed and not lambda_effects(op, failing):
            return "pull", k, n, transposes, consumers
        if all(can_push(c, set(through), k, n) and not lambda_effects(c, failing)
               for c in consumers):
            return "push", k, n, transposes, consumers
        if swappable(op, k, n, transposes) and not lambda_effects(op, failing):
            return "swap", k, n, transposes, consumers
        mine = (f"it is a map nest of depth {depth}, and the transposition moves "
                f"{needed} dimensions" if depth < needed else "it may fail or print")
        return ("its outputs are transposed, and neither it nor its consumers are map "
                "nests deep enough to move the transposition, that can neither fail nor "
                f"print (8.1; {mine})")

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, soac.MapOp | soac.FilterOp):
            return
        consumers = self.problem(op)
        # PULL-RESHAPE (8.2): the reshapes move onto the inputs, then the walker comes
        # back to the nest the producer has become.
        if isinstance(consumers, str) and isinstance(op, soac.MapOp) and regular(op):
            reshapes = uniform_reshape(op)
            if reshapes is not None:
                why = why_not_pull_reshape(op, reshapes, self.analyses.get(),
                                           self.analyses.failing, _MAP_CONSUMERS)
                if why is not None:
                    self.unfused[op] = why
                    return
                pull_reshape(rewriter, op, reshapes)
                self.analyses.changed()
                return
        if isinstance(consumers, str) and isinstance(op, soac.MapOp) and regular(op) \
                and all(isinstance(u.operation, soac.TransposeOp)
                        for r in op.results for u in r.uses):
            route = self.transposed_route(op)
            if isinstance(route, str):
                self.unfused[op] = route
                return
            how, k, n, transposes, targets = route
            if how == "pull":
                pull_transpose(rewriter, op, k, n, transposes)
            elif how == "swap":
                swap_transpose(rewriter, op, transposes)
            else:
                through: set[SSAValue] = {t.result for t in transposes}
                for c in targets:
                    assert isinstance(c, soac.MapOp)
                    push_transpose(rewriter, c, k, n, through)
            self.analyses.changed()
            return  # the walker comes back to the producer, now fusible directly
        if isinstance(consumers, str) and isinstance(op, soac.MapOp) and regular(op) \
                and self.move_repeated_checks(op, rewriter):
            return  # the walker comes back to the producer, now fusible directly
        if isinstance(consumers, str):
            self.unfused[op] = consumers
            return
        for i, c in enumerate(consumers):
            last = i == len(consumers) - 1
            region = op.body if last else op.body.clone()
            new, values = _fused(rewriter, op, region.block, c)
            rewriter.replace(c, new, values)
        rewriter.erase(op)
        self.analyses.changed()

    def move_repeated_checks(self, op: soac.MapOp, rewriter: PatternRewriter) -> bool:
        """Note [A check the producer repeats]: when checks of a neutral element that
        `op` repeats are all that keep it from its one consumer, move them; whether it
        did."""
        check = self.analyses.get()
        consumers = check.consumers(op, _MAP_CONSUMERS)
        if isinstance(consumers, str) or len(consumers) != 1:
            return False
        consumer = consumers[0]
        if check.problem(op, consumer, on_the_way=False) is not None:
            return False
        checks = movable_checks(op, consumer, self.analyses.failing)
        if checks is None:
            return False
        move_checks(rewriter, op, consumer, checks)
        self.analyses.changed()
        return True

    def explain(self, module: ModuleOp, out: TextIO) -> None:
        """Say why each producer left in `module` was not fused, in program order."""
        for op in module.walk():
            why = self.unfused.get(op)
            if why is None or why == "no consumer":
                continue
            loc = getattr(op, "loc", None)
            where = f"{loc.data}: " if loc is not None else ""
            name = op.results[0].name_hint if op.results else None
            what = f"'{op.name}'" + (f" %{name}" if name else "")
            print(f"{where}remark: {what} not fused: {why}", file=out)


@dataclass
class FuseReplicate(RewritePattern):
    """An input `replicate(n, v)` of a `map`, `reduce` or `redomap` whose lambda does
    not consume its row becomes `v` itself inside the lambda (another input keeps the
    iteration count)."""

    analyses: _Analyses

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, soac.MapOp | soac.ReduceOp | soac.RedomapOp) or len(op.inputs) < 2:
            return
        rows = soac.row_arguments(op)
        chosen = [(arg, v) for arg, v in rows
                  if isinstance(v, OpResult) and isinstance(v.op, soac.ReplicateOp)]
        if len(chosen) == len(rows):
            chosen = chosen[1:]  # keep one input: it gives the number of iterations
        check = self.analyses.get()
        chosen = [(arg, v) for arg, v in chosen if self._legal(op, arg, v, check)]
        if not chosen:
            return
        target: Operation = op
        if isinstance(op, soac.ReduceOp):
            # the reduce's lambda is also its operator: only a redomap's inner lambda
            # may see something other than rows
            # (the block, with the arguments in `chosen`, moves to the redomap)
            target = as_redomap(op)
        assert isinstance(target, soac.MapOp | soac.RedomapOp)
        block, first = rows_block(target)
        dropped = {arg for arg, _ in chosen}
        for arg, v in chosen:
            assert isinstance(v, OpResult) and isinstance(v.op, soac.ReplicateOp)
            rewriter.replace_all_uses_with(arg, v.op.value)
        inputs = [v for arg, v in zip(block.args[first:], target.inputs, strict=True)
                  if arg not in dropped]
        for arg in dropped:
            rewriter.erase_block_argument(arg)
        new = rebuilt(target, inputs)
        if target is not op:
            target.erase()  # the intermediate redomap, now without regions
        rewriter.replace(op, new)
        self.analyses.changed()

    @staticmethod
    def _legal(op: Operation, arg: BlockArgument, v: SSAValue, check: Fusibility) -> bool:
        assert isinstance(v, OpResult) and isinstance(v.op, soac.ReplicateOp)
        if check.consumes_argument(op, arg):
            return False
        value = v.op.value
        return check.consumption.consumed_between([value], v.op, op) is None


@dataclass
class _ByClass(RewritePattern):
    """Erase a trivially dead op, else try the patterns listed for its class in order
    until one rewrites: a dictionary look-up per op instead of every pattern's class
    test (op classes are ABCs, slow to test), on every op of the module, each round."""

    table: dict[type[Operation], list[RewritePattern]]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        for r in op.results:  # most ops are used: `is_trivially_dead`'s own first test,
            if r.first_use is not None:  # without its generator
                break
        else:
            if is_trivially_dead(op):
                rewriter.erase(op)
                return
        for pattern in self.table.get(type(op), ()):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


@dataclass(frozen=True)
class FusePass(ModulePass):
    """Fuse producer SOACs into their consumers (thesis 7, producer-driven, T2 reduction).

    A `soac.map` or `soac.filter` whose every output is an input array of SOACs it can
    fuse with is composed into each of them and disappears; its intermediate arrays are
    never built. Rules (7.1.1, 7.3):

    * map -> map: one map over the consumer's other inputs and the producer's inputs,
      whose lambda runs the producer's lambda, then the consumer's;
    * map -> reduce, map -> redomap: a redomap (a reduce first becomes
      `redomap(f, f, ne, a)`) whose inner lambda runs the producer's lambda first;
    * map -> scan, map -> scanomap (redomap's pattern for scan,
      `l0.passes.fuse.scanomap`): `scan(op, ne, map(f, a))` becomes the scanomap
      `scanomap(op, fn (acc, x) => op(acc, f(x)), ne, a)` (a scan first becomes
      `scanomap(op, op, ne, a)`), whose inner lambda runs the producer's lambda first;
      the fold keeps the scan's order (exact for operators that are not commutative),
      and the operator stays as the outer lambda, for the blocked parallel scan;
    * filter -> filter: one filter whose predicate is `p(x) && q(x)` (as
      `if p(x) then q(x) else false`: `&&` is not lazy in L0);
    * filter -> reduce, filter -> redomap: a redomap whose inner lambda folds only the
      rows the filter keeps;
    * replicate: an input `replicate(n, v)` of a map or fold is `v` in the lambda;
    * indexing by the iteration number (`l0.passes.fuse.iota_rows`): in the lambda of
      a map, redomap or scanomap over `iota(n)`, `b[i]` of its element `i`, where `b`
      is a map's output known to have n rows, is a row of `b`, which becomes an input
      (and its producer then fuses as above); not inside a loop or nested lambda of
      the lambda (a row read many times), nor when `b`'s size is not known to be n;
      and once `b` is an input beside `iota(n)`, `b[i, k]` anywhere in the lambda
      (loops and nested lambdas too) reads its row argument `x` as `x[k]`, unless `b`
      or the row may be consumed (a tridiagonal solve's `r[k]` of its row `r = u[i]`,
      which the simplifier folds into `u[i, k]`, so that `u`'s producer fuses);
    * across transpose (8.1): when every output reaches its consumers through one
      `transpose(k, n, ...)`, the transposition moves before the producer
      (PULL-TRANSPOSE: its inputs are transposed instead) if the producer is a perfect
      nest of maps over the dimensions it moves, or after each consumer
      (PUSH-TRANSPOSE: the consumer runs on the untransposed output and the inverse
      transpositions of its other inputs, its results are transposed back) if the
      consumers are, or the producer's lambda is only a map over arrays defined
      outside it (SWAP-TRANSPOSE: its two levels exchange, as a histogram's one-hot
      rows read by columns need), and the nest whose elements it reorders can neither
      fail nor print; then the producer fuses as above. An inner map of the nest may also
      take arrays defined outside the nest (`map(fn (r) => map(f, zip(r, c)), v)`,
      thesis figure 41's explicit step): such an input is transposed with the others
      when it follows every dimension the transposition moves, and otherwise read by
      index in the innermost lambda, at the new levels' positions (`c[j]`; its zip
      was checked only when the levels above it had elements, so it never becomes a
      zip of the new outer level: Note [Arrays that enter a nest below its top]). A
      lambda that reads a row of an outer level makes no nest;
    * across reshape (PULL-RESHAPE, 8.2, `l0.passes.fuse.reshape`): when every output
      of a map over one-dimensional arrays, yielding scalars, reaches its consumers
      through `reshape((d1, ..., dn), ...)` to one shape, the reshape moves onto the
      producer's inputs and the producer becomes a nest of n maps around its lambda
      (`map^n(f, reshape(d, a))`); so does a perfect nest of k maps over k-dimensional
      arrays whose innermost lambda yields scalars and reads no outer row (an
      element-wise nest: flattening `reshape((n * m), map(fn r => map(f, r), a))`
      is `map(f, reshape((n * m), a))`, its levels' zip checks guarding the new
      reshapes), placed where the reshape was: after the size check
      (a `soac.assert`, not moved: errors come in the same order), whose certificate
      the new reshapes take. Then the nest fuses as above (through a transposition of
      the reshaped arrays too, by PULL-TRANSPOSE);
    * ISWIM where the transpositions cancel (8.3, Figure 35, `l0.passes.fuse.iswim_rule`):
      a scan (or scanomap) of a perfect nest of d maps (or of one per independent
      part of its accumulators) over arrays all given as
      `transpose(d, -d, a)` (for d = 1, `transpose(a)`) becomes, when there are rows,
      the nest of d maps around one scan per innermost row of `a`: the interchange's
      own transpositions cancel the inputs', and those of the results a `transpose(0,
      d)` of them cancels too (other uses get the result transposed back). The map
      producing `a` then fuses into the nest (inside it, a map into each scan). Under
      `iswim`'s conditions (`l0.passes.iswim`); with no rows the results are arrays
      with every dimension 0, as the scan's. A map, scan or fold consuming a result of
      the new form (or of `iswim`'s) moves into it, to fuse with the nest, when that
      result has no other use and the new form can neither fail nor print (Note
      [Consumers of the interchanged scan]);
    * into the branches of an `if` (`l0.passes.fuse.into_branches`): a SOAC whose
      input is the result of an `if` (used by it alone), which one branch builds with a
      map or filter (or a transposition of one), moves into both branches, to fuse
      there: one copy runs, so only code is duplicated (ISWIM's `if` for no rows then
      no longer keeps a map of its result apart); not when it reads a value computed
      after the `if`, or when it may fail or print and so may something between;
    * past a neutral element's check the producer repeats
      (`l0.passes.fuse.repeated_checks`): when all that keeps a
      map from its one consumer, a fold, is the size check `0 <= n` of the fold's
      neutral element `replicate(n, v)` (used by the fold alone) and the map's lambda
      asserts that same condition on every row, the check moves before the map as
      `0 <= n || rows != 0` (same message and location: with rows, the map fails
      first in both programs) and the replicate's size becomes `select(0 <= n, n, 0)`;
      then the map fuses as above (a sum of vectors built from `replicate(n, ...)`).

    Horizontal fusion (the LMS loop fusion algorithm; `l0.passes.fuse.horizontal`),
    once no producer fuses any more: sibling SOACs in one block whose inputs have one
    outer size (known from an earlier SOAC's inputs, or a map's output and input) and
    that do not depend on each other become one SOAC where the last of them was:

    * sibling maps: one map with all their outputs, running their lambdas in turn;
    * sibling reduces and redomaps (scalar accumulators): one redomap on the tuple of
      their accumulators, whose outer lambda applies each member's operator to its
      part (thesis figure 44: the sum and the maximum of a map's two arrays become one
      redomap, into which the map then fuses);
    * sibling scans and scanomaps (scalar accumulators): one scanomap on the tuple of
      their accumulators, in the same way (each member's results are its own
      accumulators, so operators that are not commutative or associative keep their
      meaning).

    Siblings stay apart when something up to the last one uses an earlier one's
    results, when one may fail or print and something after it up to the last one may
    too (the first error, or the order of the traces, would change), or when an op on
    the way, or a member's lambda, may consume an array.

    SOAC splitting and cheap duplication (7.1.3, 9.2, the split chapter 10 proposes for
    figure 44; `l0.passes.fuse.duplicate`), as a last resort: a map still unfused is cut
    into one part per consumer it can fuse with, computing only the outputs that
    consumer reads, and one part for the outputs that must stay arrays; each part keeps
    only the ops it needs, and fuses. Ops needed by several parts are computed in each,
    so they must be cheap: constant-time scalar work (no SOAC, loop or call, nothing
    that builds an array) of at most 8 operations, constants not counted; parts that
    share nothing are always split. No part is made for an output that must stay an
    array anyway (read by a filter, a scan's neighbour in a loop, returned...) and is
    also read by a fold: that fold's part would compute it again without saving a pass
    over the data. Never when the map's lambda may fail or print, when
    it or a consumer's lambda has an update, a call or a loop, or into a consumer in a
    loop or lambda (the work would run once per iteration).

    Fusion happens inside lambdas and loop bodies too, and into consumers on different
    branches of `if`s (one copy of the producer each, as they never both run). Vertical
    fusion does not fire when (7.1.2, 7.1.3, `l0.passes.fuse.legality`):
    an output is used other than as a SOAC input (indexed, its size taken, returned,
    passed to a call, a neutral element, used inside a lambda), which would compute it
    twice; two consumers may run in one execution, or one is inside a loop or lambda
    the producer is outside of; an array the producer reads may be consumed before
    the consumer; the consumer's lambda consumes a row of the producer's output; the
    producer yields arrays whose shape is not known before it runs (its irregularity
    check would vanish); the producer's lambda may fail or print and so may something
    between it and the end of the consumer (the error reported, or the order of the
    output, would change), but for the repeated check above; a filter's consumer has
    inputs that are not the filter's outputs (a filter never fuses into a scan, whose
    result has a row per input row).
    Across a reshape, PULL-RESHAPE does not fire when the producer is no perfect map
    nest as deep as its inputs' rank (a one-dimensional map), its innermost lambda
    yields arrays or reads a row of an outer level (8.2), when its outputs are
    reshaped to different shapes, or when its lambda may fail or print and so may
    something before the reshape (the size check, which stays in place). Certificates
    of both SOACs guard the fused one.

    Options: `explain` (default false) prints, on stderr, a remark for each map or
    filter left unfused that has a use, saying why (`LOC: remark: 'soac.map' %b not
    fused: ...`, and why it was not split), and for each SOAC a sibling before it could
    not take in (`... not merged with its sibling: ...`); `horizontal` and `duplicate`
    (default true) turn those two rules off.

        %b = soac.map(%x = %a : tensor<?xi64>) -> tensor<?xi64> {
          %y = arith.muli %x, %x : i64
          soac.yield %y : i64
        }
        %s = soac.reduce(%acc = %zero : i64) over(%e = %b : tensor<?xi64>) {
          %t = arith.addi %acc, %e : i64
          soac.yield %t : i64
        }
      becomes
        %s = soac.redomap(%acc = %zero : i64) over(%x = %a : tensor<?xi64>) {
          %y = arith.muli %x, %x : i64
          %t = arith.addi %acc, %y : i64
          soac.yield %t : i64
        } outer { ... the reduce's lambda ... }
    """

    name = "fuse"

    explain: bool = False
    """Print a remark on stderr for each map or filter left unfused, saying why."""

    horizontal: bool = True
    """Merge sibling SOACs (`l0.passes.fuse.horizontal`)."""

    duplicate: bool = True
    """Split maps between their consumers, duplicating cheap work
    (`l0.passes.fuse.duplicate`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        analyses = _Analyses(op, frozenset(Speculation(op).failing))
        producers = FuseProducer(analyses)
        replicate = FuseReplicate(analyses)
        iswim = FuseIswim(analyses.failing, analyses.changed)
        rows = IndexAsRow(analyses.changed)
        input_rows = IndexOfInputRow(analyses.changed)
        branches = IntoBranches(analyses.failing, analyses.changed)
        sink = SinkIntoIswim(analyses.failing, lambda: analyses.get().consumption,
                             analyses.changed)
        walker = RewriteWalker(_ByClass({
            soac.MapOp: [rows, input_rows, producers, replicate, sink, branches],
            soac.FilterOp: [producers, branches],
            soac.ReduceOp: [replicate, sink, branches],
            soac.RedomapOp: [rows, input_rows, replicate, sink, branches],
            soac.ScanOp: [iswim, sink, branches],
            soac.ScanomapOp: [rows, input_rows, iswim, sink, branches],
        }), walk_reverse=True)
        apart: dict[Operation, str] = {}  # siblings not merged, and why
        splitter = RewriteWalker(SplitProducer(
            analyses.get, analyses.changed, _fused, _MAP_CONSUMERS, producers.unfused),
            walk_reverse=True)
        siblings_due = True  # a sweep for siblings may find some (none after one that
        for _ in range(64):  # merged all it found, until something else changes)
            changed = walker.rewrite_module(op)
            # Horizontal fusion only once vertical fusion is done: merging siblings
            # first could give a producer a sibling's outputs and block its fusion.
            if self.horizontal and (changed or siblings_due) and \
                    fuse_siblings(op, analyses.failing, apart):
                analyses.changed()
                changed = True
            siblings_due = False
            # Duplicating work is the last resort: when neither of the above applies.
            if not changed and self.duplicate:
                changed = siblings_due = splitter.rewrite_module(op)
            if not changed:
                break
        if self.explain:
            producers.explain(op, sys.stderr)
            explain_apart(op, apart, sys.stderr)
