"""The state of internalising one function, and dispatch over expression forms.

`Ctx` owns where ops go (the current block, switched while building the regions of
`scf.if`, `scf.for` and SOAC lambdas), the per-function constant pool, the environment
(`env.py`) and the table of function signatures. Expression forms are internalised by
handler functions that the modules `exprs`, `bindings`, `arrays` and `soacs` register
with `@handles(ast.Form)`; `Ctx.exp` looks the handler up by the node's class.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f64, i1, i32, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue

from l0.dialects import soac
from l0.internalise.env import Env, Flat
from l0.syntax import ast

# ----------------------------------------------------------------------------------
# Function signatures (shared by calls, curried SOAC functions and function bodies).


@dataclass(frozen=True)
class FunSig:
    """A user function after flattening: IR parameter and result types.

    `param_types` and `result_types` include the `!soac.cert` slots (thesis 4.2.1):
    `param_certs[i]` / `param_widths[i]` say whether source parameter `i` has a cert
    slot before its `param_widths[i]` flattened values; `result_cert` whether the
    results start with one.
    """

    name: str
    param_types: tuple[Attribute, ...]
    result_types: tuple[Attribute, ...]
    param_certs: tuple[bool, ...] = ()
    param_widths: tuple[int, ...] = ()
    result_cert: bool = False


def call_operands(ctx: Ctx, sig: FunSig, args: Sequence[Flat]) -> list[SSAValue]:
    """The operands of a call of `sig` on the source arguments `args`: each argument's
    flattened values, after the conjoin of its certs where the parameter has a cert slot."""
    assert len(args) == len(sig.param_certs), f"{sig.name}: {len(args)} arguments"
    out: list[SSAValue] = []
    for has_cert, a in zip(sig.param_certs, args, strict=True):
        if has_cert:
            out.append(ctx.conjoined(a.certs))
        out.extend(a.values)
    return out


def call_result(sig: FunSig, results: Sequence[SSAValue]) -> Flat:
    """The value of a call's results: predicated on the leading cert result, if any."""
    if sig.result_cert:
        return Flat(tuple(results[1:]), (results[0],))
    return Flat(tuple(results))


# ----------------------------------------------------------------------------------
# Dispatch.

Handler = Callable[["Ctx", ast.Exp], Flat]
_HANDLERS: dict[type, Handler] = {}

H = TypeVar("H", bound=Callable[..., Flat])


def handles(*forms: type) -> Callable[[H], H]:
    """Register the decorated function as the internaliser of the given AST classes."""

    def register(fn: H) -> H:
        for form in forms:
            assert form not in _HANDLERS, f"two handlers for {form.__name__}"
            _HANDLERS[form] = fn
        return fn

    return register


def _wrap64(value: int) -> int:
    """An int as a signed 64-bit value (literals are already wrapped; be lenient)."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


class Ctx:
    """Internalisation state for one function body."""

    def __init__(self, sigs: dict[str, FunSig], entry: Block) -> None:
        self.sigs = sigs
        self.env = Env()
        self.entry = entry
        self.block = entry
        self._consts: dict[tuple[str, object], SSAValue] = {}
        self._last_const: Operation | None = None

    # -- expressions ---------------------------------------------------------------

    def exp(self, e: ast.Exp) -> Flat:
        """Internalise `e` into the current block; return its flattened value."""
        handler = _HANDLERS.get(type(e))
        if handler is None:
            raise AssertionError(f"internaliser: no handler for {type(e).__name__}")
        return handler(self, e)

    def scalar(self, e: ast.Exp) -> SSAValue:
        """Internalise an expression of a basic type (one SSA value)."""
        return self.exp(e).one

    def cert_vars(self, names: list[ast.Var]) -> list[SSAValue]:
        """The values of a source certificate list `<c1, c2>`."""
        return [self.env.lookup(v.name).one for v in names]

    # -- emission ------------------------------------------------------------------

    def emit(self, op: Operation) -> Operation:
        """Append `op` to the current block."""
        self.block.add_op(op)
        return op

    def val(self, op: Operation) -> SSAValue:
        """Append a single-result op and return its result."""
        self.block.add_op(op)
        return op.results[0]

    # Note [Fast construction]: internalising emits mostly small arith ops, and xDSL's
    # IRDL constructors cost several times what `Operation.create` does (argument
    # checking, attribute building). These build the very same ops (structurally equal;
    # default-valued properties left implicit) with pre-built attributes.

    def binary(self, cls: type[Operation], a: SSAValue, b: SSAValue) -> SSAValue:
        """An op `cls` whose result has the type of its two operands (arith, math)."""
        op = cls.create(operands=(a, b), result_types=(a.type,))
        self.block.add_op(op)
        return op.results[0]

    def cmpi(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        """`arith.cmpi pred, a, b` (`eq ne slt sle`)."""
        op = arith.CmpiOp.create(
            operands=(a, b), result_types=(i1,), properties={"predicate": _CMPI[pred]}
        )
        self.block.add_op(op)
        return op.results[0]

    def cmpf(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        """`arith.cmpf pred, a, b` (`oeq olt ole`)."""
        op = arith.CmpfOp.create(
            operands=(a, b), result_types=(i1,), properties={"predicate": _CMPF[pred]}
        )
        self.block.add_op(op)
        return op.results[0]

    @contextmanager
    def at(self, block: Block) -> Iterator[Block]:
        """Emit into `block` (a region under construction) for the duration."""
        saved = self.block
        self.block = block
        try:
            yield block
        finally:
            self.block = saved

    # -- the constant pool ---------------------------------------------------------
    # Constants are emitted once per function, at the top of the entry block, in order
    # of first use: they dominate every region, and the IR stays short and stable.

    def _pooled(self, key: tuple[str, object], make: Callable[[], Operation]) -> SSAValue:
        found = self._consts.get(key)
        if found is not None:
            return found
        op = make()
        if self._last_const is None:
            first = self.entry.first_op
            if first is None:
                self.entry.add_op(op)
            else:
                self.entry.insert_op_before(op, first)
        else:
            self.entry.insert_op_after(op, self._last_const)
        self._last_const = op
        self._consts[key] = op.results[0]
        return op.results[0]

    def const_int(self, value: int) -> SSAValue:
        v = _wrap64(value)
        return self._pooled(("i64", v), lambda: _constant(IntegerAttr(v, i64)))

    def const_real(self, value: float) -> SSAValue:
        return self._pooled(("f64", value.hex()), lambda: _constant(FloatAttr(value, f64)))

    def const_bool(self, value: bool) -> SSAValue:
        return self._pooled(("i1", value), lambda: _constant(IntegerAttr(int(value), i1)))

    def const_char(self, code: int) -> SSAValue:
        return self._pooled(("i32", code), lambda: _constant(IntegerAttr(code, i32)))

    def checked(self) -> SSAValue:
        """The certificate `Checked`."""
        return self._pooled(("cert", None), soac.CheckedOp)

    def conjoined(self, certs: Sequence[SSAValue]) -> SSAValue:
        """One certificate standing for all of `certs`: `Checked` when there are none,
        the cert itself when there is one, else a `soac.conjoin`."""
        if not certs:
            return self.checked()
        if len(certs) == 1:
            return certs[0]
        op = soac.ConjoinOp(list(certs))
        self.emit(op)
        return op.results[0]


def _constant(value: IntegerAttr | FloatAttr) -> Operation:
    return arith.ConstantOp.create(result_types=(value.type,), properties={"value": value})


_CMPI = {p: IntegerAttr(n, i64) for p, n in (("eq", 0), ("ne", 1), ("slt", 2), ("sle", 3))}
_CMPF = {p: IntegerAttr(n, i64) for p, n in (("oeq", 1), ("olt", 4), ("ole", 5))}


def const_value(v: SSAValue) -> int | None:
    """The value of an integer `arith.constant`, or None if `v` is not one."""
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None
