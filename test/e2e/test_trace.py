"""`trace` prints byte-identical stderr (and stdout) through `l0-run` on every back end.

Real L0 programs trace strings before their results (`trace("\\n\\nComputed RMS is: ")`);
compiled code once printed a freed buffer's bytes there instead (deallocation freed the
string before the runtime call that read its extracted pointer). The program traces
strings (also inside a loop and a function), arrays of every rank and each scalar type.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from in_process import Ran, run_tool

from l0.cli.run import main

PROGRAM = Path(__file__).parents[1] / "programs" / "basics" / "trace_strings.l0"


def _run(backend: str, level: str) -> Ran:
    return run_tool(main, [f"--backend={backend}", level, str(PROGRAM)],
                    PROGRAM.with_suffix(".in").read_bytes())


@pytest.fixture(scope="module")
def reference() -> Ran:
    return _run("interp", "-O0")


def test_interpreter_traces_strings_as_text(reference: Ran) -> None:
    assert reference.returncode == 0, reference.stderr
    assert f"{PROGRAM}:3:11-3:40: \n\nComputed RMS is: \n".encode() in reference.stderr_bytes
    assert reference.stderr_bytes.count(b": step\n") == 3


@pytest.mark.parametrize(("backend", "level"),
                         [("interp", "-O"), ("cpu", "-O"), ("cpu", "-O0")])
def test_backends_trace_identically(backend: str, level: str, reference: Ran) -> None:
    got = _run(backend, level)
    assert got.returncode == 0, got.stderr
    assert got.stderr_bytes == reference.stderr_bytes
    assert got.stdout_bytes == reference.stdout_bytes
