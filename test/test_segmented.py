"""Segmented reductions and scans (`segment-reductions`, docs/gpu.md "Kernel forms",
docs/backend.md "Multicore"): a map of reductions over few long rows folds chunks of
every row in one parallel loop, then combines each row's partial results in order (a
map of scans: chunk totals, carries per row, chunks scanned); the map as it was runs
otherwise, chosen at run time by the threshold `SITE.segmented_below`.

The structure is read from the profile (`profile=True`: launches, threads, iterations
per kernel or region); results and errors are the interpreter's in both versions,
each forced through the parameter, on gpu-sim and on multicore with 1, 2 and 3 threads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import l0
from l0.diagnostics import L0Error

ROW_SUMS = "fun [real] main([[real]] rows) =\n" \
    "  map(fn real ([real] row) => reduce(op +, 0.0, row), rows)\n"
SITE = "main:2:3:map"
THRESHOLD = f"{SITE}.segmented_below"

SPLIT = Path(__file__).parent / "programs" / "split"
PROGRAMS = ("segmented_rows", "segmented_matvec", "segmented_error", "segmented_scans",
            "segmented_scan_error", "segmented_grid", "segmented_work", "segmented_work_error",
            "segmented_check_error")


def _compile(source: str, backend: str, **options: Any) -> Any:
    """The program with its profile zeroed (engines of one program in a process share
    its compiled code, counters included)."""
    prog = l0.compile(source, backend=backend, profile=True, cache=False, **options)
    prog.reset_profile()
    return prog


def _launched(prog: Any) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in prog.profile_records() if r["launches"]}


def _rows(m: int, n: int) -> np.ndarray:
    return np.random.default_rng(11).uniform(-1.0, 1.0, (m, n))


def test_few_long_rows_run_over_all_elements_on_gpu_sim() -> None:
    sim = _compile(ROW_SUMS, "gpu-sim")
    rows = _rows(4, 100_000)
    np.testing.assert_allclose(sim.main(rows), rows.sum(axis=1), rtol=1e-10)
    launched = _launched(sim)
    # Two kernels: the chunks of all rows (a thread per chunk: 4 rows of 24 chunks of
    # at least 4096 elements), then each row's 24 partials in order. The map's kernel,
    # a thread per row, does not run.
    assert set(launched) == {f"{SITE}.segments", f"{SITE}.segments.combine"}
    assert launched[f"{SITE}.segments"]["launches"] == 1
    assert launched[f"{SITE}.segments"]["iterations"] == 4 * (100_000 // 4096)
    assert launched[f"{SITE}.segments.combine"]["iterations"] == 4


def test_many_short_rows_run_as_before_on_gpu_sim() -> None:
    sim = _compile(ROW_SUMS, "gpu-sim")
    rows = _rows(100_000, 4)
    np.testing.assert_array_equal(sim.main(rows), l0.compile(ROW_SUMS).main(rows))
    assert {name: r["iterations"] for name, r in _launched(sim).items()} == {SITE: 100_000}


def test_few_long_rows_scan_over_all_elements_on_gpu_sim() -> None:
    source = ROW_SUMS.replace("[real] main", "[[real]] main").replace(
        "real ([real] row) => reduce", "[real] ([real] row) => scan")
    sim = _compile(source, "gpu-sim")
    rows = _rows(3, 100_000)
    np.testing.assert_allclose(sim.main(rows), np.cumsum(rows, axis=1), rtol=1e-9, atol=1e-9)
    chunks = 3 * (100_000 // 4096)
    assert {name: (r["launches"], r["iterations"]) for name, r in _launched(sim).items()} == {
        f"{SITE}.segments": (1, chunks), f"{SITE}.segments.carries": (1, 3),
        f"{SITE}.segments.scan": (1, chunks)}


def test_the_threshold_chooses_on_multicore() -> None:
    mc = _compile(ROW_SUMS, "multicore", threads=2)
    assert mc.param_defaults()[THRESHOLD] == 2  # the thread count
    one, four = _rows(1, 100_000), _rows(4, 100_000)
    # One row on two threads: its two halves, then the combination, the two phases of
    # one region (Note [One region per parallel phase]), counted under the first's name
    # with both phases' iterations: 2 chunks, and the combination's one chunk of rows.
    np.testing.assert_allclose(mc.main(one), one.sum(axis=1), rtol=1e-10)
    launched = _launched(mc)
    assert set(launched) == {f"{SITE}.segments"}
    assert launched[f"{SITE}.segments"]["iterations"] == 3
    # Four rows fill two threads: the map as it was, the left fold of each row.
    mc.reset_profile()
    np.testing.assert_array_equal(mc.main(four), l0.compile(ROW_SUMS).main(four))
    assert set(_launched(mc)) == {SITE}
    # Above the rows: the segmented form again (4 rows of 2 chunks, then one chunk of
    # the 4 rows combined).
    mc.set_params({THRESHOLD: 8})
    mc.reset_profile()
    np.testing.assert_allclose(mc.main(four), four.sum(axis=1), rtol=1e-10)
    assert _launched(mc)[f"{SITE}.segments"]["iterations"] == 8 + 1


GRID = "fun [[real]] main([[[real]]] xs) =\n" \
    "  map(fn [real] ([[real]] plane) =>\n" \
    "        map(fn real ([real] row) => reduce(op +, 0.0, row), plane), xs)\n"
WORK = "fun [real] main([[real]] rows, [[real]] cols, [real] ws) =\n" \
    "  map(fn real ({[real], [real], real} r) => let {xs, ys, w} = r in\n" \
    "        (w * 2.0) / (1.0 + w * reduce(op +, 0.0, xs))\n" \
    "        + reduce(fn real (real a, real b) => if a < b then b else a, -1.0e9, ys),\n" \
    "      zip(rows, cols, ws))\n"


def test_a_grid_of_few_segments_runs_over_all_elements_on_gpu_sim() -> None:
    # 2 x 3 segments of 50,000 reals: the two levels are one index space of 6 segments,
    # each cut into 12 chunks of at least 4096 elements; one launch each.
    sim = _compile(GRID, "gpu-sim")
    xs = np.random.default_rng(3).uniform(-1.0, 1.0, (2, 3, 50_000))
    np.testing.assert_allclose(sim.main(xs), xs.sum(axis=2), rtol=1e-10)
    grid = "main:2:3:map"
    assert {name: (r["launches"], r["iterations"]) for name, r in _launched(sim).items()} == {
        f"{grid}.segments": (1, 6 * (50_000 // 4096)), f"{grid}.segments.combine": (1, 6)}
    # Forced off: the nest as it was, a thread per segment (the gpu's wide nest).
    sim.set_params({f"{grid}.segmented_below": 0})
    sim.reset_profile()
    np.testing.assert_allclose(sim.main(xs), xs.sum(axis=2), rtol=1e-10)
    assert {name: r["iterations"] for name, r in _launched(sim).items()} == {grid: 6}


@pytest.mark.parametrize("backend", ["gpu-sim", "multicore"])
def test_several_folds_and_scalar_work_run_as_one_loop_of_triples(backend: str) -> None:
    # -O0: the gpu's -O would distribute the two folds into maps of their own.
    prog = _compile(WORK, backend, threads=2 if backend == "multicore" else None,
                    optimise=False)
    threshold = next(p for p in prog.param_values() if p.endswith(".segmented_below"))
    prog.set_params({threshold: 1 << 20})
    rng = np.random.default_rng(5)
    rows, cols = rng.uniform(-1.0, 1.0, (2, 20_000)), rng.uniform(-1.0, 1.0, (2, 9_000))
    ws = np.array([0.5, 2.0])
    expected = 2 * ws / (1.0 + (rows * ws[:, None]).sum(axis=1)) + cols.max(axis=1)
    np.testing.assert_allclose(prog.main(rows, cols, ws), expected, rtol=1e-9)
    launched = _launched(prog)
    site = threshold.removesuffix(".segmented_below")
    # C from the shorter fold (9,000 // 4096 = 2 chunks): 2 segments x 2 folds x 2 chunks.
    if backend == "gpu-sim":
        assert {name: (r["launches"], r["iterations"]) for name, r in launched.items()} == {
            f"{site}.segments": (1, 8), f"{site}.segments.combine": (1, 2)}
    else:
        # One region of two phases (the triples, one chunk of the 2 segments combined).
        assert {name: r["iterations"] for name, r in launched.items()} == {
            f"{site}.segments": 8 + 1}


def _expected(name: str) -> tuple[str, str | None]:
    out, err = SPLIT / f"{name}.out", SPLIT / f"{name}.err"
    if err.exists():
        return "", err.read_text().strip()
    return out.read_text().strip(), None


PASSING = {"segmented_error": "[[1, 2, 0], [4, 3, 1]] [5, 6, 7, 8, 9]",
           "segmented_scan_error": "[[1, 2, 0], [4, 3, 1]] [5, 6, 7, 8, 9]",
           "segmented_work_error": "[[1, 2, 0], [4, 3, 1]] [[0, 1], [2, 2]] [5, 2] [5, 6, 7, 8, 9]",
           "segmented_check_error": "[[1, 2, 0], [4, 3, 1]] [5, 2] [5, 6, 7, 8, 9]"}
"""An input the failing programs run to the end on: which version ran is read from the
profile, which a failing run does not finish."""


@pytest.mark.parametrize("backend, threads", [("gpu-sim", None), ("multicore", 1),
                                              ("multicore", 2), ("multicore", 3)])
@pytest.mark.parametrize("name", PROGRAMS)
def test_both_versions_give_the_interpreters_results(name: str, backend: str,
                                                     threads: int | None,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # Chunks of one element, so the corpus's short rows split (L0_MIN_CHUNK).
    monkeypatch.setenv("L0_MIN_CHUNK", "1")
    prog = _compile(str(SPLIT / f"{name}.l0"), backend, threads=threads)
    thresholds = [p for p in prog.param_values() if p.endswith(".segmented_below")]
    assert thresholds, "no segmented reduction in the program"
    text = (SPLIT / f"{name}.in").read_text()
    out, err = _expected(name)
    for value, segmented in ((0, False), (1 << 20, True)):
        prog.set_params(dict.fromkeys(thresholds, value))
        if err is None:
            assert prog.run_main(text) == out
        else:
            with pytest.raises(L0Error) as failed:
                prog.run_main(text)
            assert err in str(failed.value)
        prog.reset_profile()
        prog.run_main(PASSING.get(name, text))
        ran = set(_launched(prog))
        assert any(n.endswith(".segments") for n in ran) == segmented, ran
