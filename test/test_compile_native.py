"""`l0 compile`: native executables print exactly what `l0-run` prints.

Each program is compiled with `l0.lowering.native.build_executable` and run on its
`X.in`; its stdout, stderr and exit status must be byte for byte those of `l0-run`
(computed in this process the way `l0-run` computes them: the same `CompiledProgram`,
trace output captured). A representative subset runs by default; `make native-corpus`
(`L0_NATIVE_CORPUS=1`) runs every runnable program of `test/programs/`.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from l0.lowering import trace
from l0.lowering.native import build_executable
from test_corpus_cpu import PROGRAMS as RUNNABLE
from test_corpus_cpu import ROOT

from l0.api import CompiledProgram
from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error, format_error, register_source

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CC", "cc")) is None,
                                reason="no C compiler")

# Scalars of every kind, chars and strings, tuples and arrays of tuples, certificates,
# empty arrays, reals that need GHC's rounding, trace, and run-time errors.
SUBSET = [
    "basics/chars", "basics/strings", "basics/cert_result", "arrays/empty_arrays",
    "arrays/transpose3d", "tuples/array2d_of_tuples", "basics/trace", "basics/realfmt",
    "runtime/index_read", "runtime/assert_fail",
]
ALL = os.environ.get("L0_NATIVE_CORPUS") == "1"
PROGRAMS = RUNNABLE if ALL else [ROOT / f"{name}.l0" for name in SUBSET]


def l0_run_output(path: Path, stdin: str) -> tuple[str, str, int]:
    """(stdout, stderr, exit status) of `l0-run PATH < stdin`, in this process."""
    text = path.read_text(encoding="utf-8")
    register_source(str(path), text)
    stream = io.StringIO()
    old, trace.STREAM = trace.STREAM, stream
    try:
        prog = call_with_big_stack(lambda: CompiledProgram(
            text, str(path), "cpu", main_only=True, isolate=False))
        out = prog.run_main(stdin) + "\n"
        return out, stream.getvalue(), 0
    except L0Error as err:
        return "", stream.getvalue() + format_error(err) + "\n", 2
    finally:
        trace.STREAM = old


def compile_and_run(path: Path, tmp: Path, stdin: bytes, *args: str
                    ) -> subprocess.CompletedProcess[bytes]:
    exe = tmp / path.stem
    build_executable(path.read_text(encoding="utf-8"), str(path), exe)
    return subprocess.run([str(exe), *args], input=stdin, capture_output=True, timeout=120,
                          check=False)


@pytest.mark.parametrize("path", PROGRAMS, ids=[str(p.relative_to(ROOT)) for p in PROGRAMS])
def test_executable_prints_as_l0_run(path: Path, tmp_path: Path) -> None:
    stdin = path.with_suffix(".in").read_text(encoding="utf-8")
    want_out, want_err, want_status = l0_run_output(path, stdin)
    got = compile_and_run(path, tmp_path, stdin.encode("utf-8"))
    assert got.stdout.decode("utf-8") == want_out
    assert got.stderr.decode("utf-8") == want_err
    assert got.returncode == want_status
