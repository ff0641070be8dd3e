"""The CSE core: which ops compute the same value, and merging them (thesis 6.2, 6.3.3).

An op that computes what an op before it (in the same block or an enclosing one, so it
has already run) computed is replaced by that op's results, and erased; ops that this
leaves unused are erased too. Equality is decided on a *key* per op (`Keys.key`):

* name, properties and attributes (except the source location `loc`, which only says
  where a failure would be reported: the earlier op ran without failing), result
  types, and the operands, with certificate operands taken as a set (their order is
  irrelevant);
* ops with the `Commutative` trait (`arith.addi/muli/andi/ori/xori/maxsi/minsi/...`,
  `addf`/`mulf`, commutative though not associative in IEEE arithmetic, and
  `soac.conjoin`; Note [Commutative upstream ops] in `l0.dialects.upstream`) sort their
  operands by the order of their definitions in the function, so `x*y` and `y*x` meet;
  `cmpi`/`cmpf` write `a > b` as `b < a`;
* integer `+`, `-`, `*` and constants get a sum-of-products normal form (thesis 6.3.3):
  a polynomial over the values they combine, with coefficients wrapped to the type's
  width. Arithmetic modulo 2^w is a commutative ring, so this is exact: `(a+b)+c` and
  `(c+a)+b` meet, `a*(b+c)` meets `a*b + a*c`, and `(x+y)-y` is replaced by `x`. The
  form is abandoned (the value counts as an atom) beyond 16 terms or degree 6;
* ops with regions (SOACs, `scf.if`, `scf.for`) compare their regions structurally;
* `soac.assert` compares only its condition: a later check of a condition already
  checked cannot fail, whatever its message; the first check is kept, with its
  message and location, and is the one that reports a failure, as before.

Legality (`why_not_mergeable`): an op that prints is never merged (each `trace`
prints); nor is an op that consumes an array, nor one whose array result may be
consumed or carried into a consumed loop parameter (thesis 6.2: two `iota(10)` of
which one is updated in place must stay two buffers). Ops that may fail are merged:
the one kept ran first, so the one removed would have succeeded.

`CseDriver` walks a module and merges; `cse` runs it alone, `rebind` with a hook that
hoists out of each region holder once its regions are done (thesis 6.3).

Note [Comparing regions in linear time]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A thousand sibling SOACs whose lambdas differ only in a constant share one shallow
key. Comparing each new one with every earlier one, walking both lambdas each time,
took the square of their number in walks. An op's regions' key is computed when a
second op with its shallow key turns up, once, and ops are filed under the full key
(shallow key and regions' key): finding an equal op is then a dictionary probe.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeGuard

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.traits import (
    Commutative,
    IsolatedFromAbove,
    IsTerminator,
    SymbolOpInterface,
    is_side_effect_free,
)

from l0.dialects import soac
from l0.passes.analysis.consumption import consumes, why_result_consumed
from l0.passes.analysis.effects import is_dead
from l0.passes.analysis.order import DefinitionOrder
from l0.passes.analysis.speculation import Speculation
from l0.passes.analysis.walk import block_ops, walk_ops

_CMPI_SWAPPED = {4: 2, 5: 3, 8: 6, 9: 7}  # sgt->slt, sge->sle, ugt->ult, uge->ule
_CMPI_SYMMETRIC = {0, 1}  # eq, ne
_CMPF_SWAPPED = {2: 4, 3: 5, 9: 11, 10: 12}  # ogt->olt, oge->ole, ugt->ult, uge->ule
_CMPF_SYMMETRIC = {0, 1, 6, 7, 8, 13, 14, 15}

_POLY_OPS = frozenset({"arith.addi", "arith.subi", "arith.muli"})
_MAX_TERMS = 16
_MAX_DEGREE = 6
_KNOWN_DIALECTS = ("arith.", "math.", "soac.", "scf.", "func.call")

Monomial = tuple[int, ...]
"""A product of atoms, each atom given by its definition number, sorted."""
Poly = dict[Monomial, int]
"""A sum of products: monomial -> non-zero coefficient."""


# ---------------------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------------------


def _wrap(x: int, width: int) -> int:
    half = 1 << (width - 1)
    return ((x + half) & ((1 << width) - 1)) - half


def _mul(a: Poly, b: Poly, width: int) -> Poly | None:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            if len(m) > _MAX_DEGREE:
                return None
            out[m] = out.get(m, 0) + ca * cb
    return {m: c for m, c in ((m, _wrap(c, width)) for m, c in out.items()) if c}


def _add(a: Poly, b: Poly, scale: int, width: int) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + scale * c
    return {m: c for m, c in ((m, _wrap(c, width)) for m, c in out.items()) if c}


def _int_constant(op: Operation) -> int | None:
    # exactly the class: `isinstance` on op classes (ABCs) is slow, asked of every op
    if type(op) is arith.ConstantOp and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


@dataclass
class Keys:
    """Computes the key of an op (see the module docstring)."""

    order: DefinitionOrder
    polys: dict[SSAValue, Poly] = field(default_factory=dict[SSAValue, Poly])
    atoms: dict[int, SSAValue] = field(default_factory=dict[int, SSAValue])

    # -- sums of products ---------------------------------------------------------------

    def _atom(self, v: SSAValue) -> Poly:
        n = self.order(v)
        self.atoms[n] = v
        return {(n,): 1}

    def _combine(self, op: Operation, width: int) -> Poly | None:
        lhs, rhs = op._operands  # the op's own tuple; `op.operands` builds a view
        a, b = self.polys[lhs], self.polys[rhs]
        if op.name == "arith.muli":
            p = _mul(a, b, width)
        else:
            p = _add(a, b, -1 if op.name == "arith.subi" else 1, width)
        return p if p is not None and len(p) <= _MAX_TERMS else None

    def poly(self, v: SSAValue) -> Poly:
        """The sum-of-products form of the integer value `v` (memoised; iterative, as
        chains of additions can be long)."""
        polys = self.polys
        if v in polys:
            return polys[v]
        stack = [v]
        while stack:
            x = stack[-1]
            if x in polys:
                stack.pop()
                continue
            op = x.owner
            t = x.type
            if not isinstance(t, IntegerType) or not _is_operation(op):
                polys[x] = self._atom(x)
            elif op.name in _POLY_OPS:
                missing = [o for o in op._operands if o not in polys]
                if missing:
                    stack.extend(missing)
                    continue
                p = self._combine(op, t.width.data)
                polys[x] = self._atom(x) if p is None else p
            elif (c := _int_constant(op)) is not None:
                c = _wrap(c, t.width.data)
                polys[x] = {(): c} if c else {}
            else:
                polys[x] = self._atom(x)
            stack.pop()
        return polys[v]

    def _poly_key(self, op: Operation) -> tuple[Hashable, SSAValue | None]:
        """The key of an integer `+ - *` or constant, and the existing value it is equal
        to when its form is a single atom (`(x + y) - y` is `x`)."""
        p = self.poly(op.results[0])
        terms = tuple(sorted(p.items()))
        key = ("poly", op.results[0].type, terms)
        if len(terms) == 1 and terms[0][1] == 1 and len(terms[0][0]) == 1:
            atom = self.atoms[terms[0][0][0]]
            if atom is not op.results[0]:
                return key, atom
        return key, None

    # -- other keys ---------------------------------------------------------------------

    def _ref(self, v: SSAValue) -> int:
        return self.order(v)

    def _operands_key(self, op: Operation) -> Hashable:
        operands = list(op._operands)  # the op's own tuple; `op.operands` builds a view
        if _commutative(type(op)):
            return tuple(sorted(operands, key=self._ref))
        # exactly the class: attribute classes are ABCs, slow to test with `isinstance`
        certs = sorted((v for v in operands if type(v.type) is soac.CertType), key=self._ref)
        rest = tuple(v for v in operands if type(v.type) is not soac.CertType)
        return rest, tuple(certs)

    def _compare_key(self, op: Operation) -> Hashable:
        pred = op.properties["predicate"]
        assert isinstance(pred, IntegerAttr)
        p = pred.value.data
        a, b = op.operands
        swapped, symmetric = (
            (_CMPI_SWAPPED, _CMPI_SYMMETRIC) if isinstance(op, arith.CmpiOp)
            else (_CMPF_SWAPPED, _CMPF_SYMMETRIC)
        )
        if p in swapped:
            p, a, b = swapped[p], b, a
        elif p in symmetric and self._ref(b) < self._ref(a):
            a, b = b, a
        others = tuple(sorted((k, v) for k, v in op.properties.items() if k != "predicate"))
        return (op.name, p, a, b, others, _result_types(op))

    def _regions_key(self, op: Operation) -> Hashable:
        """A structural fingerprint of `op`'s regions: values defined inside are
        numbered locally, values from outside are referred to as themselves."""
        if not op.regions:
            return ()
        local: dict[SSAValue, int] = {}
        items: list[Hashable] = []

        def blocks(o: Operation) -> None:
            for region in o.regions:
                items.append(("region", len(region.blocks)))
                for block in region.blocks:
                    items.append(tuple(a.type for a in block.args))
                    for a in block.args:
                        local[a] = len(local)

        blocks(op)
        for inner in walk_ops(op):  # `op.walk()`'s order, faster
            if inner is op:
                continue
            refs = tuple(("in", local[v]) if v in local else ("out", self._ref(v))
                         for v in inner.operands)
            items.append((inner.name, refs, _props(inner), _attrs(inner),
                          _result_types(inner), len(inner.regions)))
            for r in inner.results:
                local[r] = len(local)
            blocks(inner)
        return tuple(items)

    def shallow_key(self, op: Operation) -> Hashable:
        """The key of an op with regions, without them: equal ops have equal shallow
        keys, and then `regions_key` decides (it is costly: it walks the regions)."""
        return (op.name, self._operands_key(op), _props(op), _attrs(op),
                _result_types(op), len(op.regions))

    def regions_key(self, op: Operation) -> Hashable:
        return self._regions_key(op)

    def key(self, op: Operation) -> tuple[Hashable, SSAValue | None]:
        """The key of `op`, and an existing value its single result equals, if known."""
        if type(op) is soac.AssertOp:  # exactly: `isinstance` on op classes is slow
            return ("soac.assert", op.cond), None
        result_type = op.results[0].type if len(op.results) == 1 else None
        if isinstance(result_type, IntegerType) and (
            op.name in _POLY_OPS or _int_constant(op) is not None
        ):
            return self._poly_key(op)
        if isinstance(op, arith.CmpiOp | arith.CmpfOp):
            return self._compare_key(op), None
        return (op.name, self._operands_key(op), _props(op), _attrs(op),
                _result_types(op), self._regions_key(op)), None


def _result_types(op: Operation) -> tuple[Attribute, ...]:
    # `op.result_types` makes its tuple with a generator, asked of every op
    return tuple([r.type for r in op.results])


def _props(op: Operation) -> Hashable:
    props = op.properties
    if len(props) <= 1:  # most ops: no sort, no generator (asked of every op)
        for k, v in props.items():
            return () if k == "loc" else ((k, v),)
        return ()
    return tuple(sorted([(k, v) for k, v in props.items() if k != "loc"]))


def _attrs(op: Operation) -> Hashable:
    attributes = op.attributes
    if not attributes:
        return ()
    return tuple(sorted([(k, v) for k, v in attributes.items() if k != "loc"]))


# ---------------------------------------------------------------------------------------
# Legality
# ---------------------------------------------------------------------------------------


@cache
def _commutative(op_class: type[Operation]) -> bool:
    """Whether ops of `op_class` are `Commutative` (a trait look-up per op otherwise)."""
    return op_class.has_trait(Commutative)


_IS_OPERATION: dict[type, bool] = {}
"""Whether objects of a class are ops, by class (Note [Class tests by class])."""


def _is_operation(owner: object) -> TypeGuard[Operation]:
    """`isinstance(owner, Operation)`, asked once per class."""
    kind = type(owner)
    known = _IS_OPERATION.get(kind)
    if known is None:
        known = _IS_OPERATION[kind] = isinstance(owner, Operation)
    return known


# Note [Class tests by class]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# xDSL's op and attribute classes are ABCs: `isinstance(x, Operation)` for an op of a
# subclass runs `ABCMeta.__instancecheck__`, a Python call, where a test of an exact
# class is a pointer comparison. A value's owner is an op or a block, asked for every
# integer value CSE puts in normal form: the answer depends only on the class, so it
# is asked once per class. Exact-class tests (`type(x) is C`) stand for `isinstance`
# where C has no subclasses (l0's op classes, `CertType`).


@cache
def _class_traits(op_class: type[Operation]) -> tuple[bool, bool]:
    """Whether ops of `op_class` are terminators or symbols, and whether they are
    isolated from above: asked of every op, and a trait look-up tests each of the
    class's traits in turn."""
    return (op_class.has_trait(IsTerminator) or op_class.has_trait(SymbolOpInterface),
            op_class.has_trait(IsolatedFromAbove))


def _why_not_candidate(op: Operation) -> str | None:
    """The structural reasons for `why_not_mergeable` (cheap: checked on every op)."""
    terminator_or_symbol, isolated = _class_traits(type(op))
    if terminator_or_symbol:
        return "it is a terminator or a symbol"
    if isolated or any(len(r.blocks) > 1 for r in op.regions):
        return "its regions are not single lambdas or branches"
    if not op.results:
        return "it has no results"
    if not op.name.startswith(_KNOWN_DIALECTS) and not is_side_effect_free(op):
        return "it may have effects"
    return None


def why_not_mergeable(op: Operation, speculation: Speculation) -> str | None:
    """Why `op` may neither be replaced by an equal earlier op nor replace a later one
    (see the module docstring); None if it may."""
    reason = _why_not_candidate(op)
    if reason is not None:
        return reason
    if speculation.prints(op):
        return "it prints"
    if consumes(op):
        return "it consumes an array"
    return why_result_consumed(op)


# ---------------------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------------------

AfterRegions = Callable[[Operation], Sequence[Operation]]
"""A hook called on each op with regions once CSE has visited them; it returns ops it
has placed just before that op (in order), which CSE then visits."""


class CseDriver:
    """Scoped CSE over a module (see the module docstring).

    Known ops live in a stack of scopes, one per region being visited, so an op is
    only ever replaced by one that dominates it. `after_regions` lets `rebind` hoist
    out of each region holder once its regions are done."""

    def __init__(self, module: ModuleOp, rewriter: PatternRewriter | None = None,
                 after_regions: AfterRegions | None = None,
                 speculation: Speculation | None = None) -> None:
        self.module = module
        self.speculation = speculation or Speculation(module)
        self.effectful = self.speculation.effectful
        self.rewriter = rewriter or PatternRewriter(InsertPoint.at_start(module.body.block))
        self.after_regions = after_regions
        self.keys = Keys(DefinitionOrder(module))
        self.scopes: list[dict[Hashable, Any]] = []
        """Per block: key -> results of the op, or shallow key -> ops with regions."""
        self.maybe_dead: list[Operation] = []
        self.merged = 0

    def run(self) -> int:
        """CSE on every function of the module; returns the number of ops replaced."""
        for f in list(self.module.ops):
            if isinstance(f, func.FuncOp) and f.body.blocks:
                self.scopes = []
                self._region(f.body)
        self._erase_dead()
        return self.merged

    # -- walking ------------------------------------------------------------------------

    def _region(self, region: Region) -> None:
        for block in region.blocks:  # one scope per block: no dominance across blocks
            self.scopes.append({})
            for op in block_ops(block):
                if op.parent is block:
                    self._op(op)
            self.scopes.pop()

    def _op(self, op: Operation) -> None:
        if op.regions:
            saved = self.scopes
            if op.has_trait(IsolatedFromAbove):
                self.scopes = []
            for region in op.regions:
                self._region(region)
            self.scopes = saved
            if self.after_regions is not None:
                for moved in self.after_regions(op):
                    if moved.parent is not None:
                        self.visit(moved)
        self.visit(op)

    # -- merging ------------------------------------------------------------------------

    def _lookup(self, key: Hashable) -> tuple[SSAValue, ...] | None:
        for scope in reversed(self.scopes):
            found = scope.get(key)
            if found is not None:
                return found
        return None

    def visit(self, op: Operation) -> None:
        """Replace `op` by an equal op already visited in scope, or remember it. The
        costly legality (`why_not_mergeable`) is only asked when an equal op is found."""
        if _why_not_candidate(op) is not None:
            return
        if op.regions:
            self._visit_with_regions(op)
            return
        key, equal = self.keys.key(op)
        if equal is not None:  # an integer expression equal to an existing value
            self._replace(op, (equal,))
            return
        found = self._lookup(key)
        if found is not None and self._may_merge(op, found):
            self._replace(op, found)
            return
        if self.scopes:
            self.scopes[-1][key] = tuple(op.results)

    def _visit_with_regions(self, op: Operation) -> None:
        """`visit` for an op with regions: the ops in scope with its shallow key are
        compared with it by their regions' keys, so that regions are only walked when
        there is an op to compare them with (most SOACs have none), and each op's
        regions at most once (Note [Comparing regions in linear time])."""
        shallow = ("regions", self.keys.shallow_key(op))
        if any(shallow in scope for scope in self.scopes):
            full = ("regions-key", shallow, self.keys.regions_key(op))
            for scope in reversed(self.scopes):
                self._key_pending(scope, shallow)
                for other in scope.get(full, ()):
                    if other.parent is not None and \
                            self._may_merge(op, tuple(other.results)):
                        self._replace(op, tuple(other.results))
                        return
            if self.scopes:
                self.scopes[-1].setdefault(shallow, [])
                self.scopes[-1].setdefault(full, []).append(op)
            return
        if self.scopes:
            self.scopes[-1].setdefault(shallow, []).append(op)

    def _key_pending(self, scope: dict[Hashable, Any], shallow: Hashable) -> None:
        """File the ops of `scope` with the shallow key `shallow` that have not been
        compared yet under their full keys (their regions are walked once, here)."""
        pending = scope.get(shallow)
        if not pending:
            return
        for other in pending:
            if other.parent is not None:
                full = ("regions-key", shallow, self.keys.regions_key(other))
                scope.setdefault(full, []).append(other)
        scope[shallow] = []

    def _may_merge(self, op: Operation, found: tuple[SSAValue, ...]) -> bool:
        """Whether `op` may be replaced by the equal op whose results are `found` (which
        is then equal to `op` in everything but its uses)."""
        if why_not_mergeable(op, self.speculation) is not None:
            return False
        earlier = found[0].owner if found else None
        return not isinstance(earlier, Operation) or why_result_consumed(earlier) is None

    def _replace(self, op: Operation, values: Sequence[SSAValue]) -> None:
        for old, new in zip(op.results, values, strict=True):
            self.rewriter.replace_all_uses_with(old, new)
        self.maybe_dead.extend(o.owner for o in op.operands if isinstance(o.owner, Operation))
        self.rewriter.erase(op)
        self.merged += 1

    def _erase_dead(self) -> None:
        """Erase the ops that merging left unused, and then their operands' ops."""
        work = list(reversed(self.maybe_dead))
        while work:
            op = work.pop()
            if op.parent is None or not is_dead(op, self.effectful):
                continue
            work.extend(o.owner for o in op.operands if isinstance(o.owner, Operation))
            self.rewriter.erase(op)


def cse(module: ModuleOp, rewriter: PatternRewriter | None = None) -> int:
    """Common subexpression elimination on every function of `module`; returns the
    number of ops replaced."""
    return CseDriver(module, rewriter).run()
