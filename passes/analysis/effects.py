"""Which operations do more than compute their results: they may fail or print (thesis 5.3).

`dce` erases an op none of whose results is used unless it has effects; `simplify`,
`inline`, `fuse` and `Speculation` ask the same question. The L0 ops with effects
(docs/reference.md §5: checks are raised even if the value is unused):

* `soac.assert` (it may fail) and `soac.trace` (it prints);
* operations the interpreter can fail on at run time without an assert guarding
  them: an array literal, `concat`, `map` or `scan` that may build an irregular
  array (Note [Irregular arrays]
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
"""

from __future__ import annotations

from collections.abc import Set
from functools import cache

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerType, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.traits import IsTerminator, SymbolOpInterface, is_side_effect_free

from l0.dialects import soac
from l0.passes.analysis.calls import CallGraph, functions_calling
from l0.passes.analysis.constants import constant_float, constant_int
from l0.passes.analysis.shapes import row_shape, static_shape
from l0.passes.analysis.walk import walk_ops


def _count_known_non_negative(v: SSAValue) -> bool:
    c = constant_int(v)
    return c is not None and c >= 0


def _known_positive(v: SSAValue) -> bool:
    """A constant > 0, or a sum of one and a size or a constant >= 0 (a size is below
    2^62: the sum cannot wrap)."""
    c = constant_int(v)
    if c is not None:
        return c > 0
    op = v.owner
    if not isinstance(op, arith.AddiOp):
        return False
    a, b = op.lhs, op.rhs
    return any(_known_positive(x) and (isinstance(y.owner, soac.SizeOp)
                                      or _count_known_non_negative(y))
               for x, y in ((a, b), (b, a)))


def _divisor_known_safe(v: SSAValue) -> bool:
    c = constant_int(v)
    return (c is not None and c != 0) or _known_positive(v)


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


_ALWAYS = {soac.AssertOp.name, soac.TraceOp.name}
"""Ops that always have effects: a check may fail, a trace prints."""
_CAN_FAIL = {*_SHIFTS, *_DIVISIONS, "arith.fptosi", "arith.fptoui", "math.ipowi"}
"""The scalar ops `local_effects` looks at closer: the others never fail."""


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
        case soac.ScanOp() | soac.ScanomapOp():
            return any(isinstance(n.type, TensorType) for n in op.neutral)
        case _:
            return False


def local_effects(op: Operation, effectful: Set[str]) -> bool:
    """Whether `op` itself, not counting the ops nested in its regions, may fail,
    print or otherwise do more than compute its results. `effectful` names the
    functions whose calls have effects (`effectful_functions`)."""
    name = op.name  # tests on the name first: this runs on every op, pass after pass
    if name.startswith("soac."):
        return name in _ALWAYS or _may_be_irregular(op)
    if name.startswith(("arith.", "math.")) and name not in _CAN_FAIL:
        return False
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
    return not is_side_effect_free(op)


def has_effects(op: Operation, effectful: Set[str]) -> bool:
    """Whether `op` or any op nested in it has effects (`local_effects`)."""
    if local_effects(op, effectful):
        return True
    if not op.regions:
        return False
    return any(local_effects(inner, effectful) for inner in walk_ops(op) if inner is not op)


def effectful_functions(module: ModuleOp, graph: CallGraph | None = None) -> set[str]:
    """The names of the functions in `module` whose calls have effects: those that
    contain an op with effects, call a function this module does not define, or call
    such a function (transitively). `graph`: the module's call graph, if known."""
    return functions_calling(
        module, lambda f: any(local_effects(op, frozenset()) for op in walk_ops(f) if op is not f),
        graph)


@cache
def _never_dead(op_class: type[Operation]) -> bool:
    """Whether ops of `op_class` are terminators or symbols (a trait look-up tests each
    of the class's traits in turn: asked once per class, not per op)."""
    return op_class.has_trait(IsTerminator) or op_class.has_trait(SymbolOpInterface)


def is_dead(op: Operation, effectful: Set[str]) -> bool:
    """Whether `op` can be erased: none of its results is used and it has no effects.
    Terminators, symbols (functions) and module-level ops are never dead."""
    for r in op.results:  # a loop, not `any`: asked of every op
        if r.first_use is not None:
            return False
    if _never_dead(type(op)):
        return False
    parent = op.parent_op()
    if parent is None or isinstance(parent, ModuleOp):
        return False
    return not has_effects(op, effectful)


def lambda_effects(op: Operation, failing: Set[str]) -> bool:
    """Whether an op inside `op`'s lambdas may fail or print."""
    return any(has_effects(o, failing) for r in op.regions for b in r.blocks for o in b.ops)
