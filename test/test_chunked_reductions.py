"""Reductions with array operators on multicore (issue 29): structural tests reading the
profile of the OpenMP regions.

A reduce of rows with an element-wise array operator runs in one of two forms
(docs/backend.md, "Reductions with array operators"): iswim's column form (a map over
the columns of one fold each, `-O`), or, where the fold stays a fold of rows (`-O0`
here; a fold `iswim` cannot interchange), the chunked reduction: one region whose
iterations are the threads' chunks of rows, each folded into an accumulator of its own
(updated in place), the chunks' accumulators combined in chunk order after it. Either
way the reduction is a fixed number of regions per call, never one per row, and its
results do not depend on the thread count.
"""

from __future__ import annotations

import numpy as np
import pytest

import l0

HISTOGRAM = """
fun [int] main(int k, [int] xs) =
  reduce(fn [int] ([int] a, [int] b) => map(op +, zip(a, b)),
         replicate(k, 0),
         map(fn [int] (int x) => map(fn int (int j) => if j = x then 1 else 0, iota(k)), xs))
"""

FIRST_NONZERO = """
fun [int] main([[int]] rows) =
  reduce(fn [int] ([int] a, [int] b) =>
           map(fn int (int x, int y) => if x = 0 then y else x, zip(a, b)),
         replicate(size(1, rows), 0), rows)
"""

ROWS = 3 * 4096  # above 2 * MIN_CHUNK: the rows split into a chunk per thread


def _regions(source: str, threads: int, *args: object,
             optimise: bool) -> tuple[dict[str, dict[str, float]], object]:
    prog = l0.compile(source, backend="multicore", threads=threads, optimise=optimise,
                      profile=True, cache=False)
    prog.reset_profile()
    result = prog.main(*args)
    return {r["name"]: r for r in prog.profile_records()}, result


@pytest.mark.parametrize("threads", [2, 3])
def test_fold_of_rows_is_one_region_of_chunks(threads: int) -> None:
    xs = np.random.default_rng(3).integers(0, 16, ROWS)
    regions, counts = _regions(HISTOGRAM, threads, 16, xs, optimise=False)
    assert np.array_equal(counts, np.bincount(xs, minlength=16))
    fold = regions["main:reduce"]
    # One launch, a chunk (iteration) per thread, each on its own thread.
    assert (fold["launches"], fold["iterations"], fold["threads"]) == (1, threads, threads)
    # No region runs once per row inside the fold (the rows' own map, a function of
    # -O0, is a region per row, but outside the fold).
    assert all(r["launches"] < ROWS for name, r in regions.items() if name.startswith("main"))


def test_column_form_is_one_region() -> None:
    xs = np.random.default_rng(4).integers(0, 16, ROWS)
    regions, counts = _regions(HISTOGRAM, 2, 16, xs, optimise=True)
    assert np.array_equal(counts, np.bincount(xs, minlength=16))
    assert sum(r["launches"] for r in regions.values()) <= 2
    assert all(r["iterations"] <= 16 for r in regions.values())


def test_chunks_combine_in_order_on_any_thread_count() -> None:
    # An operator that does not commute: the first non-zero value of each column.
    rng = np.random.default_rng(5)
    rows = rng.integers(0, 3, (ROWS, 5)) * (rng.random((ROWS, 5)) < 0.001)
    expected = [next((v for v in rows[:, j] if v != 0), 0) for j in range(5)]
    for threads in (1, 2, 3):
        regions, first = _regions(FIRST_NONZERO, threads, rows, optimise=False)
        assert list(first) == expected
        assert regions["main:reduce"]["launches"] <= 1
