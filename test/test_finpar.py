"""The real-world benchmarks (finpar's OptionPricing, the thesis's R0) against finpar's
expected results.

The datasets come from `benchmarks/finpar-data/` (tracked copies of finpar's small ones),
or `$L0_FINPAR_DIR` where it is set (`benchmarks.datagen.finpar_dataset`); a missing
dataset skips its test. The programs run on the cpu back end, compiled once; a cut-down
input (a few paths) also runs on the interpreter, which must print the same.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root

import l0  # noqa: E402
from benchmarks import datagen  # noqa: E402

PROGRAMS = Path(__file__).resolve().parent.parent / "benchmarks" / "programs"
OPTION_PRICING = PROGRAMS / "optionpricing.l0"
OPTION_PRICING_ATOL = 5e-4  # finpar's validation tolerance on each price


def dataset(benchmark: str, size: str) -> Path:
    path = datagen.finpar_dataset(benchmark, size)
    if not (path / "input.data").exists():
        pytest.skip(f"finpar dataset {benchmark}/{size} not found")
    return path


def printed_reals(text: str) -> np.ndarray:
    return np.array([float(t) for t in re.findall(r"-?\d+\.\d+(?:e[-+]?\d+)?", text)])


def with_paths(input_data: str, paths: int) -> str:
    """An OptionPricing input with its number of Monte-Carlo paths (the second value)
    replaced: the same contract and model, priced over fewer paths."""
    lines = input_data.splitlines()
    assert "Monte-Carlo" in lines[1]
    lines[1] = f"{paths} // number of Monte-Carlo Iterations"
    return "\n".join(lines)


@pytest.mark.parametrize("size", ["Medium", "Small"])
def test_option_pricing_matches_finpar(size: str) -> None:
    data = dataset("OptionPricing", size)
    prog = l0.compile(OPTION_PRICING, backend="cpu")
    prices = printed_reals(prog.run_main((data / "input.data").read_text()))
    expected = datagen.finpar_reference(data)
    assert prices.shape == expected.shape
    assert np.abs(prices - expected).max() <= OPTION_PRICING_ATOL, (prices, expected)


@pytest.mark.parametrize(("size", "paths"), [("Medium", 300), ("Small", 1000), ("Large", 20)])
def test_option_pricing_interpreter_agrees(size: str, paths: int) -> None:
    """Few paths (the price is far from finpar's): the interpreter, the reference
    semantics, and the compiled program print the same, chunks and their last partial
    one included (1000 = 15 chunks of 64 and 40)."""
    text = with_paths((dataset("OptionPricing", size) / "input.data").read_text(), paths)
    compiled = l0.compile(OPTION_PRICING, backend="cpu").run_main(text)
    interpreted = l0.compile(OPTION_PRICING, backend="interp").run_main(text)
    assert compiled == interpreted
