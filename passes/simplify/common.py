"""What the simplification rules share: reading and making constants, editing an op's
certificate list, and the uniqueness test that decides whether a rule may make a
later op read an earlier array (Note [Using an array again]).

Note [Using an array again]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
Several rules replace a use of an array by a use of another, earlier one: `size(0, b)`
for `b = map(f, a)` becomes `size(0, a)`, `copy(a)[i]` becomes `a[i]`. That is only
sound if `a` still holds its value where the new use is, i.e. nothing consumed it in
between (an in-place update would have changed it), and `verify-uniqueness` must keep
accepting the program. `may_be_consumed(a)` answers conservatively for the whole
function: it follows every value that may share memory with `a` (rows, views, loop
merge values, lambda parameters bound to its rows, results of non-unique calls, ...)
and reports whether any of them reaches a consumption point (the source of a
`soac.update`, an argument to a unique parameter). A rule that would make a fresh
array share memory with an old one checks the new sharer too.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

from l0.dialects import soac
from l0.dialects.soac import is_checked, join_certs
from l0.passes.dce import constant_float, constant_int
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    f64,
    i32,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.irdl import AttrSizedOperandSegments, IRDLOperation
from xdsl.pattern_rewriter import PatternRewriter

__all__ = [
    "Consumption",
    "constant_float",
    "constant_int",
    "is_checked",
    "join_certs",
    "make_constant",
    "may_be_consumed",
    "set_certs",
    "width_of",
    "wrap",
]

# ---------------------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------------------


def width_of(t: Attribute) -> int | None:
    """The bit width of an integer type (1 for i1), None for any other type."""
    return t.width.data if isinstance(t, IntegerType) else None


def wrap(x: int, width: int) -> int:
    """`x` wrapped to a `width`-bit integer: signed, except i1 which is 0 or 1."""
    if width == 1:
        return x & 1
    half = 1 << (width - 1)
    return ((x + half) & ((1 << width) - 1)) - half


def signed(x: int, width: int) -> int:
    """The signed value of a constant as `constant_int` gives it (i1 true is -1)."""
    return -x if width == 1 else x


def make_constant(value: int | float, t: Attribute) -> arith.ConstantOp:
    """An `arith.constant` of type `t` (an integer type or f64) holding `value`."""
    if t == f64:
        return arith.ConstantOp(FloatAttr(float(value), f64))
    width = width_of(t)
    assert width is not None, f"no constants of type {t}"
    assert isinstance(t, IntegerType)
    v = wrap(int(value), width)
    return arith.ConstantOp(IntegerAttr(-1 if width == 1 and v else v, t))


def replace_by_constant(rewriter: PatternRewriter, op: Operation, value: int | float) -> None:
    """Replace the single-result `op` by a constant of its result type."""
    rewriter.replace(op, make_constant(value, op.results[0].type))


def real_bits(x: float) -> int:
    """The bits of a double: tells -0.0 from 0.0 and NaNs of different signs apart."""
    return struct.unpack("<q", struct.pack("<d", x))[0]


def same_constant(a: SSAValue, b: SSAValue) -> bool:
    """Whether `a` and `b` are the same value or equal constants of one type (reals
    compare bit for bit, so -0.0 and 0.0 differ and NaN equals the same NaN)."""
    if a is b:
        return True
    if a.type != b.type:
        return False
    ia, ib = constant_int(a), constant_int(b)
    if ia is not None:
        return ia == ib
    fa, fb = constant_float(a), constant_float(b)
    if fa is None or fb is None:
        return False
    return real_bits(fa) == real_bits(fb)


# ---------------------------------------------------------------------------------------
# Certificates
# ---------------------------------------------------------------------------------------


def set_certs(op: IRDLOperation, certs: Sequence[SSAValue], rewriter: PatternRewriter) -> None:
    """Replace the `certs` operands of the soac op `op` by `certs`."""
    definition = type(op).get_irdl_definition()
    groups: list[list[SSAValue]] = []
    for name, _ in definition.operands:
        if name == "certs":
            groups.append(list(certs))
            continue
        value = getattr(op, name)
        groups.append([value] if isinstance(value, SSAValue) else list(value))
    op.operands = [v for g in groups for v in g]
    if any(isinstance(o, AttrSizedOperandSegments) for o in definition.options):
        op.properties[AttrSizedOperandSegments.attribute_name] = DenseArrayBase.from_list(
            i32, [len(g) for g in groups]
        )
    rewriter.notify_op_modified(op)


# ---------------------------------------------------------------------------------------
# Uniqueness (Note [Using an array again])
# ---------------------------------------------------------------------------------------

# Ops whose results never share memory with their operands.
_FRESH = (
    soac.CopyOp, soac.MapOp, soac.ScanOp, soac.FilterOp, soac.ArrayOp, soac.ConcatOp,
    soac.IotaOp, soac.EmptyOp, soac.SizeOp, soac.UpdateOp,
)

_SEARCH_LIMIT = 4000


def _callee(call: func.CallOp) -> func.FuncOp | None:
    """The function `call` calls, looked up in the enclosing module (cheaper than
    `SymbolTable.lookup_symbol`, which rebuilds the table on every lookup)."""
    module = call.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    if module is None:
        return None
    name = call.callee.string_value()
    for f in module.ops:
        if isinstance(f, func.FuncOp) and f.sym_name.data == name:
            return f
    return None


def _is_unique_param(call: func.CallOp, index: int) -> bool:
    callee = _callee(call)
    if callee is None:
        return True  # unknown: assume the worst
    attrs = callee.arg_attrs.data if callee.arg_attrs is not None else ()
    if index >= len(attrs):
        return False
    a = attrs[index]
    return isinstance(a, DictionaryAttr) and soac.UNIQUE_ATTR in a.data


def _lambda_args_for(op: Operation, index: int) -> list[SSAValue]:
    """The lambda parameters of a SOAC bound to its operand number `index`."""
    accs = len(op.neutral) if isinstance(op, soac.ReduceOp | soac.ScanOp | soac.RedomapOp) else 0
    n_inputs = len(op.inputs) if isinstance(op, soac.MapOp | soac.ReduceOp | soac.ScanOp
                                            | soac.FilterOp | soac.RedomapOp) else 0
    if index >= accs + n_inputs:
        return []  # a certificate
    if isinstance(op, soac.RedomapOp):
        if index < accs:
            return [op.inner.block.args[index], op.outer.block.args[index],
                    op.outer.block.args[index + accs]]
        return [op.inner.block.args[index]]
    region = op.regions[0]
    return [region.block.args[index]]


def _sharers(use_op: Operation, index: int) -> list[SSAValue] | None:
    """The values that may share memory with operand `index` of `use_op`, or None if
    the use consumes it."""
    if isinstance(use_op, soac.UpdateOp):
        return None if index == 0 else []
    if isinstance(use_op, func.CallOp):
        if _is_unique_param(use_op, index):
            return None
        return list(use_op.results)
    if isinstance(use_op, scf.ForOp):
        k = index - 3
        if k < 0:
            return []
        return [use_op.body.block.args[k + 1], use_op.results[k]]
    if isinstance(use_op, scf.YieldOp):
        parent = use_op.parent_op()
        if isinstance(parent, scf.ForOp):
            return [parent.results[index], parent.body.block.args[index + 1]]
        return [parent.results[index]] if parent is not None else []
    if isinstance(use_op, soac.YieldOp):
        parent = use_op.parent_op()
        if isinstance(parent, soac.ReduceOp | soac.RedomapOp):
            return list(parent.results)
        return []
    if isinstance(use_op, soac.MapOp | soac.ReduceOp | soac.ScanOp | soac.FilterOp
                  | soac.RedomapOp):
        return _lambda_args_for(use_op, index)
    if isinstance(use_op, _FRESH) or isinstance(use_op, func.ReturnOp):
        return []
    return list(use_op.results)


def _sources(v: SSAValue) -> list[SSAValue]:
    """The arrays `v` may share memory with because it was made from them (one step
    back; [] for a fresh array or a parameter)."""
    if isinstance(v, BlockArgument):
        parent = v.block.parent_op()
        if isinstance(parent, scf.ForOp) and v.index > 0:
            y = v.block.last_op
            return [parent.iter_args[v.index - 1]] + (
                [y.operands[v.index - 1]] if y is not None else [])
        if isinstance(parent, soac.MapOp | soac.ReduceOp | soac.ScanOp | soac.FilterOp
                      | soac.RedomapOp):
            return [o for o in parent.operands if _binds(parent, o, v)]
        return []
    op = v.owner
    assert isinstance(op, Operation)
    if isinstance(op, _FRESH):
        return []
    if isinstance(op, scf.IfOp | scf.ForOp):
        i = list(op.results).index(v)
        out = [op.iter_args[i]] if isinstance(op, scf.ForOp) else []
        for region in op.regions:
            y = region.block.last_op if region.blocks else None
            if y is not None and i < len(y.operands):
                out.append(y.operands[i])
        return out
    if isinstance(op, soac.TraceOp):
        return [op.inputs[list(op.outputs).index(v)]]
    if isinstance(op, func.CallOp):
        return list(op.arguments)
    out = list(op.operands)
    for region in op.regions:  # e.g. a reduce yielding an outer array
        y = region.block.last_op if region.blocks else None
        if y is not None:
            out.extend(y.operands)
    return out


def _binds(op: Operation, operand: SSAValue, arg: BlockArgument) -> bool:
    """Whether the lambda parameter `arg` of the SOAC `op` is bound to `operand`."""
    for use in operand.uses:
        if use.operation is op and arg in _lambda_args_for(op, use.index):
            return True
    return False


def _closure(start: list[SSAValue], step: Callable[[SSAValue], list[SSAValue] | None]
             ) -> set[SSAValue] | None:
    """The arrays reachable from `start` by `step` (a step giving None adds nothing);
    None when the search grows past its limit."""
    seen = {v for v in start if isinstance(v.type, TensorType)}
    work = list(seen)
    while work:
        if len(seen) > _SEARCH_LIMIT:
            return None
        for s in step(work.pop()) or ():
            if isinstance(s.type, TensorType) and s not in seen:
                seen.add(s)
                work.append(s)
    return seen


def _forward(v: SSAValue) -> list[SSAValue] | None:
    out: list[SSAValue] = []
    for use in v.uses:
        sharers = _sharers(use.operation, use.index)
        if sharers is None:
            return None
        out.extend(sharers)
    return out


class Consumption:
    """Answers `may_be_consumed` with a memo. Sound for one run of `simplify`: its
    rules never make an array consumed that was not (they only remove consumptions or
    move them between values already sharing memory), and every rule that makes a
    value share memory with another first checks that neither is consumed."""

    def __init__(self) -> None:
        self.memo: dict[SSAValue, bool] = {}

    def __call__(self, v: SSAValue) -> bool:
        known = self.memo.get(v)
        if known is None:
            known = self.memo[v] = may_be_consumed(v)
        return known


def may_be_consumed(v: SSAValue) -> bool:
    """Whether `v`, or a value that may share memory with it, may be consumed anywhere
    (Note [Using an array again]). Conservative: True when unsure."""
    if not isinstance(v.type, TensorType):
        return False
    back = _closure([v], _sources)
    if back is None:
        return True
    consumed = False

    def forward(x: SSAValue) -> list[SSAValue] | None:
        nonlocal consumed
        out = _forward(x)
        consumed = consumed or out is None
        return out

    return _closure(list(back), forward) is None or consumed


def defined_outside(v: SSAValue, op: Operation) -> bool:
    """Whether `v` is defined outside `op` (so it is visible wherever `op` is)."""
    owner = v.owner
    if isinstance(v, BlockArgument):
        return not op.is_ancestor(v.block)
    assert isinstance(owner, Operation)
    return not op.is_ancestor(owner)
