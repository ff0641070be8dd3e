"""`verify-uniqueness`: check that no consumed array, nor any alias of it, is used afterwards.

The type checker establishes uniqueness on the source (thesis chapter 3); every later
transformation must preserve it (thesis 6.1.1, 6.2, 7.1.2), because the back ends turn
a consumption into an in-place update. This pass re-establishes the property on IR, so
tests run it after every pass. It changes nothing; a violation fails the pass with a
message naming the consuming op and the later use.

The analysis tracks, for every array value, the set of *roots* (fresh arrays) it may
share memory with. Fresh arrays (`soac.iota`, `soac.copy`, SOAC results, unique call
results, ...) are roots of their own; views (`soac.index` of a row, `soac.transpose`,
`soac.reshape`, `soac.split`, `soac.replicate` of an array, `soac.trace`) and
non-unique call results share the roots of their sources. Consumption points
(docs/ir.md): the source of `soac.update`, arguments to `soac.unique` parameters of
`func.call`, and the initial value of an `scf.for` merge value (or of a SOAC
accumulator or row) that the body consumes. Branches of `scf.if` are alternatives;
the body of a loop or a lambda runs repeatedly, so it may consume only its own
parameters (its merge values, accumulators and rows), never a value from outside.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import PassFailedException

from l0.dialects import soac
from l0.passes.analysis.scope import defined_inside

Roots = frozenset[SSAValue]


@dataclass(frozen=True)
class _Body:
    """The loop or lambda body being walked: it may consume only its parameters and
    arrays it creates itself, since it runs repeatedly."""

    op: Operation
    params: Roots

    def may_consume(self, root: SSAValue) -> bool:
        return root in self.params or defined_inside(root, self.op)


@dataclass
class _State:
    """What is known at one program point of one function."""

    roots: dict[SSAValue, Roots] = field(default_factory=dict)
    consumed: dict[SSAValue, Operation] = field(default_factory=dict)
    """root -> the op that consumed it"""
    non_unique_params: set[SSAValue] = field(default_factory=set)

    def copy(self) -> _State:
        return _State(dict(self.roots), dict(self.consumed), self.non_unique_params)


def _is_array(v: SSAValue) -> bool:
    return isinstance(v.type, TensorType)


def _describe(op: Operation) -> str:
    loc = op.properties.get("loc") or op.attributes.get("loc")
    where = f" at {loc.data}" if loc is not None and hasattr(loc, "data") else ""
    return f"'{op.name}'{where}"


def _value_name(v: SSAValue) -> str:
    return f"%{v.name_hint}" if v.name_hint else "an array"


class _Checker:
    """Walks one function in program order, tracking roots and consumptions."""

    def __init__(self, module: ModuleOp) -> None:
        self.module = module

    # -- roots --------------------------------------------------------------------

    def roots(self, state: _State, v: SSAValue) -> Roots:
        if not _is_array(v):
            return frozenset()
        return state.roots.get(v, frozenset((v,)))

    def alias(self, state: _State, result: SSAValue, *sources: SSAValue) -> None:
        state.roots[result] = frozenset().union(*(self.roots(state, s) for s in sources))

    # -- checks -------------------------------------------------------------------

    def check_use(self, state: _State, op: Operation, v: SSAValue) -> None:
        for root in self.roots(state, v):
            if root in state.consumed:
                raise PassFailedException(
                    f"verify-uniqueness: {_value_name(v)} is used by {_describe(op)} after "
                    f"{'it' if root is v else 'an array it aliases'} was consumed by "
                    f"{_describe(state.consumed[root])}"
                )

    def consume(self, state: _State, op: Operation, v: SSAValue, allowed: _Body | None) -> None:
        """Mark `v`'s roots consumed by `op`; `allowed` limits what a loop body may consume."""
        for root in self.roots(state, v):
            if root in state.non_unique_params:
                raise PassFailedException(
                    f"verify-uniqueness: {_describe(op)} consumes {_value_name(v)}, "
                    "which aliases a non-unique parameter"
                )
            if allowed is not None and not allowed.may_consume(root):
                raise PassFailedException(
                    f"verify-uniqueness: {_describe(op)} inside a loop or lambda consumes "
                    f"{_value_name(v)}, which is defined outside it"
                )
            state.consumed[root] = op

    # -- walking ------------------------------------------------------------------

    def function(self, f: func.FuncOp) -> None:
        if not f.body.blocks:
            return
        state = _State()
        attrs = _arg_attrs(f)
        for i, arg in enumerate(f.body.block.args):
            if _is_array(arg) and (i >= len(attrs) or soac.UNIQUE_ATTR not in attrs[i]):
                state.non_unique_params.add(arg)
        self.block(f.body.block, state, None)
        ret = f.body.block.last_op
        if not isinstance(ret, func.ReturnOp):
            return
        unique = [soac.UNIQUE_ATTR in a for a in _res_attrs(f)]
        seen: set[SSAValue] = set()
        for v, is_unique in zip(ret.arguments, unique, strict=False):
            if not is_unique:
                continue
            roots = self.roots(state, v)
            if roots & state.non_unique_params:
                raise PassFailedException(
                    f"verify-uniqueness: @{f.sym_name.data} returns a unique result that "
                    "aliases a non-unique parameter"
                )
            if roots & seen:
                raise PassFailedException(
                    f"verify-uniqueness: @{f.sym_name.data} returns two unique results "
                    "that alias each other"
                )
            seen |= roots

    def block(self, block: Block, state: _State, allowed: _Body | None) -> None:
        for op in block.ops:
            for v in op.operands:
                self.check_use(state, op, v)
            self.op(op, state, allowed)

    def op(self, op: Operation, state: _State, allowed: _Body | None) -> None:
        match op:
            case soac.UpdateOp():
                if _is_array(op.value) and self.roots(state, op.value) & self.roots(
                    state, op.array
                ):
                    raise PassFailedException(
                        f"verify-uniqueness: the value written by {_describe(op)} aliases "
                        "the array it updates"
                    )
                self.consume(state, op, op.array, allowed)
            case (
                soac.IndexOp() | soac.TransposeOp() | soac.ReshapeOp() | soac.ReplicateOp()
            ):
                source = op.value if isinstance(op, soac.ReplicateOp) else op.array
                for r in op.results:
                    self.alias(state, r, source)
            case soac.SplitOp():
                self.alias(state, op.first, op.array)
                self.alias(state, op.second, op.array)
            case soac.TraceOp():
                for out, inp in zip(op.outputs, op.inputs, strict=True):
                    self.alias(state, out, inp)
            case func.CallOp():
                self.call(op, state, allowed)
            case scf.IfOp():
                self.if_(op, state, allowed)
            case scf.ForOp():
                self.for_(op, state, allowed)
            case soac.MapOp() | soac.FilterOp():
                self.lambda_(op, op.body, [], list(op.inputs), state, allowed)
            case soac.ReduceOp() | soac.ScanOp():
                self.lambda_(op, op.body, list(op.neutral), list(op.inputs), state, allowed)
            case soac.RedomapOp() | soac.ScanomapOp():
                neutral = list(op.neutral)
                self.lambda_(op, op.outer, neutral, neutral, state, allowed)
                self.lambda_(op, op.inner, neutral, list(op.inputs), state, allowed)
            case _:
                for region in op.regions:
                    for block in region.blocks:
                        self.block(block, state, allowed)

    def call(self, op: func.CallOp, state: _State, allowed: _Body | None) -> None:
        callee = SymbolTable.lookup_symbol(self.module, op.callee)
        unique_params = (
            [soac.UNIQUE_ATTR in a for a in _arg_attrs(callee)]
            if isinstance(callee, func.FuncOp)
            else []
        )
        unique_results = (
            [soac.UNIQUE_ATTR in a for a in _res_attrs(callee)]
            if isinstance(callee, func.FuncOp)
            else []
        )
        consumed = [
            a for a, u in zip(op.arguments, unique_params, strict=False) if u and _is_array(a)
        ]
        for a in consumed:
            others = [b for b in op.arguments if b is not a]
            if any(self.roots(state, a) & self.roots(state, b) for b in others):
                raise PassFailedException(
                    f"verify-uniqueness: {_describe(op)} passes {_value_name(a)} to a unique "
                    "parameter and an alias of it to another parameter"
                )
        observed = [a for a in op.arguments if a not in consumed]
        for a in consumed:
            self.consume(state, op, a, allowed)
        for i, r in enumerate(op.results):
            if i < len(unique_results) and unique_results[i]:
                continue  # a unique result is fresh
            self.alias(state, r, *observed)

    def if_(self, op: scf.IfOp, state: _State, allowed: _Body | None) -> None:
        branches: list[_State] = []
        yields: list[list[SSAValue]] = []
        for region in (op.true_region, op.false_region):
            branch = state.copy()
            if region.blocks:
                self.block(region.block, branch, allowed)
                terminator = region.block.last_op
                yields.append(list(terminator.operands) if terminator else [])
            branches.append(branch)
        for branch in branches:
            state.consumed.update(branch.consumed)
        for i, r in enumerate(op.results):
            roots: set[SSAValue] = set()
            for branch, ys in zip(branches, yields, strict=False):
                if i < len(ys):
                    roots |= self.roots(branch, ys[i])
            state.roots[r] = frozenset(roots)

    def for_(self, op: scf.ForOp, state: _State, allowed: _Body | None) -> None:
        body = op.body.block
        merge = list(body.args[1:])
        inner = state.copy()
        for arg in merge:
            inner.roots[arg] = frozenset((arg,))
        self.block(body, inner, _Body(op, frozenset(merge)))
        consumed_merge = [arg in inner.consumed for arg in merge]
        yielded = list(body.last_op.operands) if body.last_op is not None else []
        for i, init in enumerate(op.iter_args):
            if not consumed_merge[i]:
                continue
            if i < len(yielded) and any(
                not defined_inside(r, op) for r in self.roots(inner, yielded[i])
            ):
                raise PassFailedException(
                    f"verify-uniqueness: {_describe(op)} consumes its merge value "
                    f"#{i} but yields an array from outside the loop in its place"
                )
            self.consume(state, op, init, allowed)
        for i, r in enumerate(op.results):
            if consumed_merge[i] or not _is_array(r):
                continue
            roots = set(self.roots(state, op.iter_args[i]))
            if i < len(yielded):
                roots |= self.roots(inner, yielded[i]) - set(merge)
            state.roots[r] = frozenset(roots)

    def lambda_(
        self,
        op: Operation,
        region: Region,
        accs: list[SSAValue],
        arrays: list[SSAValue],
        state: _State,
        allowed: _Body | None,
    ) -> None:
        """A SOAC lambda: its parameters stand for accumulators `accs` and rows of `arrays`."""
        if not region.blocks:
            return
        params = list(region.block.args)
        inner = state.copy()
        for p in params:
            inner.roots[p] = frozenset((p,))
        self.block(region.block, inner, _Body(op, frozenset(params)))
        sources = accs + arrays
        for p, source in zip(params, sources, strict=False):
            if p in inner.consumed:
                self.consume(state, op, source, allowed)


def _arg_attrs(f: func.FuncOp) -> list[dict[str, object]]:
    attrs = f.arg_attrs.data if f.arg_attrs is not None else ()
    return [dict(a.data) if isinstance(a, DictionaryAttr) else {} for a in attrs]


def _res_attrs(f: func.FuncOp) -> list[dict[str, object]]:
    attrs = f.res_attrs.data if f.res_attrs is not None else ()
    return [dict(a.data) if isinstance(a, DictionaryAttr) else {} for a in attrs]


class VerifyUniquenessPass(ModulePass):
    """Check that no consumed array, nor an alias of it, is used after its consumption.

    Runs on soac-level IR and changes nothing. Consumption points are the source of
    `soac.update`, arguments to `soac.unique` parameters of calls, and merge values,
    accumulators or rows that a loop or lambda body consumes. A loop or lambda body may
    consume only its own parameters; a function may not consume a non-unique parameter;
    `soac.update` may not write a value that aliases the array it updates. Fails with a
    message naming the consuming op and the offending use.
    """

    name = "verify-uniqueness"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        checker = _Checker(op)
        for f in op.walk():
            if isinstance(f, func.FuncOp):
                checker.function(f)
