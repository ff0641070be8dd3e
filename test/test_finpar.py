"""The real-world benchmarks (finpar's OptionPricing and InterestCalib, the thesis's R0
and R2) against finpar's expected results.

The datasets come from `benchmarks/finpar-data/` (tracked copies of finpar's small ones),
or `$L0_FINPAR_DIR` where it is set (`benchmarks.datagen.finpar_dataset`); a missing
dataset skips its test. The programs run on the cpu back end, compiled once; cut-down
inputs also run on the interpreter, which must print the same.

InterestCalib's genetic algorithm takes minutes on Small (`python -m benchmarks.run
interestcalib` validates it); here its genome evaluation is checked on the winning
genome of finpar's output.data, whose per-swaption prices and log-likelihood that file
holds, and the whole algorithm on a reduced configuration.
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
INTEREST_CALIB = PROGRAMS / "interestcalib.l0"


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


def cauchy_log_likelihood(quote: np.ndarray, price: np.ndarray) -> np.ndarray:
    """finpar's score of a price given its quote (the L0 program's `logLikelihood`)."""
    gamma = np.abs(quote) / 50.0 * 5.0 + 0.01
    x = (price - quote) / gamma
    return np.log(1.0 / (3.14159265358 * gamma * (1.0 + x * x)) + 1e-20)


def interest_calib_input(data: Path) -> list[object]:
    return datagen.read_main_arguments(INTEREST_CALIB, data / "input.data")


def test_interest_calib_genome_evaluation_matches_finpar() -> None:
    """output.data's winning genome priced by the L0 program: finpar's prices (it computed
    in single precision) and log-likelihood. output.data: a, b, sigma, nu, rho, the
    log-likelihood, then per swaption [calibrated price, Black price, % difference]."""
    data = dataset("InterestCalib", "Small")
    _, _, _, swaptions, _, coeffs, weights, _, _ = interest_calib_input(data)
    ref = datagen.finpar_reference(data)
    a, b, sigma, nu, rho, log_lik = ref[:6]
    table = ref[6:].reshape(-1, 3)
    prog = l0.compile(INTEREST_CALIB, backend="cpu")
    prices, quotes = (np.asarray(v) for v in prog.swaptionPrices(
        np.asarray(coeffs), np.asarray(weights), np.asarray(swaptions), a, b, rho, nu, sigma))
    assert np.abs(quotes * 1e4 - table[:, 1]).max() < 1e-5  # the Black prices
    assert np.abs(prices * 1e4 - table[:, 0]).max() < 0.1  # of prices up to 3000
    mine = cauchy_log_likelihood(quotes, prices)
    theirs = cauchy_log_likelihood(table[:, 1] / 1e4, table[:, 0] / 1e4)
    assert (theirs - mine).max() <= 0.7  # finpar's per-swaption criterion
    assert abs(mine.sum() - log_lik) < 1e-3


def test_interest_calib_genetic_algorithm_agrees_with_interpreter() -> None:
    """The whole program on 6 genomes, 4 generations and 5 swaptions: the unoptimised
    interpreter and the optimised compiled program print the same winner and table."""
    data = dataset("InterestCalib", "Small")
    _, _, _, swaptions, nh, coeffs, weights, bits, dirs = interest_calib_input(data)
    few = np.asarray(swaptions)[::40]
    values = [6, 4, len(few), few, nh, coeffs, weights, bits, dirs]
    text = "\n".join(datagen.l0_text(np.asarray(v)) for v in values)
    compiled = l0.compile(INTEREST_CALIB, backend="cpu").run_main(text)
    interpreted = l0.compile(INTEREST_CALIB, backend="interp", optimise=False).run_main(text)
    assert compiled == interpreted
    winner = printed_reals(compiled)
    assert winner.size == 6 + 3 * len(few) and -50.0 < winner[5] < 50.0
