"""The rewrites of `bounds`: prove checks, and move the checks of a loop before it.

`ProveCheck` (any `soac.assert`): conjuncts of its condition that the range analysis
proves are dropped; when all are, the check goes and its users get a `soac.checked`.

`HoistChecks` (an `scf.for` from 0 by 1, or a SOAC): when every check in the body is a
conjunction of affine comparisons in the iteration number t, it computes before the
loop, for each check, the first iteration on which it fails, and replaces the checks in
the body by one check each before the loop (Note [Exact first failure]).

Note [Exact first failure]
~~~~~~~~~~~~~~~~~~~~~~~~~~
L0 reports the first failure in evaluation order (docs/reference.md §5), so moving checks out
of a loop must not change which check fails, nor the values its message shows. For a
comparison `e(t) >= 0` with e affine in t, e(t) = c*t + s (s = e(0)):

* c >= 0: it holds for every t >= 0 iff it holds at t = 0, so it first fails at
  F = (s >= 0 ? n : 0), n being the number of iterations (n means never);
* c < 0: it holds while t <= floor(s / -c), so it first fails at
  F = max(0, floor(s / -c) + 1).

A check (a conjunction) first fails at T = min F over its conjuncts. Before the loop,
the k-th check becomes `assert (n <= T_k || some check l fails first)`, where l fails
first if T_l < T_k, or T_l = T_k and l comes before k in the body; its message values
are computed at iteration T_k. If none of them fails, no check in the loop would have;
if one fails, it is exactly the one the loop would have reported, with the same values.
`n <= T_k` is written as the plain conditions the loop needs (`n <= size(0, a)` for
`a[i]` over `iota(n)`), guarded by `n <= 0` where the loop might run zero times. This
is exact only when nothing else in the body can fail first: every op in the body that
may fail must be one of these checks, or be guarded by a certificate (the checks'
certificates then come from before the loop). And it needs integer arithmetic that
does not wrap: comparisons that depend on t must have exact sides (Note [Overflow] in
`ranges`).

Note [Iterated sizes]
~~~~~~~~~~~~~~~~~~~~~
An `int` parameter is opaque, so a comparison with it that depends on t is not moved
(Note [Overflow] in `ranges`). But once a SOAC over `iota(v)` has run, `v` counted its
iterations: it is at least 0 (the iota checked it) and, in any feasible run, below
2^50, like an iterator. So a value is also bounded before a loop when such a SOAC is in
a block enclosing the loop, before it (it ran to its end whenever the loop runs; one in
a branch, or after the loop, says nothing). The size analysis (`size-hindrance`) writes
the sizes of arrays built over `iota(numX)` as `numX` itself, the parameter: in
LocVolCalib the checks of the coefficient maps `myVarX[i, j]` over the rows of the
result, `i < numX`, are moved out this way, and the three maps then fuse into one
(horizontal fusion keeps apart siblings that may fail).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.passes.analysis.consumption import Consumption
from l0.passes.analysis.effects import is_dead, local_effects
from l0.passes.analysis.scope import defined_outside
from l0.passes.analysis.speculation import Speculation
from l0.passes.bounds.conditions import Atom, leaves
from l0.passes.bounds.counts import available_before, iterated_before
from l0.passes.bounds.ranges import Affine, Ranges, Sym, row_params

# ---------------------------------------------------------------------------------------
# Building IR for affine forms
# ---------------------------------------------------------------------------------------


@dataclass
class Builder:
    """Inserts ops computing affine forms (and comparisons of them) at one place."""

    rewriter: PatternRewriter
    where: InsertPoint
    witness: Callable[[Sym], tuple[SSAValue, int] | None] = lambda s: (s.value, s.dim)
    """An array and dimension that can compute a size symbol here (Note [Witnesses])."""
    constants: dict[tuple[int, int], SSAValue] = field(default_factory=dict)
    sizes: dict[Sym, SSAValue] = field(default_factory=dict)

    def add(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op, self.where)
        return op.results[0]

    def const(self, k: int, width: int = 64) -> SSAValue:
        if (k, width) not in self.constants:
            self.constants[(k, width)] = self.add(
                arith.ConstantOp(IntegerAttr(k, width)))
        return self.constants[(k, width)]

    def sym(self, s: Sym, subst: dict[Sym, SSAValue]) -> SSAValue:
        if s in subst:
            return subst[s]
        if s.kind == "size":
            if s not in self.sizes:
                found = self.witness(s)
                assert found is not None, "a size with no witness here was not planned"
                self.sizes[s] = self.add(soac.SizeOp(*found))
            return self.sizes[s]
        return s.value

    def scaled(self, v: SSAValue, c: int) -> SSAValue:
        return v if c == 1 else self.add(arith.MuliOp(self.const(c), v))

    def affine(self, e: Affine, subst: dict[Sym, SSAValue] | None = None) -> SSAValue:
        """The value of `e`, symbols in `subst` replaced by the given values: the positive
        terms added, the negative ones subtracted, then the constant."""
        subst = subst or {}
        const = e.const
        terms: list[tuple[SSAValue, int]] = []
        for s, c in e.terms:
            k = _constant(subst[s]) if s in subst else None
            if k is not None:
                const += c * k
            else:
                terms.append((self.sym(s, subst), c))
        acc: SSAValue | None = None
        for v, c in terms:
            if c > 0:
                t = self.scaled(v, c)
                acc = t if acc is None else self.add(arith.AddiOp(acc, t))
        negative = [(v, -c) for v, c in terms if c < 0]
        if acc is None:
            acc, const = self.const(const), 0
            if not negative:
                return acc
        for v, c in negative:
            acc = self.add(arith.SubiOp(acc, self.scaled(v, c)))
        if const > 0:
            acc = self.add(arith.AddiOp(acc, self.const(const)))
        elif const < 0:
            acc = self.add(arith.SubiOp(acc, self.const(-const)))
        return acc

    def cmp(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add(arith.CmpiOp(a, b, pred))

    def all(self, values: Sequence[SSAValue]) -> SSAValue:
        if not values:
            return self.const(1, 1)
        acc = values[0]
        for v in values[1:]:
            acc = self.add(arith.AndIOp(acc, v))
        return acc

    def any(self, values: Sequence[SSAValue]) -> SSAValue:
        acc = values[0]
        for v in values[1:]:
            acc = self.add(arith.OrIOp(acc, v))
        return acc

    def min(self, values: Sequence[SSAValue]) -> SSAValue:
        acc = values[0]
        for v in values[1:]:
            acc = self.add(arith.MinSIOp(acc, v))
        return acc


def _constant(v: SSAValue) -> int | None:
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def erase_dead_chain(values: Sequence[SSAValue], rewriter: PatternRewriter,
                     effectful: Set[str]) -> None:
    """Erase the ops defining `values` that are now unused and have no effects (calls of
    the `effectful` functions have), and so on up."""
    work = [v.owner for v in values if isinstance(v.owner, Operation)]
    while work:
        op = work.pop()
        if op.parent is None or not is_dead(op, effectful):
            continue
        work.extend(o.owner for o in op.operands if isinstance(o.owner, Operation))
        rewriter.erase(op)


# ---------------------------------------------------------------------------------------
# Proving checks
# ---------------------------------------------------------------------------------------


@dataclass
class ProveCheck(RewritePattern):
    """Drop the conjuncts of a check that the range analysis proves (all: no check)."""

    ranges: Ranges
    speculation: Speculation

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: soac.AssertOp, rewriter: PatternRewriter) -> None:
        conjuncts = leaves(op.cond)
        facts = self.ranges.facts_at(op)
        left = [c for c in conjuncts if not Atom.of(c, self.ranges).proved(self.ranges, facts)]
        if len(left) == len(conjuncts):
            return
        if not left:
            checked = soac.CheckedOp()
            rewriter.insert(checked, InsertPoint.before(op))
            rewriter.replace_all_uses_with(op.cert, checked.result)
            old = [op.cond, *op.values]
            rewriter.erase(op)
            erase_dead_chain(old, rewriter, self.speculation.failing)
            return
        build = Builder(rewriter, InsertPoint.before(op))
        cond = build.all(left)
        check = soac.AssertOp(cond, op.msg.data, op.loc.data, list(op.values))
        check.attributes |= op.attributes
        rewriter.insert(check, InsertPoint.before(op))
        rewriter.replace_all_uses_with(op.cert, check.cert)
        old_cond = op.cond
        rewriter.erase(op)
        erase_dead_chain([old_cond], rewriter, self.speculation.failing)


# ---------------------------------------------------------------------------------------
# Hoisting checks
# ---------------------------------------------------------------------------------------


@dataclass
class _Loop:
    """What `HoistChecks` needs of a loop: its body, its iterators (all equal to the
    iteration number t, from 0), and the number of iterations n: a value defined before
    the loop, or None for the outer size of `first_input`."""

    region: Region
    iterators: list[SSAValue]
    count: SSAValue | None
    first_input: SSAValue | None = None


def loop_of(op: Operation) -> _Loop | None:
    """The loop structure of an `scf.for` from 0 by 1 or of a SOAC, else None."""
    if isinstance(op, scf.ForOp):
        if _constant(op.lb) != 0 or _constant(op.step) != 1 or op.ub.type != i64:
            return None
        return _Loop(op.body, [op.body.block.args[0]], op.ub)
    params = row_params(op)
    if not params:
        return None
    region = params[0][0].block.parent
    assert region is not None
    iters: list[SSAValue] = []
    count: SSAValue | None = None
    for p, source in params:
        if isinstance(source.owner, soac.IotaOp):
            iters.append(p)
            count = source.owner.n
    return _Loop(region, iters, count, params[0][1])


@dataclass
class _Planned:
    """One check of the body, read as affine comparisons in t."""

    check: soac.AssertOp
    atoms: list[tuple[Atom, int]]
    """Each conjunct and the coefficient of t in its slack (eq/ne: 0)."""
    values: list[Affine]


@dataclass
class HoistChecks(RewritePattern):
    """Replace the checks in a loop or lambda by checks before it (Note [Exact first
    failure])."""

    ranges: Ranges
    speculation: Speculation
    consumption: Consumption
    witnesses: dict[tuple[Sym, Operation], tuple[SSAValue, int] | None] = field(
        default_factory=dict[tuple[Sym, Operation], tuple[SSAValue, int] | None])

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: scf.ForOp | soac.MapOp | soac.ReduceOp | soac.ScanOp | soac.FilterOp
        | soac.RedomapOp | soac.ScanomapOp,
        rewriter: PatternRewriter,
    ) -> None:
        loop = loop_of(op)
        if loop is None or not loop.region.blocks:
            return
        plans = self.plan(op, loop)
        if plans:
            self._emit(op, loop, plans, rewriter)

    # -- legality -----------------------------------------------------------------------

    def why_not(self, op: Operation, loop: _Loop) -> str | None:
        """Why the checks of `loop` cannot move before `op`; None if they can."""
        body = loop.region.block
        for inner in loop.region.walk():
            if isinstance(inner, soac.AssertOp):
                if inner.parent is not body:
                    return "a check nested deeper in the body would fail first"
                continue
            if local_effects(inner, self.speculation.failing):
                return f"'{inner.name}' in the body may fail or print"
            if self.speculation.why_may_fail_locally(inner) is None:
                continue
            if not any(isinstance(v.type, soac.CertType) for v in inner.operands):
                return f"'{inner.name}' in the body may fail without a check"
        return None

    def plan(self, op: Operation, loop: _Loop) -> list[_Planned] | None:
        """The body's checks read as affine comparisons in t, or None."""
        if self.why_not(op, loop) is not None:
            return None
        iters = [self.ranges.value_sym(v) for v in loop.iterators]
        plans: list[_Planned] = []
        for check in loop.region.block.ops:
            if not isinstance(check, soac.AssertOp):
                continue
            atoms: list[tuple[Atom, int]] = []
            for leaf in leaves(check.cond):
                atom = Atom.of(leaf, self.ranges)
                c = self._coefficient(atom, iters, op)
                if c is None:
                    return None
                atoms.append((atom, c))
            values = [self.ranges.affine(v) for v in check.values]
            if not all(self._movable(e, iters, op) for e in values):
                return None
            plans.append(_Planned(check, atoms, values))
        return plans

    def _movable(self, e: Affine, iters: list[Sym], op: Operation) -> bool:
        """Whether `e` can be computed before `op` (given the iteration number)."""
        for s in e.symbols():
            if s in iters:
                continue
            if s.kind == "size" and self.witness(s, op) is None:
                return False
            if s.kind in ("value", "select") and not defined_outside(s.value, op):
                return False
        return True

    def witness(self, s: Sym, op: Operation) -> tuple[SSAValue, int] | None:
        """An (array, dim) of the size `s` that code placed before `op` may read: defined
        before `op` outside it, and not consumed in between (Note [Witnesses])."""
        if (s, op) not in self.witnesses:
            self.witnesses[(s, op)] = next(
                ((array, dim) for array, dim in self.ranges.witnesses.get(s, [(s.value, s.dim)])
                 if available_before(array, op)
                 and self.consumption.consumed_before_use([array], op) is None), None)
        return self.witnesses[(s, op)]

    def _coefficient(self, atom: Atom, iters: list[Sym], op: Operation) -> int | None:
        """The coefficient of t in the atom's slack, or None if it cannot move."""
        if atom.pred is None:
            return None
        if atom.pred == "true":
            return 0
        if not (self._movable(atom.lhs, iters, op) and self._movable(atom.rhs, iters, op)):
            return None
        uses_t = any(s in iters for s in atom.lhs.symbols() + atom.rhs.symbols())
        exact = self.ranges.exact(atom.lhs) and self.ranges.exact(atom.rhs)
        if atom.pred in ("eq", "ne"):
            d = atom.rhs - atom.lhs
            return 0 if not uses_t or (exact and all(d.coeff(s) == 0 for s in iters)) else None
        c = sum(atom.slack().coeff(s) for s in iters)
        if not uses_t:
            return 0
        bounded = all(self.ranges.bounded(s) or _iterated_before(s, op)
                      for s in atom.lhs.symbols() + atom.rhs.symbols())
        return c if exact and bounded else None

    # -- rewriting ----------------------------------------------------------------------

    def _emit(self, op: Operation, loop: _Loop, plans: list[_Planned],
              rewriter: PatternRewriter) -> None:
        build = Builder(rewriter, InsertPoint.before(op), lambda s: self.witness(s, op))
        iters = [self.ranges.value_sym(v) for v in loop.iterators]
        if loop.count is not None:
            n = loop.count
        else:
            assert loop.first_input is not None
            n = build.add(soac.SizeOp(loop.first_input, 0))
        failures = [_Failure(self.ranges, build, plan, n, iters) for plan in plans]
        several = len(plans) > 1
        for k, (plan, failure) in enumerate(zip(plans, failures, strict=True)):
            beaten: list[SSAValue] = []
            if several:
                mine = failure.first()[0]
                beaten = [build.cmp("sle" if j < k else "slt", other.first()[0], mine)
                          for j, other in enumerate(failures) if j != k]
            cond = build.any([failure.fast, *beaten])
            values = [v if defined_outside(v, op) else failure.at_first(e, iters)
                      for v, e in zip(plan.check.values, plan.values, strict=True)]
            check = soac.AssertOp(cond, plan.check.msg.data, plan.check.loc.data, values)
            check.attributes |= plan.check.attributes
            rewriter.insert(check, build.where)
            rewriter.replace_all_uses_with(plan.check.cert, check.cert)
            old = [plan.check.cond, *plan.check.values]
            rewriter.erase(plan.check)
            erase_dead_chain(old, rewriter, self.speculation.failing)


def _iterated_before(s: Sym, op: Operation) -> bool:
    """Whether a SOAC over `iota(s)` runs to its end before `op` (Note [Iterated
    sizes]): then, wherever `op` runs, `s` is a count of iterations, so bounded."""
    return s.kind in ("value", "select") and iterated_before(s.value, op)


def _at_zero(e: Affine, iters: list[Sym]) -> Affine:
    """`e` on the first iteration (every iterator 0)."""
    for sym in iters:
        e = e.substitute(sym, Affine())
    return e


class _Failure:
    """Where one check first fails (Note [Exact first failure]): `fast` is an i1 that
    holds when it never fails; `first()` builds T (n: never), as a value and, when it is
    affine, as a form."""

    def __init__(self, ranges: Ranges, build: Builder, plan: _Planned, n: SSAValue,
                 iters: list[Sym]) -> None:
        self.build = build
        self.n = n
        steady: list[SSAValue] = []  # conjuncts that fail on the first iteration or never
        self.falls: list[tuple[SSAValue, Affine | None]] = []  # F of the others
        parts: list[SSAValue] = []
        for atom, c in plan.atoms:
            if atom.pred == "true":
                continue
            if c >= 0:
                assert atom.pred is not None
                steady.append(build.cmp(atom.pred, build.affine(_at_zero(atom.lhs, iters)),
                                        build.affine(_at_zero(atom.rhs, iters))))
                continue
            s = _at_zero(atom.slack(), iters)
            step = -c
            form: Affine | None = None
            if step == 1:
                form = s.plus(1)
                raw = build.affine(form)
            else:
                q = build.add(arith.FloorDivSIOp(build.affine(s), build.const(step)))
                raw = build.add(arith.AddiOp(q, build.const(1)))
            if not ranges.nonneg(s.plus(step)):  # F may be negative: clamp at 0
                raw, form = build.add(arith.MaxSIOp(raw, build.const(0))), None
            self.falls.append((raw, form))
            parts.append(build.cmp("sle", n, raw))
        self.holds: SSAValue | None = None
        if steady:
            self.holds = build.all(steady)
            parts.insert(0, build.any([self.holds, build.cmp("sle", n, build.const(0))]))
        self.fast = build.all(parts)
        self._first: tuple[SSAValue, Affine | None] | None = None

    def first(self) -> tuple[SSAValue, Affine | None]:
        if self._first is None:
            candidates = list(self.falls)
            if self.holds is not None:
                zero = self.build.const(0)
                candidates.insert(0, (self.build.add(arith.SelectOp(self.holds, self.n, zero)),
                                      None))
            if not candidates:
                self._first = (self.n, None)
            elif len(candidates) == 1:
                self._first = candidates[0]
            else:
                self._first = (self.build.min([v for v, _ in candidates]), None)
        return self._first

    def at_first(self, e: Affine, iters: list[Sym]) -> SSAValue:
        """The value of `e` on the iteration where the check first fails."""
        if not any(sym in iters for sym in e.symbols()):
            return self.build.affine(e)
        value, form = self.first()
        if form is not None:
            for sym in iters:
                e = e.substitute(sym, form)
            return self.build.affine(e)
        return self.build.affine(e, {sym: value for sym in iters})
