"""The bufferisation walk: each function rebuilt with memrefs in place of tensors.

`Converter` walks the soac-level IR in program order and builds the memref-level IR
beside it, mapping every original SSA value to its new one (`get`/`set`). Scalar ops
are cloned; each op on arrays has a handler (`HANDLERS`, filled by `arrays.py`,
`soacs.py` and this module for control flow and calls). The memref type of every
array value comes from the layout analysis (`layouts.py`); where values merge (loop
carried values, branch results, call arguments and results) they are `memref.cast`
to the merged type.

`dest_for` carries destination passing (Note [Destinations]) from a `map` to the op
in its lambda that computes the yielded row: that op writes into the given view
instead of allocating.

Note [Destinations]
~~~~~~~~~~~~~~~~~~~
A map over rows whose results are arrays allocates its result before running when
`shapes.row_shape` knows the row shape beforehand; its lambda then gets a view of row i
of the result as an extra block argument. If the yielded value is computed by an op
that can write into a given buffer (a nested `map`, `iota`, `replicate`, `copy`, a
scalar `scan`) at the lambda's top level, and the lambda uses it for nothing else,
that op is given the view as its output: the row is computed in place, nothing is
allocated or copied per row. So is such an op whose result the lambda updates in place
(loops included) before yielding it (Note [Rows computed in place] in
`rows_in_place.py`): the lambda yields the view itself. Otherwise the yielded row is
copied into the view.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import PassFailedException

from l0.dialects import soac
from l0.dialects.memref_types import Kind, memref_of
from l0.lowering.bufferise.layouts import Layouts
from l0.lowering.bufferise.manifest import manifested
from l0.lowering.bufferise.readonly import map_is_view, replicate_is_view, unique_params
from l0.lowering.bufferise.rows_in_place import rows_in_place
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.checks import fault_loc
from l0.passes.analysis.walk import walk_ops

Handler = Callable[["Converter", Operation, CodeBuilder], None]

HANDLERS: dict[type[Operation], Handler] = {}
"""Op class -> the function converting it (ops without one are cloned)."""

# Nested regions (loops in loops, lambdas in lambdas) recurse; the depth is the
# program's nesting depth.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))


def handles(*classes: type[Operation]) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        for c in classes:
            HANDLERS[c] = fn
        return fn

    return register


class BufferiseError(PassFailedException):
    """IR bufferisation cannot handle: a compiler bug, never a user error."""

    def __init__(self, message: str) -> None:
        super().__init__(f"bufferise: {message}")


class Converter:
    """Rebuilds the functions of a module on memrefs (module docstring)."""

    def __init__(self, module: ModuleOp) -> None:
        self.module = module
        unique = unique_params(module)
        self.views = frozenset(
            op for op in walk_ops(module)
            if (isinstance(op, soac.ReplicateOp) and replicate_is_view(op, unique))
            or (isinstance(op, soac.MapOp) and map_is_view(op, unique)))
        self.manifest = manifested(module)
        # Yielded row -> the fresh array computed in its destination row, through
        # in-place updates (Note [Rows computed in place] in `rows_in_place.py`).
        self.in_place = rows_in_place(module, self.views)
        self.layouts = Layouts(module, self.views, self.manifest,
                               frozenset(self.in_place.values()))
        self.values: dict[SSAValue, SSAValue] = {}
        self.dest_for: dict[SSAValue, SSAValue] = {}
        # `copy` ops whose buffer a map filled as an extra output (Note [Copies of map
        # results] in `soacs.py`).
        self.computed_copies: dict[Operation, SSAValue] = {}
        self.signatures: dict[str, FunctionType] = {}
        self.runtime: set[str] = set()  # runtime functions called (`l0.lowering.loop_ir.trace`)
        for op in module.ops:
            if isinstance(op, func.FuncOp):
                self.signatures[op.sym_name.data] = self._signature(op)

    # -- values and types ---------------------------------------------------------------

    def get(self, v: SSAValue) -> SSAValue:
        new = self.values.get(v)
        if new is None:
            raise BufferiseError(f"value {v.name_hint or v} used before it was converted")
        return new

    def set(self, old: SSAValue, new: SSAValue) -> None:
        if new.name_hint is None and old.name_hint is not None:
            new.name_hint = old.name_hint
        self.values[old] = new

    def type_of(self, v: SSAValue, kind: Kind | None = None) -> Attribute:
        """The type of `v` after bufferisation (its analysed kind, unless `kind`)."""
        t = v.type
        if isinstance(t, TensorType):
            return memref_of(t, self.layouts.kind(v) if kind is None else kind)
        return t

    def coerce(self, b: CodeBuilder, v: SSAValue, t: Attribute) -> SSAValue:
        """`v` as type `t` (a `memref.cast` to a less static layout, if needed)."""
        return b.cast(v, t) if v.type != t else v

    def coerced(self, b: CodeBuilder, olds: Sequence[SSAValue],
                types: Sequence[Attribute]) -> list[SSAValue]:
        return [self.coerce(b, self.get(o), t) for o, t in zip(olds, types, strict=True)]

    # -- functions, blocks, ops ---------------------------------------------------------

    def _signature(self, f: func.FuncOp) -> FunctionType:
        ins = [memref_of(t, Kind.ANY) if isinstance(t, TensorType) else t
               for t in f.function_type.inputs.data]
        kinds = self.layouts.function_results(f.sym_name.data)
        outs = [memref_of(t, kinds[i] if i < len(kinds) else Kind.IDENTITY)
                if isinstance(t, TensorType) else t
                for i, t in enumerate(f.function_type.outputs.data)]
        return FunctionType.from_lists(ins, outs)

    def function(self, f: func.FuncOp) -> func.FuncOp:
        """The memref version of `f` (a new op; `f` is left as it is)."""
        name = f.sym_name.data
        sig = self.signatures[name]
        new = func.FuncOp(name, sig, Region(), f.sym_visibility, arg_attrs=f.arg_attrs,
                          res_attrs=f.res_attrs)
        new.attributes |= f.attributes
        if not f.body.blocks:
            return new
        old_block = f.body.block
        block = Block(arg_types=sig.inputs.data)
        new.body.add_block(block)
        for o, a in zip(old_block.args, block.args, strict=True):
            self.set(o, a)
        b = CodeBuilder.at_end(block)
        ret = self.block(old_block, b)
        if not isinstance(ret, func.ReturnOp):
            raise BufferiseError(f"expected @{name} to end in func.return")
        b.add(func.ReturnOp(*self.coerced(b, ret.arguments, sig.outputs.data)))
        return new

    def block(self, old: Block, b: CodeBuilder) -> Operation | None:
        """Convert every op of `old` but its terminator (returned) at `b`."""
        last = old.last_op
        term = last if last is not None and last.has_trait(IsTerminator) else None
        for op in old.ops:
            if op is term:
                return op
            self.op(op, b)
        return None

    def op(self, op: Operation, b: CodeBuilder) -> None:
        handler = HANDLERS.get(type(op))
        if handler is not None:
            anchor = b.ip.insert_before
            last = anchor.prev_op if anchor is not None else b.ip.block.last_op
            handler(self, op, b)
            _locate_allocs(op, b.ip.block, last, anchor)
            return
        if _touches_arrays(op):
            raise BufferiseError(f"unsupported operation {op.name} on arrays")
        # Scalar code, regions included (e.g. an scf.while on scalars), is kept as it is.
        b.add(op.clone(value_mapper=self.values))


def _locate_allocs(op: Operation, block: Block, last: Operation | None,
                   anchor: Operation | None) -> None:
    """Give the `memref.alloc`s made for `op` (between `last` and `anchor` in `block`,
    nested ones included) the location its faults are reported at: running out of
    memory is reported there."""
    new = last.next_op if last is not None else block.first_op
    loc: StringAttr | None = None
    while new is not None and new is not anchor:
        for inner in walk_ops(new):
            if isinstance(inner, memref.AllocOp) and "loc" not in inner.attributes:
                if loc is None:
                    loc = StringAttr(fault_loc(op))
                if loc.data:
                    inner.attributes["loc"] = loc
        new = new.next_op


def _touches_arrays(op: Operation) -> bool:
    """Whether `op` (or an op in its regions) takes, makes or binds an array."""
    for inner in walk_ops(op):
        values = [*inner.operands, *inner.results,
                  *(a for r in inner.regions for blk in r.blocks for a in blk.args)]
        if any(isinstance(v.type, TensorType) for v in values):
            return True
    return False


# ---------------------------------------------------------------------------------------
# Control flow and calls
# ---------------------------------------------------------------------------------------


@handles(scf.ForOp)
def _for(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, scf.ForOp)
    body = op.body.block
    carried = body.args[1:]
    types = [cv.type_of(a) for a in carried]
    inits = cv.coerced(b, op.iter_args, types)

    def loop(inner: CodeBuilder, iv: SSAValue, args: Sequence[SSAValue]) -> list[SSAValue]:
        cv.set(body.args[0], iv)
        for o, a in zip(carried, args, strict=True):
            cv.set(o, a)
        term = cv.block(body, inner)
        assert term is not None
        return cv.coerced(inner, term.operands, types)

    lb, ub = cv.get(op.lb), cv.get(op.ub)
    if lb.type != body.args[0].type:
        raise BufferiseError("expected scf.for bounds of the induction variable's type")
    results = b.for_(lb, ub, inits, loop, step=cv.get(op.step))
    for o, r in zip(op.results, results, strict=True):
        cv.set(o, r)


@handles(scf.IfOp)
def _if(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, scf.IfOp)
    types = [cv.type_of(r) for r in op.results]

    def branch(region: Region) -> Callable[[CodeBuilder], list[SSAValue]]:
        def emit(inner: CodeBuilder) -> list[SSAValue]:
            if not region.blocks:
                return []
            term = cv.block(region.block, inner)
            assert term is not None
            return cv.coerced(inner, term.operands, types)

        return emit

    otherwise = branch(op.false_region) if op.false_region.blocks else None
    results = b.if_(cv.get(op.cond), types, branch(op.true_region), otherwise)
    for o, r in zip(op.results, results, strict=True):
        cv.set(o, r)


@handles(func.CallOp)
def _call(cv: Converter, op: Operation, b: CodeBuilder) -> None:
    assert isinstance(op, func.CallOp)
    name = op.callee.root_reference.data
    sig = cv.signatures.get(name)
    if sig is None:
        raise BufferiseError(f"call of @{name}, which the module does not define")
    args = cv.coerced(b, op.arguments, sig.inputs.data)
    call = b.add(func.CallOp(name, args, sig.outputs.data))
    for o, r in zip(op.res, call.res, strict=True):
        cv.set(o, r)
