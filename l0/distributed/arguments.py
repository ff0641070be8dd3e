"""Dask arguments in, Dask results out: a call of an L0 function where some argument is
a `dask.array.Array` (docs/distributed.md).

Arguments are checked as `l0.values.python.from_python` checks them (a Dask array by its
dtype and rank, through an empty array of its dtype) and flattened the same way; Dask
arrays are rechunked to whole rows. Results come back as Dask collections: an array a
`dask.array.Array`, a scalar a 0-d one (chars as their code points), several a tuple.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dask
import dask.array as da
import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

from l0.distributed.graphs import element_dtype, is_dask_array, is_lazy, outer_only
from l0.distributed.split import Split
from l0.syntax import ast
from l0.types import ArrayType, TupleType, Type, flatten

SPLIT_EVERY = 8
"""How many partial results one combine task of a reduction takes."""


def flatten_argument(t: Type, v: Any, what: str) -> list[Any]:
    """`from_python` for a value that may hold Dask arrays."""
    from l0.values.python import from_python

    if isinstance(t, TupleType) and isinstance(v, tuple | list) and len(v) == len(t.elems):
        return [x for k, (e, ve) in enumerate(zip(t.elems, v, strict=True), 1)
                for x in flatten_argument(e, ve, f"{what}, component {k}")]
    if isinstance(t, ArrayType):
        comps = flatten(t)
        if len(comps) == 1 and is_dask_array(v):
            return [_dask_array(comps[0], v, what)]
        if len(comps) > 1 and isinstance(v, tuple | list) and len(v) == len(comps):
            return [_dask_array(c, p, f"{what}, array {k}") if is_dask_array(p)
                    else from_python(c, p, f"{what}, array {k}")[0]
                    for k, (c, p) in enumerate(zip(comps, v, strict=True), 1)]
    return from_python(t, v, what)


def _dask_array(t: Type, x: da.Array, what: str) -> da.Array:
    from l0.values.python import from_python

    empty = np.empty((0,) * x.ndim, dtype=x.dtype)
    want = from_python(t, empty, what)[0].dtype  # raises for a wrong dtype or rank
    return outer_only(x if x.dtype == want else x.astype(want))


def call_python(module: ModuleOp, fundef: Any, args: Sequence[Any], *, backend: str,
                fast_math: bool, threads: int | None) -> Any:
    """`fundef` (defined in `module`; an `ast.FunDef` or `l0.api.Function`) called with
    Python arguments, some of them Dask collections: each checked and flattened as
    `from_python` does; the chunks' kernels compiled for `backend` with `fast_math` and
    `threads` (`l0.distributed.kernels.Kernel`); Dask results."""
    flat = [x for p, a in zip(fundef.params, args, strict=True)
            for x in flatten_argument(p.type, a, f"argument {p.name!r} of {fundef.name}")]
    return call(module, fundef, flat,
                {"backend": backend, "fast_math": fast_math, "threads": threads})


def call(module: ModuleOp, fundef: ast.FunDef, flat: Sequence[Any],
         options: dict[str, Any]) -> Any:
    """Run `fundef` (defined in `module`) over its flattened arguments; Dask results."""
    from l0.api import _unflatten
    from l0.values import from_ir_results, to_ir_arguments

    f = next(op for op in module.ops
             if isinstance(op, func.FuncOp) and op.sym_name.data == fundef.name)
    ir_args = to_ir_arguments([p.type for p in fundef.params], list(flat))
    helpers = [op for op in module.ops if isinstance(op, func.FuncOp) and op is not f]
    results = Split(f.body.block, ir_args, options, SPLIT_EVERY, helpers).run()
    types = list(f.function_type.outputs.data)
    as_dask = [to_dask(r, t) for r, t in zip(results, types, strict=True)]
    value, _ = _unflatten(fundef.ret, from_ir_results(fundef.ret, as_dask), 0,
                          decode_chars=False)
    return value


def to_dask(value: Any, t: Any) -> Any:
    """A result as a Dask collection."""
    if is_dask_array(value):
        return value
    dtype = element_dtype(t)
    if isinstance(t, TensorType):
        rank = t.get_num_dims()
        if is_lazy(value):
            shape = (np.nan,) * rank
            return da.from_delayed(dask.delayed(np.asarray, pure=True)(value), shape=shape,
                                   dtype=dtype)
        return da.from_array(np.asarray(value))
    if is_lazy(value):
        return da.from_delayed(dask.delayed(np.asarray, pure=True)(value, dtype), shape=(),
                               dtype=dtype)
    return da.from_array(np.asarray(value, dtype=dtype))
