"""L0 programs over Dask arrays (docs/distributed.md): `prog.main(x)` with a
`dask.array.Array` argument returns lazy Dask collections whose tasks run l0-compiled
code on each chunk.

Modules: `arguments` (Dask arguments in, Dask results out), `split` (the function's
top-level ops made Dask tasks), `outline` (pieces of the IR made functions), `graphs`
(the task graphs), `kernels` (the compiled functions and their per-process cache).
Dask and distributed are the optional extra `l0[dask]`; `l0.api` imports this package
only when an argument is a Dask array.
"""

from __future__ import annotations

try:
    import dask  # noqa: F401
    import dask.array  # noqa: F401
except ImportError as err:  # pragma: no cover - the extra is installed in CI
    raise ImportError(
        "running an L0 program over Dask arrays needs Dask: pip install 'l0[dask]' "
        f"({err})"
    ) from err
