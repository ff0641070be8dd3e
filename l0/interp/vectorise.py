"""Vectorised SOAC lambdas: a simple lambda evaluated once over whole numpy arrays.

Note [Vectorised lambdas]
~~~~~~~~~~~~~~~~~~~~~~~~~
Most lambdas in L0 programs are a few scalar `arith`/`math` ops on one element of each
input (Black-Scholes, `map(op +, zip(a, b))`, `reduce(op +, 0, a)`). Running them per
element costs ~60 ns of Python per op and element; numpy does each op once per array.
A lambda is *vectorisable* when every op that depends on the lambda's arguments (a
*varying* op) has a numpy counterpart here (`_VECTOR`) and works on i64, f64 or i1
values; ops that depend only on free values and constants (*invariant* ops) run once, as
scalar code, unless they have regions or effects beyond failing (`func.call` and
`soac.trace` disqualify a lambda; an invariant `soac.assert` may stay).

The vectorised result must be *identical* to the per-element one, bit for bit:

* integer ops wrap in numpy arrays exactly as `wrap64` does, and integer `+ * & | ^ max
  min` are associative and commutative modulo 2^64, so a reduction or scan with them may
  be computed in any order (`np.add.reduce`, `np.cumsum`...);
* real `+` and `*` are not associative: a reduce or scan over them is a strict left fold
  (docs/reference.md §5), computed with `np.add.accumulate` / `np.multiply.accumulate`, which
  numpy evaluates sequentially (`out[i] = out[i-1] + in[i]`; unlike `np.add.reduce`,
  which sums pairwise), starting from the neutral element;
* transcendental functions: numpy's own SIMD versions (AVX-512 builds of exp, log, pow...)
  may differ from libm in the last bit; each ufunc is compared with the scalar function
  (libm) on a fixed sample of a few thousand values on first use, and replaced by a
  per-element call of the scalar function when they differ anywhere;
* faults: the vectorised code raises `VectorFallback` instead of reporting a zero
  divisor, a negative shift or `fptosi` of NaN; the generated code then runs the
  per-element loop, which reports the first fault in element order exactly as it would
  have anyway. An invariant op's `L0Error` falls back the same way.

A reduce/scan/redomap lambda is vectorisable when its yield `j` is `acc_j OP e_j` (either
order) with OP one of the ops above, `acc_j` used nowhere else, and the `e_j`s computed
by a vectorisable lambda of the rows alone; redomap's fold is its `inner` lambda. Inputs
shorter than the interpreter's `vector_min_length` use the per-element loop: numpy's
per-call overhead (~1 µs per op) only pays off on longer arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from xdsl.dialects import arith, builtin
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue

from l0 import scalars
from l0.diagnostics import L0Error
from l0.interp import math as interp_math
from l0.interp.arith import wrap64
from l0.interp.core import HELPERS, Emitter, helper, is_terminator

_I64 = builtin.i64
_I1 = builtin.i1
_F64 = builtin.f64
VECTOR_TYPES: tuple[Attribute, ...] = (_I64, _F64, _I1)


class VectorFallback(Exception):
    """Raised by vectorised code to run the per-element loop instead."""


HELPERS["VectorFallback"] = VectorFallback
HELPERS["L0Error"] = L0Error


# ---------------------------------------------------------------------------------------
# Run-time helpers
# ---------------------------------------------------------------------------------------


@helper
def vnonzero(b: Any) -> Any:
    if np.any(b == 0):
        raise VectorFallback
    return b


@helper
def vdivsi(a: Any, b: Any) -> Any:
    """Division rounding toward zero, wrapping (MIN / -1 = MIN as in `divsi`)."""
    q = np.floor_divide(a, b)
    return q + ((np.remainder(a, b) != 0) & ((np.less(a, 0)) != (np.less(b, 0))))


@helper
def vcount(b: Any) -> Any:
    """A shift count, or fall back when one is negative."""
    if np.any(np.less(b, 0)):
        raise VectorFallback
    return b


@helper
def vshl(a: Any, b: Any) -> Any:
    return np.where(np.greater_equal(b, 64), 0, np.left_shift(a, np.minimum(b, 63)))


@helper
def vftoi(x: Any) -> Any:
    if not np.all((x >= -9.223372036854775808e18) & (x < 9.223372036854775808e18)):
        raise VectorFallback
    return x.astype(np.int64)  # a C conversion: truncation toward zero


@helper
def vmap1(fn: Callable[[float], float], x: Any) -> Any:
    """`fn` applied to every element (for math functions numpy cannot match)."""
    return np.fromiter(map(fn, x.tolist()), np.float64, count=len(x))


@helper
def vmap2(fn: Callable[[float, float], float], x: Any, y: Any) -> Any:
    xs, ys = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(y, np.float64))
    return np.fromiter(map(fn, xs.tolist(), ys.tolist()), np.float64, count=xs.size)


@helper
def vbroadcast(x: Any, n: int, dtype: Any) -> Any:
    """`n` copies of the invariant `x` (a scalar or a row): a fresh array."""
    if isinstance(x, np.ndarray):
        out = np.empty((n, *x.shape), dtype=dtype)
        out[...] = x
        return out
    return np.full(n, x, dtype=dtype)


@helper
def vreduce(kind: str, neutral: Any, e: Any) -> Any:
    """The left fold of `e` from `neutral` with the op `kind` (see `_FOLD_KINDS`)."""
    if kind == "add_real":
        return float(np.add.accumulate(np.concatenate(([neutral], e)))[-1])
    if kind == "mul_real":
        return float(np.multiply.accumulate(np.concatenate(([neutral], e)))[-1])
    if kind == "add_int":
        return wrap64(neutral + int(np.add.reduce(e)))
    if kind == "mul_int":
        return wrap64(neutral * int(np.multiply.reduce(e)))
    if kind == "max_int":
        return max(neutral, int(e.max()))
    if kind == "min_int":
        return min(neutral, int(e.min()))
    if kind == "and":
        return neutral & np.bitwise_and.reduce(e).item()
    if kind == "or":
        return neutral | np.bitwise_or.reduce(e).item()
    return neutral ^ np.bitwise_xor.reduce(e).item()


@helper
def vscan(kind: str, neutral: Any, e: Any) -> Any:
    """The inclusive scan of `e` from `neutral` with the op `kind`: a fresh array."""
    if kind == "add_real":
        return np.add.accumulate(np.concatenate(([neutral], e)))[1:]
    if kind == "mul_real":
        return np.multiply.accumulate(np.concatenate(([neutral], e)))[1:]
    if kind == "add_int":
        return np.add.accumulate(e) + neutral
    if kind == "mul_int":
        return np.multiply.accumulate(e) * neutral
    if kind == "max_int":
        return np.maximum(np.maximum.accumulate(e), neutral)
    if kind == "min_int":
        return np.minimum(np.minimum.accumulate(e), neutral)
    if kind == "and":
        return np.bitwise_and.accumulate(e) & neutral
    if kind == "or":
        return np.bitwise_or.accumulate(e) | neutral
    return np.bitwise_xor.accumulate(e) ^ neutral


# ---------------------------------------------------------------------------------------
# Does numpy compute the same reals as libm?
# ---------------------------------------------------------------------------------------


def _sample() -> np.ndarray:
    rng = np.random.default_rng(20140219)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-310, -1e-310, 1e308, -1e308,
               float("inf"), float("-inf"), float("nan"), 709.78, -745.1, 710.0]
    return np.concatenate([
        rng.uniform(-1.0, 1.0, 1000),
        rng.uniform(-20.0, 20.0, 1000),
        rng.uniform(-800.0, 800.0, 500),
        np.exp(rng.uniform(-700.0, 700.0, 1000)),
        -np.exp(rng.uniform(-700.0, 700.0, 300)),
        np.array(special),
    ])


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.all((a.view(np.int64) == b.view(np.int64)) | (np.isnan(a) & np.isnan(b))))


@cache
def numpy_agrees(op_name: str) -> bool:
    """Whether numpy's ufunc for the real op `op_name` gives libm's results on a sample."""
    if op_name == "math.powf":
        rng = np.random.default_rng(7)
        x = np.concatenate([rng.uniform(0.0, 10.0, 2000), rng.uniform(-5.0, 5.0, 500),
                            np.array([0.0, -0.0, 0.0, -2.0, float("inf"), float("nan"), 1.0])])
        y = np.concatenate([rng.uniform(-10.0, 10.0, 2000), rng.integers(-5, 6, 500),
                            np.array([0.0, -1.0, 3.0, 3.0, -0.5, 0.0, float("nan")])])
        with np.errstate(all="ignore"):
            vec = np.power(x, y)
        pairs = zip(x.tolist(), y.tolist(), strict=True)
        scalar = np.array([scalars.powf(a, b) for a, b in pairs])
        return _same(vec, scalar)
    scalar_fn, ufunc = scalars.UNARY_REAL[op_name]
    if ufunc is None:
        return False
    xs = _sample()
    with np.errstate(all="ignore"):
        vec = ufunc(xs)
    return _same(vec, np.array([scalar_fn(x) for x in xs.tolist()]))


# ---------------------------------------------------------------------------------------
# Vector emitters: op -> numpy code for a varying result
# ---------------------------------------------------------------------------------------

VectorEmitter = Callable[[Emitter, Operation], str]
_VECTOR: dict[str, tuple[VectorEmitter, Callable[[Operation], bool]]] = {}


def _types(*allowed: Attribute) -> Callable[[Operation], bool]:
    def check(op: Operation) -> bool:
        return all(v.type in allowed for v in (*op.operands, *op.results))

    return check


def _vector(*names: str, when: Callable[[Operation], bool]) -> Callable[[VectorEmitter],
                                                                          VectorEmitter]:
    def register(fn: VectorEmitter) -> VectorEmitter:
        for name in names:
            _VECTOR[name] = (fn, when)
        return fn

    return register


def _infix(sym: str) -> VectorEmitter:
    def emit(e: Emitter, op: Operation) -> str:
        a, b = e.names(op.operands)
        return f"{a} {sym} {b}"

    return emit


for _name, _sym in (("arith.addi", "+"), ("arith.subi", "-"), ("arith.muli", "*")):
    _vector(_name, when=_types(_I64))(_infix(_sym))
for _name, _sym in (("arith.andi", "&"), ("arith.ori", "|"), ("arith.xori", "^")):
    _vector(_name, when=_types(_I64, _I1))(_infix(_sym))
for _name, _sym in (("arith.addf", "+"), ("arith.subf", "-"), ("arith.mulf", "*"),
                    ("arith.divf", "/")):
    _vector(_name, when=_types(_F64))(_infix(_sym))


def _call(fn: str) -> VectorEmitter:
    def emit(e: Emitter, op: Operation) -> str:
        return f"{fn}({', '.join(e.names(op.operands))})"

    return emit


_vector("arith.maxsi", when=_types(_I64))(_call("np.maximum"))
_vector("arith.minsi", when=_types(_I64))(_call("np.minimum"))
_vector("arith.negf", when=_types(_F64))(_call("np.negative"))
_vector("math.absf", when=_types(_F64))(_call("np.abs"))
_vector("math.absi", when=_types(_I64))(_call("np.abs"))  # |MIN| = MIN, as wrapped
_vector("math.copysign", when=_types(_F64))(_call("np.copysign"))


@_vector("arith.floordivsi", when=_types(_I64))
def _vfloordiv(e: Emitter, op: Operation) -> str:
    a, b = e.names(op.operands)
    return f"np.floor_divide({a}, vnonzero({b}))"  # MIN // -1 wraps to MIN


@_vector("arith.remsi", when=_types(_I64))
def _vremsi(e: Emitter, op: Operation) -> str:
    a, b = e.names(op.operands)
    return f"np.fmod({a}, vnonzero({b}))"  # truncated: the sign of a


@_vector("arith.divsi", when=_types(_I64))
def _vdivsi(e: Emitter, op: Operation) -> str:
    a, b = e.names(op.operands)
    return f"vdivsi({a}, vnonzero({b}))"


@_vector("arith.shli", when=_types(_I64))
def _vshli(e: Emitter, op: Operation) -> str:
    a, b = e.names(op.operands)
    return f"vshl({a}, vcount({b}))"


@_vector("arith.shrsi", when=_types(_I64))
def _vshrsi(e: Emitter, op: Operation) -> str:
    a, b = e.names(op.operands)
    return f"np.right_shift({a}, np.minimum(vcount({b}), 63))"


_VCMPI = {0: "==", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">="}


def _cmpi_ok(op: Operation) -> bool:
    assert isinstance(op, arith.CmpiOp)
    p = op.predicate.value.data
    t = op.lhs.type
    return (t == _I64 and p in _VCMPI) or (t == _I1 and p in (0, 1))


@_vector("arith.cmpi", when=_cmpi_ok)
def _vcmpi(e: Emitter, op: Operation) -> str:
    assert isinstance(op, arith.CmpiOp)
    a, b = e.names(op.operands)
    return f"{a} {_VCMPI[op.predicate.value.data]} {b}"


# arith.cmpf predicates 1-14 (0 and 15 are constants, never vectorised) with numpy's
# elementwise operators.
_VCMPF = {
    1: "{a} == {b}", 2: "{a} > {b}", 3: "{a} >= {b}", 4: "{a} < {b}", 5: "{a} <= {b}",
    6: "({a} < {b}) | ({a} > {b})", 7: "({a} == {a}) & ({b} == {b})",
    8: "~(({a} < {b}) | ({a} > {b}))", 9: "~({a} <= {b})", 10: "~({a} < {b})",
    11: "~({a} >= {b})", 12: "~({a} > {b})", 13: "{a} != {b}",
    14: "({a} != {a}) | ({b} != {b})",
}


def _cmpf_ok(op: Operation) -> bool:
    assert isinstance(op, arith.CmpfOp)
    return op.lhs.type == _F64 and op.predicate.value.data in _VCMPF


@_vector("arith.cmpf", when=_cmpf_ok)
def _vcmpf(e: Emitter, op: Operation) -> str:
    assert isinstance(op, arith.CmpfOp)
    a, b = e.names(op.operands)
    return "np.asarray(" + _VCMPF[op.predicate.value.data].format(a=a, b=b) + ")"


@_vector("arith.select", when=lambda op: op.operands[0].type == _I1
         and all(v.type in VECTOR_TYPES for v in op.operands))
def _vselect(e: Emitter, op: Operation) -> str:
    c, a, b = e.names(op.operands)
    return f"np.where({c}, {a}, {b})"


@_vector("arith.sitofp", when=lambda op: op.operands[0].type == _I64)
def _vsitofp(e: Emitter, op: Operation) -> str:
    return f"np.asarray({e.name(op.operands[0])}, dtype=np.float64)"


@_vector("arith.fptosi", when=lambda op: op.results[0].type == _I64)
def _vfptosi(e: Emitter, op: Operation) -> str:
    return f"vftoi({e.name(op.operands[0])})"


@_vector("math.ipowi", when=_types(_I64))
def _vipowi(e: Emitter, op: Operation) -> str:
    a, k = e.names(op.operands)
    return f"np.power({a}, vcount({k}))"  # exact modulo 2^64, as `ipow`


@_vector("math.powf", when=_types(_F64))
def _vpowf(e: Emitter, op: Operation) -> str:
    a, b = e.names(op.operands)
    if numpy_agrees("math.powf"):
        return f"np.power({a}, {b})"
    return f"vmap2(powf, {a}, {b})"


def _vunary(e: Emitter, op: Operation) -> str:
    x = e.name(op.operands[0])
    ufunc = interp_math.vector_ufunc(op.name)
    if ufunc is not None and numpy_agrees(op.name):
        return f"np.{ufunc.__name__}({x})"
    return f"vmap1(real_{op.name.removeprefix('math.')}, {x})"


for _name in scalars.UNARY_REAL:
    _vector(_name, when=_types(_F64))(_vunary)


# ---------------------------------------------------------------------------------------
# Which lambdas are vectorisable
# ---------------------------------------------------------------------------------------

# Invariant ops that must run once per element, not once per SOAC.
_PER_ELEMENT_ONLY = frozenset({"soac.trace", "soac.update", "func.call"})


def varying_values(ops: Sequence[Operation], args: Sequence[BlockArgument]) -> set[SSAValue] | None:
    """The values among `ops` that depend on `args`, when every op can run vectorised
    (Note [Vectorised lambdas]); None otherwise. Arguments that are used must be i64,
    f64 or i1."""
    if any(a.first_use is not None and a.type not in VECTOR_TYPES for a in args):
        return None
    varying: set[SSAValue] = set(args)
    for op in ops:
        if op.regions:
            return None
        if not any(v in varying for v in op.operands):
            if op.name in _PER_ELEMENT_ONLY:
                return None
            continue
        entry = _VECTOR.get(op.name)
        if entry is None or not entry[1](op):
            return None
        varying.update(op.results)
    return varying


def _body_ops(block: Block) -> list[Operation]:
    return [op for op in block.ops if not is_terminator(op)]


def emit_vector_ops(e: Emitter, ops: Sequence[Operation], varying: set[SSAValue]) -> None:
    """Emit `ops`: varying ones on whole arrays, invariant ones as scalar code."""
    for op in ops:
        if op.results and op.results[0] in varying:
            e.line(f"{e.name(op.results[0])} = {_VECTOR[op.name][0](e, op)}")
        else:
            e.emit_op(op)


def bind_arrays(e: Emitter, args: Sequence[BlockArgument], arrays: Sequence[str]) -> None:
    """Bind each used lambda argument to its whole input array."""
    for a, arr in zip(args, arrays, strict=True):
        if a.first_use is not None:
            e.line(f"{e.name(a)} = {arr}")


def vector_value(e: Emitter, v: SSAValue, varying: set[SSAValue], n: str, dtype: str,
                 fresh: bool) -> str:
    """An expression giving `v` as an array of length n: broadcast when invariant, a
    fresh copy when `fresh` is asked for a varying value that may be shared."""
    name = e.name(v)
    if v not in varying:
        return f"vbroadcast({name}, {n}, {dtype})"
    if fresh:
        return f"np.array({name}, dtype={dtype})"
    return f"{name}.astype({dtype}, copy=False)"


# -- map --------------------------------------------------------------------------------


def map_plan(block: Block) -> set[SSAValue] | None:
    return varying_values(_body_ops(block), block.args)


def _emit_lambda_body(e: Emitter, block: Block, inputs: Sequence[str],
                      varying: set[SSAValue]) -> Operation:
    """Emit the ops of a one-row-per-argument lambda on whole arrays (its arguments
    bound to `inputs`); its terminator, whose operands are the vectors it yields."""
    bind_arrays(e, block.args, inputs)
    emit_vector_ops(e, _body_ops(block), varying)
    term = block.last_op
    assert term is not None
    return term


def emit_map(e: Emitter, block: Block, inputs: Sequence[str], outputs: Sequence[OpResult],
             n: str, varying: set[SSAValue]) -> None:
    """Vectorised body of a map: assigns the outputs."""
    term = _emit_lambda_body(e, block, inputs, varying)
    seen: set[SSAValue] = set()
    for out, y in zip(outputs, term.operands, strict=True):
        # A yielded argument or value yielded twice would alias: copy it.
        shared = isinstance(y, BlockArgument) or y in seen
        seen.add(y)
        e.line(f"{e.name(out)} = {vector_value(e, y, varying, n, e.dtype(out.type), shared)}")


# -- filter -----------------------------------------------------------------------------


def emit_filter(e: Emitter, block: Block, inputs: Sequence[str], outputs: Sequence[OpResult],
                n: str, varying: set[SSAValue]) -> None:
    """Vectorised filter: the rows of `inputs` whose predicate holds."""
    term = _emit_lambda_body(e, block, inputs, varying)
    mask = e.fresh("mask")
    e.line(f"{mask} = {vector_value(e, term.operands[0], varying, n, 'np.bool_', False)}")
    for out, arr in zip(outputs, inputs, strict=True):
        e.line(f"{e.name(out)} = {arr}[{mask}]")


# -- reduce, scan, redomap --------------------------------------------------------------

_FOLD_KINDS: dict[tuple[str, Attribute], str] = {
    ("arith.addi", _I64): "add_int",
    ("arith.muli", _I64): "mul_int",
    ("arith.maxsi", _I64): "max_int",
    ("arith.minsi", _I64): "min_int",
    ("arith.addf", _F64): "add_real",
    ("arith.mulf", _F64): "mul_real",
    **{(f"arith.{b}", t): b.removesuffix("i") for b in ("andi", "ori", "xori")
       for t in (_I64, _I1)},
}


@dataclass
class FoldPlan:
    """A vectorisable fold lambda: yield j is `kinds[j]` of acc j and `elems[j]`."""

    kinds: list[str]
    elems: list[SSAValue]
    rest: list[Operation]  # the ops computing the elems
    varying: set[SSAValue]


def fold_plan(block: Block, k: int) -> FoldPlan | None:
    """The plan for a fold lambda with `k` accumulators (then rows), or None."""
    term = block.last_op
    if term is None or len(term.operands) != k:
        return None
    accs, rows = block.args[:k], block.args[k:]
    kinds: list[str] = []
    elems: list[SSAValue] = []
    folds: list[Operation] = []
    for acc, y in zip(accs, term.operands, strict=True):
        if not isinstance(y, OpResult) or y.op.parent_block() is not block:
            return None
        fop = y.op
        kind = _FOLD_KINDS.get((fop.name, y.type))
        if kind is None or not acc.has_one_use() or fop in folds:
            return None
        a, b = fop.operands
        elem = b if a is acc else a if b is acc else None
        if elem is None or elem in accs:
            return None
        kinds.append(kind)
        elems.append(elem)
        folds.append(fop)
    fold_results = {fop.results[0] for fop in folds}
    rest = [op for op in _body_ops(block) if op not in folds]
    if any(v in fold_results or v in accs for op in rest for v in op.operands):
        return None
    if any(v in fold_results for v in elems):
        return None
    varying = varying_values(rest, rows)
    if varying is None:
        return None
    return FoldPlan(kinds, elems, rest, varying)


def emit_fold(e: Emitter, block: Block, k: int, plan: FoldPlan, neutrals: Sequence[str],
              inputs: Sequence[str], outputs: Sequence[OpResult], n: str, scan: bool) -> None:
    """Vectorised reduce (or scan when `scan`): assigns the outputs."""
    bind_arrays(e, block.args[k:], inputs)
    emit_vector_ops(e, plan.rest, plan.varying)
    for out, kind, elem, neutral in zip(outputs, plan.kinds, plan.elems, neutrals, strict=True):
        arr = vector_value(e, elem, plan.varying, n, e.dtype(elem.type), False)
        fn = "vscan" if scan else "vreduce"
        e.line(f"{e.name(out)} = {fn}({kind!r}, {neutral}, {arr})")
