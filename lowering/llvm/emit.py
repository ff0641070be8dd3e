"""Emit LLVM IR (llvmlite) from loop-level IR: func, cf, the control-flow skeleton.

Input: a `builtin.module` of `func.func`s over scf + cf + arith + math + memref (plus
`soac.assert`, whose certificate result is dropped). Output: an `llvmlite.ir.Module`
following the calling convention of `abi.py`. The emission is direct (no MLIR, no
mlir-translate): one visitor over xDSL ops, with per-dialect handlers in `arith.py`,
`math.py`, `memref.py` and `scf.py`.

Runtime failures (`soac.assert`, `cf.assert`, allocation failure, stack exhaustion) store
an error id and its values into the context and leave the function through its `fail`
block, which returns status 1; every call site checks the callee's status and leaves
the same way, so an error crosses any number of loops and calls in O(1) per frame.
Buffers allocated before the failure are not freed (the error ends the run).

Recursive functions (call-graph cycles) check the stack pointer against a floor given in
the context at entry, so deep recursion reports "stack overflow" instead of crashing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias, cast

import llvmlite.ir as ir
from xdsl.dialects import cf, func, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.traits import IsTerminator

from l0.collector import sparing_the_input
from l0.dialects import soac
from l0.lowering.llvm import arith as arith_ops
from l0.lowering.llvm import math as math_ops
from l0.lowering.llvm import memref as memref_ops
from l0.lowering.llvm import omp as omp_ops
from l0.lowering.llvm import scf as scf_ops
from l0.lowering.llvm.alias import AliasScopes
from l0.lowering.llvm.entry import emit_entry
from l0.lowering.llvm.runtime import Runtime
from l0.lowering.llvm.types import (
    I1,
    I32,
    I64,
    PTR,
    LoweringError,
    MemRefDesc,
    component_types,
    components,
    from_components,
    i64,
)
from l0.lowering.runtime import abi
from l0.passes.analysis.walk import walk_ops
from l0.targets import DEFAULT, Target

Value: TypeAlias = ir.Value | MemRefDesc
Handler = Callable[["FunctionEmitter", Operation], None]

# Loop nests and scf regions recurse in the emitter; their depth is the program's nesting
# depth, but deep `if` chains of generated code can still be long.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))


@dataclass
class EmittedModule:
    """The result of `emit_module`: LLVM IR plus what the Python side needs to call it."""

    llvm: ir.Module
    errors: abi.ErrorTable
    entries: dict[str, FunctionType] = field(default_factory=lambda: {})


def emit_module(
    module: ModuleOp,
    *,
    fast_math: bool = False,
    entries: Iterable[str] | None = None,
    triple: str = "",
    data_layout: str = "",
    checked_memory: bool = False,
    count_allocations: bool = False,
    target: Target = DEFAULT,
    handlers: dict[type[Operation], Handler] | None = None,
    skip: tuple[type[Operation], ...] = (),
) -> EmittedModule:
    """Translate `module` to LLVM IR.

    `entries` names the functions to expose as `l0.entry.NAME` (default: every public
    function with a body); `fast_math` sets LLVM's `fast` flags on all float operations;
    `checked_memory` allocates through the checking heap (`l0.lowering.runtime.checked_memory`);
    `count_allocations` counts allocations (`l0.lowering.runtime.alloc_stats`);
    `target` is the back end the code is for: where it runs parallel loops on threads
    (`Target.threads`), omp regions fork as many threads as the calling thread's
    OpenMP setting says, a run-time setting (`l0.lowering.llvm.omp`,
    `l0.lowering.runtime.openmp_runtime`); elsewhere the code runs on one thread.
    `handlers` add to or replace the emitter's op handlers (a back end's own lowering
    of some ops: the GPU host code's `gpu.*`), and top-level ops of the classes in
    `skip` are left out (device code, which another emitter translates).
    """
    with sparing_the_input():  # Note [The cycle collector and the compiler]
        emitter = ModuleEmitter(module, fast_math=fast_math, checked_memory=checked_memory,
                                count_allocations=count_allocations, target=target,
                                handlers=handlers, skip=skip)
        return emitter.emit(entries, triple, data_layout)


def print_llvm_ir(module: ModuleOp, *, fast_math: bool = False,
                  target: Target = DEFAULT) -> str:
    """The unoptimised LLVM IR of `module` for back end `target`, as text (what `l0-opt`
    can print)."""
    return str(emit_module(module, fast_math=fast_math, target=target).llvm)


# --------------------------------------------------------------------------- module


@dataclass
class FuncInfo:
    op: func.FuncOp
    llvm: ir.Function
    external: bool


class ModuleEmitter:
    """Declares every function, then emits bodies and entry points into one LLVM module."""

    def __init__(self, module: ModuleOp, *, fast_math: bool = False,
                 checked_memory: bool = False, count_allocations: bool = False,
                 target: Target = DEFAULT,
                 handlers: dict[type[Operation], Handler] | None = None,
                 skip: tuple[type[Operation], ...] = ()) -> None:
        self.module = module
        self.fast_math = fast_math
        self.handlers: dict[type[Operation], Handler] = {**HANDLERS, **(handlers or {})}
        self.skip = skip
        self.target = target
        self.outlined = 0
        self.llvm = ir.Module(name="l0")
        self.rt: Runtime = Runtime(self.llvm, checked_memory=checked_memory,
                                   count_allocations=count_allocations)
        self.errors = abi.ErrorTable()
        self.funcs: dict[str, FuncInfo] = {}
        self.globals: dict[str, tuple[ir.GlobalVariable, MemRefType]] = {}
        self._tbaa: dict[str, ir.MDValue] = {}
        self._tbaa_root: ir.MDValue | None = None
        self.likely = self.llvm.add_metadata(
            [ir.MetaDataString(self.llvm, "branch_weights"), ir.Constant(I32, 2000),
             ir.Constant(I32, 1)]
        )

    def emit(self, entries: Iterable[str] | None, triple: str, data_layout: str) -> EmittedModule:
        self.llvm.triple = triple
        self.llvm.data_layout = data_layout
        for op in self.module.ops:
            if isinstance(op, func.FuncOp):
                self._declare(op)
            elif isinstance(op, memref.GlobalOp):
                memref_ops.declare_global(self, op)
            elif isinstance(op, self.skip):
                continue
            else:
                raise LoweringError(f"expected func.func or memref.global at top level, "
                                    f"found {op.name}")
        recursive = _recursive_functions(self.funcs)
        for name, info in self.funcs.items():
            if not info.external:
                FunctionEmitter(self, info, name in recursive).emit()
        omp_ops.finish(self)
        wanted = list(entries) if entries is not None else [
            name for name, info in self.funcs.items()
            if not info.external and _visibility(info.op) != "private"
        ]
        out = EmittedModule(self.llvm, self.errors)
        for name in wanted:
            entry = self.funcs.get(name)
            if entry is None or entry.external:
                raise LoweringError(f"expected a function with a body named @{name}")
            emit_entry(self, name, entry)
            out.entries[name] = entry.op.function_type
        return out

    def _declare(self, op: func.FuncOp) -> None:
        name = op.sym_name.data
        ftype = op.function_type
        external = not op.body.blocks
        if external:
            fn = self._declare_external(name, ftype)
            if name == omp_ops.WIDTH_FUNCTION and not fn.blocks:
                omp_ops.define_width(self, fn)
        else:
            ret = ir.LiteralStructType([I32, *_flat_types(ftype.outputs.data)])
            fnty = ir.FunctionType(ret, [PTR, *_flat_types(ftype.inputs.data)])
            fn = ir.Function(self.llvm, fnty, abi.INTERNAL_PREFIX + name)
            fn.linkage = "internal"
            fn.attributes.add("nounwind")
            fn.args[0].name = "ctx"
            fn.args[0].add_attribute("noalias")
            _name_params(op, fn)
            self._mark_noalias_params(op, fn)
        self.funcs[name] = FuncInfo(op, fn, external)

    def _declare_external(self, name: str, ftype: FunctionType) -> ir.Function:
        """A body-less `func.func`: a C function taking and returning scalars (e.g. libm)."""
        types = [*ftype.inputs.data, *ftype.outputs.data]
        if any(isinstance(t, MemRefType) for t in types) or len(ftype.outputs.data) > 1:
            raise LoweringError(f"expected external function @{name} to take scalars and "
                                f"return at most one scalar, found {ftype}")
        ret = component_types(ftype.outputs.data[0])[0] if ftype.outputs.data else ir.VoidType()
        fnty = ir.FunctionType(ret, _flat_types(ftype.inputs.data))
        existing = self.llvm.globals.get(name)
        if isinstance(existing, ir.Function):
            return existing
        return ir.Function(self.llvm, fnty, name)

    def _mark_noalias_params(self, op: func.FuncOp, fn: ir.Function) -> None:
        """`{llvm.noalias}` on a memref parameter: its aligned pointer gets `noalias`.

        Only the IR producer knows when that is sound (the buffer is reachable through
        no other argument during the call), so nothing is marked without it.
        """
        attrs = op.arg_attrs
        if not isinstance(attrs, ArrayAttr):
            return
        pos = 1
        for t, d in zip(op.function_type.inputs.data, attrs.data, strict=False):
            if isinstance(t, MemRefType) and isinstance(d, DictionaryAttr) and isinstance(
                d.data.get("llvm.noalias"), UnitAttr
            ):
                fn.args[pos + 1].add_attribute("noalias")
            pos += len(component_types(t))

    def tbaa(self, ty: ir.Type) -> ir.MDValue:
        """The TBAA access tag for array elements of LLVM type `ty`.

        Array elements of different types never overlap (no op reinterprets a buffer),
        so distinct tags let LLVM separate, e.g., stores to an f64 array from loads of
        an i64 array. Descriptor slots and the context get no tag (they are read as
        several types).
        """
        key = str(ty)
        tag = self._tbaa.get(key)
        if tag is None:
            if self._tbaa_root is None:
                self._tbaa_root = self.llvm.add_metadata([ir.MetaDataString(self.llvm, "l0 tbaa")])
            node = self.llvm.add_metadata(
                [ir.MetaDataString(self.llvm, f"l0 {key}"), self._tbaa_root, i64(0)]
            )
            tag = self.llvm.add_metadata([node, node, i64(0)])
            self._tbaa[key] = tag
        return tag


def _name_params(op: func.FuncOp, fn: ir.Function) -> None:
    """Readable LLVM parameter names: `%a.aligned`, `%a.size0`, `%n`."""
    pos = 1
    for k, a in enumerate(op.body.blocks[0].args):
        hint = a.name_hint or f"arg{k}"
        if isinstance(a.type, MemRefType):
            rank = a.type.get_num_dims()
            names = ["allocated", "aligned", "offset", *(f"size{j}" for j in range(rank)),
                     *(f"stride{j}" for j in range(rank))]
            for j, n in enumerate(names):
                fn.args[pos + j].name = f"{hint}.{n}"
            pos += len(names)
        else:
            fn.args[pos].name = hint
            pos += 1


def _visibility(op: func.FuncOp) -> str:
    vis = op.sym_visibility
    return vis.data if vis is not None else "public"


def _flat_types(types: Sequence[Attribute]) -> list[ir.Type]:
    return [c for t in types for c in component_types(t)]


def _recursive_functions(funcs: dict[str, FuncInfo]) -> set[str]:
    """Names of the functions on a call-graph cycle (Tarjan's SCCs, iteratively)."""
    graph: dict[str, list[str]] = {}
    for name, info in funcs.items():
        callees = {c.callee.root_reference.data for c in walk_ops(info.op)
                   if isinstance(c, func.CallOp)}
        graph[name] = sorted(c for c in callees if c in funcs)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: set[str] = set()
    for root in graph:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            succs = graph[node]
            if i < len(succs):
                work.append((node, i + 1))
                nxt = succs[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work and work[-1][1] > 0:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                scc: list[str] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    scc.append(w)
                    if w == node:
                        break
                if len(scc) > 1 or node in graph[node]:
                    result.update(scc)
    return result


# --------------------------------------------------------------------------- functions


class FunctionEmitter:
    """Emits one `func.func` body; handlers of every dialect work through its helpers."""

    plans_entry_allocas = True
    """Whether stack buffers go to the function's entry (`plan_entry_allocas`)."""

    def __init__(self, mod: ModuleEmitter, info: FuncInfo, recursive: bool) -> None:
        self.mod = mod
        self.rt = mod.rt
        self.op = info.op
        self.fn = info.llvm
        self.recursive = recursive
        self.values: dict[SSAValue, Value] = {}
        self.ctx: ir.Value = self.fn.args[0]
        self._allocas = self.fn.append_basic_block("allocas")
        self.alloca_b = ir.IRBuilder(self._allocas)
        self.b = ir.IRBuilder(self.fn.append_basic_block("entry"))
        self._fail: ir.Block | None = None
        self._stack_floor: ir.Value | None = None
        # An outlined region allocates nothing at its function's entry: no plan (a walk
        # of the whole function per region).
        self.entry_allocas = (memref_ops.plan_entry_allocas(self.op)
                              if self.plans_entry_allocas else set())
        self._alias_scopes: AliasScopes | None = None

    def alias_scopes(self) -> AliasScopes:
        """The alias scopes of this function's element accesses (made on first use)."""
        if self._alias_scopes is None:
            self._alias_scopes = AliasScopes(self.mod.llvm, self.op)
        return self._alias_scopes

    def share_alias_scopes(self, parent: FunctionEmitter) -> None:
        """Use the alias scopes of `parent`, which emits the same `func.func` (an
        outlined region's body is part of its function: the analysis of the whole
        function, made once, not once per region)."""
        self._alias_scopes = parent.alias_scopes()

    # ---- values

    def get(self, v: SSAValue) -> ir.Value:
        """The LLVM value of scalar `v`."""
        x = self.values[v]
        if isinstance(x, MemRefDesc):
            raise LoweringError(f"expected a scalar, found a memref of type {v.type}")
        return x

    def desc(self, v: SSAValue) -> MemRefDesc:
        """The descriptor of memref `v`."""
        x = self.values[v]
        if not isinstance(x, MemRefDesc):
            raise LoweringError(f"expected a memref, found a value of type {v.type}")
        return x

    def any(self, v: SSAValue) -> Value:
        return self.values[v]

    def set(self, v: SSAValue, x: Value) -> None:
        self.values[v] = x

    def float_flags(self, op: Operation) -> tuple[str, ...]:
        """LLVM fast-math flags for `op`: its own `fastmath<...>`, or all under `fast_math`."""
        if self.mod.fast_math:
            return ("fast",)
        fm = op.properties.get("fastmath")
        flags = getattr(fm, "data", None)
        if not flags:
            return ()
        names = sorted(str(f) for f in flags)
        return ("fast",) if len(names) == 7 else tuple(names)

    def block(self, name: str) -> ir.Block:
        return self.fn.append_basic_block(name)

    # ---- the body

    def emit(self) -> None:
        params = self._params()
        if self.recursive:
            from l0.lowering.gpu.kernels import MODULE_NAME

            # named as in the source, also as gpu-sim's copy `l0_kernels.f`
            name = self.op.sym_name.data.removeprefix(MODULE_NAME + ".")
            # at the function's definition (Note [Locations of recursive functions])
            loc = self.op.attributes.get("loc")
            site = abi.ErrorSite(f"stack overflow: recursion too deep in function {name}",
                                 loc.data if isinstance(loc, StringAttr) else "")
            self.check_stack(i64(0), self.mod.errors.add(site, 0))
        self.emit_cfg(self.op.body, params, self._return)
        self.alloca_b.branch(self.fn.blocks[1])

    def _params(self) -> list[Value]:
        args = list(self.fn.args[1:])
        out: list[Value] = []
        for t in self.op.function_type.inputs.data:
            n = len(component_types(t))
            out.append(from_components(self.b, t, args[:n]))
            args = args[n:]
        return out

    def _return(self, term: Operation) -> None:
        if not isinstance(term, func.ReturnOp):
            raise LoweringError(f"expected func.return to end @{self.op.sym_name.data}, "
                                f"found {term.name}")
        self.return_values(term.operands)

    def return_values(self, values: Sequence[SSAValue]) -> None:
        """Return status 0 and `values`."""
        ret_ty = cast(ir.LiteralStructType, self.fn.function_type.return_type)
        agg: ir.Value = ir.Constant(ret_ty, ir.Undefined)
        agg = self.b.insert_value(agg, ir.Constant(I32, 0), 0)
        pos = 1
        for v in values:
            for c in components(self.any(v)):
                agg = self.b.insert_value(agg, c, pos)
                pos += 1
        self.b.ret(agg)

    # ---- ops

    def emit_op(self, op: Operation) -> None:
        handler = self.mod.handlers.get(type(op))
        if handler is None:
            raise LoweringError(f"unsupported operation {op.name}")
        handler(self, op)

    def emit_ops(self, block: Block) -> Operation | None:
        """Emit every op of `block` but its terminator, which is returned."""
        last = block.last_op
        term = last if last is not None and last.has_trait(IsTerminator) else None
        for op in block.ops:
            if op is term:
                break
            self.emit_op(op)
        return term

    def emit_region_block(self, block: Block, args: Sequence[Value]) -> Operation | None:
        """Bind `block`'s arguments to `args`, emit its ops; return its terminator."""
        for a, v in zip(block.args, args, strict=True):
            self.values[a] = v
        return self.emit_ops(block)

    def yielded(self, block: Block, args: Sequence[Value]) -> list[Value]:
        """Emit a single-block region ending in a yield; return the yielded values."""
        term = self.emit_region_block(block, args)
        if term is None:
            return []
        return [self.any(v) for v in term.operands]

    # ---- unstructured control flow (func bodies, scf.execute_region)

    def emit_cfg(self, region: Region, entry_args: Sequence[Value],
                 on_exit: Callable[[Operation], None]) -> None:
        """Emit a multi-block region; `on_exit` handles terminators leaving it.

        Blocks are emitted in reverse post-order, so definitions precede uses; block
        arguments become phis, fed through an edge block per branch that passes values.
        """
        blocks = list(region.blocks)
        if not blocks:
            raise LoweringError("expected a region with a body")
        order = _reverse_postorder(blocks[0])
        targets: dict[Block, ir.Block] = {blocks[0]: self.b.block}
        phis: dict[Block, list[list[ir.PhiInstr]]] = {}
        for blk in order[1:]:
            bb = self.block("bb")
            targets[blk] = bb
            pb = ir.IRBuilder(bb)
            arg_phis = [[pb.phi(t) for t in component_types(a.type)] for a in blk.args]
            phis[blk] = arg_phis
            for a, ps in zip(blk.args, arg_phis, strict=True):
                self.values[a] = from_components(pb, a.type, list(ps))
        for a, v in zip(blocks[0].args, entry_args, strict=True):
            self.values[a] = v
        for blk in order:
            self.b.position_at_end(targets[blk])
            term = self.emit_ops(blk)
            if term is None:
                raise LoweringError("expected every block to end with a terminator")
            self._emit_terminator(term, targets, phis, on_exit)

    def _emit_terminator(self, term: Operation, targets: dict[Block, ir.Block],
                         phis: dict[Block, list[list[ir.PhiInstr]]],
                         on_exit: Callable[[Operation], None]) -> None:
        def edge(dest: Block, args: Sequence[SSAValue]) -> ir.Block:
            if not args:
                return targets[dest]
            bb = self.block("edge")
            eb = ir.IRBuilder(bb)
            for ps, v in zip(phis[dest], args, strict=True):
                for p, c in zip(ps, components(self.any(v)), strict=True):
                    p.add_incoming(c, bb)
            eb.branch(targets[dest])
            return bb

        if isinstance(term, cf.BranchOp):
            self.b.branch(edge(term.successor, term.arguments))
        elif isinstance(term, cf.ConditionalBranchOp):
            self.b.cbranch(self.get(term.cond), edge(term.then_block, term.then_arguments),
                           edge(term.else_block, term.else_arguments))
        elif isinstance(term, cf.SwitchOp):
            self._emit_switch(term, edge)
        else:
            on_exit(term)

    def _emit_switch(self, term: cf.SwitchOp,
                     edge: Callable[[Block, Sequence[SSAValue]], ir.Block]) -> None:
        flag = self.get(term.flag)
        sw = self.b.switch(flag, edge(term.default_block, term.default_operands))
        values = term.case_values.get_values() if term.case_values is not None else ()
        segments = term.case_operand_segments.get_values()
        operands = list(term.case_operands)
        start = 0
        for value, dest, count in zip(values, term.case_blocks, segments, strict=True):
            sw.add_case(ir.Constant(flag.type, int(value)),
                        edge(dest, operands[start:start + count]))
            start += count

    # ---- merging values at control-flow joins

    def merge(self, types: Sequence[Attribute],
              incoming: Sequence[tuple[Sequence[Value], ir.Block]]) -> list[Value]:
        """Phis at the current (join) block for values arriving from several blocks."""
        all_parts: list[list[ir.Value]] = []
        for k, t in enumerate(types):
            parts: list[ir.Value] = []
            for j, ct in enumerate(component_types(t)):
                p = self.b.phi(ct)
                for vals, bb in incoming:
                    p.add_incoming(components(vals[k])[j], bb)
                parts.append(p)
            all_parts.append(parts)
        # Every phi first: rebuilding a descriptor may emit instructions (strides).
        return [from_components(self.b, t, parts)
                for t, parts in zip(types, all_parts, strict=True)]

    def loop_phis(self, types: Sequence[Attribute], inits: Sequence[Value],
                  pre: ir.Block) -> tuple[list[Value], list[list[ir.PhiInstr]]]:
        """Phis at a loop header for loop-carried values entering from `pre`."""
        all_phis = [[self.b.phi(ct) for ct in component_types(t)] for t in types]
        values: list[Value] = []
        for t, ps, init in zip(types, all_phis, inits, strict=True):
            for p, c in zip(ps, components(init), strict=True):
                p.add_incoming(c, pre)
            values.append(from_components(self.b, t, list(ps)))
        return values, all_phis

    @staticmethod
    def close_loop(all_phis: list[list[ir.PhiInstr]], values: Sequence[Value],
                   latch: ir.Block) -> None:
        for ps, v in zip(all_phis, values, strict=True):
            for p, c in zip(ps, components(v), strict=True):
                p.add_incoming(c, latch)

    # ---- failure

    @property
    def fail_block(self) -> ir.Block:
        """The block returning status 1 (the error is already in the context)."""
        if self._fail is None:
            self._fail = self.block("fail")
            ret_ty = cast(ir.LiteralStructType, self.fn.function_type.return_type)
            fb = ir.IRBuilder(self._fail)
            agg = fb.insert_value(ir.Constant(ret_ty, ir.Undefined), ir.Constant(I32, 1), 0)
            fb.ret(agg)
        return self._fail

    def fail_unless(self, ok: ir.Value, error_id: int, values: Sequence[ir.Value] = ()) -> None:
        """Continue if `ok`; otherwise record error `error_id` with `values` and fail."""
        if isinstance(ok, ir.Constant) and ok.constant == 1:
            return
        cont = self.block("ok")
        err = self.block("error")
        br = self.b.cbranch(ok, cont, err)
        br.set_metadata("prof", self.mod.likely)
        self.b.position_at_end(err)
        self.b.store(i64(error_id), self.ctx_slot(abi.CTX_ERROR))
        for k, v in enumerate(values):
            self.b.store(self._as_i64(v), self.ctx_slot(abi.CTX_VALUES + k))
        self.b.branch(self.fail_block)
        self.b.position_at_end(cont)

    def check_status(self, status: ir.Value) -> None:
        """After a call: leave through `fail` if the callee failed."""
        ok = self.b.icmp_unsigned("==", status, ir.Constant(I32, 0))
        cont = self.block("ok")
        br = self.b.cbranch(ok, cont, self.fail_block)
        br.set_metadata("prof", self.mod.likely)
        self.b.position_at_end(cont)

    def ctx_slot(self, k: int) -> ir.Value:
        return self.b.gep(self.ctx, [i64(k)], inbounds=True, source_etype=I64)

    def _as_i64(self, v: ir.Value) -> ir.Value:
        """An error value as it is stored in the context (a 64-bit slot)."""
        if isinstance(v.type, ir.IntType):
            return v if v.type.width == 64 else self.b.sext(v, I64)
        if isinstance(v.type, ir.PointerType):
            return self.b.ptrtoint(v, I64)
        as_double = v if isinstance(v.type, ir.DoubleType) else self.b.fpext(v, ir.DoubleType())
        return self.b.bitcast(as_double, I64)

    # ---- the stack

    @property
    def stack_floor(self) -> ir.Value:
        """The lowest stack address compiled code may use (loaded once, at entry)."""
        if self._stack_floor is None:
            slot = self.alloca_b.gep(self.ctx, [i64(abi.CTX_STACK_FLOOR)], inbounds=True,
                                     source_etype=I64)
            self._stack_floor = self.alloca_b.load(slot, typ=I64, align=8)
        return self._stack_floor

    def check_stack(self, nbytes: ir.Value, error_id: int = abi.ERR_STACK_OVERFLOW) -> None:
        """Fail with `error_id` unless `nbytes` more fit above the stack floor."""
        sp = self.b.ptrtoint(self.b.call(self.rt.stacksave(), []), I64)
        floor = self.stack_floor
        above = self.b.icmp_unsigned(">=", sp, floor)
        room = self.b.sub(sp, floor)
        fits = self.b.icmp_unsigned("<=", nbytes, room)
        self.fail_unless(self.b.and_(above, fits), error_id, [nbytes])


def _reverse_postorder(entry: Block) -> list[Block]:
    seen = {entry}
    post: list[Block] = []
    work: list[tuple[Block, int]] = [(entry, 0)]
    while work:
        blk, i = work.pop()
        term = blk.last_op
        succs = list(term.successors) if term is not None else []
        if i < len(succs):
            work.append((blk, i + 1))
            nxt = succs[i]
            if nxt not in seen:
                seen.add(nxt)
                work.append((nxt, 0))
            continue
        post.append(blk)
    post.reverse()
    return post


# --------------------------------------------------------------------------- func, cf, soac


def _emit_call(fe: FunctionEmitter, op: func.CallOp) -> None:
    name = op.callee.root_reference.data
    info = fe.mod.funcs.get(name)
    if info is None:
        raise LoweringError(f"call to unknown function @{name}")
    args = [c for v in op.arguments for c in components(fe.any(v))]
    if info.external:
        res = fe.b.call(info.llvm, args)
        if op.res:
            fe.set(op.res[0], res)
        return
    call = fe.b.call(info.llvm, [fe.ctx, *args])
    fe.check_status(fe.b.extract_value(call, 0))
    pos = 1
    for r in op.res:
        n = len(component_types(r.type))
        parts = [fe.b.extract_value(call, pos + j) for j in range(n)]
        fe.set(r, from_components(fe.b, r.type, parts))
        pos += n


def _emit_soac_assert(fe: FunctionEmitter, op: soac.AssertOp) -> None:
    site = abi.ErrorSite(op.msg.data, op.loc.data)
    error_id = fe.mod.errors.add(site, len(op.values))
    fe.fail_unless(fe.get(op.cond), error_id, [fe.get(v) for v in op.values])
    fe.set(op.cert, ir.Constant(I1, 1))


def _emit_cf_assert(fe: FunctionEmitter, op: cf.AssertOp) -> None:
    error_id = fe.mod.errors.add(abi.ErrorSite(op.msg.data), 0)
    fe.fail_unless(fe.get(op.arg), error_id)


def _emit_cert(fe: FunctionEmitter, op: Operation) -> None:
    fe.set(op.results[0], ir.Constant(I1, 1))


HANDLERS: dict[type[Operation], Handler] = {
    func.CallOp: cast(Handler, _emit_call),
    soac.AssertOp: cast(Handler, _emit_soac_assert),
    soac.CheckedOp: _emit_cert,
    soac.ConjoinOp: _emit_cert,
    cf.AssertOp: cast(Handler, _emit_cf_assert),
    **arith_ops.HANDLERS,
    **math_ops.HANDLERS,
    **memref_ops.HANDLERS,
    **scf_ops.HANDLERS,
    **omp_ops.HANDLERS,
}
"""Every op the emitter handles, by class; the per-dialect tables live in their modules."""
