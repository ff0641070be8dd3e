"""LocVolCalib flattened on gpu-sim: the structure of its kernels, read from the profile.

The gpu target's `-O` interchanges the time loop out of the map over strikes and
distributes each step into perfect nests (docs/gpu.md, "What is left"); the kernels
that do the work then span all strikes and a grid axis. On a small dataset of the
finpar format: nearly all the work items (iterations, not time, which depends on the
machine's load) are in kernels with at least outer x min(numX, numY) iterations per
launch, at most 40 x numT launches per run, and the output is `cpu`'s.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root

import l0  # noqa: E402
from benchmarks.flattening import Figures, figures, read_sizes  # noqa: E402
from l0.bigstack import call_with_big_stack  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LOCVOLCALIB = ROOT / "benchmarks" / "programs" / "locvolcalib.l0"

# OUTER, NUM_X, NUM_Y, NUM_T, s0, t, alpha, nu, beta (finpar's input.data)
SMALL = "4 // OUTER\n16 // NUM_X\n32 // NUM_Y\n8 // NUM_T\n0.03\n5.0\n0.2\n0.6\n0.5\n"


@pytest.fixture(scope="module")
def flattened() -> tuple[str, Figures, list[dict[str, object]]]:
    prog = l0.compile(LOCVOLCALIB, backend="gpu-sim", profile=True)
    printed = call_with_big_stack(lambda: prog.run_main(SMALL))
    records = prog.profile_records()
    return printed, figures(records, read_sizes(SMALL)), records


def test_output_is_cpus(flattened: tuple[str, Figures, list[dict[str, object]]]) -> None:
    printed, _, _ = flattened
    cpu = l0.compile(LOCVOLCALIB, backend="cpu")
    assert printed == call_with_big_stack(lambda: cpu.run_main(SMALL))


def test_work_is_in_wide_kernels(flattened: tuple[str, Figures, list[dict[str, object]]]
                                 ) -> None:
    _, found, records = flattened
    assert found.wide_iteration_share >= 0.9, records
    # The step's grid-wide kernels: launched once per time step, each over all strikes
    # and a grid axis (NUM_T - 1 = 7 steps).
    steps = [r for r in records if r["launches"] == 7
             and r["iterations"] >= found.wide_iterations_per_launch * 7]  # type: ignore[operator]
    assert len(steps) >= 3, records


def test_launches_are_bounded(flattened: tuple[str, Figures, list[dict[str, object]]]
                              ) -> None:
    _, found, records = flattened
    assert found.launches_per_run <= found.launch_bound, records


def test_unflattened_profile_fails_the_figures() -> None:
    # The figures can fail: one launch of one thread per strike has no wide kernel.
    one = [{"name": "main:map", "launches": 1, "threads": 256, "iterations": 4,
            "time_us": 10.0}]
    found = figures(one, read_sizes(SMALL))
    assert found.wide_iteration_share == 0.0 and not found.met


def test_bad_dataset_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="OUTER, NUM_X, NUM_Y and NUM_T"):
        read_sizes("16\n32\n0.5\n")
