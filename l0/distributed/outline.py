"""Outlining: ops of `main` (or a lambda of one) copied into a function of their own.

The split of `main` (`l0.distributed.split`) runs pieces of it in different places: a
SOAC over each chunk on the workers, the operator of a reduction over partial results,
scalar code on the client. Each piece becomes a one-function module (`Kernel`), whose
parameters are the values the piece uses but does not define, in a fixed order, and
whose results are the values it defines that are used after it. Constants the piece
uses are copied into it rather than passed, so LLVM still folds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from l0.dialects.soac import (
    UNIQUE_ATTR,
    RedomapOp,
    ReduceOp,
    ScanomapOp,
    ScanOp,
    UpdateOp,
)
from l0.distributed.kernels import KERNEL


class _Walkable(Protocol):
    """An op, or a lone region (`_RegionHolder`): what `used_values` walks."""

    @property
    def regions(self) -> Sequence[Region]: ...

    def walk(self) -> Iterable[Operation]: ...


def used_values(ops: Sequence[_Walkable]) -> list[SSAValue]:
    """The values the ops (their regions included) use but do not define, in order of
    first use, constants excluded."""
    inside: set[SSAValue] = set()
    for op in ops:
        for region in op.regions:
            for block in region.blocks:
                inside.update(block.args)
        for nested in op.walk():
            inside.update(nested.results)
            for region in nested.regions:
                for block in region.blocks:
                    inside.update(block.args)
    seen: dict[SSAValue, None] = {}
    for op in ops:
        for nested in op.walk():
            for v in nested.operands:
                if v not in inside and not _is_constant(v):
                    seen.setdefault(v)
    return list(seen)


def _is_constant(v: SSAValue) -> bool:
    return isinstance(v.owner, arith.ConstantOp)


def _constants(ops: Iterable[_Walkable]) -> list[arith.ConstantOp]:
    found: dict[arith.ConstantOp, None] = {}
    for op in ops:
        for nested in op.walk():
            for v in nested.operands:
                if isinstance(owner := v.owner, arith.ConstantOp):
                    found.setdefault(owner)
    return list(found)


def outline(ops: Sequence[Operation], params: Sequence[SSAValue],
            results: Sequence[SSAValue], *, leading: int = 0) -> ModuleOp:
    """A module whose function `kernel` takes `params` and runs copies of `ops` (in
    order) to return `results`; `params` must include every non-constant value the ops
    use from outside. With `leading` = k, the function takes k more parameters first,
    which replace the first k operands of the (one) op: a scan's neutral elements, so
    that a chunk's scan starts from the total of the chunks before it."""
    slots = list(ops[0].operands[:leading])
    block = Block(arg_types=[v.type for v in slots] + [p.type for p in params])
    mapping: dict[SSAValue, SSAValue] = dict(zip(params, block.args[leading:], strict=True))
    for c in _constants(ops):
        if c.result not in mapping:
            block.add_op(copy := c.clone())
            mapping[c.result] = copy.result
    for op in ops:
        block.add_op(op.clone(value_mapper=mapping))
    copied = block.last_op
    assert copied is not None
    for i in range(leading):
        copied.operands[i] = block.args[i]
    outs = [mapping.get(r, r) for r in results]
    for r in results:
        if r not in mapping and isinstance(owner := r.owner, arith.ConstantOp):
            block.add_op(copy := owner.clone())
            outs[outs.index(r)] = mapping[r] = copy.results[0]
    block.add_op(func.ReturnOp(*outs))
    return _module(block, [r.type for r in results])


def outline_chunk_total(op: ScanOp | ScanomapOp, params: Sequence[SSAValue]) -> ModuleOp:
    """A module whose `kernel` folds a chunk as the scan `op` would, but returns only
    the last accumulators (the chunk's total): a reduce with a scan's lambda, a redomap
    with a scanomap's two. Parameters: the k accumulators to start from, then `params`
    (as `outline` with `leading` = k)."""
    k = len(op.neutral)
    module = outline([op], params, list(op.results), leading=k)
    f = module.body.block.first_op
    assert isinstance(f, func.FuncOp)
    scan = next(o for o in f.body.block.ops if isinstance(o, ScanOp | ScanomapOp))
    neutral, inputs, certs = list(scan.neutral), list(scan.inputs), list(scan.certs)
    fold: ReduceOp | RedomapOp
    if isinstance(scan, ScanOp):
        fold = ReduceOp(neutral, inputs, scan.detach_region(scan.body), certs)
    else:
        outer, inner = scan.outer, scan.inner
        fold = RedomapOp(neutral, inputs, scan.detach_region(outer), scan.detach_region(inner),
                         certs)
    fold.attributes |= scan.attributes
    f.body.block.insert_op_before(fold, scan)
    ret = f.body.block.last_op
    assert isinstance(ret, func.ReturnOp)
    ret.detach()
    ret.erase()
    f.body.block.add_op(func.ReturnOp(*fold.results))
    scan.detach()
    scan.erase()
    f.function_type = FunctionType.from_lists(f.function_type.inputs.data,
                                              [r.type for r in fold.results])
    return module


def outline_fold(region: Region, neutral: Sequence[SSAValue]) -> tuple[ModuleOp, list[SSAValue]]:
    """A module whose `kernel` reduces arrays with the operator `region` (k accumulators
    and k rows of their types -> k accumulators: a reduce's lambda or a redomap's outer
    one): parameters k neutral elements, k arrays, then the values the region captures
    (returned too, to be passed in that order)."""
    from l0.dialects.soac.types import array_of

    captured = used_values([_RegionHolder(region)])
    k = len(neutral)
    types = [n.type for n in neutral]
    block = Block(arg_types=[*types, *(array_of(t) for t in types), *(c.type for c in captured)])
    mapping: dict[SSAValue, SSAValue] = dict(zip(captured, block.args[2 * k:], strict=True))
    for c in _constants([_RegionHolder(region)]):
        block.add_op(copy := c.clone())
        mapping[c.result] = copy.result
    body = Region()
    region.clone_into(body, value_mapper=mapping)
    reduce = ReduceOp(block.args[:k], block.args[k:2 * k], body)
    block.add_op(reduce)
    block.add_op(func.ReturnOp(*reduce.results))
    return _module(block, types), captured


def _module(block: Block, result_types: Sequence[Attribute]) -> ModuleOp:
    f = func.FuncOp(KERNEL, FunctionType.from_lists(block.arg_types, result_types),
                    Region(block))
    if _updates_in_place(block):
        unique = DictionaryAttr({UNIQUE_ATTR: UnitAttr()})
        f.arg_attrs = ArrayAttr([unique if isinstance(t, TensorType) else DictionaryAttr({})
                                 for t in block.arg_types])
    return ModuleOp([f])


def _updates_in_place(block: Block) -> bool:
    """Whether the piece may update an array in place: an array update, or a fold whose
    accumulators are arrays (the lambda gets the neutral element's buffer).

    Note [Outlined parameters are unique]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    In `main`, such an array is fresh or unique, which the uniqueness checks proved, and
    the back end updates its buffer in place. Outlined, the same array is a parameter: a
    chunk of the user's array, a neutral element every chunk's task shares. So the
    parameters of such a piece are marked unique, and the engine copies them before the
    call; pieces that update nothing (the common case: a map of arithmetic) get their
    chunks as they are, without a copy."""
    for op in block.walk():
        if isinstance(op, UpdateOp):
            return True
        if isinstance(op, ReduceOp | ScanOp | RedomapOp | ScanomapOp) and any(
                isinstance(n.type, TensorType) for n in op.neutral):
            return True
    return False


class _RegionHolder:
    """Lets `used_values` walk a lone region as it walks ops."""

    def __init__(self, region: Region) -> None:
        self.region = region

    def walk(self) -> Iterable[Operation]:
        yield from self.region.walk()

    @property
    def regions(self) -> list[Region]:
        return [self.region]

