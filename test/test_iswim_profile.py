"""Reductions with array operators run as O(1) launches (issue 29, item 5): structural
tests reading the profile of `gpu-sim`, and of multicore, whose histogram runs as column
chunks (Note [Chunks of rows under the columns] in `l0.lowering.scf.segment_reductions`).

A histogram (a reduce of one-hot rows with a vector `+`) and a k-means centre update (a
reduce of points into a flat k x (d + 1) vector of sums) are, unoptimised, left folds
of vectors: a launch per row. With `-O`, `iswim` makes each a map over the columns of
one reduce per column and `fuse` composes the rows' producer into it, so the whole
reduction is a fixed number of launches, whatever the number of rows (here above the
chunking threshold of 2 x 4096 rows).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import l0

HISTOGRAM = """
fun [int] onehot(int k, int x) = map(fn int (int j) => if j = x then 1 else 0, iota(k))
fun [int] main(int k, [int] xs) =
  reduce(fn [int] ([int] a, [int] b) => map(op +, zip(a, b)),
         replicate(k, 0), map(fn [int] (int x) => onehot(k, x), xs))
"""

CENTRES = """
fun [real] main(int k, [[real]] points, [int] membership) =
  let d = size(1, points) in
  let w = d + 1 in
  reduce(fn [real] ([real] a, [real] b) => map(op +, zip(a, b)),
         replicate(k * w, 0.0),
         map(fn [real] ([real] p, int c) =>
               map(fn real (int t) =>
                     let j = t % w in
                     if t / w = c
                     then (if 0 <= j && j < d then p[j] else if j = d then 1.0 else 0.0)
                     else 0.0,
                   iota(k * w)),
             zip(points, membership)))
"""

ROWS = 3 * 4096


def _launches(source: str, *args: object, optimise: bool = True) -> tuple[int, object]:
    prog = l0.compile(source, backend="gpu-sim", optimise=optimise, profile=True, cache=False)
    prog.reset_profile()
    result = prog.main(*args)
    return sum(r["launches"] for r in prog.profile_records()), result


def test_histogram_is_a_few_launches() -> None:
    xs = np.random.default_rng(1).integers(0, 16, ROWS)
    launches, counts = _launches(HISTOGRAM, 16, xs)
    assert launches <= 10
    assert np.array_equal(counts, np.bincount(xs, minlength=16))


def test_centre_update_is_a_few_launches() -> None:
    rng = np.random.default_rng(2)
    k, d = 3, 2
    points = rng.integers(0, 100, (ROWS, d)) / 4.0
    membership = rng.integers(0, k, ROWS)
    launches, sums = _launches(CENTRES, k, points, membership)
    assert launches <= 10
    expected = np.zeros((k, d + 1))
    for c in range(k):
        mine = points[membership == c]
        expected[c, :d] = mine.sum(axis=0)
        expected[c, d] = len(mine)
    assert np.allclose(np.asarray(sums).reshape(k, d + 1), expected)


@pytest.mark.parametrize("rows", [40])
def test_unoptimised_histogram_launches_per_row(rows: int) -> None:
    """The contrast: without `-O` the reduce is a host loop, at least a launch a row."""
    xs = np.arange(rows) % 4
    launches, counts = _launches(HISTOGRAM, 4, xs, optimise=False)
    assert launches >= rows
    assert np.array_equal(counts, np.bincount(xs, minlength=4))


def _multicore_launches(prog: Any, *args: object) -> tuple[dict[str, dict[str, int]], object]:
    prog.reset_profile()
    result = prog.main(*args)
    return {r["name"]: r for r in prog.profile_records() if r["launches"]}, result


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_histogram_runs_as_column_chunks_on_multicore(threads: int) -> None:
    """16 buckets over 3 x 4096 points: on 2 and 3 threads one region whose threads each
    run the 16 bucket folds over their chunk of the points (`SITE.columns`), nothing else;
    on one thread (a single chunk), or with the threshold at 0, the map over the buckets
    as it was (`replicate`'s region, the neutral row, runs in both). Counts are
    numpy's in every case."""
    prog = l0.compile(HISTOGRAM, backend="multicore", threads=threads, profile=True,
                      cache=False)
    xs = np.random.default_rng(3).integers(-1, 17, ROWS)
    expected = np.bincount(xs[(xs >= 0) & (xs < 16)], minlength=16)
    launched, counts = _multicore_launches(prog, 16, xs)
    assert np.array_equal(counts, expected)
    columns = [name for name in launched if name.endswith(".columns")]
    maps = [name for name in launched if name.endswith(":map")]
    if threads == 1:
        assert not columns and len(maps) == 1
        return
    assert len(columns) == 1 and not maps
    assert launched[columns[0]]["launches"] == 1
    site = columns[0].removesuffix(".columns")
    assert f"{site}.segments" not in launched
    prog.set_params({f"{site}.column_chunks_below": 0})
    launched, counts = _multicore_launches(prog, 16, xs)
    assert np.array_equal(counts, expected)
    assert site in launched and columns[0] not in launched
