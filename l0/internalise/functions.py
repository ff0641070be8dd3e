"""Functions and programs: one `func.func` per L0 function (docs/ir.md "Modules").

Parameters and results are flattened (`l0.types.flatten`); array components of unique
(`*`) parameters and results carry the `soac.unique` attribute in `arg_attrs` /
`res_attrs`. The module keeps the program's function order.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, UnitAttr
from xdsl.ir import Block, Region

from l0.dialects import soac
from l0.internalise.bindings import bind_params
from l0.internalise.core import Ctx, FunSig
from l0.internalise.types import ir_types
from l0.syntax import ast
from l0.types import ArrayType, Type, flatten


def _unique_attrs(types: list[Type]) -> ArrayAttr[DictionaryAttr] | None:
    """One attribute dictionary per flattened component; None when nothing is unique."""
    comps = [c for t in types for c in flatten(t)]
    flags = [isinstance(c, ArrayType) and c.unique for c in comps]
    if not any(flags):
        return None
    unique = DictionaryAttr({soac.UNIQUE_ATTR: UnitAttr()})
    return ArrayAttr([unique if f else DictionaryAttr({}) for f in flags])


def signature(fd: ast.FunDef) -> FunSig:
    params = tuple(t for p in fd.params for t in ir_types(p.type))
    return FunSig(fd.name, params, tuple(ir_types(fd.ret)))


def internalise_function(sigs: dict[str, FunSig], fd: ast.FunDef) -> func.FuncOp:
    sig = sigs[fd.name]
    entry = Block(arg_types=sig.param_types)
    ctx = Ctx(sigs, entry)
    bind_params(ctx, fd.params, entry.args)
    body = ctx.exp(fd.body)
    ctx.emit(func.ReturnOp(*body.values))
    return func.FuncOp(
        fd.name,
        (sig.param_types, sig.result_types),
        Region(entry),
        arg_attrs=_unique_attrs([p.type for p in fd.params]),
        res_attrs=_unique_attrs([fd.ret]),
    )


def internalise_program(prog: ast.Program) -> ModuleOp:
    sigs = {fd.name: signature(fd) for fd in prog.fundefs}
    return ModuleOp([internalise_function(sigs, fd) for fd in prog.fundefs])
