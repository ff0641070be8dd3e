"""The split of a function over Dask arrays: its top-level ops, one by one, become
Dask tasks (docs/distributed.md).

A value of the function is, while the split runs, one of:

* distributed: a `dask.array.Array` chunked along its outer dimension only (an argument,
  or the result of a SOAC over distributed arrays);
* local: a Python value (numpy array, scalar, cert), known now;
* lazy: a `dask.delayed` value, local but not computed yet (a reduction's result, or
  what client code makes of one).

A top-level SOAC (`map`, `filter`, `scan`, `reduce`, `redomap`) whose input arrays
include distributed ones becomes per-chunk tasks running it, outlined, on each chunk
(`l0.distributed.graphs`). Runs of other ops that touch no distributed value are
outlined together and run on the client: at once when their inputs are known, else as
one delayed task. A loop whose trip count is known on the client, and an `if` whose
condition is, run on the client with their bodies split the same way (Note [Loops over
distributed arrays]). Any other op that uses a distributed value (an index at a computed
position, a transpose) gathers the whole array, with a warning naming the op.

Note [Loops over distributed arrays]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An iterative algorithm over the data (`loop (x) = for i < n do ... reduce(..., map(...,
a)) ...`) has its SOACs inside an `scf.for`. When the loop's bounds are known on the
client (not computed by tasks), its body runs SOACs, and it runs at most
`MAX_SPLIT_ITERATIONS` times (with the loops nested in it, all told), the loop runs on
the client: each iteration splits the body as `main`'s body is split, with
the iteration's index and the carried values as the block's arguments, so each
iteration's SOACs become Dask operations over the chunks and the carried values flow
from one iteration's graph into the next (a reduction's result stays lazy: nothing is
computed until the user computes the results). An `if` whose condition is known on the
client splits the branch it takes. The pieces of a body are outlined and compiled once,
not once per iteration (`Split.pieces`). A body that would gather (some statement in it
needs a whole distributed array), a body without SOACs (scalar code reading single
elements would make a tiny task per element read), a trip count or condition computed
by tasks, or more iterations than the bound (one graph per iteration) keeps the old
way: the statement gathers its distributed arrays and runs whole, body and SOACs
included, in one task, with the warning saying so.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterable, Sequence
from types import FrameType
from typing import Any

import numpy as np
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue

from l0.dialects.soac import (
    ConcatOp,
    CopyOp,
    FilterOp,
    IndexOp,
    IotaOp,
    MapOp,
    RedomapOp,
    ReduceOp,
    ScanomapOp,
    ScanOp,
    SizeOp,
    SplitOp,
)
from l0.distributed import graphs
from l0.distributed.kernels import Kernel
from l0.distributed.outline import outline, outline_chunk_total, outline_fold, used_values

SOACS = (MapOp, FilterOp, ScanOp, ScanomapOp, ReduceOp, RedomapOp)


MAX_SPLIT_ITERATIONS = 1000
"""The most iterations of a loop over distributed arrays that run on the client, one
graph per iteration (Note [Loops over distributed arrays]); a longer loop gathers."""


MAX_CHUNK_GROWTH = 4
"""How many times more chunks than a loop's distributed inputs its carried arrays may
have before the loop gathers instead (`_iterate`)."""


class GatherWarning(UserWarning):
    """A statement needs the whole of a distributed array: Dask gathers it into one
    process."""


class Split:
    """The state of one split: values so far, and the client ops not yet run."""

    def __init__(self, body: Block, args: Sequence[Any], options: dict[str, Any],
                 split_every: int, helpers: Sequence[func.FuncOp] = (),
                 outer: Split | None = None) -> None:
        """`helpers`: the other functions of the module, which pieces may call. `outer`:
        the split of the block around this one (a loop's or an `if`'s body), whose
        values this one sees."""
        self.body = body
        self.helpers = helpers
        self.env: dict[SSAValue, Any] = dict(outer.env) if outer else {}
        self.env.update(zip(body.args, args, strict=True))
        self.gathered: dict[SSAValue, Any] = outer.gathered if outer else {}
        self.pieces: dict[tuple[Any, ...], Any] = outer.pieces if outer else {}
        """Kernels by the ops they run: a loop's body is outlined once, not per iteration."""
        self.iterations: list[int] = outer.iterations if outer else [MAX_SPLIT_ITERATIONS]
        """How many more loop iterations may run on the client (nested loops included)."""
        self.options = options
        self.split_every = split_every
        self.pending: list[Operation] = []
        self.ops = list(body.ops)
        self.why = ""
        """Why the last loop or `if` could not be split (for its gather warning)."""

    def run(self) -> list[Any]:
        """The values of the block's terminator (`func.return` or `scf.yield`)."""
        for index, op in enumerate(self.ops):
            if isinstance(op, func.ReturnOp | scf.YieldOp):
                self.flush(index)
                return [self.value_of(v) for v in op.operands]
            if isinstance(op, arith.ConstantOp):
                continue
            if isinstance(op, IotaOp) and self.iota_beside_distributed(op) is not None:
                self.flush(index)
                if self.distributed_iota(op):
                    continue
            if not self.touches_distributed(op):
                self.pending.append(op)
                continue
            self.flush(index)
            if not self.distribute(op):
                self.gather_for(op)
                self.pending.append(op)
        raise AssertionError("a block without a terminator")

    # ------------------------------------------------------------------ values

    def value_of(self, v: SSAValue) -> Any:
        if isinstance(v.owner, arith.ConstantOp):
            return _constant(v.owner)
        return self.env[v]

    def is_distributed(self, v: SSAValue) -> bool:
        return graphs.is_dask_array(self.env.get(v))

    def touches_distributed(self, op: Operation) -> bool:
        return any(self.is_distributed(v) for v in used_values([op]))

    def local(self, v: SSAValue) -> Any:
        """`v` as a client value: a distributed array is gathered (lazily)."""
        if self.is_distributed(v):
            if v not in self.gathered:
                self.gathered[v] = graphs.gather(self.env[v])
            return self.gathered[v]
        return self.value_of(v)

    def gather_for(self, op: Operation, values: Sequence[SSAValue] | None = None) -> None:
        """Warn that `op` gathers `values` (default: every distributed value it uses)."""
        if values is None:
            values = [v for v in used_values([op]) if self.is_distributed(v)]
        names = [_name(v) for v in values]
        why, self.why = self.why, ""
        warnings.warn(
            f"{_describe(op)} needs the whole of distributed array{'s' if len(names) > 1 else ''}"
            f" {', '.join(names)}: gathering {'them' if len(names) > 1 else 'it'} into one process"
            f"{_runs_there(op)}{why}",
            GatherWarning, stacklevel=_caller_level())

    # ----------------------------------------------------------------- iota

    def iota_beside_distributed(self, op: IotaOp) -> Any:
        """The first distributed array beside which `iota` is an input of top-level
        SOACs, when that is its only use; else None."""
        beside = None
        for use in op.result.uses:
            soac = use.operation
            if not isinstance(soac, SOACS) or soac.parent_block() is not self.body:
                return None
            first = len(getattr(soac, "neutral", ()))  # folds: neutral elements first
            if not first <= use.index < first + len(soac.inputs):
                return None
            found = [v for v in soac.inputs if self.is_distributed(v)]
            if not found:
                return None
            beside = beside if beside is not None else self.env[found[0]]
        return beside

    def distributed_iota(self, op: IotaOp) -> bool:
        """`iota(n)` as a Dask array chunked like the array beside it: each chunk holds
        its global indices, and the whole never exists in one place."""
        n, certs = self.value_of(op.n), [self.value_of(c) for c in op.certs]
        if any(graphs.is_lazy(v) for v in (n, *certs)):
            return False
        beside = self.iota_beside_distributed(op)
        self.env[op.result] = graphs.arange(int(n), beside)
        return True

    # ------------------------------------------------------------ client code

    def flush(self, index: int) -> None:
        """Run the pending client ops (they end before op `index`)."""
        ops, self.pending = self.pending, []
        if not ops:
            return
        later = self.ops[index:]
        params = used_values(ops)
        results = [r for op in ops for r in op.results if _used_in(r, later, self.body)]
        kernel = self.piece(("client", *ops, None, *results),
                            lambda: self.kernel(outline(ops, params, results)))
        values = graphs.call(kernel, [self.local(p) for p in params], len(results))
        self.env.update(zip(results, values, strict=True))

    def piece(self, key: tuple[Any, ...], make: Any) -> Any:
        """`make()`, once per key (the ops a kernel runs and what it returns)."""
        if key not in self.pieces:
            self.pieces[key] = make()
        return self.pieces[key]

    def kernel(self, module: ModuleOp) -> Kernel:
        called = {str(op.callee.root_reference.data) for op in module.walk()
                  if isinstance(op, func.CallOp)}
        if called:
            module.body.block.add_ops(f.clone() for f in self.helpers)
        return Kernel(str(module), **self.options)

    # ------------------------------------------------------- distributed ops

    def distribute(self, op: Operation) -> bool:
        """Make `op` Dask's: True, or False when it must run on the client."""
        if isinstance(op, SizeOp) and self.is_distributed(op.array):
            self.env[op.result] = graphs.size(self.env[op.array], op.dim.data)
            return True
        if isinstance(op, CopyOp) and self.is_distributed(op.operands[0]):
            self.env[op.results[0]] = self.env[op.operands[0]]  # Dask arrays never change
            return True
        if isinstance(op, IndexOp) and self.is_distributed(op.array):
            where = [self.value_of(v) for v in (*op.indices, *op.certs)]
            if any(graphs.is_lazy(v) or graphs.is_dask_array(v) for v in where):
                return False
            indices = tuple(int(i) for i in where[:len(op.indices)])
            self.env[op.result] = graphs.element(self.env[op.array], indices)
            return True
        if isinstance(op, ConcatOp | SplitOp):
            return self.slice_or_join(op)
        if isinstance(op, scf.ForOp):
            return self.split_loop(op)
        if isinstance(op, scf.IfOp):
            return self.split_if(op)
        if not isinstance(op, SOACS) or not any(self.is_distributed(v) for v in op.inputs):
            return False
        inputs = list(op.inputs)
        others = [v for v in used_values([op]) if v not in inputs]
        if any(graphs.is_lazy(self.value_of(v)) for v in inputs):
            return False
        captured = [v for v in others if self.is_distributed(v)]
        if captured:  # every chunk's task gets the whole of it
            self.gather_for(op, captured)
        arrays = graphs.align([self.value_of(v) for v in inputs])
        free = [graphs.shared(self.local(v)) for v in others]
        types = [r.type for r in op.results]
        outs: Sequence[Any]  # Dask arrays, or delayed values of a reduction
        if isinstance(op, MapOp | FilterOp):
            kernel = self.piece((op,), lambda: self.kernel(
                outline([op], inputs + others, list(op.results))))
            outs = graphs.blockwise(kernel, arrays, free, types, keep_lengths=isinstance(op, MapOp),
                                    name=op.name.replace(".", "-"))
        elif isinstance(op, ScanOp | ScanomapOp):
            k = len(op.neutral)
            operator = op.body if isinstance(op, ScanOp) else op.outer
            scan, total, combine, in_operator = self.piece((op,), lambda: (
                self.kernel(outline([op], inputs + others, list(op.results), leading=k)),
                self.kernel(outline_chunk_total(op, inputs + others)),
                *self.fold(operator, op)))
            neutral = [self.local(v) for v in op.neutral]
            outs = graphs.scan(scan, total, combine, neutral,
                               [graphs.shared(self.local(v)) for v in in_operator],
                               arrays, free, types)
        else:
            assert isinstance(op, ReduceOp | RedomapOp)
            region = op.body if isinstance(op, ReduceOp) else op.outer
            partial, combine, in_operator = self.piece((op,), lambda: (
                self.kernel(outline([op], inputs + others, list(op.results))),
                *self.fold(region, op)))
            neutral = [self.local(v) for v in op.neutral]
            outs = graphs.reduce(partial, combine, neutral,
                                 [graphs.shared(self.local(v)) for v in in_operator],
                                 arrays, free, len(types), self.split_every)
        self.env.update(zip(op.results, outs, strict=True))
        return True

    def fold(self, operator: Any, op: Any) -> tuple[Kernel, list[SSAValue]]:
        """The kernel of a reduction's operator over partial results, and the values
        the operator captures."""
        combine, in_operator = outline_fold(operator, list(op.neutral))
        return self.kernel(combine), in_operator

    def split_loop(self, op: scf.ForOp) -> bool:
        """A loop run on the client, its body split per iteration (Note [Loops over
        distributed arrays]); False: it gathers."""
        bounds = [self.value_of(v) for v in (op.lb, op.ub, op.step)]
        if any(graphs.is_lazy(b) or graphs.is_dask_array(b) for b in bounds):
            self.why = " (its trip count is computed by tasks)"
            return False
        if not _soacs_in(op.body.block):
            self.why = " (its body has no SOAC to run per chunk)"
            return False
        indices = range(int(bounds[0]), int(bounds[1]), max(int(bounds[2]), 1))
        if len(indices) > self.iterations[0]:
            self.why = (f" ({len(indices)} iterations: more than the {MAX_SPLIT_ITERATIONS}"
                        " that run on the client, nested loops included, one graph each)")
            return False
        self.iterations[0] -= len(indices)
        carried = [self.value_of(v) for v in op.iter_args]
        block = op.body.block
        entry = [self.env[v] for v in used_values([op]) if self.is_distributed(v)]
        most = MAX_CHUNK_GROWTH * max((len(x.chunks[0]) for x in entry), default=1)
        results = self.nested(lambda: _iterate(self, block, indices, carried, most))
        if results is None:
            return False
        self.env.update(zip(op.results, results, strict=True))
        return True

    def split_if(self, op: scf.IfOp) -> bool:
        """An `if` whose condition is known on the client: the branch it takes, split;
        False: it gathers."""
        cond = self.value_of(op.cond)
        if graphs.is_lazy(cond) or graphs.is_dask_array(cond):
            self.why = " (its condition is computed by tasks)"
            return False
        region = op.true_region if cond else op.false_region
        if not region.blocks:  # an `if` without results or an else branch
            return True
        block = region.block
        results = self.nested(lambda: Split(block, [], self.options, self.split_every,
                                            self.helpers, self).run())
        if results is None:
            return False
        self.env.update(zip(op.results, results, strict=True))
        return True

    def nested(self, run: Any) -> list[Any] | None:
        """The results of splitting a nested body, or None where a statement in it
        would gather: then the whole statement gathers instead (cheaper than a gather
        per iteration, and said once)."""
        with warnings.catch_warnings():
            warnings.simplefilter("error", GatherWarning)
            try:
                return run()
            except GatherWarning as warning:
                self.why = f" (splitting it per iteration or branch would gather: {warning})"
                return None
            except _ChunksGrow as growth:
                self.why = f" ({growth})"
                return None

    def slice_or_join(self, op: ConcatOp | SplitOp) -> bool:
        """`concat` of vectors and `split` at a known position, as Dask's own
        concatenation and slicing; their checks (certs) must have run already."""
        known = [self.value_of(v) for v in op.operands
                 if not self.is_distributed(v)]
        if any(graphs.is_lazy(v) or graphs.is_dask_array(v) for v in known):
            return False
        if isinstance(op, SplitOp):
            if not self.is_distributed(op.array):
                return False
            at, x = self.value_of(op.at), graphs.measured(self.env[op.array])
            self.env[op.first], self.env[op.second] = x[:at], x[at:]
            return True
        if not isinstance(t := op.result.type, TensorType) or t.get_num_dims() != 1:
            return False  # rows of different shapes: the local run's error
        parts = [self.env[v] if self.is_distributed(v)
                 else graphs.from_array(np.asarray(self.value_of(v))) for v in (op.a, op.b)]
        self.env[op.result] = graphs.concatenate(parts)
        return True


def _soacs_in(block: Block) -> bool:
    """Whether SOACs run in `block`, directly or in its loops and ifs (not in lambdas):
    what a split per iteration makes Dask operations of. A body without them (scalar
    code, single elements read) would be one small task per iteration: it gathers."""
    for op in block.ops:
        if isinstance(op, SOACS):
            return True
        if isinstance(op, scf.ForOp | scf.IfOp) and any(
                _soacs_in(b) for r in op.regions for b in r.blocks):
            return True
    return False


class _ChunksGrow(Exception):
    """A loop's carried arrays have ever more chunks: it gathers instead."""


def _iterate(outer: Split, block: Block, indices: range, carried: list[Any],
             most_chunks: int) -> list[Any]:
    """A loop's carried values after its iterations, each a split of its body. A loop
    whose carried arrays end an iteration with more than `most_chunks` chunks (a
    `concat` of two filters of the array, as a radix sort step is, doubles them every
    iteration: a graph growing exponentially) is not split."""
    for i in indices:
        carried = Split(block, [i, *carried], outer.options, outer.split_every, outer.helpers,
                        outer).run()
        chunks = max((len(x.chunks[0]) for x in carried if graphs.is_dask_array(x)), default=0)
        if chunks > most_chunks:
            raise _ChunksGrow(f"its carried arrays reach {chunks} chunks, more than "
                              f"{MAX_CHUNK_GROWTH} times those of its distributed inputs")
    return carried


def _caller_level() -> int:
    """The `stacklevel` of the first frame outside l0: the user's call of the function."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _used_in(v: SSAValue, later: Sequence[Operation], body: Block) -> bool:
    later_ops = set(later)
    for use in v.uses:
        op: Operation | None = use.operation
        while op is not None and op.parent_block() is not body:
            op = op.parent_op()
        if op in later_ops:
            return True
    return False


def _constant(op: arith.ConstantOp) -> Any:
    """The client value of a constant: a Python scalar, or a numpy array for a dense
    array constant (the front end makes array literals `soac.array`s, but passes may
    fold arrays to constants)."""
    value = op.value
    t = op.result.type
    if isinstance(t, TensorType):
        dtype = graphs.element_dtype(t)
        assert isinstance(value, DenseIntOrFPElementsAttr)
        flat = np.asarray(value.get_values())
        if dtype == np.bool_:
            flat = flat != 0  # i1 elements read back as 0 and -1
        return flat.astype(dtype).reshape(t.get_shape())
    data = getattr(value, "value", None)
    data = getattr(data, "data", data)
    if str(t) == "i1":
        return bool(data)
    return data


def _name(v: SSAValue) -> str:
    return f"%{v.name_hint}" if v.name_hint else "(a distributed array)"


_STATEMENTS = {
    "scf.for": "a loop",
    "scf.if": "an if",
    "soac.update": "an in-place update",
    "soac.index": "an index at a position computed by tasks",
    "soac.transpose": "a transpose",
    "soac.reshape": "a reshape",
}
"""What the gather warning calls the statements that gather most often."""


def _describe(op: Operation) -> str:
    """The statement, for the gather warning: what it is and where it is in the source
    (the first location found in it, else in the statements that use its results)."""
    what = f"{_STATEMENTS[op.name]} ({op.name})" if op.name in _STATEMENTS else op.name
    loc = _location(op.walk()) or _location(
        nested for r in op.results for use in r.uses for nested in use.operation.walk())
    return f"{loc}: {what}" if loc else what


def _runs_there(op: Operation) -> str:
    """For a statement with a body: that the body runs in that process too."""
    if not op.regions or not any(r.blocks for r in op.regions):
        return ""
    soacs = [o for o in op.walk() if o is not op and isinstance(o, SOACS)]
    return (f", where its body runs{' (SOACs included)' if soacs else ''}"
            if op.name.startswith("scf.") else "")


def _location(ops: Iterable[Operation]) -> str | None:
    for nested in ops:
        loc = nested.properties.get("loc") or nested.attributes.get("loc")
        if isinstance(loc, StringAttr):
            return loc.data
    return None
