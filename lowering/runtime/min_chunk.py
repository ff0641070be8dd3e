"""The fewest rows a chunk of a blocked form gets, and the test-only setting that lowers it.

A blocked reduction, redomap, scan or filter splits its n rows into
C = max(1, min(width, n / MIN_CHUNK)) chunks (Note [Parallel width] in
`l0.lowering.loop_ir.parallel_loops`; on the GPU, a thread per chunk from 2 * MIN_CHUNK rows):
below 2 * MIN_CHUNK rows there is one chunk, the left fold. The test corpus's inputs are
a few rows long, so without this setting no corpus program would ever combine partial
results. `L0_MIN_CHUNK=N` (a positive integer; anything else is the default) in the
environment of the compiler makes N the fewest rows of a chunk, so that a program of
2N rows already splits: the test matrix runs reductions, scans and filters that way
(`test/test_matrix.py`). It is read when code is compiled (it changes the code) and is
part of the compile cache's key. It exists for tests: chunks of a few rows are slower
than one.

This module imports nothing heavy: the compile cache's key reads it on every run.
"""

from __future__ import annotations

import os

MIN_CHUNK = 1 << 12
"""The fewest rows a chunk gets by default: below 2 * MIN_CHUNK rows a blocked form runs
as one chunk, where forking threads would cost more than it saves."""

ENV = "L0_MIN_CHUNK"


def min_chunk() -> int:
    """The fewest rows a chunk gets: `L0_MIN_CHUNK` if it is a positive integer, else
    MIN_CHUNK."""
    value = os.environ.get(ENV, "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else MIN_CHUNK
