"""Symbolic affine ranges over i64 values: the analysis behind `bounds` (thesis 6.1).

Every i64 value gets an *affine form* `c0 + c1*s1 + ... + ck*sk` over symbols, exact in
the ring of 64-bit integers (`+`, `-` and `*` by a constant wrap, and so do these forms):

* `Sym.size(a, d)`: the size of dimension d of an array. Sizes are followed back to
  the array they equal (`size(0, iota(n))` is n, the rows of `%x` bound to the rows of
  `%a` have the sizes of `%a`'s inner dimensions, `copy`, `let-with` and a loop merge
  value updated in place keep their source's sizes, ...), so that two expressions of
  one size meet;
* `Sym.value(v)`: any other value, opaque;
* a *row-size select* `select(m != 0, n, 0)` (the normalised size of an inner dimension,
  `size(1, a)` with `m = size(0, a)`): a symbol of its own, bounded, never negative, and
  equal to `n` wherever a loop over `m` rows runs an iteration (Note [Row-size selects]).

An *iterator* is a value that runs over an integer range: the induction variable of an
`scf.for` (lb .. ub-1) and a lambda parameter bound to the rows of `soac.iota %n`
(0 .. n-1). `Ranges.nonneg(e)` proves `e >= 0` wherever its iterators are in range, by
putting each iterator (innermost first) at the end of its range that minimises `e`,
then asking that what is left be a non-negative constant plus non-negative multiples
of sizes. (Substituting an endpoint is sound even for an empty range: then the code
in question never runs.)

Note [Witnesses]
~~~~~~~~~~~~~~~~
A size symbol names the array its chain of equal sizes ends at, which may be an array
that is consumed by the time code is placed somewhere: the size of `a` after
`let a[i] = v` is the size of the array before the update, which no op may read any
more. So `size` also records every array on the way (the updated `a`, a loop merge
value's initial value, a row's array, ...): any of them of equal size that is
available where code is placed, and not consumed before, can compute the symbol.

Note [Overflow]
~~~~~~~~~~~~~~~
Affine forms are exact modulo 2^64, but `<` is not: `i + 1 < n + 1` fails for
`n = 2^63 - 1` although `i < n` holds. An inequality between two sides is therefore
trusted only when each side is *exact*, i.e. its wrapped value is its integer value:
a lone symbol or constant, or a combination of *bounded* symbols with small
coefficients. Bounded are sizes (an array in memory has fewer than 2^50 elements) and
iterators (a loop reaches fewer than 2^50 iterations in any feasible run); opaque
values, such as an `int` parameter, are not.

Note [Row-size selects]
~~~~~~~~~~~~~~~~~~~~~~~
An array with no rows has no columns, so the simplifier writes `size(1, a)` as
`select(size(0, a) != 0, n, 0)`, and the sizes of the rows a map over `m` rows makes are
`select(m != 0, n, 0)`. Opaque, such a select would make every check that mentions it
inexact (Note [Overflow]), and it would never meet `n`: LocVolCalib's tridiagonal solves
along x, over the rows `u[j]` of an array `u` of `numY` rows, index rows of size
`select(numY != 0, numX, 0)` and coefficient arrays of size `numX` with one index. So the
select is a symbol of its own kind, "select", bounded (both arms are sizes or small
constants) and non-negative, and a check is proved with the facts of the place it is
evaluated (`Ranges.facts_at`): inside a lambda bound to the rows of an array of `m` rows,
or in the body of an `scf.for` from 0 to `m`, an iteration runs, so `m != 0` and the
select is `n` there. A check elsewhere keeps the symbol.

Note [Counted values]
~~~~~~~~~~~~~~~~~~~~~
An `int` parameter is opaque: it may be negative, and `numX - 1` wraps near -2^63, so a
comparison with it is not exact (Note [Overflow]). But where a SOAC over `iota(v)` (or
an `scf.for` from 0 to `v`) encloses the check, or has run to its end before it, `v`
counted iterations: the iota checked that it is not negative, and no feasible run
reaches 2^50 iterations (`l0.passes.bounds.counts`; an iota whose check was weakened
when it left a loop over m, `0 <= v || m == 0`, counts only where m is known not to be
0: with m = 0 it is built, and mapped over, whatever v). There `v` is as good as a size:
bounded and never negative; and `select(m != 0, v, 0)` is a row-size select like
`select(m != 0, size, 0)`. This matters once `size-hindrance` has written the sizes of
arrays built over `iota(numX)` as the parameter `numX` itself: LocVolCalib's stencils
read `myResult[i + 1, j]` under `if i < numX - 1`, and their rows are
`select(numY != 0, numX, 0)`; with `numX` counted (a map over `iota(numX)` built the
grid before the time loop) the branch fact and the select hold as they did of sizes.

Note [Branch facts]
~~~~~~~~~~~~~~~~~~~
A stencil reads its neighbours under a guard: `if j < n - 1 then a[j + 1] else 0`. The
range of the iterator `j` is `0 .. n - 1`, which does not prove `j + 1 < n`, but in the
branch taken when `j < n - 1` its range is `0 .. n - 2`. So `facts_at` also collects,
from each `scf.if` whose then-branch encloses the check, the conjuncts of its condition
that compare a lone iterator with an exact form of symbols defined outside its loop
(Note [Overflow]: the comparison in i64 is then the comparison of integers; outer
symbols only, as in the iterator's own range, so that `minimum` ends), as a narrower
range of that iterator there;
`minimum` takes the narrower end. (The else-branch, `j >= n - 1`, is not used.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from l0.dialects import soac
from l0.passes.analysis.order import DefinitionOrder
from l0.passes.bounds.counts import iterated_before

BOUND_BITS = 50
"""Sizes and iterator values are assumed below 2^50 in magnitude (Note [Overflow])."""

_EXACT_LIMIT = 1 << 61


@dataclass(frozen=True)
class Sym:
    """A symbol of an affine form: `size(value, dim)` or an opaque `value`."""

    kind: str
    """"size" or "value"."""
    value: SSAValue
    dim: int
    rank: int
    """The definition number of `value`: symbols sort by it (inner after outer)."""

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (self.rank, 0 if self.kind == "value" else 1, self.dim)


@dataclass(frozen=True)
class Affine:
    """`const + sum(coeff * sym)`, with the terms sorted and no zero coefficient."""

    const: int = 0
    terms: tuple[tuple[Sym, int], ...] = ()

    @staticmethod
    def of(const: int, terms: Iterable[tuple[Sym, int]]) -> Affine:
        acc: dict[Sym, int] = {}
        for s, c in terms:
            acc[s] = acc.get(s, 0) + c
        kept = sorted(((s, c) for s, c in acc.items() if c), key=lambda t: t[0].sort_key)
        return Affine(const, tuple(kept))

    @staticmethod
    def sym(s: Sym) -> Affine:
        return Affine(0, ((s, 1),))

    def __add__(self, other: Affine) -> Affine:
        return Affine.of(self.const + other.const, self.terms + other.terms)

    def __sub__(self, other: Affine) -> Affine:
        return self + other.scale(-1)

    def scale(self, k: int) -> Affine:
        return Affine.of(self.const * k, ((s, c * k) for s, c in self.terms))

    def plus(self, k: int) -> Affine:
        return Affine(self.const + k, self.terms)

    def coeff(self, s: Sym) -> int:
        return next((c for t, c in self.terms if t == s), 0)

    def without(self, s: Sym) -> Affine:
        return Affine(self.const, tuple((t, c) for t, c in self.terms if t != s))

    def substitute(self, s: Sym, e: Affine) -> Affine:
        c = self.coeff(s)
        return self if c == 0 else self.without(s) + e.scale(c)

    @property
    def is_const(self) -> bool:
        return not self.terms

    def symbols(self) -> list[Sym]:
        return [s for s, _ in self.terms]


def _int_constant(v: SSAValue) -> int | None:
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


@dataclass(frozen=True)
class Iterator:
    """An iterator's range `lo .. hi` (inclusive) and the op whose region it runs in."""

    lo: Affine
    hi: Affine
    holder: Operation


def row_params(op: Operation) -> list[tuple[BlockArgument, SSAValue]]:
    """The lambda parameters of a SOAC bound to rows of its inputs, with the inputs."""
    return soac.row_arguments(op)


def _updated_from(v: SSAValue, source: SSAValue) -> bool:
    """Whether `v` is `source` after in-place updates and copies (same shape)."""
    for _ in range(10_000):
        if v is source:
            return True
        op = v.owner
        if isinstance(op, soac.UpdateOp | soac.CopyOp):
            v = op.array
        else:
            return False
    return False


@dataclass
class Facts:
    """What holds where a check is evaluated (`Ranges.facts_at`): counts that are
    positive there (Note [Row-size selects]) and narrower iterator ranges (Note [Branch
    facts]): an iterator symbol -> (lowest, highest), either None where not narrowed."""

    positive: list[Affine] = field(default_factory=list[Affine])
    narrowed: dict[Sym, tuple[Affine | None, Affine | None]] = field(
        default_factory=dict[Sym, tuple[Affine | None, Affine | None]])
    counts: list[Affine] = field(default_factory=list[Affine])
    """The iteration counts of the enclosing SOACs over `iota` and `scf.for` loops from
    0 by 1: bounded there (Note [Counted values])."""
    place: Operation | None = None
    """Where the check runs: a value is counted there when a SOAC over `iota` of it
    encloses it or has run before it (Note [Counted values])."""
    counted_memo: dict[Sym, bool] = field(default_factory=dict[Sym, bool])
    form: Callable[[SSAValue], Affine] | None = None
    """The affine form of a value (`Ranges.affine`)."""

    def counted(self, s: Sym) -> bool:
        """Whether the opaque value `s` counts iterations where the check runs."""
        if s.kind not in ("value", "select") or self.place is None:
            return False
        if s not in self.counted_memo:
            self.counted_memo[s] = Affine.sym(s) in self.counts or iterated_before(
                s.value, self.place, lambda m: self.running(m))
        return self.counted_memo[s]

    def running(self, m: SSAValue) -> bool:
        """Whether the count `m` is positive where the check runs (an enclosing loop or
        lambda over m runs an iteration)."""
        return self.form is not None and self.form(m) in self.positive

    def narrow(self, s: Sym, lo: Affine | None, hi: Affine | None) -> None:
        old_lo, old_hi = self.narrowed.get(s, (None, None))
        self.narrowed[s] = (lo or old_lo, hi or old_hi)


@dataclass
class Ranges:
    """Affine forms and iterator ranges of the values of one module (memoised)."""

    order: DefinitionOrder
    forms: dict[SSAValue, Affine] = field(default_factory=dict[SSAValue, Affine])
    iterators: dict[SSAValue, Iterator | None] = field(
        default_factory=dict[SSAValue, Iterator | None])
    witnesses: dict[Sym, list[tuple[SSAValue, int]]] = field(
        default_factory=dict[Sym, list[tuple[SSAValue, int]]])

    # -- symbols ------------------------------------------------------------------------

    def value_sym(self, v: SSAValue) -> Sym:
        return Sym("value", v, 0, self.order(v))

    def size_sym(self, a: SSAValue, d: int) -> Sym:
        return Sym("size", a, d, self.order(a))

    # -- affine forms -------------------------------------------------------------------

    def affine(self, v: SSAValue) -> Affine:
        """The affine form of the i64 value `v` (an opaque symbol when nothing better)."""
        stack = [v]
        while stack:  # iterative: chains of arithmetic can be long
            x = stack[-1]
            if x in self.forms:
                stack.pop()
                continue
            pending = self._pending(x)
            if pending:
                stack.extend(pending)
                continue
            self.forms[x] = self._form(x)
            stack.pop()
        return self.forms[v]

    def _pending(self, x: SSAValue) -> list[SSAValue]:
        """Operands whose forms `_form(x)` needs and that are not known yet."""
        op = x.owner
        if isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp) and op.result.type == i64:
            return [o for o in op.operands if o not in self.forms]
        if isinstance(op, arith.SelectOp) and op.result.type == i64:
            return [o for o in (op.lhs, op.rhs) if o not in self.forms]
        return []

    def _form(self, x: SSAValue) -> Affine:
        op = x.owner
        c = _int_constant(x)
        if c is not None and x.type == i64:
            return Affine(c)
        if isinstance(op, arith.AddiOp) and x.type == i64:
            return self.forms[op.lhs] + self.forms[op.rhs]
        if isinstance(op, arith.SubiOp) and x.type == i64:
            return self.forms[op.lhs] - self.forms[op.rhs]
        if isinstance(op, arith.MuliOp) and x.type == i64:
            a, b = self.forms[op.lhs], self.forms[op.rhs]
            if a.is_const:
                return b.scale(a.const)
            if b.is_const:
                return a.scale(b.const)
        if isinstance(op, soac.SizeOp):
            return self.size(op.array, op.dim.data)
        if isinstance(op, arith.SelectOp) and x.type == i64 and self.row_size_select(op):
            return Affine.sym(Sym("select", x, 0, self.order(x)))
        return Affine.sym(self.value_sym(x))

    def row_size_select(self, op: arith.SelectOp) -> tuple[SSAValue, Affine] | None:
        """For `select(m != 0, n, 0)` with `n` a size, a small non-negative constant or
        a lone value (bounded where it is counted, Note [Counted values]): `m` and the
        form of `n` (Note [Row-size selects]); else None."""
        m = _nonzero_operand(op.cond)
        if m is None or m.type != i64 or self.forms.get(op.rhs) != Affine(0):
            return None
        n = self.forms.get(op.lhs)
        if n is None or not (_size_like(n) or _lone(n, "value")):
            return None
        return m, n

    def select_arm(self, s: Sym) -> Affine:
        """The `n` of the row-size select `s`."""
        owner = s.value.owner
        assert isinstance(owner, arith.SelectOp)  # what a "select" symbol stands for
        found = self.row_size_select(owner)
        assert found is not None
        return found[1]

    def facts_at(self, op: Operation) -> Facts:
        """What holds where `op` runs: the counts of its enclosing loops are positive (an
        enclosing lambda bound to the rows of an array of `m` rows, or an enclosing
        `scf.for` from 0 to `m` with a positive step, runs an iteration; Note [Row-size
        selects]), and the conditions of the `scf.if`s whose then-branch encloses it
        narrow the ranges of iterators (Note [Branch facts])."""
        facts = Facts(place=op, form=self.affine)
        conditions: list[SSAValue] = []
        parent = op.parent_op()
        inner: Operation = op
        while parent is not None:
            if isinstance(parent, scf.ForOp):
                step = _int_constant(parent.step)
                if (inner.parent_region() is parent.body and _int_constant(parent.lb) == 0
                        and step is not None and step > 0):
                    facts.positive.append(self.affine(parent.ub))
                    if step == 1:
                        facts.counts.append(self.affine(parent.ub))
            elif isinstance(parent, scf.IfOp):
                if inner.parent_region() is parent.true_region:
                    conditions.append(parent.cond)
            else:
                block = inner.parent_block()
                for p, source in row_params(parent):
                    if p.block is block:
                        facts.positive.append(self.size(source, 0))
                        if isinstance(source.owner, soac.IotaOp):
                            facts.counts.append(self.affine(source.owner.n))
                        break
            inner, parent = parent, parent.parent_op()
        for cond in conditions:  # after the counts: they make more conditions exact
            self._branch_facts(cond, facts)
        return facts

    def _branch_facts(self, cond: SSAValue, facts: Facts) -> None:
        """Narrow iterator ranges by the conjuncts of `cond`, true here (Note [Branch
        facts])."""
        op = cond.owner
        if isinstance(op, arith.AndIOp):
            self._branch_facts(op.lhs, facts)
            self._branch_facts(op.rhs, facts)
            return
        if not isinstance(op, arith.CmpiOp) or op.lhs.type != i64:
            return
        pred = op.predicate.value.data
        a, b = self.affine(op.lhs), self.affine(op.rhs)
        if pred in (_SGT, _SGE):  # a > b is b < a
            a, b, pred = b, a, _SLT if pred == _SGT else _SLE
        if pred not in (_SLT, _SLE) or not (self.exact(a, facts) and self.exact(b, facts)):
            return
        strict = 1 if pred == _SLT else 0
        it = self._lone_iterator(a)
        if it is not None and _outer_to(b, it):  # it <= b - strict
            facts.narrow(it, None, b.plus(-strict))
        it = self._lone_iterator(b)
        if it is not None and _outer_to(a, it):  # it >= a + strict
            facts.narrow(it, a.plus(strict), None)

    def _lone_iterator(self, e: Affine) -> Sym | None:
        if e.const == 0 and len(e.terms) == 1 and e.terms[0][1] == 1:
            s = e.terms[0][0]
            return s if self.is_iterator(s) else None
        return None

    def _use_facts(self, e: Affine, positive: list[Affine]) -> Affine:
        """`e` with each row-size select over a count in `positive` replaced by its `n`."""
        for s in e.symbols():
            if s.kind == "select":
                owner = s.value.owner
                assert isinstance(owner, arith.SelectOp)
                found = self.row_size_select(owner)
                if found is not None and self.affine(found[0]) in positive:
                    e = e.substitute(s, found[1])
        return e

    def size(self, a: SSAValue, d: int) -> Affine:
        """The affine form of `size(d, a)`, following `a` back to an equal array. Every
        (array, dim) passed on the way is recorded as a *witness* of the symbol reached:
        an array of that size, for code that must compute it somewhere (Note [Witnesses])."""
        path = [(a, d)]
        for _ in range(10_000):
            step = self._size_step(a, d)
            if isinstance(step, Affine):
                return step
            if step is None:
                break
            a, d = step
            path.append(step)
        sym = self.size_sym(a, d)
        known = self.witnesses.setdefault(sym, [])
        known.extend(w for w in path if w not in known)
        return Affine.sym(sym)

    def _size_step(self, a: SSAValue, d: int) -> Affine | tuple[SSAValue, int] | None:
        """One step of `size`: a form, an earlier (array, dim) of equal size, or None."""
        op = a.owner
        match op:
            case soac.IotaOp() if d == 0:
                return self.affine(op.n)
            case soac.ReplicateOp() if d == 0:
                return self.affine(op.n)  # inner sizes are 0 when n is: no equation
            case soac.CopyOp() | soac.UpdateOp():
                return (op.array, d)
            case soac.IndexOp():
                return (op.array, d + len(op.indices))
            case soac.ReshapeOp() if d == 0:
                return self.affine(op.shape[0])
            case soac.MapOp() | soac.ScanOp() | soac.ScanomapOp() if d == 0:
                return (op.inputs[0], 0)
            case _:
                pass
        if isinstance(a, BlockArgument):
            owner = a.block.parent_op()
            for p, source in row_params(owner) if owner is not None else []:
                if p is a:
                    return (source, d + 1)  # the lambda runs only on rows of `source`
            if isinstance(owner, scf.ForOp) and a.index > 0:
                return self._merge_size(owner, a.index - 1, d)
        if isinstance(a, OpResult) and isinstance(op, scf.ForOp):
            return self._merge_size(op, a.index, d)
        return None

    def _merge_size(self, loop: scf.ForOp, k: int, d: int) -> tuple[SSAValue, int] | None:
        """A loop merge value keeps the sizes of its initial value when the body yields
        it updated in place."""
        body = loop.body.block
        yielded = body.last_op
        if yielded is None or k >= len(yielded.operands):
            return None
        if _updated_from(yielded.operands[k], body.args[k + 1]):
            return (loop.iter_args[k], d)
        return None

    # -- iterators ----------------------------------------------------------------------

    def iterator(self, v: SSAValue) -> Iterator | None:
        """The range of `v` when it is an iterator, else None (memoised)."""
        if v not in self.iterators:
            self.iterators[v] = self._iterator(v)
        return self.iterators[v]

    def _iterator(self, v: SSAValue) -> Iterator | None:
        if not isinstance(v, BlockArgument):
            return None
        owner = v.block.parent_op()
        if isinstance(owner, scf.ForOp) and v.index == 0:
            step = _int_constant(owner.step)
            if step is None or step < 1:
                return None
            return Iterator(self.affine(owner.lb), self.affine(owner.ub).plus(-1), owner)
        if owner is None:
            return None
        for p, source in row_params(owner):
            if p is v and isinstance(source.owner, soac.IotaOp):
                return Iterator(Affine(0), self.affine(source.owner.n).plus(-1), owner)
        return None

    def is_iterator(self, s: Sym) -> bool:
        return s.kind == "value" and self.iterator(s.value) is not None

    # -- proofs -------------------------------------------------------------------------

    def minimum(self, e: Affine, facts: Facts | None = None, narrow: bool = True) -> Affine:
        """A lower bound of `e` free of iterators: each iterator, innermost first, at the
        end of its range that minimises `e`. With `facts` (`facts_at`), row-size selects
        are replaced by what they equal where `e` is evaluated, also in the iterators'
        ranges, and (with `narrow`) the ends of ranges narrowed there are used instead."""
        for _ in range(10_000):
            if facts is not None:
                e = self._use_facts(e, facts.positive)
            iters = [s for s in e.symbols() if self.is_iterator(s)]
            if not iters:
                return e
            s = max(iters, key=lambda t: t.sort_key)
            it = self.iterator(s.value)
            assert it is not None
            lo, hi = it.lo, it.hi
            if narrow and facts is not None and s in facts.narrowed:
                n_lo, n_hi = facts.narrowed[s]
                lo, hi = n_lo or lo, n_hi or hi
            e = e.substitute(s, lo if e.coeff(s) > 0 else hi)
        return e

    def nonneg(self, e: Affine, facts: Facts | None = None) -> bool:
        """Whether `e >= 0` wherever its iterators are in range (see the docstring);
        `facts` as for `minimum`: a narrowed end proves what it proves, and so does the
        whole range (either may be the tighter one)."""
        def holds(narrow: bool) -> bool:
            m = self.minimum(e, facts, narrow)
            return m.const >= 0 and all(c > 0 and self._never_negative(s, facts)
                                        for s, c in m.terms)
        return holds(True) or (facts is not None and bool(facts.narrowed) and holds(False))

    def _never_negative(self, s: Sym, facts: Facts | None) -> bool:
        """Whether the symbol, free of iterators, is at least 0: a size, a select of a
        size, or a value counted where the check runs (Note [Counted values])."""
        if s.kind == "select":
            arm = self.select_arm(s)
            return _size_like(arm) or facts is not None and (
                facts.counted(arm.terms[0][0]) or facts.counted(s))
        return s.kind == "size" or facts is not None and facts.counted(s)

    def bounded(self, s: Sym, facts: Facts | None = None) -> bool:
        """Whether the symbol's values are small (Note [Overflow]); with `facts`, also a
        value counted where the check runs (Note [Counted values])."""
        if s.kind in ("size", "select"):
            return self._never_negative(s, facts)
        return self.is_iterator(s) or facts is not None and facts.counted(s)

    def exact(self, e: Affine, facts: Facts | None = None) -> bool:
        """Whether the wrapped value of `e` is its integer value (Note [Overflow])."""
        if e.is_const or (len(e.terms) == 1 and e.const == 0 and e.terms[0][1] == 1):
            return True
        if not all(self.bounded(s, facts) for s in e.symbols()):
            return False
        total = abs(e.const) + sum(abs(c) for _, c in e.terms) * (1 << BOUND_BITS)
        return total < _EXACT_LIMIT


# arith.cmpi predicates: 0 eq, 1 ne, 2 slt, 3 sle, 4 sgt, 5 sge.
_NE, _SLT, _SLE, _SGT, _SGE = 1, 2, 3, 4, 5


def _nonzero_operand(cond: SSAValue) -> SSAValue | None:
    """`m` for a condition `m != 0`, `0 != m`, `0 < m` or `m > 0`; else None."""
    op = cond.owner
    if not isinstance(op, arith.CmpiOp):
        return None
    pred = op.predicate.value.data
    lhs_zero, rhs_zero = _int_constant(op.lhs) == 0, _int_constant(op.rhs) == 0
    if pred == _NE and (lhs_zero or rhs_zero):
        return op.lhs if rhs_zero else op.rhs
    if pred == _SLT and lhs_zero:
        return op.rhs
    if pred == _SGT and rhs_zero:
        return op.lhs
    return None


def _outer_to(e: Affine, it: Sym) -> bool:
    """Whether every symbol of `e` sorts before the iterator `it`, as the ends of its own
    range do: `minimum` then replaces iterators by forms of outer symbols only, and ends."""
    return all(s.sort_key < it.sort_key for s in e.symbols())


def _lone(e: Affine, kind: str) -> bool:
    """Whether `e` is one symbol of the kind, unscaled."""
    return (e.const == 0 and len(e.terms) == 1 and e.terms[0][1] == 1
            and e.terms[0][0].kind == kind)


def _size_like(e: Affine) -> bool:
    """A lone size symbol, or a constant in [0, 2^BOUND_BITS)."""
    if e.is_const:
        return 0 <= e.const < (1 << BOUND_BITS)
    return (e.const == 0 and len(e.terms) == 1 and e.terms[0][1] == 1
            and e.terms[0][0].kind == "size")
