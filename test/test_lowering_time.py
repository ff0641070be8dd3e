"""`python -m benchmarks.lowering_time` runs: it finds the corpus and counts what it
compiled (its times are measured, never asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root

from benchmarks.lowering_time import lowering_times, main, runnable  # noqa: E402
from l0.bigstack import call_with_big_stack  # noqa: E402


def test_it_finds_the_runnable_corpus() -> None:
    programs = runnable()
    assert programs and all(p.with_suffix(".in").exists() for p in programs)
    assert runnable(every=100) == programs[::100]


def test_it_times_each_back_end() -> None:
    first = runnable()[:1]
    totals = call_with_big_stack(lambda: lowering_times(first, ["cpu", "gpu-sim"]))
    assert set(totals) == {"cpu", "gpu-sim"}
    assert all(n == 1 and low > 0 and emit > 0 for low, emit, n in totals.values())


def test_it_prints_a_total(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--every", "1000", "--targets", "cpu"])
    out = capsys.readouterr().out
    assert "1 corpus programs" in out and "all" in out
