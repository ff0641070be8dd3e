"""Multicore's versioned flattening (`interchange{versioned=true}`,
`distribute{versioned=true}`: Note [Versions of a nest] in `l0.passes.cores.versions`,
docs/backend.md "Multicore"): a nest runs as it was when its outer size reaches the
threshold `SITE.flatten_below` (default: the thread count), else its flattened copy,
whose perfect nests run over outer x inner iterations on the threads.

The structure is read from the profile (iterations per region); results and errors are
the interpreter's in both versions, each forced through the parameter, on 1, 2 and 3
threads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import l0
from l0.diagnostics import L0Error
from l0.frontend import l0_to_module
from l0.interp.core import Interpreter
from l0.passes.pipeline import optimise

PROGRAMS = Path(__file__).parent / "programs"
CORPUS = ("loops/distribute_time_loop", "loops/distribute_rows", "loops/distribute_branch",
          "runtime/distribute_smallest_failing")
LOCVOLCALIB = Path(__file__).parent.parent / "benchmarks" / "programs" / "locvolcalib.l0"
ALWAYS_FLAT = 1 << 40
"""A threshold no outer size reaches: the flattened copy runs."""


def _compile(source: str, backend: str = "multicore", **options: Any) -> Any:
    prog = l0.compile(source, backend=backend, profile=True, cache=False, **options)
    prog.reset_profile()
    return prog


def _thresholds(prog: Any) -> list[str]:
    return [p for p in prog.param_values() if p.endswith(".flatten_below")]


def _per_launch(prog: Any) -> dict[str, float]:
    """Iterations per launch of each region that ran."""
    return {r["name"]: r["iterations"] / r["launches"]
            for r in prog.profile_records() if r["launches"]}


def _launches(prog: Any) -> int:
    """The most launches of a region that ran."""
    return max(r["launches"] for r in prog.profile_records())


def _per_step(prog: Any, steps: int) -> int:
    """How many regions were opened once per time step."""
    return sum(r["launches"] == steps for r in prog.profile_records())


def _locvolcalib_input(outer: int) -> str:
    # OUTER, NUM_X, NUM_Y, NUM_T, then finpar's s0, t, alpha, nu, beta
    return f"{outer} 16 8 4 0.03 5.0 0.2 0.6 0.5"


def test_the_outer_size_chooses_the_version() -> None:
    prog = _compile(str(LOCVOLCALIB), threads=2)
    (threshold,) = _thresholds(prog)
    assert prog.param_defaults()[threshold] == 2  # the thread count
    cpu = l0.compile(LOCVOLCALIB, cache=False)
    # One strike on two threads: the flattened copy, whose regions are opened at each
    # of the 3 time steps, two per step (the step's host code moves out of the way,
    # Note [One region per parallel phase]: an index check after a phase that may fail
    # ends the first), the second spanning the strike's grid rows and columns (16 + 8:
    # the tridiagonal solves along x, then along y, as phases of one region), where
    # the map as it was is one region, opened once, of one iteration.
    one = _locvolcalib_input(1)
    assert prog.run_main(one) == cpu.run_main(one)
    assert (_launches(prog), _per_step(prog, 3), max(_per_launch(prog).values())) \
        == (3, 2, 16 + 8)
    assert prog.compared_sizes()[threshold].sizes == (1,)  # `l0 autotune`'s candidates
    # Four strikes fill two threads: the map as it was, each region opened once.
    four = _locvolcalib_input(4)
    prog.reset_profile()
    assert prog.run_main(four) == cpu.run_main(four)
    assert _launches(prog) == 1
    # Forced either way by the parameter, the same result.
    for value, flat in ((0, False), (ALWAYS_FLAT, True)):
        prog.set_params({threshold: value})
        prog.reset_profile()
        assert prog.run_main(four) == cpu.run_main(four)
        assert (_launches(prog), max(_per_launch(prog).values()) == 4 * (16 + 8)) \
            == ((3, True) if flat else (1, False))


def _expected(name: str) -> tuple[str, str | None]:
    out, err = PROGRAMS / f"{name}.out", PROGRAMS / f"{name}.err"
    if err.exists():
        return "", err.read_text().strip()
    return out.read_text().strip(), None


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("name", CORPUS)
def test_both_versions_give_the_interpreters_results(name: str, threads: int) -> None:
    prog = _compile(str(PROGRAMS / f"{name}.l0"), threads=threads)
    thresholds = _thresholds(prog)
    assert thresholds, "no versioned nest in the program"
    text = (PROGRAMS / f"{name}.in").read_text()
    out, err = _expected(name)
    ran = []
    for value in (0, ALWAYS_FLAT):
        prog.set_params(dict.fromkeys(thresholds, value))
        prog.reset_profile()
        if err is None:
            assert prog.run_main(text) == out
            ran.append(set(_per_launch(prog)))
        else:
            with pytest.raises(L0Error) as failed:
                prog.run_main(text)
            assert err in str(failed.value)
    if err is None:
        assert ran[0] != ran[1], "both settings ran the same regions"


def test_the_interpreter_runs_the_versioned_ir() -> None:
    # The interpreter takes a threshold's default on one thread (`soac.threshold`):
    # 3 strikes reach 1, so the nest as it was; 0 strikes take the flattened copy.
    source = (PROGRAMS / "loops" / "distribute_time_loop.l0").read_text()
    module = l0_to_module(source, "distribute_time_loop.l0")
    optimise(module, target="multicore")
    assert "soac.threshold" in str(module)
    grid = np.array([[1.0, 2.0], [3.0, 4.0]])
    reference = l0.compile(source, backend="interp")
    for strikes in (np.array([0.5, 1.0, 1.5]), np.zeros(0)):
        (got,) = Interpreter(module).call("main", [3, strikes, grid])
        np.testing.assert_array_equal(got, reference.main(3, strikes, grid))
