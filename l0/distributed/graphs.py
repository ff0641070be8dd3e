"""The Dask graphs of a split: per-chunk tasks for the SOACs, tree combines, the carry
chain of a scan, and the conversions between client values and Dask's.

Every task calls a `Kernel` (`l0.distributed.kernels`): the SOAC outlined, over one
chunk. Arrays are chunked along the outer dimension only; results of a map keep the
chunks of its inputs, those of a filter have unknown lengths (`nan`), as Dask's
boolean indexing has.

Note [Task keys]
~~~~~~~~~~~~~~~~
A task's key is a hash of everything it runs: the kernel (its IR, which carries the
program's source locations, and the back end's options: `Kernel.__dask_tokenize__`),
the keys of its input chunks and the client values it takes; an array's name hashes
the kernels, inputs and values of the tasks it reads. So the same call made twice
gives the same keys for the same tasks, and Dask reuses results it still holds, while
a task that runs anything else (another program, another back end or thread count)
gets another key. The distributed scheduler warns ("Detected different run_spec for
key ...: this can cause failures and deadlocks") when one key comes back with other
dependencies: no task here has a key drawn at random (`dask.delayed` without
`pure=True`), which a second call would draw again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dask
import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph
from dask.typing import Key
from xdsl.dialects.builtin import Float32Type, Float64Type, IndexType, IntegerType, TensorType

from l0.distributed import kernels
from l0.distributed.kernels import Kernel


def is_dask_array(x: Any) -> bool:
    return isinstance(x, da.Array)


def is_lazy(x: Any) -> bool:
    return isinstance(x, Delayed)


def dtype_of(t: Any) -> np.dtype[Any]:
    """The numpy type of IR scalar type `t` (object for certs)."""
    if isinstance(t, IntegerType):
        width = t.width.data
        return np.dtype(np.bool_) if width == 1 else np.dtype(f"int{width}")
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, Float64Type):
        return np.dtype(np.float64)
    if isinstance(t, Float32Type):
        return np.dtype(np.float32)
    return np.dtype(object)


def element_dtype(t: Any) -> np.dtype[Any]:
    """The numpy type of the elements of IR type `t` (an array's, or a scalar's own)."""
    return dtype_of(t.element_type if isinstance(t, TensorType) else t)


def outer_only(x: da.Array) -> da.Array:
    """`x` with its inner dimensions in one chunk each: a task gets whole rows."""
    if all(len(c) == 1 for c in x.chunks[1:]):
        return x
    return x.rechunk({i: -1 for i in range(1, x.ndim)})


def gather(x: da.Array) -> Delayed:
    """The whole of `x` in one task (the caller warns)."""
    return dask.delayed(np.asarray, pure=True)(x)


def shared(value: Any) -> Any:
    """A client value that every task uses: an array goes into the graph once."""
    if isinstance(value, np.ndarray) and value.size > 64:
        return dask.delayed(value, pure=True)
    return value


def call(kernel: Kernel, args: Sequence[Any], nout: int) -> list[Any]:
    """Client code: run the kernel now if its arguments are known, else as one task."""
    if any(is_lazy(a) for a in args):
        task = dask.delayed(kernels.run_client, pure=True)(kernel, *args)
        return [task[j] for j in range(nout)]
    return list(kernel(*args))


def size(x: da.Array, dim: int) -> Any:
    """`soac.size(dim)` of a distributed array: known unless a filter made it."""
    n = x.shape[dim]
    if not np.isnan(n):
        return int(n)
    if dim == 0:
        lengths = [dask.delayed(len, pure=True)(b) for b in outer_only(x).to_delayed().ravel()]
        return dask.delayed(sum, pure=True)(lengths)
    first = outer_only(x).to_delayed().ravel()[0]
    return dask.delayed(_extent, pure=True)(first, dim)


def _extent(block: np.ndarray, dim: int) -> int:
    return int(np.shape(block)[dim])


def align(values: Sequence[Any]) -> list[da.Array]:
    """The input arrays of one SOAC as Dask arrays of the same outer chunks: those of
    the first distributed one; others are rechunked to match (client arrays cut).
    Unknown lengths (a filter's) are measured first, unless the arrays come from the
    same filter."""
    first = next(v for v in values if is_dask_array(v))
    ref = outer_only(first)
    if not all(_same_chunks(v, first) for v in values if is_dask_array(v)) or any(
            not is_dask_array(v) for v in values):
        ref = measured(ref)
    out = []
    for v in values:
        if v is first:
            out.append(ref)
        elif is_dask_array(v):
            v = outer_only(v)
            if not _same_chunks(v, ref):
                v = measured(v).rechunk((ref.chunks[0],) + tuple((s,) for s in v.shape[1:]))
            out.append(v)
        else:
            arr = np.asarray(v)
            out.append(da.from_array(arr, chunks=(ref.chunks[0],) + arr.shape[1:]))
    return out


def element(x: da.Array, indices: tuple[int, ...]) -> Delayed:
    """`x[indices]` (an element or a row) at a known position, checked on the client
    already: only the chunk that holds it is read."""
    return dask.delayed(_local, pure=True)(measured(x)[indices])


def _local(v: np.ndarray) -> Any:
    return v.item() if v.ndim == 0 else np.ascontiguousarray(v)


def arange(n: int, beside: da.Array) -> da.Array:
    """`iota(n)` chunked like `beside` when the lengths agree (else as Dask likes, and
    `align` rechunks it, after the client's size check)."""
    chunks = beside.chunks[0]
    if any(np.isnan(c) for c in chunks) or sum(chunks) != n or n < 0:
        return da.arange(max(n, 0), dtype=np.int64)
    return da.arange(n, chunks=(chunks,), dtype=np.int64)


def from_array(x: np.ndarray) -> da.Array:
    return da.from_array(x, chunks=(max(1, x.shape[0]),) + x.shape[1:])


def concatenate(parts: Sequence[da.Array]) -> da.Array:
    """`concat` of distributed vectors: their chunks one after the other."""
    return da.concatenate([outer_only(p) for p in parts], axis=0)


def _unknown(x: da.Array) -> bool:
    return any(np.isnan(c) for c in x.chunks[0])


def measured(x: da.Array) -> da.Array:
    """`x` with its chunk lengths known (computed if a filter made them)."""
    return x.compute_chunk_sizes() if _unknown(x) else x


def _same_chunks(x: da.Array, y: da.Array) -> bool:
    """Whether x and y have the same outer chunks: known and equal, or both results of
    one filter (their names end in the same token)."""
    if x is y:
        return True
    if _unknown(x) or _unknown(y):
        return (len(x.chunks[0]) == len(y.chunks[0]) and x.name.startswith("l0-")
                and x.name.rsplit("-", 1)[-1] == y.name.rsplit("-", 1)[-1])
    return x.chunks[0] == y.chunks[0]


def _blocks(x: da.Array) -> list[Delayed]:
    return list(x.to_delayed().ravel())


def _array(name: str, tasks: Sequence[Delayed], j: int, lengths: Sequence[float],
           t: Any) -> da.Array:
    """Output `j` of each per-chunk task, as one Dask array chunked like `lengths`."""
    assert isinstance(t, TensorType)
    shape = t.get_shape()
    inner = tuple((float(s) if s >= 0 else np.nan,) for s in shape[1:])
    ndim = len(shape)
    statuses = _statuses(tasks)
    layer: dict[Key, Any] = {
        (name, i) + (0,) * (ndim - 1):
        (kernels.pick, task.key, j, None if before is None else before.key)
        for i, (task, before) in enumerate(zip(tasks, statuses, strict=True))}
    deps = list(tasks) + [s for s in statuses if s is not None]
    graph = HighLevelGraph.from_collections(
        name, layer, dependencies=deps)  # type: ignore[arg-type]  # Delayed: not a DaskCollection to dask's annotations
    dtype = element_dtype(t)
    return da.Array(graph, name, (tuple(lengths),) + inner, dtype=dtype,
                    meta=np.empty((0,) * ndim, dtype=dtype))


def _statuses(tasks: Sequence[Delayed]) -> list[Delayed | None]:
    """For each chunk's task, the first failure among the chunks before it (Note [The
    first failing chunk wins]); None before the first chunk, a value and not a task (a
    task of its own would have a fresh key in every call: Note [Task keys])."""
    out: list[Delayed | None] = [None]
    for task in tasks[:-1]:
        out.append(dask.delayed(kernels.status, pure=True)(out[-1], task))
    return out


def blockwise(kernel: Kernel, arrays: Sequence[da.Array], free: Sequence[Any],
              types: Sequence[Any], *, keep_lengths: bool, name: str) -> list[da.Array]:
    """A map (`keep_lengths`) or filter: the kernel on each chunk of the inputs, with
    the client values `free`."""
    per_input = [_blocks(a) for a in arrays]
    tasks = [dask.delayed(kernels.run, pure=True)(kernel, *blocks, *free)
             for blocks in zip(*per_input, strict=True)]
    lengths = arrays[0].chunks[0] if keep_lengths else (np.nan,) * len(tasks)
    token = tokenize(kernel, *arrays, *free)
    return [_array(f"l0-{name}-{j}-{token}", tasks, j, lengths, t) for j, t in enumerate(types)]


def reduce(partial: Kernel, combine: Kernel, neutral: Sequence[Any], captured: Sequence[Any],
           arrays: Sequence[da.Array], free: Sequence[Any], nout: int,
           split_every: int) -> list[Delayed]:
    """A reduce or redomap: the kernel's partial result per chunk, from the neutral
    elements, then a tree of combines with the program's operator, `split_every`
    partial results at a time, in chunk order."""
    p, c = partial, combine
    level = [dask.delayed(kernels.run, pure=True)(p, *blocks, *free)
             for blocks in zip(*(_blocks(a) for a in arrays), strict=True)]
    while len(level) > 1:
        level = [dask.delayed(kernels.run_stacked, pure=True)(c, list(neutral), list(captured),
                                                              level[i:i + split_every])
                 for i in range(0, len(level), split_every)]
    result = level[0]
    return [dask.delayed(kernels.pick, pure=True)(result, j, None) for j in range(nout)]


def scan(scan_kernel: Kernel, total: Kernel, combine: Kernel, neutral: Sequence[Any],
         captured: Sequence[Any], arrays: Sequence[da.Array], free: Sequence[Any],
         types: Sequence[Any]) -> list[da.Array]:
    """A scan: the total of each chunk (`total`: the scan's fold from the neutral
    elements, as a reduce or redomap), the totals carried along the chunks in order
    with the scan's operator (`combine`, with the values it captures), then each chunk
    scanned from its carry."""
    s, t, c = scan_kernel, total, combine
    per_chunk = list(zip(*(_blocks(a) for a in arrays), strict=True))
    totals = [dask.delayed(kernels.run, pure=True)(t, *neutral, *blocks, *free)
              for blocks in per_chunk]
    carry: Any = tuple(neutral)
    tasks = []
    for i, blocks in enumerate(per_chunk):
        tasks.append(dask.delayed(kernels.run_scan, pure=True)(s, carry, *blocks, *free))
        carry = dask.delayed(kernels.carry_on, pure=True)(c, carry, list(captured), totals[i])
    token = tokenize(scan_kernel, total, combine, *arrays, *free, *neutral, *captured)
    return [_array(f"l0-scan-{j}-{token}", tasks, j, arrays[0].chunks[0], ty)
            for j, ty in enumerate(types)]
