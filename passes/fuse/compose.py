"""Composing the lambdas of a producer and a consumer (thesis 7.2), and the fused SOACs
they make (thesis 7.3).

A consumer's lambda gets one row of each of its inputs as a block argument. Composing
a producer into it rebinds the arguments that received the producer's outputs: the
producer's own lambda now runs first, in the consumer's block, on rows of the
producer's inputs, and what it yields takes the place of those arguments.

* map composition (7.2.1): the producer is a `map`; the consumer's other inputs stay,
  the producer's inputs are added (an input the consumer already has is shared, the
  "removing duplicate input arrays" of 7.4), and the producer's body is moved to the
  start of the consumer's body.
* guarded composition (7.2.2, 7.2.3): the producer is a `filter`, whose lambda is a
  predicate; the consumer's body runs only for the rows the predicate keeps, under
  `scf.if`: a filter consumer yields `false` for the others, a fold keeps its
  accumulators. Every input of the consumer must come from the producer (the
  consumer sees only the rows the filter keeps), and the composed lambda takes every
  input of the producer.

Regions are moved, not cloned (the consumer's region becomes the fused op's, the
producer's is inlined into it); the caller clones the producer only when it fuses it
into several consumers on different paths.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, i1
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.passes.analysis.walk import block_ops

Producer = soac.MapOp | soac.FilterOp
Consumer = soac.MapOp | soac.FilterOp | soac.RedomapOp | soac.ScanomapOp


def rows_block(op: Consumer) -> tuple[Block, int]:
    """The block of `op`'s lambda that takes rows, and the index of its first row
    argument (after the accumulators of a fold)."""
    if isinstance(op, soac.RedomapOp | soac.ScanomapOp):
        return op.inner.block, len(op.neutral)
    return op.body.block, 0


def _take_yield(block: Block) -> soac.YieldOp:
    """The lambda's terminator."""
    last = block.last_op
    assert isinstance(last, soac.YieldOp), "a lambda ends in soac.yield"
    return last


def compose_map(rewriter: PatternRewriter, block: Block, first: int,
                inputs: Sequence[SSAValue], producer: soac.MapOp,
                producer_block: Block) -> list[SSAValue]:
    """Map composition (7.2.1) into `block`, whose arguments from `first` on take rows of
    `inputs`; `producer_block` is (a copy of) the producer's lambda and is consumed.
    Returns the new inputs of the block's op."""
    outputs: dict[SSAValue, int] = {r: i for i, r in enumerate(producer.results)}
    kept = [(arg, v) for arg, v in zip(block.args[first:], inputs, strict=True)
            if v not in outputs]
    new_inputs = [v for _, v in kept]
    row_args: list[SSAValue] = []
    for a, p_arg in zip(producer.inputs, producer_block.args, strict=True):
        shared = next((arg for arg, v in kept if v is a), None)
        if shared is None:
            shared = rewriter.insert_block_argument(block, len(block.args), p_arg.type)
            new_inputs.append(a)
        row_args.append(shared)
    bound = [(arg, outputs[v])
             for arg, v in zip(block.args[first:first + len(inputs)], inputs, strict=True)
             if v in outputs]
    start = block.first_op
    assert start is not None
    rewriter.inline_block(producer_block, InsertPoint.before(start), row_args)
    produced = start.prev_op
    assert isinstance(produced, soac.YieldOp)
    for arg, index in bound:
        rewriter.replace_all_uses_with(arg, produced.values[index])
    rewriter.erase(produced)
    for arg, _ in bound:
        rewriter.erase_block_argument(arg)
    return new_inputs


def compose_guarded(rewriter: PatternRewriter, block: Block, first: int,
                    inputs: Sequence[SSAValue], producer: soac.FilterOp,
                    producer_block: Block,
                    otherwise: Sequence[SSAValue] | None) -> list[SSAValue]:
    """Guarded composition (7.2.2, 7.2.3) into `block`, whose arguments from `first` on
    take rows of `inputs`, all outputs of the filter `producer`. The block's ops run
    under the filter's predicate; when it fails, the block yields `otherwise` (None:
    `false`, for a filter consumer). Returns the new inputs: the producer's."""
    outputs: dict[SSAValue, int] = {r: i for i, r in enumerate(producer.results)}
    old_rows = list(block.args[first:])
    new_rows = [rewriter.insert_block_argument(block, len(block.args), a.type)
                for a in producer_block.args]
    for arg, v in zip(old_rows, inputs, strict=True):
        rewriter.replace_all_uses_with(arg, new_rows[outputs[v]])
    for arg in old_rows:
        rewriter.erase_block_argument(arg)
    # The consumer's ops move into the `then` branch, which yields what they yielded.
    done = _take_yield(block)
    then_block = Block()
    for op in block_ops(block):
        if op is not done:
            op.detach()
            then_block.add_op(op)
    then_block.add_op(scf.YieldOp(*done.values))
    else_block = Block()
    if otherwise is None:
        false = arith.ConstantOp(IntegerAttr(0, i1))
        else_block.add_ops([false, scf.YieldOp(false)])
    else:
        else_block.add_op(scf.YieldOp(*otherwise))
    guarded = scf.IfOp(_take_yield(producer_block).values[0], [v.type for v in done.values],
                       Region(then_block), Region(else_block))
    rewriter.insert(guarded, InsertPoint.before(done))
    rewriter.insert(soac.YieldOp(*guarded.results), InsertPoint.before(done))
    rewriter.erase(done)
    rewriter.inline_block(producer_block, InsertPoint.at_start(block), new_rows)
    predicate = guarded.prev_op
    assert isinstance(predicate, soac.YieldOp)
    rewriter.erase(predicate)
    return list(producer.inputs)


def merged_certs(consumer: Operation, producer: Operation) -> list[SSAValue]:
    """The consumer's certificates, then those of the producer it does not have."""
    certs = list(consumer.certs)  # type: ignore[attr-defined]  # every SOAC has a cert list
    return certs + [c for c in producer.certs if c not in certs]  # type: ignore[attr-defined]  # as above


def dedupe_inputs(rewriter: PatternRewriter, block: Block, first: int,
                  inputs: list[SSAValue]) -> list[SSAValue]:
    """Share one argument between equal inputs (of a map or fold, not a filter)."""
    seen: dict[SSAValue, BlockArgument] = {}
    kept: list[SSAValue] = []
    for arg, v in zip(list(block.args[first:]), inputs, strict=True):
        if v in seen:
            rewriter.replace_all_uses_with(arg, seen[v])
            rewriter.erase_block_argument(arg)
        else:
            seen[v] = arg
            kept.append(v)
    return kept


def as_redomap(reduce: soac.ReduceOp) -> soac.RedomapOp:
    """`reduce(f, ne, a)` as `redomap(f, f, ne, a)` (7.1.1), taking `reduce`'s region.
    The redomap is not inserted; `rebuilt` makes the op that is."""
    new = soac.RedomapOp(list(reduce.neutral), list(reduce.inputs), reduce.body.clone(),
                         detach_region(reduce.body), list(reduce.certs))
    new.attributes |= reduce.attributes
    return new


def detach_region(region: Region) -> Region:
    """`region`'s blocks, moved into a new region (so that a new op can own them)."""
    moved = Region()
    region.move_blocks(moved)
    return moved


def rebuilt(op: Consumer, inputs: Sequence[SSAValue],
            certs: Sequence[SSAValue] | None = None) -> Consumer:
    """A SOAC like `op` over `inputs` and `certs` (default: `op`'s), taking `op`'s
    regions and keeping its location and attributes; `op` is left without regions."""
    certs = list(op.certs) if certs is None else list(certs)
    new: Consumer
    match op:
        case soac.MapOp():
            loc = None if op.loc is None else op.loc.data
            new = soac.MapOp(inputs, op.result_types, detach_region(op.body), certs, loc)
        case soac.RedomapOp():
            new = soac.RedomapOp(list(op.neutral), inputs, detach_region(op.outer),
                                 detach_region(op.inner), certs)
        case soac.ScanomapOp():
            new = soac.ScanomapOp(list(op.neutral), inputs, detach_region(op.outer),
                                  detach_region(op.inner), certs)
        case soac.FilterOp():
            new = soac.FilterOp(inputs, detach_region(op.body), certs)
    new.attributes |= op.attributes
    return new
