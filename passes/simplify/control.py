"""Control rules of `simplify`: `if` and `loop` with known conditions or trip counts,
results that do not depend on the branch or iteration, and calls whose arguments are
all constants (thesis 5.3, `if c then a else b` and `f(...)`).

* `if True then a else b` -> `a` (the branch's ops move before the `if`).
* `if c then (... assert(c) ...)`: the check holds in the branch taken when `c` does
  (`assert(True)`, which becomes `Checked`): a guarded index `if 0 <= j && j < n then
  a[j]` keeps no bounds check.
* An `if` result both branches give the same way (one outer value, or equal
  constants) is that value; `if c then True else False` is `c`; results nobody uses
  are dropped from the `if`.
* A loop that runs zero times is its initial merge values; one that runs once is its
  body, inlined. A merge value the body passes on unchanged is its initial value, and
  a merge value nothing reads afterwards and the body only passes on is dropped.
* A call of a non-recursive function whose arguments are all constants is evaluated
  at compile time, as the thesis's compiler did with its interpreter, but by
  simplifying a copy of the callee (Note [Evaluating constant calls]).

Note [Evaluating constant calls]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The thesis evaluates such a call with the interpreter and notes that this assumes the
function terminates. Here a copy of the callee, its parameters replaced by the
constants, is simplified with the same rules, which always terminate, and the call
is replaced only when what is left is constants and array literals built from them
(`soac.array`, `iota`, `replicate`, `empty`): a check that fails, a `trace`, a loop
that does not unroll or a call of a recursive function leaves the call alone, so it
still fails, prints or runs at run time. Results are memoised per callee and
argument values.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import ModuleOp, i1
from xdsl.ir import Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.passes.analysis.calls import functions, recursive_functions
from l0.passes.analysis.constants import constant_float, constant_int
from l0.passes.analysis.scope import defined_outside
from l0.passes.simplify.common import (
    is_checked,
    make_constant,
    real_bits,
    same_constant,
)


def _inline_region_before(region: Region, op: Operation, args: list[SSAValue],
                          rewriter: PatternRewriter) -> list[SSAValue]:
    """Move the single block of `region` before `op`, binding its arguments to `args`;
    returns the values its terminator yielded (the terminator is erased)."""
    block = region.block
    terminator = block.last_op
    assert terminator is not None
    bound: dict[SSAValue, SSAValue] = dict(zip(block.args, args, strict=True))
    values = [bound.get(v, v) for v in terminator.operands]
    rewriter.erase(terminator, safe_erase=False)
    moved = list(block.ops)
    rewriter.inline_block(block, InsertPoint.before(op), args)
    for m in moved:  # look at them again: their operands may now be constants
        rewriter.handle_operation_insertion(m)
    return values


# ---------------------------------------------------------------------------------------
# if
# ---------------------------------------------------------------------------------------


class IfConstant(RewritePattern):
    """`if True then a else b` -> `a`, `if False then a else b` -> `b`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        c = constant_int(op.cond)
        if c is None:
            return
        region = op.true_region if c else op.false_region
        if not region.blocks:
            if not op.results:
                rewriter.erase(op)
            return
        values = _inline_region_before(region, op, [], rewriter)
        rewriter.replace(op, [], values)


def _yields(op: scf.IfOp) -> tuple[list[SSAValue], list[SSAValue]] | None:
    if not op.true_region.blocks or not op.false_region.blocks:
        return None
    t, f = op.true_region.block.last_op, op.false_region.block.last_op
    if not isinstance(t, scf.YieldOp) or not isinstance(f, scf.YieldOp):
        return None
    return list(t.operands), list(f.operands)


class IfSameResult(RewritePattern):
    """An `if` result that does not depend on the branch: the same outer value or equal
    constants in both, or `True`/`False` (then the condition or its negation)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        ys = _yields(op)
        if ys is None:
            return
        for r, t, f in zip(op.results, *ys, strict=True):
            if not r.uses:
                continue
            new: SSAValue | None = None
            if t is f and defined_outside(t, op):
                new = t
            elif same_constant(t, f) and (value := _constant_of(t)) is not None:
                c = rewriter.insert(make_constant(value, t.type))
                new = c.result
            elif r.type == i1 and constant_int(t) == 1 and constant_int(f) == 0:
                new = op.cond
            elif r.type == i1 and constant_int(t) == 0 and constant_int(f) == 1:
                true = rewriter.insert(make_constant(1, i1))
                new = rewriter.insert(arith.XOrIOp(op.cond, true)).result
            if new is not None:
                rewriter.replace_all_uses_with(r, new)


def _constant_of(v: SSAValue) -> int | float | None:
    i = constant_int(v)
    return i if i is not None else constant_float(v)


def _replace_terminator(block_op: Operation, values: list[SSAValue],
                        rewriter: PatternRewriter) -> None:
    rewriter.replace(block_op, type(block_op)(*values))


class IfDropUnusedResults(RewritePattern):
    """Results of an `if` that nobody uses are dropped (the values the branches yield
    for them may then become dead)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        keep = [i for i, r in enumerate(op.results) if r.uses]
        if len(keep) == len(op.results) or _yields(op) is None:
            return
        regions = []
        for region in (op.true_region, op.false_region):
            y = region.block.last_op
            assert y is not None
            _replace_terminator(y, [y.operands[i] for i in keep], rewriter)
            regions.append(rewriter.move_region_contents_to_new_regions(region))
        new = scf.IfOp(op.cond, [op.results[i].type for i in keep], regions[0], regions[1])
        results: list[SSAValue | None] = [None] * len(op.results)
        for j, i in enumerate(keep):
            results[i] = new.results[j]
        rewriter.replace(op, new, results)


# ---------------------------------------------------------------------------------------
# loop
# ---------------------------------------------------------------------------------------


class AssertHeldByBranch(RewritePattern):
    """`assert(c)` inside the first branch of an `if c`: `assert(True)`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, soac.AssertOp) or constant_int(op.cond) is not None:
            return
        region, holder = op.parent_region(), op.parent_op()
        while holder is not None and region is not None:
            if isinstance(holder, scf.IfOp) and holder.cond is op.cond \
                    and region is holder.true_region:
                true = arith.ConstantOp.from_int_and_width(1, 1)
                rewriter.insert(true, InsertPoint.before(op))
                op.operands = [true.result, *op.operands[1:]]
                rewriter.handle_operation_modification(op)
                return
            region, holder = holder.parent_region(), holder.parent_op()


def trip_count(op: scf.ForOp) -> int | None:
    """The number of iterations of `op` when the IR fixes it, else None."""
    if op.lb is op.ub:
        return 0
    lb, ub, step = constant_int(op.lb), constant_int(op.ub), constant_int(op.step)
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -((lb - ub) // step))


class ForKnownTrips(RewritePattern):
    """A loop that runs zero times is its initial merge values; one that runs once is
    its body with the index bound to the lower bound."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        trips = trip_count(op)
        if trips == 0:
            rewriter.replace(op, [], list(op.iter_args))
        elif trips == 1:
            values = _inline_region_before(op.body, op, [op.lb, *op.iter_args], rewriter)
            rewriter.replace(op, [], values)


class ForInvariantMerge(RewritePattern):
    """A merge value the body yields unchanged is its initial value everywhere; a merge
    value nothing reads after the loop and the body only passes on is dropped."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ForOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        y = block.last_op
        if not isinstance(y, scf.YieldOp):
            return
        drop: list[int] = []
        for i, (init, arg, r) in enumerate(zip(op.iter_args, block.args[1:], op.results,
                                              strict=True)):
            yielded = y.operands[i]
            if yielded is arg:
                rewriter.replace_uses_with_if(arg, init, lambda u: u.operation is not y)
                rewriter.replace_all_uses_with(r, init)
            if not r.uses and all(u.operation is y and u.index == i for u in arg.uses):
                drop.append(i)
        if not drop:
            return
        keep = [i for i in range(len(op.iter_args)) if i not in drop]
        _replace_terminator(y, [y.operands[i] for i in keep], rewriter)
        for i in reversed(drop):
            rewriter.erase_block_argument(block.args[i + 1])
        body = rewriter.move_region_contents_to_new_regions(op.body)
        new = scf.ForOp(op.lb, op.ub, op.step, [op.iter_args[i] for i in keep], body)
        results: list[SSAValue | None] = [None] * len(op.results)
        for j, i in enumerate(keep):
            results[i] = new.results[j]
        rewriter.replace(op, new, results)


# ---------------------------------------------------------------------------------------
# Calls with constant arguments (Note [Evaluating constant calls])
# ---------------------------------------------------------------------------------------

_MATERIALISABLE = (arith.ConstantOp, soac.CheckedOp, soac.EmptyOp, soac.ArrayOp, soac.IotaOp,
                   soac.ReplicateOp)

Key = tuple[str, tuple[tuple[str, str], ...]]


def _argument_key(v: SSAValue) -> tuple[str, str] | None:
    if is_checked(v):
        return ("cert", "Checked")
    i = constant_int(v)
    if i is not None:
        return (str(v.type), str(i))
    x = constant_float(v)
    if x is not None:
        return ("f64", hex(real_bits(x)))
    return None


class FoldConstantCall(RewritePattern):
    """`f(2, 3)` -> the constants `f` returns, for a non-recursive `f` that simplifies
    to constants (Note [Evaluating constant calls])."""

    def __init__(self, module: ModuleOp, walker: Callable[[], PatternRewriteWalker]) -> None:
        self.module = module
        self.walker = walker
        self.memo: dict[Key, func.FuncOp | None] = {}
        self._graph: tuple[dict[str, func.FuncOp], set[str]] | None = None

    def graph(self) -> tuple[dict[str, func.FuncOp], set[str]]:
        """The module's functions and its recursive ones, found when first needed.
        Simplification only removes calls, so a function recursive at the start may
        stop being so, never the other way round: the set stays conservative."""
        if self._graph is None:
            self._graph = functions(self.module), recursive_functions(self.module)
        return self._graph

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        keys = [_argument_key(a) for a in op.arguments]
        if any(k is None for k in keys):
            return
        funcs, recursive = self.graph()
        name = op.callee.string_value()
        callee = funcs.get(name)
        if callee is None or name in recursive or len(callee.body.blocks) != 1:
            return
        key: Key = (name, tuple(k for k in keys if k is not None))
        if key not in self.memo:
            self.memo[key] = None  # guards against re-entry while evaluating
            self.memo[key] = self.evaluate(callee, list(op.arguments))
        folded = self.memo[key]
        if folded is None:
            return
        mapping: dict[SSAValue, SSAValue] = {}
        ops = [o.clone(mapping) for o in folded.body.block.ops if not isinstance(
            o, func.ReturnOp)]
        ret = folded.body.block.last_op
        assert isinstance(ret, func.ReturnOp)
        rewriter.replace(op, ops, [mapping.get(v, v) for v in ret.arguments])

    def evaluate(self, callee: func.FuncOp, args: list[SSAValue]) -> func.FuncOp | None:
        """A copy of `callee` simplified for `args`, if it is left with constants only."""
        copy = callee.clone()
        block = copy.body.block
        constants: list[Operation] = []
        for arg, value in zip(block.args, args, strict=True):
            owner = value.owner
            assert isinstance(owner, Operation)
            c = soac.CheckedOp() if is_checked(value) else owner.clone()
            constants.append(c)
            arg.replace_all_uses_with(c.results[0])
        if constants:
            first = block.first_op
            assert first is not None  # the return, at least
            block.insert_ops_before(constants, first)
        ModuleOp([copy])  # a symbol table of its own while it is simplified
        self.walker().rewrite_region(copy.body)
        ret = block.last_op
        if not isinstance(ret, func.ReturnOp):
            return None
        for o in block.ops:
            if o is not ret and not isinstance(o, _MATERIALISABLE):
                return None
        return copy


