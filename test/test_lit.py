"""Run the lit + filecheck regression tests (`test/lit/`) as part of pytest.

lit runs in a subprocess with this Python, so `test/lit/lit.cfg` finds l0-opt,
filecheck and lit's tools in this interpreter's bin directory. The test fails when any
lit test fails, and shows lit's report of the failures.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LIT_DIR = Path(__file__).parent / "lit"
LIT_MAIN = "from lit.main import main; main()"


def test_lit() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", LIT_MAIN, "-j2", "-v", str(LIT_DIR)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"lit failed (status {proc.returncode}):\n{report[-20000:]}"
    assert "Passed:" in report, f"lit ran no test:\n{report}"
