"""`dce`: erase dead operations, keeping every one that may fail or print (thesis 5.3).

The thesis's simplifier removes a `let` binding none of whose names is used
(chapter 5.3, "let pat = e in body"); in SSA that is an operation none of whose
results is used. Unlike xDSL's generic `dce`, which trusts the effect traits alone,
this pass knows which L0 operations observably do something besides computing their
results, and keeps those even when nothing uses them (docs/reference.md §5: checks are
raised even if the value is unused):

* `soac.assert` (it may fail) and `soac.trace` (it prints);
* operations the interpreter can fail on at run time without an assert guarding
  them: an array literal, `concat`, `map` or `scan` that may build an irregular
  array (Note [Irregular arrays]), an integer shift by a count not known to be
  non-negative, `fptosi` of a real not known to be in range, an integer division
  or `ipowi` whose divisor or exponent is not a known safe constant;
* a call of a function that (transitively) contains any of the above, or of a
  function this module does not define;
* an op with regions (a SOAC, `scf.if`, `scf.for`) any of whose nested ops has
  effects.

Everything else (arithmetic, `soac.index`, `soac.iota`, a SOAC with a pure lambda,
a call of a pure function, a loop whose body is pure) is erased when unused.
Non-termination is not an effect: a dead call of a pure recursive function goes,
as it did in the 2014 compiler.

Note [Irregular arrays]
~~~~~~~~~~~~~~~~~~~~~~~
The interpreter reports an array built from rows of different shapes (thesis 2.1).
Such an array can come from a literal whose elements are arrays, from `concat` of
arrays of rank 2 or more (its certificates compare only the row length), from a
`map` whose lambda yields arrays, or from a `scan` with array accumulators. A dead
op of that kind is kept unless its rows provably have one shape: literal elements
of one static shape or all the same value; a map whose lambda yields arrays of a shape
known before it runs (`l0.passes.analysis.shapes.row_shape`: a value defined outside,
a row argument, `iota(n)` or `replicate(n, ...)` with `n` from outside, a nested map
over a row...).

Reusable pieces: `effectful_functions(module)` and `has_effects(op, effectful)`
(used by `simplify` and `inline`), and the `EraseDeadOp` pattern.
"""

from __future__ import annotations

from collections.abc import Set
from functools import cached_property

from l0.dialects import soac
from l0.passes.analysis.shapes import row_shape
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.traits import IsTerminator, SymbolOpInterface, is_side_effect_free

# ---------------------------------------------------------------------------------------
# Constants and shapes known at compile time
# ---------------------------------------------------------------------------------------


def constant_int(v: SSAValue) -> int | None:
    """The value of an integer (or i1) `arith.constant`, else None (i1 true is 1)."""
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        data = op.value.value.data
        t = op.value.type
        return 1 if isinstance(t, IntegerType) and t.width.data == 1 and data else data
    return None


def constant_float(v: SSAValue) -> float | None:
    """The value of an f64 `arith.constant`, else None."""
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, FloatAttr):
        if isinstance(op.value.type, Float64Type):
            return float(op.value.value.data)
    return None


def static_shape(v: SSAValue, depth: int = 8) -> tuple[int, ...] | None:
    """The shape of the array `v` when the IR fixes it at compile time, else None:
    `soac.empty`, `soac.iota` of a constant, `soac.replicate` of a constant count, and
    literals whose elements all have one static shape (or are scalars)."""
    if depth <= 0:
        return None
    op = v.owner
    match op:
        case soac.EmptyOp():
            t = v.type
            return (0,) * t.get_num_dims() if isinstance(t, TensorType) else None
        case soac.IotaOp():
            n = constant_int(op.n)
            return (n,) if n is not None and n >= 0 else None
        case soac.ReplicateOp():
            n = constant_int(op.n)
            if n is None or n < 0:
                return None
            if not isinstance(op.value.type, TensorType):
                return (n,)
            inner = static_shape(op.value, depth - 1)
            return None if inner is None else (n, *inner)
        case soac.ArrayOp():
            if not isinstance(op.elems[0].type, TensorType):
                return (len(op.elems),)
            inner = static_shape(op.elems[0], depth - 1)
            if inner is None:
                return None
            for e in op.elems[1:]:
                if e is not op.elems[0] and static_shape(e, depth - 1) != inner:
                    return None
            return (len(op.elems), *inner)
        case soac.CopyOp():
            return static_shape(op.array, depth - 1)
        case _:
            return None


# ---------------------------------------------------------------------------------------
# Effects
# ---------------------------------------------------------------------------------------


def _count_known_non_negative(v: SSAValue) -> bool:
    c = constant_int(v)
    return c is not None and c >= 0


def _divisor_known_safe(v: SSAValue) -> bool:
    c = constant_int(v)
    return c is not None and c != 0


def _fptosi_known_safe(op: Operation) -> bool:
    """A real converted to an integer of the result's width without fault."""
    x = constant_float(op.operands[0])
    t = op.results[0].type
    if x is None or not isinstance(t, IntegerType):
        return False
    half = 1 << (t.width.data - 1)
    lo, hi = (-half, half) if op.name == "arith.fptosi" else (0, 2 * half)
    return lo <= x < hi


_SHIFTS = {"arith.shli", "arith.shrsi", "arith.shrui"}
_DIVISIONS = {
    "arith.floordivsi", "arith.divsi", "arith.remsi", "arith.ceildivsi",
    "arith.divui", "arith.remui", "arith.ceildivui",
}


def _uniform_rows(v: SSAValue, lam: soac.MapOp) -> bool:
    """Whether every evaluation of `v` in the lambda of `lam` has one shape
    (Note [Irregular arrays]): a scalar, or an array whose shape is known before the
    map runs (`l0.passes.analysis.shapes`)."""
    return not isinstance(v.type, TensorType) or row_shape(v, lam) is not None


def _may_be_irregular(op: Operation) -> bool:
    """Whether `op` builds an array whose rows might differ in shape."""
    match op:
        case soac.ArrayOp():
            first = op.elems[0]
            if not isinstance(first.type, TensorType):
                return False
            if all(e is first for e in op.elems):
                return False
            return static_shape(op.result) is None
        case soac.ConcatOp():
            t = op.a.type
            return isinstance(t, TensorType) and t.get_num_dims() >= 2
        case soac.MapOp():
            y = op.body.block.last_op
            if not isinstance(y, soac.YieldOp):
                return True
            return not all(_uniform_rows(v, op) for v in y.values)
        case soac.ScanOp():
            return any(isinstance(n.type, TensorType) for n in op.neutral)
        case _:
            return False


def local_effects(op: Operation, effectful: Set[str]) -> bool:
    """Whether `op` itself, not counting the ops nested in its regions, may fail,
    print or otherwise do more than compute its results. `effectful` names the
    functions whose calls have effects (`effectful_functions`)."""
    name = op.name
    if isinstance(op, soac.AssertOp | soac.TraceOp):
        return True
    if name.startswith("soac."):
        return _may_be_irregular(op)
    if isinstance(op, func.CallOp):
        return op.callee.string_value() in effectful
    if name in _SHIFTS:
        return not _count_known_non_negative(op.operands[1])
    if name in _DIVISIONS:
        return not _divisor_known_safe(op.operands[1])
    if name == "arith.fptosi" or name == "arith.fptoui":
        return not _fptosi_known_safe(op)
    if name == "math.ipowi":
        return not _count_known_non_negative(op.operands[1])
    if op.has_trait(IsTerminator) or op.regions:
        return False  # regions are looked at by `has_effects`
    if name.startswith(("arith.", "math.")):
        return False
    return not is_side_effect_free(op)


def has_effects(op: Operation, effectful: Set[str]) -> bool:
    """Whether `op` or any op nested in it has effects (`local_effects`)."""
    if local_effects(op, effectful):
        return True
    if not op.regions:
        return False
    return any(local_effects(inner, effectful) for inner in op.walk() if inner is not op)


def effectful_functions(module: ModuleOp) -> set[str]:
    """The names of the functions in `module` whose calls have effects: those that
    contain an op with effects, call a function this module does not define, or call
    such a function (transitively)."""
    funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    callers: dict[str, set[str]] = {name: set() for name in funcs}
    effectful: set[str] = set()
    for name, f in funcs.items():
        if not f.body.blocks:
            effectful.add(name)  # a declaration: nothing is known about it
        for op in f.walk():
            if isinstance(op, func.CallOp):
                callee = op.callee.string_value()
                if callee in callers:
                    callers[callee].add(name)
                else:
                    effectful.add(name)
            elif op is not f and local_effects(op, ()):
                effectful.add(name)
    work = list(effectful)
    while work:
        for caller in callers.get(work.pop(), ()):
            if caller not in effectful:
                effectful.add(caller)
                work.append(caller)
    return effectful


def is_dead(op: Operation, effectful: Set[str]) -> bool:
    """Whether `op` can be erased: none of its results is used and it has no effects.
    Terminators, symbols (functions) and module-level ops are never dead."""
    if any(r.first_use is not None for r in op.results):
        return False
    if op.has_trait(IsTerminator) or op.has_trait(SymbolOpInterface):
        return False
    parent = op.parent_op()
    if parent is None or isinstance(parent, ModuleOp):
        return False
    return not has_effects(op, effectful)


# ---------------------------------------------------------------------------------------
# Pattern and pass
# ---------------------------------------------------------------------------------------


class EraseDeadOp(RewritePattern):
    """Erase an op none of whose results is used and that has no effects. The effectful
    functions of `module` are computed when first needed (most ops are used)."""

    def __init__(self, module: ModuleOp) -> None:
        self.module = module

    @cached_property
    def effectful(self) -> set[str]:
        return effectful_functions(self.module)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if any(r.first_use is not None for r in op.results):
            return
        if is_dead(op, self.effectful):
            rewriter.erase(op)


class DcePass(ModulePass):
    """Erase operations whose results are unused, keeping every one that may fail or print.

    An op goes when none of its results is used and it has no effects (thesis 5.3:
    a binding none of whose names is used is removed). `soac.assert` and `soac.trace`
    always stay, and so does anything the interpreter could fail on: a literal,
    `concat`, `map` or `scan` that may build an irregular array, an integer shift,
    division or `ipowi` whose count, divisor or exponent is not a known safe constant,
    `fptosi` of a real not known to be in range, and calls of functions containing
    any of these. An op with regions goes only if all its nested ops could.

    Before:
        %n = soac.size(0) %a : tensor<?xi64>
        %c = soac.assert %ok, "assertion failed" at "p.l0:2:9"
        %e = soac.index %a[%i] <%c> : tensor<?xi64> -> i64
        func.return %n : i64
    After:
        %n = soac.size(0) %a : tensor<?xi64>
        %c = soac.assert %ok, "assertion failed" at "p.l0:2:9"
        func.return %n : i64
    """

    name = "dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(EraseDeadOp(op), walk_reverse=True).rewrite_module(op)
