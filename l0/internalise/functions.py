"""Functions and programs: one `func.func` per L0 function (docs/ir.md "Modules").

Parameters and results are flattened (`l0.types.flatten`); a parameter that
`needs_cert` (an array of tuples, or a tuple holding one) gets a `!soac.cert` parameter
right before its values, and such a result a `!soac.cert` result first (thesis 4.2.1).
Array components of unique (`*`) parameters and results carry the `soac.unique`
attribute in `arg_attrs` / `res_attrs` (cert slots get an empty dictionary).
The module keeps the program's function order. A function that may call itself, directly
or not, carries where it is defined (Note [Locations of recursive functions]).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Attribute, Block, Region

from l0.dialects import soac
from l0.internalise.bindings import bind_params
from l0.internalise.core import Ctx, FunSig
from l0.internalise.types import ir_types, width
from l0.syntax import ast
from l0.types import ArrayType, Type, flatten, needs_cert


def _unique_attrs(types: list[Type]) -> ArrayAttr[DictionaryAttr] | None:
    """One attribute dictionary per IR parameter (or result) of values of `types`: a
    cert slot and a non-unique component get an empty one; None when nothing is unique."""
    flags: list[bool] = []
    for t in types:
        if needs_cert(t):
            flags.append(False)
        flags.extend(isinstance(c, ArrayType) and c.unique for c in flatten(t))
    if not any(flags):
        return None
    unique = DictionaryAttr({soac.UNIQUE_ATTR: UnitAttr()})
    return ArrayAttr([unique if f else DictionaryAttr({}) for f in flags])


def _with_cert(t: Type) -> list[Attribute]:
    """The IR types of a parameter or result of type `t`: its flattened components,
    after a `!soac.cert` when it `needs_cert` (thesis 4.2.1)."""
    cert: list[Attribute] = [soac.CertType()] if needs_cert(t) else []
    return cert + ir_types(t)


def signature(fd: ast.FunDef) -> FunSig:
    params = tuple(t for p in fd.params for t in _with_cert(p.type))
    return FunSig(
        fd.name,
        params,
        tuple(_with_cert(fd.ret)),
        param_certs=tuple(needs_cert(p.type) for p in fd.params),
        param_widths=tuple(width(p.type) for p in fd.params),
        result_cert=needs_cert(fd.ret),
    )


def internalise_function(sigs: dict[str, FunSig], fd: ast.FunDef) -> func.FuncOp:
    sig = sigs[fd.name]
    entry = Block(arg_types=sig.param_types)
    ctx = Ctx(sigs, entry)
    bind_params(ctx, fd.params, entry.args, certs=True)
    body = ctx.exp(fd.body)
    cert = [ctx.conjoined(body.certs)] if sig.result_cert else []
    ctx.emit(func.ReturnOp(*cert, *body.values))
    return func.FuncOp(
        fd.name,
        (sig.param_types, sig.result_types),
        Region(entry),
        arg_attrs=_unique_attrs([p.type for p in fd.params]),
        res_attrs=_unique_attrs([fd.ret]),
    )


def internalise_program(prog: ast.Program) -> ModuleOp:
    sigs = {fd.name: signature(fd) for fd in prog.fundefs}
    funcs = [internalise_function(sigs, fd) for fd in prog.fundefs]
    recursive = _recursive(funcs)
    for f, fd in zip(funcs, prog.fundefs, strict=True):
        if fd.name in recursive:
            f.attributes["loc"] = StringAttr(str(fd.loc))
    return ModuleOp(funcs)


# Note [Locations of recursive functions]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Recursion too deep for the stack is a run-time error like any other, so it needs a
# location. It is reported at the definition of the function that was entered once too
# often ("recursion too deep in function f"): compiled code checks the stack on entry to
# a recursive function, and the interpreter finds the innermost L0 function of the
# Python stack. Only functions on a call-graph cycle can exhaust the stack (any other
# call chain is as deep as the program is long), so only they carry a `loc` attribute.


def _recursive(funcs: list[func.FuncOp]) -> set[str]:
    """Names of the functions that may call themselves, directly or through others."""
    callees = {f.sym_name.data: {c.callee.root_reference.data for c in f.walk()
                                 if isinstance(c, func.CallOp)} for f in funcs}
    recursive: set[str] = set()
    for name in callees:
        seen: set[str] = set()
        todo = list(callees[name])
        while todo:
            g = todo.pop()
            if g == name:
                recursive.add(name)
                break
            if g not in seen and g in callees:
                seen.add(g)
                todo.extend(callees[g])
    return recursive
