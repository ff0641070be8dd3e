"""Run the lit + filecheck regression tests (`test/lit/`) as part of pytest.

lit runs in a subprocess with this Python, so `test/lit/lit.cfg` finds l0-opt,
filecheck and lit's tools in this interpreter's bin directory. There is one test per
directory of `test/lit/` (lit finds `lit.cfg` above it), so that pytest-xdist spreads
the directories over its workers: as one test, lit was the longest test of the suite
and ran last on one worker. Each test fails when any of its lit tests fails, and
shows lit's report of the failures.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

LIT_DIR = Path(__file__).parent / "lit"
LIT_MAIN = "from lit.main import main; main()"
SUFFIXES = (".mlir", ".l0")  # as lit.cfg's `config.suffixes`
DIRECTORIES = sorted(p.name for p in LIT_DIR.iterdir() if p.is_dir() and p.name != "Output")


def _jobs() -> str:
    """lit's worker count: one under pytest-xdist, whose workers share the cores."""
    return "1" if "PYTEST_XDIST_WORKER" in os.environ else "2"


@pytest.mark.timeout(1500)  # lit's own limit below, and then some
@pytest.mark.parametrize("directory", DIRECTORIES)
def test_lit(directory: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", LIT_MAIN, f"-j{_jobs()}", "-v", str(LIT_DIR / directory)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"lit failed (status {proc.returncode}):\n{report[-20000:]}"
    assert "Passed:" in report, f"lit ran no test:\n{report}"


def test_every_lit_test_is_in_a_directory() -> None:
    """The tests above run the directories only: no lit test may sit beside lit.cfg."""
    loose = [p.name for p in LIT_DIR.iterdir() if p.is_file() and p.suffix in SUFFIXES]
    assert loose == []
    assert len(DIRECTORIES) >= 5
