"""The `soac` dialect in the interpreter: arrays, certificates and the SOACs
(docs/reference.md §5, thesis 2.1-2.2 and 4.2, `docs/ir.md`).

Arrays are rectangular numpy arrays (Note [Fresh buffers and in-place updates] in
core.py says which ops return fresh buffers and which return views). A lambda region is
inlined into the Python loop that runs it; simple lambdas are vectorised instead
(`vectorise.py`), with this per-element loop as the fallback.

Note [Empty arrays and irregularity]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The inner shape of an empty array is unknowable in L0 (the original computed `size(k, a)`
for k > 0 from the first row, and gave 0 for an empty `a`), and an empty `map` result has
no row to take it from. So sizes and shapes are compared *normalised*: every dimension
after the first 0 counts as 0. `soac.size` returns the normalised size, rows `[]` of an
`[[int]]` are all alike whatever numpy thinks their inner size is, and an array built
from empty rows has inner sizes 0.

Arrays must be regular (thesis 2.1): a map whose lambda yields rows of different shapes
and an array literal or `concat` of rows of different shapes fail with an `L0Error`
("irregular array: ...") at the op's location. (The 2014 interpreter never noticed
irregular arrays; the thesis makes them an error, and this compiler's back ends rely on
regularity.)

Faults the IR must check with a `soac.assert` before the op (bounds of `index` and
`update`, equal sizes of a SOAC's inputs, negative `iota`/`replicate` counts, `reshape`
element counts, `split` points, the shape of an `update`'s new row) are still checked
here, since numpy would wrap a negative index or broadcast a row silently; they raise
`InternalError`, the compiler's fault.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TextIO

import numpy as np
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue

from l0.diagnostics import L0Error, Loc
from l0.dialects import soac as d
from l0.interp import vectorise
from l0.interp.core import (
    Emitter,
    InternalError,
    assign,
    element_type,
    emits,
    helper,
    is_tensor,
    rank_of,
    tuple_of,
)
from l0.types import BOOL, CERT, CHAR, INT, REAL, ArrayType, BasicType

# ---------------------------------------------------------------------------------------
# Run-time helpers
# ---------------------------------------------------------------------------------------


def normal_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """`shape` with every dimension after the first 0 set to 0
    (Note [Empty arrays and irregularity])."""
    if 0 in shape:
        k = shape.index(0)
        return shape[:k] + (0,) * (len(shape) - k)
    return shape


@helper
def transpose(a: Any, k: int, n: int) -> Any:
    """`transpose(k, n, a)`: dimension k moved to k + n, of the shape `soac.size`
    reports (Note [Empty arrays and irregularity]): the sizes after an empty dimension
    are 0 before they move, so that moving the empty one inwards brings none of them
    out (`transpose(replicate(0, [1, 2]))` has no rows, not two empty ones), and a
    transposition is the same permutation of sizes whatever the array holds."""
    if not a.size:
        a = a.reshape(normal_shape(a.shape))
    return np.moveaxis(a, k, k + n)


def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _irregular(loc: Loc, i: int, shape: tuple[int, ...], expected: tuple[int, ...]) -> NoReturn:
    raise L0Error(
        loc,
        f"irregular array: row {i} has shape {_shape_text(shape)}, "
        f"expected {_shape_text(expected)} (the shape of row 0)",
        "runtime-error",
    )


@helper
def stack_rows(rows: list[Any], dtype: Any, rank: int, loc: Loc) -> Any:
    """The array of rank `rank` whose rows are `rows` (arrays of rank - 1): fresh."""
    if not rows:
        return np.empty((0,) * rank, dtype=dtype)
    first = normal_shape(rows[0].shape)
    for i, row in enumerate(rows):
        if normal_shape(row.shape) != first:
            _irregular(loc, i, row.shape, rows[0].shape)
    if 0 in first:
        return np.empty((len(rows), *first), dtype=dtype)
    return np.stack(rows).astype(dtype, copy=False)


@helper
def assert_failed(loc: Loc, msg: str, values: tuple[int, ...]) -> NoReturn:
    text = re.sub(r"\{(\d+)\}", lambda m: str(values[int(m.group(1))]), msg)
    raise L0Error(loc, text, "runtime-error")


@helper
def unchecked(what: str) -> NoReturn:
    raise InternalError(what + " (the IR lacks the soac.assert that should guard it)")


@helper
def out_of_bounds(op: str, index: tuple[int, ...], shape: tuple[int, ...]) -> NoReturn:
    unchecked(f"{op}: index {list(index)} out of bounds for an array of shape {list(shape)}")


@helper
def zip_mismatch(op: str, n: int, m: int) -> NoReturn:
    unchecked(f"{op}: input arrays of different outer sizes {n} and {m}")


@helper
def iota(n: int) -> Any:
    if n < 0:
        unchecked(f"soac.iota of a negative count {n}")
    # more than 2^63 bytes: numpy's ValueError, located as "out of memory" by the caller
    return np.arange(n, dtype=np.int64)


@helper
def replicate(n: int, v: Any, dtype: Any) -> Any:
    """`n` copies of `v`, materialised (a fresh buffer, never a broadcast view)."""
    if n < 0:
        unchecked(f"soac.replicate of a negative count {n}")
    return vectorise.vbroadcast(v, n, dtype)


@helper
def update_row(a: Any, index: tuple[int, ...], v: Any, in_place: bool) -> Any:
    """`a with [index] <- v` for a row `v`."""
    _check_bounds("soac.update", a, index)
    target = normal_shape(a.shape[len(index):])
    if normal_shape(v.shape) != target:
        unchecked(f"soac.update: a row of shape {list(v.shape)} stored where the rows have "
                  f"shape {list(a.shape[len(index):])}")
    if not in_place:
        a = a.copy()
    if 0 not in target:
        a[index] = v
    return a


def _check_bounds(op: str, a: Any, index: tuple[int, ...]) -> None:
    shape = a.shape
    for i, n in zip(index, shape, strict=False):
        if not 0 <= i < n:
            out_of_bounds(op, index, shape)


@helper
def reshape(a: Any, dims: tuple[int, ...]) -> Any:
    if any(d < 0 for d in dims) or int(np.prod(dims, dtype=object)) != a.size:
        unchecked(f"soac.reshape of an array of shape {list(a.shape)} to {list(dims)}")
    return a.reshape(dims)


@helper
def split(a: Any, i: int) -> tuple[Any, Any]:
    if not 0 <= i <= len(a):
        unchecked(f"soac.split at {i} of an array of {len(a)} rows")
    return a[:i], a[i:]


@helper
def concat(a: Any, b: Any, loc: Loc) -> Any:
    """The rows of `a`, then those of `b`: fresh. Empty operands adopt the other's rows."""
    if len(a) == 0:
        a = np.empty((0, *b.shape[1:]), dtype=a.dtype)
    elif len(b) == 0:
        b = np.empty((0, *a.shape[1:]), dtype=b.dtype)
    elif normal_shape(a.shape[1:]) != normal_shape(b.shape[1:]):
        raise L0Error(
            loc,
            f"irregular array: concatenation of arrays whose rows have shapes "
            f"{_shape_text(a.shape[1:])} and {_shape_text(b.shape[1:])}",
            "runtime-error",
        )
    return np.concatenate((a, b))


_SOURCE_BASIC: dict[str, BasicType] = {"i64": INT, "f64": REAL, "i1": BOOL, "i32": CHAR}


def source_type(t: Attribute) -> BasicType | ArrayType:
    """The L0 type of a flattened value of IR type `t` (for printing it)."""
    et = element_type(t)
    basic = CERT if et.name == "soac.cert" else _SOURCE_BASIC.get(str(et))
    if basic is None:
        raise InternalError(f"cannot print a value of type {t}")
    return ArrayType(basic, rank_of(t)) if is_tensor(t) else basic


@helper
def trace(stream: TextIO, fmt: Any, loc: str, types: tuple[Any, ...],
          values: tuple[Any, ...]) -> None:
    for t, v in zip(types, values, strict=True):
        stream.write(f"{loc}: {fmt(t, v)}\n")


# ---------------------------------------------------------------------------------------
# Certificates, creation, shapes
# ---------------------------------------------------------------------------------------


def _result(e: Emitter, op: Operation) -> str:
    return e.name(op.results[0])


@emits("soac.checked", "soac.conjoin")
def _checked(e: Emitter, op: Operation) -> None:
    e.line(f"{_result(e, op)} = CHECKED")


@emits("soac.assert")
def _assert(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.AssertOp)
    cond = e.name(op.cond)
    values = e.names(op.values)
    text = e.const(op.msg.data, ("msg", op.msg.data))
    e.line(f"if not {cond}: assert_failed({e.loc(op)}, {text}, {tuple_of(values)})")
    e.line(f"{_result(e, op)} = CHECKED")


@emits("soac.iota")
def _iota(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.IotaOp)
    e.line(f"{_result(e, op)} = iota({e.name(op.n)})")


@emits("soac.replicate")
def _replicate(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.ReplicateOp)
    n, v = e.name(op.n), e.name(op.value)
    e.line(f"{_result(e, op)} = replicate({n}, {v}, {e.dtype(op.result.type)})")


@emits("soac.array")
def _array(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.ArrayOp)
    t = op.result.type
    elems = e.names(op.elems)
    items = "[" + ", ".join(elems) + "]"
    if rank_of(t) == 1:
        e.line(f"{_result(e, op)} = np.array({items}, dtype={e.dtype(t)})")
    else:
        e.line(f"{_result(e, op)} = stack_rows({items}, {e.dtype(t)}, {rank_of(t)}, {e.loc(op)})")


@emits("soac.empty")
def _empty(e: Emitter, op: Operation) -> None:
    t = op.results[0].type
    e.line(f"{_result(e, op)} = np.empty({(0,) * rank_of(t)}, dtype={e.dtype(t)})")


@emits("soac.copy")
def _copy(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.CopyOp)
    e.line(f"{_result(e, op)} = {e.name(op.array)}.copy()")


@emits("soac.size")
def _size(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.SizeOp)
    a = e.name(op.array)
    k = op.dim.data
    if k == 0:
        e.line(f"{_result(e, op)} = len({a})")
    else:  # 0 when an outer dimension is (Note [Empty arrays and irregularity])
        outer = " and ".join(f"{a}.shape[{j}]" for j in range(k))
        e.line(f"{_result(e, op)} = {a}.shape[{k}] if {outer} else 0")


@emits("soac.threshold")
def _threshold(e: Emitter, op: Operation) -> None:
    # The interpreter is one thread: the threshold is its default there. Either answer
    # chooses a version computing the same values (`soac.ThresholdOp`).
    assert isinstance(op, d.ThresholdOp)
    e.line(f"{_result(e, op)} = {e.name(op.size)} >= {op.default_for(1)}")


def _bounds_check(e: Emitter, op: Operation, a: str, idx: list[str]) -> None:
    conds = " and ".join(f"0 <= {i} < {a}.shape[{d}]" for d, i in enumerate(idx))
    e.line(f"if not ({conds}): out_of_bounds({op.name!r}, {tuple_of(idx)}, {a}.shape)")


@emits("soac.index")
def _index(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.IndexOp)
    a, idx = e.name(op.array), e.names(op.indices)
    r = _result(e, op)
    if not idx:
        e.line(f"{r} = {a}")
        return
    _bounds_check(e, op, a, idx)
    if is_tensor(op.results[0].type):
        e.line(f"{r} = {a}[{', '.join(idx)}]")  # a view of the row
    else:
        e.line(f"{r} = {a}.item({', '.join(idx)})")  # a Python scalar


@emits("soac.update")
def _update(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.UpdateOp)
    a, idx, v = e.name(op.array), e.names(op.indices), e.name(op.value)
    r = _result(e, op)
    in_place = e.unit.in_place
    if is_tensor(op.value.type):
        e.line(f"{r} = update_row({a}, {tuple_of(idx)}, {v}, {in_place})")
        return
    _bounds_check(e, op, a, idx)
    e.line(f"{r} = {a}" if in_place else f"{r} = {a}.copy()")
    e.line(f"{r}[{', '.join(idx)}] = {v}")


@emits("soac.reshape")
def _reshape(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.ReshapeOp)
    a = e.name(op.array)
    dims = e.names(op.shape)
    e.line(f"{_result(e, op)} = reshape({a}, {tuple_of(dims)})")


@emits("soac.transpose")
def _transpose(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.TransposeOp)
    k, n = op.k.data, op.n.data
    e.line(f"{_result(e, op)} = transpose({e.name(op.array)}, {k}, {n})")


@emits("soac.split")
def _split(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.SplitOp)
    first, second = e.name(op.first), e.name(op.second)
    e.line(f"{first}, {second} = split({e.name(op.array)}, {e.name(op.at)})")


@emits("soac.concat")
def _concat(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.ConcatOp)
    a, b = e.name(op.a), e.name(op.b)
    e.line(f"{_result(e, op)} = concat({a}, {b}, {e.loc(op)})")


@emits("soac.trace")
def _trace(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.TraceOp)
    values = e.names(op.inputs)
    types = e.const(tuple(source_type(v.type) for v in op.inputs))
    e.line(f"trace(trace_stream, format_value, {op.loc.data!r}, {types}, {tuple_of(values)})")
    for r, v in zip(e.names(op.outputs), values, strict=True):
        e.line(f"{r} = {v}")


# ---------------------------------------------------------------------------------------
# SOACs: per-element loops (lambdas inlined), with a vectorised fast path
# ---------------------------------------------------------------------------------------


def _outer_size(e: Emitter, op: Operation, inputs: Sequence[str]) -> str:
    """Emit the check that all inputs have one outer size; return its name."""
    n = e.fresh("n")
    e.line(f"{n} = len({inputs[0]})")
    for other in inputs[1:]:
        e.line(f"if len({other}) != {n}: zip_mismatch({op.name!r}, {n}, len({other}))")
    return n


def _row_loop(e: Emitter, args: Sequence[BlockArgument], inputs: Sequence[SSAValue]) -> None:
    """Emit the `for` header binding `args` to the rows of `inputs`: Python scalars from
    `tolist()` for one-dimensional inputs, views for the others."""
    sources = [
        f"{e.name(v)}.tolist()" if rank_of(v.type) == 1 else e.name(v) for v in inputs
    ]
    targets = ", ".join(e.names(args))
    if len(sources) == 1:
        e.line(f"for {targets} in {sources[0]}:")
    else:
        e.line(f"for {targets} in zip({', '.join(sources)}):")


def _yields(e: Emitter, block: Block) -> list[str]:
    term = e.emit_block(block)
    if term is None or term.name != "soac.yield":
        raise InternalError("expected a lambda ending in soac.yield")
    return e.names(term.operands)


def _collect(e: Emitter, results: Sequence[OpResult]) -> list[tuple[str, str]]:
    """Emit one list per result; return (list, append) names."""
    out: list[tuple[str, str]] = []
    for _ in results:
        lst, app = e.fresh("rows"), e.fresh("append")
        e.line(f"{lst} = []; {app} = {lst}.append")
        out.append((lst, app))
    return out


def _build(e: Emitter, op: Operation, results: Sequence[OpResult],
           lists: Sequence[tuple[str, str]]) -> None:
    """Turn the collected lists into the result arrays."""
    for r, (lst, _) in zip(results, lists, strict=True):
        t = r.type
        if rank_of(t) == 1:
            e.line(f"{e.name(r)} = np.array({lst}, dtype={e.dtype(t)})")
        else:
            e.line(f"{e.name(r)} = stack_rows({lst}, {e.dtype(t)}, {rank_of(t)}, {e.loc(op)})")


def _with_vector(e: Emitter, n: str, attempt: Callable[[], None],
                 fallback: Callable[[], None]) -> None:
    """`attempt()` vectorised when the arrays are long enough, else (or when it falls
    back) `fallback()`, the per-element loop (Note [Vectorised lambdas])."""
    if e.unit.vector_min_length is None:
        fallback()
        return
    done = e.fresh("vectorised")
    e.line(f"{done} = False")
    e.line(f"if {n} >= {max(1, e.unit.vector_min_length)}:")
    with e.indented():
        e.line("try:")
        with e.indented(block=True):
            e.line("with np.errstate(all='ignore'):")
            with e.indented(block=True):
                attempt()
            e.line(f"{done} = True")
        e.line("except (VectorFallback, L0Error):")
        with e.indented():
            e.line("pass")
    e.line(f"if not {done}:")
    with e.indented():
        fallback()


@emits("soac.map")
def _map(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.MapOp)
    inputs = list(op.inputs)
    block = op.body.block
    names = e.names(inputs)
    n = _outer_size(e, op, names)

    def per_element() -> None:
        lists = _collect(e, op.results)
        _row_loop(e, block.args, inputs)
        with e.indented(block=True):
            for (_, app), y in zip(lists, _yields(e, block), strict=True):
                e.line(f"{app}({y})")
        _build(e, op, op.results, lists)

    varying = vectorise.map_plan(block)
    if varying is None:
        per_element()
        return
    _with_vector(e, n, lambda: vectorise.emit_map(e, block, names, op.results, n, varying),
                 per_element)


@emits("soac.filter")
def _filter(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.FilterOp)
    inputs = list(op.inputs)
    block = op.body.block
    names = e.names(inputs)
    n = _outer_size(e, op, names)

    def per_element() -> None:
        keep, app = e.fresh("keep"), e.fresh("append")
        e.line(f"{keep} = []; {app} = {keep}.append")
        _row_loop(e, block.args, inputs)
        with e.indented(block=True):
            (c,) = _yields(e, block)
            e.line(f"{app}({c})")
        e.line(f"{keep} = np.array({keep}, dtype=np.bool_)")
        for r, a in zip(e.names(op.results), names, strict=True):
            e.line(f"{r} = {a}[{keep}]")  # boolean indexing copies

    varying = vectorise.map_plan(block)
    if varying is None:
        per_element()
        return
    _with_vector(e, n, lambda: vectorise.emit_filter(e, block, names, op.results, n, varying),
                 per_element)


def _fold(e: Emitter, op: d.ReduceOp | d.ScanOp | d.RedomapOp | d.ScanomapOp, block: Block,
          scan: bool) -> None:
    """reduce (and redomap's inner lambda) or scan: a left fold from the neutrals."""
    neutral = list(op.neutral)
    inputs = list(op.inputs)
    k = len(neutral)
    accs = block.args[:k]
    names = e.names(inputs)
    neutrals = e.names(neutral)
    n = _outer_size(e, op, names)

    def per_element() -> None:
        lists = _collect(e, op.results) if scan else []
        e.bind(accs, neutrals)
        _row_loop(e, block.args[k:], inputs)
        with e.indented(block=True):
            e.bind(accs, _yields(e, block))
            for (_, app), acc in zip(lists, accs if scan else (), strict=True):
                # An array accumulator may be updated in place by the next step.
                copy = ".copy()" if is_tensor(acc.type) else ""
                e.line(f"{app}({e.name(acc)}{copy})")
        if scan:
            _build(e, op, op.results, lists)
        else:
            e.line(assign(e.names(op.results), e.names(accs)))

    plan = vectorise.fold_plan(block, k)
    if plan is None:
        per_element()
        return
    _with_vector(
        e, n,
        lambda: vectorise.emit_fold(e, block, k, plan, neutrals, names, op.results, n, scan),
        per_element,
    )


@emits("soac.reduce")
def _reduce(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.ReduceOp)
    _fold(e, op, op.body.block, scan=False)


@emits("soac.scan")
def _scan(e: Emitter, op: Operation) -> None:
    assert isinstance(op, d.ScanOp)
    _fold(e, op, op.body.block, scan=True)


@emits("soac.redomap")
def _redomap(e: Emitter, op: Operation) -> None:
    # The meaning of redomap is the left fold with its inner lambda (docs/reference.md §5);
    # the outer (combining) lambda only matters to parallel implementations.
    assert isinstance(op, d.RedomapOp)
    _fold(e, op, op.inner.block, scan=False)


@emits("soac.scanomap")
def _scanomap(e: Emitter, op: Operation) -> None:
    # Every intermediate result of the left fold with the inner lambda, as redomap's.
    assert isinstance(op, d.ScanomapOp)
    _fold(e, op, op.inner.block, scan=True)
