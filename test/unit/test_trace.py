"""`trace` prints byte-identical stderr (and stdout) through `l0-run` on every back end.

Real L0 programs trace strings before their results (`trace("\\n\\nComputed RMS is: ")`);
compiled code once printed a freed buffer's bytes there instead (deallocation freed the
string before the runtime call that read its extracted pointer). The program traces
strings (also inside a loop and a function), arrays of every rank and each scalar type.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROGRAM = Path(__file__).parents[1] / "programs" / "basics" / "trace_strings.l0"


def _run(backend: str, level: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", "from l0.cli.run import main; main()",
         f"--backend={backend}", level, str(PROGRAM)],
        stdin=PROGRAM.with_suffix(".in").open("rb"), capture_output=True, check=False,
    )


@pytest.fixture(scope="module")
def reference() -> subprocess.CompletedProcess[bytes]:
    return _run("interp", "-O0")


def test_interpreter_traces_strings_as_text(
        reference: subprocess.CompletedProcess[bytes]) -> None:
    assert reference.returncode == 0, reference.stderr
    assert f"{PROGRAM}:3:11-3:40: \n\nComputed RMS is: \n".encode() in reference.stderr
    assert reference.stderr.count(b": step\n") == 3


@pytest.mark.parametrize(("backend", "level"),
                         [("interp", "-O"), ("cpu", "-O"), ("cpu", "-O0")])
def test_backends_trace_identically(backend: str, level: str,
                                    reference: subprocess.CompletedProcess[bytes]) -> None:
    got = _run(backend, level)
    assert got.returncode == 0, got.stderr
    assert got.stderr == reference.stderr
    assert got.stdout == reference.stdout
