"""Array accumulators updated in place: a fold whose lambda maps its accumulator element
by element writes the new accumulator over the old one instead of into a fresh buffer.

Note [Accumulators updated in place]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A reduction with an array operator (`reduce(fn ([int] a, [int] b) => map(op +, zip(a,
b)), ...)`, a histogram of one-hot rows, a k-means centre update) is, after fusion, a
fold whose lambda is a map over the accumulator and a few other arrays:

    %8 = msoac.reduce(%4 : memref<?xi64>) over(%points : ...) {
    ^bb0(%a: memref<?xi64>, %x: i64):
      %12 = memref.alloc(dim(%a, 0)) : memref<?xi64>
      msoac.map ins(%a, %iota : ...) outs(%12 : memref<?xi64>) { ... }
      msoac.yield %12 : memref<?xi64>
    }

Bufferised as it is, every row allocates the next accumulator and frees the last one:
a `malloc` and a `free` per row, ten times the work of a 16-bucket row. Here the map
writes into `%a` itself (`outs(%a)`), the lambda yields `%a`, and the allocation goes,
when:

* the yielded value is a buffer the lambda allocates at its top level, used only as
  the map's one destination and by the yield (no other op sees the fresh buffer);
* `%a` is one of the map's inputs, once, bound to a scalar element (the map reads
  element j of `%a` only to compute element j of its result: it reads it before it
  writes it, and no other element), and the lambda uses `%a` otherwise only for its
  sizes (`memref.dim`): no view, load or other input could read an element the map
  has already overwritten;
* the map's iterations are its rows: its result has `%a`'s shape (the map's length is
  that of its inputs, `%a` among them, checked before it runs).

The fold then owns its accumulator and updates it: the caller starts it from a copy of
the neutral element of its own (one copy per fold, or per chunk of a blocked fold,
instead of an allocation per row), since the neutral element may be read elsewhere.
The other accumulators, and the combining operator of a blocked fold (run once per
chunk), are left as they are.
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, BlockArgument, OpResult, Region, SSAValue
from xdsl.rewriter import Rewriter

from l0.dialects import msoac

__all__ = ["accumulate_in_place"]


def accumulate_in_place(lam: Region, accumulators: int) -> list[int]:
    """Rewrite the fold lambda `lam` (its first `accumulators` arguments the
    accumulators) so that each accumulator it maps element by element is updated in
    place (Note [Accumulators updated in place]); return the positions rewritten,
    whose folds must start from a buffer of their own."""
    block = lam.block
    term = block.last_op
    if not isinstance(term, msoac.YieldOp):
        return []
    done: list[int] = []
    for i in range(min(accumulators, len(term.values))):
        acc = block.args[i]
        found = _in_place_map(block, acc, term.values[i])
        if found is None:
            continue
        mapped, fresh = found
        mapped.operands[len(mapped.inputs) + list(mapped.outs).index(fresh)] = acc
        term.operands[i] = acc
        assert isinstance(fresh, OpResult)
        Rewriter.erase_op(fresh.op)
        done.append(i)
    return done


def _in_place_map(block: Block, acc: BlockArgument,
                  yielded: SSAValue) -> tuple[msoac.MapOp, SSAValue] | None:
    """The map of `block` that may write its result over `acc`, and the fresh buffer it
    writes now, or None (the conditions of Note [Accumulators updated in place])."""
    t = acc.type
    if not isinstance(t, MemRefType) or not isinstance(yielded, OpResult):
        return None
    alloc = yielded.op
    if not isinstance(alloc, memref.AllocOp) or alloc.parent_block() is not block \
            or alloc.memref.type != t or yielded is acc:
        return None
    users = [u.operation for u in yielded.uses]
    mapped = next((u for u in users if isinstance(u, msoac.MapOp)), None)
    if len(users) != 2 or mapped is None \
            or not any(isinstance(u, msoac.YieldOp) for u in users):
        return None
    if mapped.parent_block() is not block or list(mapped.outs) != [yielded] \
            or mapped.allocated or list(mapped.inputs).count(acc) != 1:
        return None
    element = mapped.body.block.args[list(mapped.inputs).index(acc)]
    if isinstance(element.type, MemRefType):
        return None
    if any(not (u.operation is mapped or isinstance(u.operation, memref.DimOp))
           for u in acc.uses):
        return None
    return mapped, yielded
