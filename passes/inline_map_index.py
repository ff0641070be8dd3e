"""`inline-map-index`: `b[i]` of `b = map(f, a)` with a cheap `f` becomes `f(a[i])` (thesis 9.2).

Fusion never duplicates work, so one indexing of a map's output is enough to keep the map
from fusing with its other consumer (`let b = map(f, a) in reduce(min, b[0], b)`).
Recomputing the one element instead, `f(a[0])`, removes that hindrance at the price of
a constant amount of work, when `f` is cheap and the indexing does not run repeatedly.
Like size-hindrance removal this is not an optimisation by itself: it is run before
fusion to let fusion apply more often.

Legality, beyond cheapness (`cheapness_problem`):
* the indexing is not inside a loop or a SOAC lambda that the map is outside of, where
  the recomputation would run many times (9.2);
* the indexing yields an element, not a row: a recomputed row could be a view of an
  input of the map, changing what aliases what;
* no op between the map and the indexing may consume an input of the map or an alias of
  one (`l0.passes.analysis.consumption`): the inlined `a[i]` reads the input after the map has.
The certificates of the original indexing guard the new ones: `b[i]` is in bounds iff
`a[i]` is, as the map's certificates prove the sizes of `b` and `a` equal; so the new
indexings take the map's certificates as well.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from l0.dialects import soac
from l0.passes.analysis.consumption import LOOPS, SOACS, Consumption, is_array
from l0.passes.analysis.walk import contains_op

_CHEAP_OPS = (
    soac.CheckedOp,
    soac.AssertOp,
    soac.ConjoinOp,
    soac.SizeOp,
    soac.IndexOp,
    soac.YieldOp,
    scf.IfOp,
    scf.YieldOp,
)
"""Ops other than `arith`/`math` ones a cheap lambda may contain: constant time, no
allocation, no consumption, and no visible effect beyond a check the map has already
passed for the same row (so running it again cannot fail)."""


# ---------------------------------------------------------------------------------------
# Legality
# ---------------------------------------------------------------------------------------


def cheapness_problem(lam: soac.MapOp, max_ops: int) -> str | None:
    """Why the lambda of `lam` is not cheap (None when it is): it must run in constant
    time (no SOACs, loops or calls; 9.2) and have at most `max_ops` ops."""
    count = 0
    for top in lam.body.block.ops:
        for op in top.walk():
            dialect = op.name.split(".", 1)[0]
            if dialect not in ("arith", "math") and not isinstance(op, _CHEAP_OPS):
                return f"the lambda contains '{op.name}'"
            if not isinstance(op, soac.YieldOp | scf.YieldOp):
                count += 1
    if count > max_ops:
        return f"the lambda has {count} ops, more than {max_ops}"
    return None


def loop_between(index: Operation, producer: Operation) -> Operation | None:
    """The loop or SOAC that runs `index` repeatedly for one run of `producer` (None if
    there is none): an ancestor of `index` below the block that holds `producer`."""
    home = producer.parent_block()
    op: Operation | None = index
    while op is not None and op.parent_block() is not home:
        op = op.parent_op()
        if isinstance(op, LOOPS + SOACS):
            return op
    return None if op is not None else index  # not nested in producer's block: refuse


# ---------------------------------------------------------------------------------------
# The rewrite
# ---------------------------------------------------------------------------------------


@dataclass
class InlineMapIndex(RewritePattern):
    """`soac.index %b[%i, ...]` of `%b` = output j of a cheap `soac.map` -> the lambda's
    ops applied to `soac.index %a[%i]` of every input `%a`, indexed further by the rest."""

    max_ops: int
    consumption: Consumption

    def problem(self, op: soac.IndexOp, producer: soac.MapOp) -> str | None:
        """Why `op` may not be recomputed from the inputs of `producer` (None: it may)."""
        if is_array(op.result):
            return "the indexing yields a row, not an element"
        cheap = cheapness_problem(producer, self.max_ops)
        if cheap is not None:
            return cheap
        loop = loop_between(op, producer)
        if loop is not None:
            return f"the indexing runs repeatedly inside '{loop.name}'"
        consumed = self.consumption.consumed_between(list(producer.inputs), producer, op)
        if consumed is not None:
            return "an input of the map may be consumed before the indexing"
        return None

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.IndexOp, rewriter: PatternRewriter) -> None:
        b = op.array
        if not isinstance(b, OpResult) or not isinstance(b.op, soac.MapOp) or not op.indices:
            return
        producer = b.op
        if self.problem(op, producer) is not None:
            return
        first, rest = op.indices[0], list(op.indices[1:])
        certs = list(op.certs)
        new_ops: list[Operation] = []
        block = producer.body.block
        mapping: dict[SSAValue, SSAValue] = {}
        for arg, a in zip(block.args, producer.inputs, strict=True):
            row = soac.IndexOp(a, [first], arg.type, certs + list(producer.certs))
            new_ops.append(row)
            mapping[arg] = row.result
        for body_op in block.ops:
            if isinstance(body_op, soac.YieldOp):
                yielded = body_op.values[b.index]
                value = mapping.get(yielded, yielded)
                break
            new_ops.append(body_op.clone(mapping))
        else:
            return  # unreachable for verified IR: every lambda ends in soac.yield
        if rest:
            element = soac.IndexOp(value, rest, op.result.type, certs)
            new_ops.append(element)
            value = element.result
        self.consumption.place(new_ops, op)
        rewriter.replace(op, new_ops, [value])


@dataclass(frozen=True)
class InlineMapIndexPass(ModulePass):
    """Recompute `b[i]` of `b = map(f, a)` as `f(a[i])` when `f` is cheap (thesis 9.2).

    Removes an indexing that keeps a map from fusing with its other consumers. Fires on
    an element indexing (`soac.index` with a scalar result) of an output of `soac.map`
    whose lambda is cheap: at most `max_ops` ops, all `arith`, `math`, `scf.if`,
    `soac.index`/`size`/`assert`/`checked`/`conjoin` (no SOAC, loop, call, allocation,
    let-with or trace). Never when the indexing is inside a loop or lambda that the map
    is outside of (recomputing there multiplies the work), nor when an input of the map
    may be consumed between the map and the indexing. The new indexings of the inputs
    carry the certificates of the original one and of the map.

    Options: `max_ops` (default 16), the largest lambda that counts as cheap.

        %b = soac.map(%x = %a : tensor<?xi64>) <%z> -> tensor<?xi64> {
          %y = arith.addi %x, %one : i64
          soac.yield %y : i64
        }
        %e = soac.index %b[%i] <%c> : tensor<?xi64> -> i64
      becomes
        %r = soac.index %a[%i] <%c, %z> : tensor<?xi64> -> i64
        %e = arith.addi %r, %one : i64
    """

    name = "inline-map-index"

    REWRITES = (soac.IndexOp,)
    """The ops the pass rewrites: without them it changes nothing, and returns at once
    (Note [Passes known to change nothing] in `l0.passes.pipeline`)."""

    max_ops: int = 16

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not contains_op(op, self.REWRITES):
            return  # the rule rewrites indexing only
        pattern = InlineMapIndex(self.max_ops, Consumption(op))
        PatternRewriteWalker(pattern).rewrite_module(op)
