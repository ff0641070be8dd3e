"""Which memref layout kind each array value of a soac module gets (`memref_types.Kind`).

A forward analysis to a fixpoint over the whole module, since loops, branches and
calls merge values and recursion makes function results depend on themselves:

* function parameters are `ANY` (numpy arrays and views of any strides are passed
  without copying);
* every op that makes a fresh buffer gives `IDENTITY`; a `replicate` that is a view
  (stride 0, `readonly.py`) gives `ANY`; one that computes a map's row in the row
  itself (`rows_in_place.py`) gives the row's kind, `INNER`;
* views: a row (`index`) or a `split` part of an `IDENTITY`/`INNER` array is `INNER`,
  of an `ANY` one `ANY`; a `transpose` is `ANY` (`IDENTITY` when it is copied into a
  dense array, `manifest.py`); `reshape` is contiguous (a view of a
  contiguous array, or a copy): `IDENTITY` from an `IDENTITY` source, else `INNER`;
* `update` is its source (it writes in place), `trace` its operand;
* a merge (`scf.for` carried values, `scf.if` results, fold accumulators, function
  results) is the `join` of what flows into it.

The lattice has height 3, so the fixpoint is reached after a few sweeps.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Operation, SSAValue

from l0.dialects import soac
from l0.dialects.memref_types import Kind, join, row_kind

_FRESH = (soac.MapOp, soac.ScanOp, soac.ScanomapOp, soac.FilterOp, soac.IotaOp,
          soac.ReplicateOp, soac.ArrayOp, soac.EmptyOp, soac.CopyOp, soac.ConcatOp)


class Layouts:
    """The layout kind of every array value of a module, and of every function result."""

    def __init__(self, module: ModuleOp, views: frozenset[Operation] = frozenset(),
                 manifest: frozenset[Operation] = frozenset(),
                 in_rows: frozenset[SSAValue] = frozenset()) -> None:
        self.views = views  # `replicate`s that become views (`readonly.py`)
        self.manifest = manifest  # `transpose`s copied into dense arrays (`manifest.py`)
        self.in_rows = in_rows  # fresh arrays computed in a map's row (`rows_in_place.py`)
        self.kinds: dict[SSAValue, Kind] = {}
        self.results: dict[str, list[Kind]] = {}
        self._changed = True
        functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
        while self._changed:
            self._changed = False
            for f in functions:
                self._function(f)

    def kind(self, v: SSAValue) -> Kind:
        """The kind of array value `v` (IDENTITY until something says otherwise)."""
        return self.kinds.get(v, Kind.IDENTITY)

    def function_results(self, name: str) -> list[Kind]:
        return self.results.get(name, [])

    # -- updates ------------------------------------------------------------------------

    def _set(self, v: SSAValue, k: Kind) -> None:
        if not isinstance(v.type, TensorType):
            return
        old = self.kinds.get(v)
        new = k if old is None else join(old, k)
        if new != old:
            self.kinds[v] = new
            self._changed = True

    def _merge(self, targets: Iterable[SSAValue], sources: Iterable[SSAValue]) -> None:
        for t, s in zip(targets, sources, strict=True):
            if isinstance(s.type, TensorType):
                self._set(t, self.kind(s))

    # -- the walk -----------------------------------------------------------------------

    def _function(self, f: func.FuncOp) -> None:
        if not f.body.blocks:
            return
        block = f.body.block
        for a in block.args:
            self._set(a, Kind.ANY)
        self._block(block)
        ret = block.last_op
        if not isinstance(ret, func.ReturnOp):
            return
        name = f.sym_name.data
        old = self.results.get(name)
        new = [self.kind(v) if isinstance(v.type, TensorType) else Kind.IDENTITY
               for v in ret.arguments]
        if old is not None:
            new = [join(a, b) for a, b in zip(old, new, strict=True)]
        if new != old:
            self.results[name] = new
            self._changed = True

    def _block(self, block: Block) -> None:
        for op in block.ops:
            self._op(op)

    def _rows(self, args: Iterable[SSAValue], inputs: Iterable[SSAValue]) -> None:
        for a, i in zip(args, inputs, strict=True):
            self._set(a, row_kind(self.kind(i)))

    def _op(self, op: Operation) -> None:  # noqa: C901 - one case per op kind
        if not op.regions and not any(type(r.type) is TensorType for r in op.results):
            # Every case below only sets kinds of array results: most ops have none,
            # and the tests of their class against each case would fail one by one
            # (`isinstance` of an ABC, Note [Class tests by class] in
            # `l0.passes.cores.common_subexpressions`), round after round.
            return
        if isinstance(op, _FRESH):
            for r in op.results:
                self._set(r, Kind.ANY if op in self.views else Kind.IDENTITY)
                if r in self.in_rows:
                    self._set(r, Kind.INNER)
        if isinstance(op, soac.IndexOp):
            self._set(op.result, row_kind(self.kind(op.array)))
        elif isinstance(op, soac.UpdateOp):
            self._set(op.result, self.kind(op.array))
        elif isinstance(op, soac.TransposeOp):
            if op in self.manifest:
                self._set(op.result, Kind.IDENTITY)
            else:
                self._set(op.result, self.kind(op.array) if op.n.data == 0 else Kind.ANY)
        elif isinstance(op, soac.SplitOp):
            self._set(op.first, row_kind(self.kind(op.array)))
            self._set(op.second, row_kind(self.kind(op.array)))
        elif isinstance(op, soac.ReshapeOp):
            src = self.kind(op.array)
            self._set(op.result, Kind.IDENTITY if src is Kind.IDENTITY else Kind.INNER)
        elif isinstance(op, soac.TraceOp):
            self._merge(op.outputs, op.inputs)
        elif isinstance(op, func.CallOp):
            kinds = self.results.get(op.callee.root_reference.data)
            for r, k in zip(op.res, kinds or [Kind.IDENTITY] * len(op.res), strict=True):
                self._set(r, k)
        elif isinstance(op, scf.ForOp):
            self._for(op)
        elif isinstance(op, scf.IfOp):
            for region in (op.true_region, op.false_region):
                if region.blocks:
                    self._block(region.block)
                    self._merge(op.results, _yielded(region.block))
        elif isinstance(op, soac.MapOp | soac.FilterOp):
            self._rows(op.body.block.args, op.inputs)
            self._block(op.body.block)
        elif isinstance(op, soac.ReduceOp | soac.ScanOp):
            self._fold(op, op.body.block)
        elif isinstance(op, soac.RedomapOp | soac.ScanomapOp):
            self._fold(op, op.inner.block)

    def _for(self, op: scf.ForOp) -> None:
        body = op.body.block
        carried = body.args[1:]
        self._merge(carried, op.iter_args)
        self._block(body)
        self._merge(carried, _yielded(body))
        self._merge(op.results, carried)

    def _fold(self, op: soac.ReduceOp | soac.ScanOp | soac.RedomapOp | soac.ScanomapOp,
              block: Block) -> None:
        k = len(op.neutral)
        accs = block.args[:k]
        self._merge(accs, op.neutral)
        self._rows(block.args[k:], op.inputs)
        self._block(block)
        self._merge(accs, _yielded(block))
        if isinstance(op, soac.ReduceOp | soac.RedomapOp):
            self._merge(op.results, accs)


def _yielded(block: Block) -> list[SSAValue]:
    last = block.last_op
    return list(last.operands) if last is not None else []
