"""Run the lit + filecheck regression tests (`test/lit/`) as part of pytest.

lit runs in a subprocess with this Python, so `test/lit/lit.cfg` finds l0-opt,
filecheck and lit's tools in this interpreter's bin directory. The tools its RUN lines
start run in a fork server (`toolserver.py`, Note [A forked tool is a fresh process]):
each is a fresh process, forked after the imports that cost a new interpreter about
2.5 s; `make lit` runs the real tools. There is one test per directory of `test/lit/`
(lit finds `lit.cfg` above it), so that pytest-xdist spreads the directories over its
workers: as one test, lit was the longest test of the suite and ran last on one worker.
Each test fails when any of its lit tests fails, and shows lit's report of the failures.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from toolserver import ToolServer

LIT_DIR = Path(__file__).parent / "lit"
LIT_MAIN = "from lit.main import main; main()"
SUFFIXES = (".mlir", ".l0")  # as lit.cfg's `config.suffixes`
DIRECTORIES = sorted(p.name for p in LIT_DIR.iterdir() if p.is_dir() and p.name != "Output")


def _jobs() -> str:
    """lit's worker count: one under pytest-xdist, whose workers share the cores."""
    return "1" if "PYTEST_XDIST_WORKER" in os.environ else "2"


@pytest.fixture(scope="session")
def tools() -> Iterator[str]:
    """The directory of the tool server's stand-ins (one server per test process)."""
    with ToolServer() as server:
        yield server.directory


def _lit(path: Path, tools: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", LIT_MAIN, f"-j{_jobs()}", "-v", str(path)],
        capture_output=True, text=True, timeout=1200,
        env={**os.environ, "L0_LIT_TOOLS": tools},
    )


@pytest.mark.timeout(1500)  # lit's own limit (1200 s), and then some
@pytest.mark.parametrize("directory", DIRECTORIES)
def test_lit(directory: str, tools: str) -> None:
    proc = _lit(LIT_DIR / directory, tools)
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"lit failed (status {proc.returncode}):\n{report[-20000:]}"
    assert "Passed:" in report, f"lit ran no test:\n{report}"


def test_every_lit_test_is_in_a_directory() -> None:
    """The tests above run the directories only: no lit test may sit beside lit.cfg."""
    loose = [p.name for p in LIT_DIR.iterdir() if p.is_file() and p.suffix in SUFFIXES]
    assert loose == []
    assert len(DIRECTORIES) >= 5


# -- the tool server: lit sees what it sees of the real tools ----------------------------

FAILING_CHECK = """\
// RUN: l0-opt %s | filecheck %s
// CHECK: func.func @no_such_function
func.func @f() {
  func.return
}
"""


def test_a_failing_check_fails_through_the_server(tools: str, tmp_path: Path) -> None:
    """A CHECK that does not match fails its lit test, and lit names the tools it ran
    (the stand-ins); the same file with the CHECK right passes."""
    suite = tmp_path / "lit"
    (suite / "t").mkdir(parents=True)
    (suite / "lit.cfg").write_text((LIT_DIR / "lit.cfg").read_text(encoding="utf-8"),
                                   encoding="utf-8")
    test = suite / "t" / "check.mlir"
    test.write_text(FAILING_CHECK, encoding="utf-8")
    failed = _lit(suite / "t", tools)
    assert failed.returncode != 0 and "Failed: 1" in failed.stdout + failed.stderr
    assert "no_such_function" in failed.stdout + failed.stderr
    test.write_text(FAILING_CHECK.replace("@no_such_function", "@f"), encoding="utf-8")
    passed = _lit(suite / "t", tools)
    assert passed.returncode == 0 and "Passed: 1" in passed.stdout + passed.stderr


def _stand_in(tools: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([os.path.join(tools, args[0]), *args[1:]], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_the_stand_ins_exit_and_print_as_the_tools(tools: str, tmp_path: Path) -> None:
    """Exit status, standard output and error kept apart, standard input and the
    working directory reach the forked tool as they reach the real one (lit's `env`
    lines, in `test/lit/`, need the environment)."""
    prog = tmp_path / "p.l0"
    prog.write_text("fun int main(int x) = x + 1\n", encoding="utf-8")
    ran = subprocess.run([os.path.join(tools, "l0-run"), "--backend=interp", "p.l0"],
                         input="41", capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert (ran.returncode, ran.stdout.strip(), ran.stderr) == (0, "42", "")
    bad = _stand_in(tools, "l0-run", "--backend=interp", str(prog), stdin="True")
    assert bad.returncode == 2 and bad.stdout == "" and "error:" in bad.stderr
    usage = _stand_in(tools, "l0-opt", "--no-such-option")
    assert usage.returncode == 2 and "usage: l0-opt" in usage.stderr
    real = subprocess.run([os.path.join(os.path.dirname(sys.executable), "l0-opt"),
                           "--no-such-option"], capture_output=True, text=True, timeout=120)
    assert (usage.returncode, usage.stdout, usage.stderr) == (
        real.returncode, real.stdout, real.stderr)
