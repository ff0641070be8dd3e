"""Smoke test of the benchmark suite (`benchmarks/`): at the tiniest sizes, the L0 programs,
the C versions and the NumPy versions of the thesis's P0-P2 compute the same results.

Only agreement is checked, never speed: performance is measured by `python -m benchmarks.run`.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root

from benchmarks import datagen, run  # noqa: E402


@pytest.mark.skipif(shutil.which("gcc") is None, reason="the C versions need gcc")
def test_three_versions_agree(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    status = run.main(["--size", "tiny", "--runs", "1", "--no-compile-time", "--json", str(out)])
    results = json.loads(out.read_text())
    names = [r["name"] for r in results]
    assert names == [n for n, b in run.BENCHMARKS.items()
                     if b.program.exists() and b.sizes["tiny"] is not None]
    assert {"blackscholes", "matmul", "shortest_paths", "locvolcalib"} <= set(names)
    for r in results:
        assert r["agree"], f"{r['name']}: {r['problems']}"
        assert all(r[k] is not None for k in ("c", "numpy", "l0")), r
    assert status == 0


def test_disagreement_is_reported() -> None:
    reals = np.array([[1.0, 2.0], [3.0, 4.0]])
    res = run.Result("matmul", "2", 1)
    run.compare(res, reals.copy(), reals, "[[1.000000, 2.000000], [3.000000, 4.000003]]")
    assert not res.agree
    assert res.problems == ["l0 and NumPy differ at 1 elements, first at (1, 1): 4.000003 vs 4.0"]

    ints = np.array([5, 6])
    res = run.Result("matmul", "2", 1)
    run.compare(res, np.array([5, 7]), ints, "[5, 6]")
    assert not res.agree and res.problems[0].startswith("C and NumPy differ at 1 elements")

    res = run.Result("matmul", "2", 1)
    run.compare(res, ints.copy(), ints, "[5, 6, 7]")
    assert not res.agree and res.problems == ["l0 printed 3 numbers, expected 2"]

    res = run.Result("locvolcalib", "2", 1)
    finpar = np.array([1.0, 2.0, 3.0, 4.1])
    run.compare(res, reals.copy(), reals, "[[1.0, 2.0], [3.0, 4.0]]", finpar, 1e-5)
    assert not res.agree and len(res.problems) == 3  # NumPy, C and l0 against finpar's output

    res = run.Result("matmul", "2", 1)
    run.compare(res, ints.copy(), ints, "[5, 6]")
    assert res.agree and res.problems == []


@pytest.mark.skipif(shutil.which("gcc") is None, reason="the C versions need gcc")
def test_multicore_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "results.json"
    status = run.main(["--size", "tiny", "--runs", "1", "--no-compile-time", "--backend",
                       "multicore", "--threads", "2", "--json", str(out), "blackscholes",
                       "matmul", "nbody"])
    results = json.loads(out.read_text())
    for r in results:
        assert r["agree"], f"{r['name']}: {r['problems']}"
        assert r["l0"] is not None and r["multicore"] is not None, r
        # n-body's C version has `omp parallel for` loops: its OpenMP build ran too.
        assert (r["c_openmp"] is not None) == (r["name"] == "nbody"), r
    assert status == 0
    table = capsys.readouterr().out
    assert "multicore/cpu" in table and "(2 threads)" in table
    assert "multicore/C OpenMP" in table


def test_finpar_reference_output_is_read() -> None:
    text = ("\n// Generic Pricing\n 1\t\t// VALID   Result,\n"
            "440255\t\t// Runtime in micro seconds,\n1\t\t// CPU Threads,\n\n"
            " [ 167.055714, -2.5e-3 ]\t//Generic Pricing Result.\n")
    seconds, numbers = run.parse_reference_output(text)
    assert seconds == 0.440255 and numbers.tolist() == [167.055714, -2.5e-3]


def test_soac_structure_counts_top_level_and_nested() -> None:
    # Black-Scholes is one map over the options; LocVolCalib's map over the strikes holds
    # all the others.
    assert run.soac_structure(run.BENCHMARKS["blackscholes"].program) == (1, 0)
    top, nested = run.soac_structure(run.BENCHMARKS["locvolcalib"].program)
    assert top == 1 and nested > 10


def test_interest_calib_is_judged_as_finpar_judges_it() -> None:
    # genome (5), log-likelihood, then [calibrated, Black, %] per swaption (x 10^4)
    expected = np.array([0.3, 0.001, 0.009, 0.018, -0.08, 624.1, 74.0, 100.0, 26.0])
    other_genome = np.array([0.7, 0.007, 0.018, 0.02, -0.6, 623.8, 74.5, 100.0, 25.5])
    assert run.check_interest_calib(other_genome, expected) is None
    worse = other_genome.copy()
    worse[5] = 623.5  # 0.6 below finpar's
    assert "log-likelihood" in (run.check_interest_calib(worse, expected) or "")
    far = other_genome.copy()
    far[6] = 1000.0  # a price far from its quote
    assert "swaption 0" in (run.check_interest_calib(far, expected) or "")

    res = run.Result("interestcalib", "Small", 1)
    printed = "{0.7, 0.007, 0.018, 0.02, -0.6, 623.8, [[74.5, 100.0, 25.5]]}"
    run.compare(res, other_genome, None, printed, expected, 0.7, c_exact=False,
                check=run.check_interest_calib)
    assert res.agree, res.problems
@pytest.mark.skipif(shutil.which("gcc") is None, reason="the C versions need gcc")
def test_gpu_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--backend gpu` adds the GPU peers' columns; without a GPU they stay empty and a
    line says why, which is no failure."""
    from benchmarks.gpu_versions import unavailable

    out = tmp_path / "results.json"
    status = run.main(["--size", "tiny", "--runs", "1", "--no-compile-time", "--backend",
                       "gpu", "--json", str(out), "blackscholes"])
    (r,) = json.loads(out.read_text())
    assert status == 0 and r["agree"], r["problems"]
    table = capsys.readouterr().out
    assert "CuPy kernel ms" in table and "fused e2e ms" in table
    if unavailable() is not None:
        assert r["cupy"] is None and r["fused"] is None
        assert "no GPU peers: " in table
    else:
        assert r["cupy"]["kernel"] > 0 and r["fused"]["end_to_end"] > 0


def test_numpy_versions_run_unchanged_on_another_array_module() -> None:
    """The CuPy peers are the NumPy versions with `np` rebound (Note [NumPy code on CuPy]):
    rebound to NumPy itself, they compute the same."""
    import numpy as np

    from benchmarks import gpu_versions, numpy_versions

    rng = np.random.default_rng(1)
    args = [rng.random(50) < 0.5, rng.uniform(10, 20, 50), rng.uniform(10, 20, 50),
            rng.uniform(0.5, 2, 50)]
    rebound = gpu_versions._on_cupy(numpy_versions.blackscholes, np)
    assert rebound is not numpy_versions.blackscholes
    np.testing.assert_array_equal(rebound(*args), numpy_versions.blackscholes(*args))
    d = rng.integers(0, 100, (6, 6))
    shortest = gpu_versions._on_cupy(numpy_versions.shortest_paths, np)
    np.testing.assert_array_equal(shortest(d), numpy_versions.shortest_paths(d))


@pytest.mark.parametrize("outer", [1, 2])
def test_the_datasets_with_fewer_strikes_are_smalls_prefix(outer: int, tmp_path: Path) -> None:
    root = datagen.TRACKED_FINPAR_DIR / "LocVolCalib"
    datagen.fewer_strikes(root / "Small", outer, tmp_path)
    # The repository's copy is what the command writes.
    for name in ("input.data", "output.data"):
        assert (tmp_path / name).read_text() == (root / f"Small-Outer{outer}" / name).read_text()
    small, made = ([line.split("//")[0].strip() for line in (d / "input.data").open()]
                   for d in (root / "Small", tmp_path))
    assert made == [str(outer), *small[1:]]
    np.testing.assert_array_equal(datagen.finpar_reference(tmp_path),
                                  datagen.finpar_reference(root / "Small")[:outer])
    with pytest.raises(ValueError, match="OUTER must be between 1 and Small's 16, not 17"):
        datagen.fewer_strikes(root / "Small", 17, tmp_path)
