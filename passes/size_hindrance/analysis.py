"""The size analysis of thesis 9.1.1: expressions equal to the sizes of arrays.

`SizeAnalysis.alternatives(a, k)` gives, from the op that defines `a` (or the loop or
lambda whose parameter it is), expressions equal to `size(k, a)` in terms of that op's
operands; `best(a, k)` follows them back as far as they go and keeps the expression of
the best quality (`Depths`). Equations that hold only for non-empty arrays are kept
exact (Note [Sizes of empty arrays]); `strict` restricts the choice to arrays that are
never consumed (Note [Sizes of consumed arrays], both in `l0.passes.size_hindrance`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from l0.dialects import soac
from l0.passes.analysis.constants import constant_int
from l0.passes.analysis.consumption import Consumption
from l0.passes.analysis.scope import defined_outside
from l0.passes.analysis.shapes import Const, Dim, Val
from l0.passes.size_hindrance.expressions import (
    Add,
    Depths,
    Expr,
    Max,
    NonZero,
    Sub,
    add,
    const_value,
    free_values,
    maximum,
    nonzero,
    sub,
)

# ---------------------------------------------------------------------------------------
# Size analysis (thesis 9.1.1)
# ---------------------------------------------------------------------------------------

# Note [Memoising loop sizes]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Whether a loop keeps the size of a merge value is decided by following the equations
# from the value it yields back to the merge parameter. On the way, the size of that
# same parameter may be asked for (a map over it in the body), which needs the answer
# being computed; it is assumed "no", which is safe but may make the sizes found on the
# way worse than they are. So what is found while a decision is pending is kept apart
# and forgotten once the outermost pending decision is made.

# Note [Keeping the accumulator's shape]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A loop or fold keeps dimension k of a merge value when every step yields a value with
# dimension k of the merge parameter's (then, by induction over the steps, it is the
# initial value's, or the neutral element's, at every step). `_leads_to` shows it by
# following equations back from the yielded value to the parameter. The equation for an
# inner dimension d of a map's output is guarded ("the size of its rows, if it has any,
# else 0", Note [Sizes of empty arrays]), and the size the analysis finds best for the
# rows may avoid the parameter altogether: in a scan of maps of maps,
#
#     scan(fn (x, y) => map(fn (u, v) => map(op +, zip(u, v)), zip(x, y)), ne, a)
#
# the rows of the outer map have the size of `u` and of `v`, and `v`'s (dimension 2 of
# `a`) is the better expression, though it equals `x`'s dimension 1 only where the zip
# check passes. So the search also steps from dimension d of a map's output into
# dimension d - 1 of the row its lambda yields, every way the equations allow, when
# the guard is harmless: the map's rows are an earlier dimension j < k of the parameter
# itself, so when the map has none, dimension k of the parameter is 0 too. Then the
# inner zip check above is of `ne`'s and `a`'s sizes and leaves the scan (depth 2 of
# `iswim`, thesis Figure 36), still guarded by "the scan has no rows", so that it fails
# exactly when the first step's check would.


# Note [Sizes taken in the body]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A loop body that builds its next value over `iota(size(0, x))`, x the merge
# parameter, keeps x's size just as a map over x itself would: the iota's rows are the
# value `size(0, x)`, which is dimension 0 of x. LocVolCalib's time loop is such a body
# (`numX = size(0, myResult)`, then maps over `iota(numX)` and `iota(numY)`), and
# knowing that it keeps both dimensions is what relates them to the grid's sizes, so
# that the body's bounds checks are proved and its maps fuse. So `_leads_to` steps
# from a `soac.size` value to the dimension it takes, as from a `Dim`.


# Note [Branches on an empty size]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The interchange of a scan with its inner maps (`iswim`, and `fuse` where transpositions
# cancel) yields `if g == 0 then empty else nest`, g the scanned dimension: its results'
# sizes are 0 in one branch and the nest's in the other, so no size of them is known
# from agreeing branches, and a zip check of a consumer (or the hoisting core's "runs
# zero times") keeps a size of the result, which is one use too many for the consumer
# to move into the `if` and fuse. But the size is exactly `nonzero(g, the nest's)`.


def _zero_when_empty(cond: SSAValue, then: Expr, otherwise: Expr) -> Expr | None:
    """The size of an `if` on `cond` whose branches give `then` and `otherwise`, when
    `cond` is `g == 0` and `then` is 0, or `g != 0` and `otherwise` is 0."""
    test = cond.owner
    if not isinstance(test, arith.CmpiOp) or test.predicate.value.data not in (0, 1):
        return None
    if constant_int(test.rhs) == 0:
        g = test.lhs
    elif constant_int(test.lhs) == 0:
        g = test.rhs
    else:
        return None
    zero, other = (then, otherwise) if test.predicate.value.data == 0 else (otherwise, then)
    return nonzero(Val(g), other) if _is_zero(zero) else None


def _is_zero(e: Expr) -> bool:
    """Whether `e` is 0: a constant, or a size of `soac.empty` (as cheap as the constant,
    so the best form may keep it)."""
    return const_value(e) == 0 or isinstance(e, Dim) and isinstance(e.array.owner, soac.EmptyOp)


Loop = scf.ForOp | soac.ReduceOp | soac.ScanOp | soac.RedomapOp | soac.ScanomapOp
"""What carries merge values from step to step: a loop, or a fold's accumulators."""


def _rank(v: SSAValue) -> int:
    return v.type.get_num_dims() if isinstance(v.type, TensorType) else 0


def transpose_permutation(rank: int, k: int, n: int) -> list[int]:
    """perm[j] = the dimension of the source that is dimension j of `transpose(k, n, a)`."""
    dims = list(range(rank))
    dims.insert(k + n, dims.pop(k))
    return dims


def _dims_of(e: Expr) -> tuple[SSAValue, int] | None:
    """The array dimension `e` is, as a step of `_leads_to`: a `Dim`, or a value
    computed by `soac.size` (the rows of a map over `iota(size(0, a))`, how a loop
    body often counts the rows of its merge parameter; Note [Sizes taken in the body])."""
    if isinstance(e, Dim):
        return e.array, e.k
    if isinstance(e, Val) and isinstance(e.value, OpResult) and \
            isinstance(e.value.op, soac.SizeOp):
        return e.value.op.array, e.value.op.dim.data
    return None


def _guarded(guards: list[Expr], e: Expr) -> Expr:
    for g in reversed(guards):
        e = nonzero(g, e)
    return e


@dataclass
class SizeAnalysis:
    """Equal expressions for the sizes of array values, and the best of them.

    `best(a, k)` may use any array; `best(a, k, strict=True)` only arrays that are never
    consumed (Note [Sizes of consumed arrays])."""

    consumption: Consumption
    depths: Depths = field(default_factory=Depths)
    best_memo: dict[tuple[SSAValue, int, bool], Expr] = field(default_factory=dict)
    invariant_memo: dict[tuple[Operation, int, int], bool] = field(default_factory=dict)
    in_progress: set[tuple[Operation, int, int]] = field(default_factory=set)
    tentative_best: dict[tuple[SSAValue, int, bool], Expr] = field(default_factory=dict)
    tentative_invariant: dict[tuple[Operation, int, int], bool] = field(default_factory=dict)
    """What was found while a loop's invariance was being decided, on the assumption that
    it is not invariant; forgotten once it is decided (Note [Memoising loop sizes])."""
    consumed: frozenset[SSAValue] = frozenset()

    def __post_init__(self) -> None:
        self.consumed = frozenset().union(
            *(c for _, closures in self.consumption.consumers for c in closures)
        )

    def never_consumed(self, e: Expr) -> bool:
        """Whether no array `e` takes the size of may ever be consumed."""
        return not any(
            isinstance(v.type, TensorType) and self.consumption.closure(v) & self.consumed
            for v in free_values(e)
        )

    def warm_up(self, root: Operation) -> None:
        """Analyse every array defined in `root`, definitions before uses, so that the
        memoised recursion of `best` stays shallow however long the program."""
        for op in root.walk(region_first=True):
            for r in op.results:
                for k in range(_rank(r)):
                    self.best(r, k)
                    self.best(r, k, strict=True)

    def best(self, array: SSAValue, dim: int, strict: bool = False) -> Expr:
        """The best expression equal to `size(dim, array)` (itself when none is better);
        with `strict`, one that takes sizes of never-consumed arrays only, or itself."""
        key = (array, dim, strict)
        found = self.best_memo.get(key) or self.tentative_best.get(key)
        if found is not None:
            return found
        current: Expr = Dim(array, dim)
        best, best_cost = current, self.depths.cost(current)
        for alternative in self.alternatives(array, dim, strict):
            candidate = self.resolve(alternative, strict)
            if strict and not self.never_consumed(candidate):
                continue
            cost = self.depths.cost(candidate)
            if cost < best_cost:
                best, best_cost = candidate, cost
        (self.tentative_best if self.in_progress else self.best_memo)[key] = best
        return best

    def resolve(self, e: Expr, strict: bool = False) -> Expr:
        """`e` with each size replaced by its best form, simplified."""
        match e:
            case Dim(array=a, k=k):
                return self.best(a, k, strict)
            case Val(value=v):
                if isinstance(v, OpResult) and isinstance(v.op, soac.SizeOp):
                    return self.best(v.op.array, v.op.dim.data, strict)
                return e
            case Const():
                return e
            case Add(left=x, right=y):
                return add(self.resolve(x, strict), self.resolve(y, strict))
            case Sub(left=x, right=y):
                return sub(self.resolve(x, strict), self.resolve(y, strict))
            case Max(left=x, right=y):
                return maximum(self.resolve(x, strict), self.resolve(y, strict))
            case NonZero(guard=g, value=x):
                simpler = nonzero(g, x)
                if not isinstance(simpler, NonZero):
                    return self.resolve(simpler, strict)
                return nonzero(self.resolve(g, strict), self.resolve(x, strict))

    def replacement(self, op: soac.SizeOp) -> Expr | None:
        """What `op` should become, or None: the best expression if no array it takes
        the size of may be consumed before `op`, else the best of never-consumed arrays."""
        current = Dim(op.array, op.dim.data)
        best = self.best(op.array, op.dim.data)
        if best == current:
            return None
        arrays = [v for v in free_values(best) if isinstance(v.type, TensorType)]
        if self.consumption.consumed_before_use(arrays, op) is None:
            return best
        best = self.best(op.array, op.dim.data, strict=True)
        return None if best == current else best

    # -- the equations of 9.1.1, one step ------------------------------------------------

    def alternatives(self, array: SSAValue, k: int, strict: bool = False) -> list[Expr]:
        """Expressions equal to `size(k, array)`, from the definition of `array`."""
        if isinstance(array, BlockArgument):
            return self._parameter(array, k)
        assert isinstance(array, OpResult)
        op = array.op
        match op:
            case soac.IotaOp():
                return [Val(op.n)]
            case soac.ReplicateOp():
                return [Val(op.n) if k == 0 else nonzero(Val(op.n), Dim(op.value, k - 1))]
            case soac.ArrayOp():
                return [Const(len(op.elems)) if k == 0 else Dim(op.elems[0], k - 1)]
            case soac.EmptyOp():
                return [Const(0)]
            case soac.CopyOp() | soac.UpdateOp():
                return [Dim(op.array, k)]
            case soac.TraceOp():
                return [Dim(op.inputs[array.index], k)]
            case soac.IndexOp():
                return [Dim(op.array, k + len(op.indices))]
            case soac.ReshapeOp():
                guards: list[Expr] = [Val(d) for d in op.shape[:k]]
                return [_guarded(guards, Val(op.shape[k]))]
            case soac.TransposeOp():
                perm = transpose_permutation(_rank(op.array), op.k.data, op.n.data)
                guards = [Dim(op.array, perm[i]) for i in range(k) if perm[i] > perm[k]]
                return [_guarded(guards, Dim(op.array, perm[k]))]
            case soac.SplitOp():
                rows = Val(op.at) if array.index == 0 else Sub(Dim(op.array, 0), Val(op.at))
                return [rows if k == 0 else nonzero(rows, Dim(op.array, k))]
            case soac.ConcatOp():
                if k == 0:
                    return [Add(Dim(op.a, 0), Dim(op.b, 0))]
                return [Max(Dim(op.a, k), Dim(op.b, k))]
            case soac.MapOp() | soac.ScanOp() | soac.ScanomapOp():
                return self._soac_output(op, array.index, k, strict)
            case scf.ForOp():
                if self.merge_invariant(op, array.index, k):
                    return [Dim(op.iter_args[array.index], k)]
                return []
            case scf.IfOp():
                return self._branches(op, array.index, k, strict)
            case _:
                return []

    def _parameter(self, arg: BlockArgument, k: int) -> list[Expr]:
        """A lambda's row parameter has the inner sizes of its array; a loop's merge
        parameter those of its initial value when the loop keeps them."""
        owner = arg.block.parent_op()
        match owner:
            case soac.MapOp() | soac.FilterOp():
                return [Dim(owner.inputs[arg.index], k + 1)]
            case soac.ReduceOp() | soac.ScanOp():
                rows = arg.index - len(owner.neutral)
                if rows >= 0:
                    return [Dim(owner.inputs[rows], k + 1)]
                if self.merge_invariant(owner, arg.index, k):
                    return [Dim(owner.neutral[arg.index], k)]  # a fold keeping its size
                return []
            case soac.RedomapOp() | soac.ScanomapOp():
                n = len(owner.neutral)
                inner = arg.block.parent_region() is owner.inner
                if inner and arg.index >= n:
                    return [Dim(owner.inputs[arg.index - n], k + 1)]
                merge = arg.index if inner else arg.index % n  # the operator takes two
                if self.merge_invariant(owner, merge, k):
                    return [Dim(owner.neutral[merge], k)]  # a fold keeping its size
                return []
            case scf.ForOp():
                merge = arg.index - 1
                if merge >= 0 and self.merge_invariant(owner, merge, k):
                    return [Dim(owner.iter_args[merge], k)]
                return []
            case _:
                return []

    def _soac_output(self, op: soac.MapOp | soac.ScanOp | soac.ScanomapOp, index: int, k: int,
                     strict: bool) -> list[Expr]:
        """Outputs of map and scan (and scanomap) have as many rows as the inputs; the
        rows are what the (inner) lambda yields, whose size is known when it does not
        depend on the lambda."""
        if k == 0:
            return [Dim(v, 0) for v in op.inputs]
        block = op.inner.block if isinstance(op, soac.ScanomapOp) else op.body.block
        yielded = block.last_op
        if not isinstance(yielded, soac.YieldOp):
            return []
        row = self.best(yielded.values[index], k - 1, strict)
        if any(not defined_outside(v, op) for v in free_values(row)):
            return []
        return [nonzero(Dim(op.inputs[0], 0), row)]

    def _branches(self, op: scf.IfOp, index: int, k: int, strict: bool) -> list[Expr]:
        """An `if` result has a known size when both branches agree on it, or when
        the branch taken where some g is 0 gives 0 (`nonzero(g, the other's)`: the
        interchanged scans of `iswim` and `fuse`, Note [Branches on an empty size])."""
        sizes: list[Expr] = []
        for region in (op.true_region, op.false_region):
            last = region.block.last_op if region.blocks else None
            if not isinstance(last, scf.YieldOp) or index >= len(last.operands):
                return []
            sizes.append(self.best(last.operands[index], k, strict))
        size = sizes[0] if sizes[0] == sizes[1] else _zero_when_empty(op.cond, *sizes)
        if size is None or any(not defined_outside(v, op) for v in free_values(size)):
            return []
        return [size]

    # -- loops ---------------------------------------------------------------------------

    def merge_invariant(self, loop: Loop, merge: int, k: int) -> bool:
        """Whether every iteration of `loop` keeps dimension `k` of merge value `merge`
        (a loop's carried value, or a fold's accumulator): the value yielded for it is,
        by the equations above, of the size of the merge parameter itself (induction
        over the iterations; 9.1.1's loop rule). A fold is taken as the left fold the
        interpreter and the CPU back end run; a redomap or scanomap keeps it when both
        its fold and its operator do (the operator then combines values of that size
        only, whichever of its two it yields)."""
        key = (loop, merge, k)
        found = self.invariant_memo.get(key, self.tentative_invariant.get(key))
        if found is not None:
            return found
        if key in self.in_progress:
            return False  # asked while answering it: assume not (Note [Memoising loop sizes])
        self.in_progress.add(key)
        try:
            result = self._reaches_parameter(loop, merge, k)
        finally:
            self.in_progress.discard(key)
        if self.in_progress:
            self.tentative_invariant[key] = result
        else:
            self.invariant_memo[key] = result
            self.tentative_best.clear()
            self.tentative_invariant.clear()
        return result

    def _reaches_parameter(self, loop: Loop, merge: int, k: int) -> bool:
        if isinstance(loop, soac.RedomapOp | soac.ScanomapOp):
            n = len(loop.neutral)
            return self._yields_parameter(loop, loop.inner.block, merge, k, merge) and \
                any(self._yields_parameter(loop, loop.outer.block, merge, k, i)
                    for i in (merge, n + merge))
        body = loop.body.block
        return self._yields_parameter(loop, body, merge, k,
                                      merge + 1 if isinstance(loop, scf.ForOp) else merge)

    def _yields_parameter(self, loop: Loop, body: Block, merge: int, k: int,
                          parameter: int) -> bool:
        """Whether dimension k of what `body` yields for merge value `merge` is that of
        its parameter `parameter`."""
        target = body.args[parameter]
        last = body.last_op
        if not isinstance(last, scf.YieldOp | soac.YieldOp) or \
                not isinstance(target.type, TensorType):
            return False
        return self._leads_to(loop, last.operands[merge], k, target, k)

    def _leads_to(self, loop: Operation, start: SSAValue, d: int, target: BlockArgument,
                  k: int) -> bool:
        """Whether `size(d, start)`, a value in `loop`'s body, is `size(k, target)` by
        the equations, the merge parameter `target` taken as it is (Note [Keeping the
        accumulator's shape])."""
        body = target.block
        seen: set[tuple[SSAValue, int]] = set()
        stack = [(start, d)]
        while stack:
            v, d = stack.pop()
            if v is target and d == k:
                return True
            if (v, d) in seen or defined_outside(v, loop):
                continue
            seen.add((v, d))
            if isinstance(v, BlockArgument) and v.block is body:
                continue  # another merge parameter: nothing is assumed about it
            stack.extend(dims for e in self.alternatives(v, d) if (dims := _dims_of(e)))
            row = self._yielded_row(v, d)
            if row is not None and self._empty_with(loop, v, target, k):
                stack.append((row, d - 1))
        return False

    @staticmethod
    def _yielded_row(v: SSAValue, d: int) -> SSAValue | None:
        """For dimension d > 0 of a map's output, the row its lambda yields (whose
        dimension d - 1 it is, when the map has rows)."""
        if d == 0 or not isinstance(v, OpResult) or not isinstance(v.op, soac.MapOp):
            return None
        last = v.op.body.block.last_op
        return last.operands[v.index] if isinstance(last, soac.YieldOp) else None

    def _empty_with(self, loop: Operation, v: SSAValue, target: BlockArgument, k: int) -> bool:
        """Whether the map defining `v` has no rows only when dimension `k` of `target`
        is 0: its rows are some earlier dimension of `target`."""
        assert isinstance(v, OpResult)
        return any(self._leads_to(loop, a, 0, target, j)
                   for a in v.op.inputs for j in range(k))  # type: ignore[attr-defined]  # a soac.MapOp
