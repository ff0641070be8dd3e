"""`l0-run -v`: the time of every stage on stderr (Note [Stage probes]).

Every stage is checked in a process of its own, where nothing is compiled yet (the JIT
keeps what a process compiled, and a second compilation would skip stages); the rest
call `main` in this process (`in_process.py`)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from in_process import run_tool

from l0.cli import run
from l0.cli.stages import CACHE_STAGES, STAGES, run_with_stage_times, timed_stages

PROG = "fun real main([real] xs) = reduce(op +, 0.0, map(op * (2.0), xs))\n"


def l0_run(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from l0.cli.run import main; main()", *args],
                          input=stdin, capture_output=True, text=True, timeout=120)


def _stages(stderr: str) -> dict[str, float]:
    out = {}
    for line in stderr.splitlines():
        if line.startswith("l0-run: allocations per run of main: "):
            continue  # -v's allocation count (cpu, multicore), checked where expected
        name, _, rest = line.rpartition("  ")
        assert rest.endswith(" ms"), line
        out[name.strip()] = float(rest[:-3])
    return out


def test_every_stage_is_reported_on_the_cpu_back_end(tmp_path: Path) -> None:
    prog = tmp_path / "p.l0"
    prog.write_text(PROG)
    r = l0_run(["-v", str(prog)], "[1.0, 2.0]")
    assert r.returncode == 0 and r.stdout == "6.000000\n"
    assert "l0-run: allocations per run of main: " in r.stderr
    times = _stages(r.stderr)
    # the cache is off in the tests (test/conftest.py; test_cache.py checks its stages)
    expected = {stage for stage, _, _ in STAGES} - CACHE_STAGES | {"total"}
    assert set(times) == expected
    assert abs(times["total"] - sum(t for s, t in times.items() if s != "total")) < 0.01
    assert all(t >= 0 for t in times.values())


def test_interpreter_and_errors(tmp_path: Path) -> None:
    prog = tmp_path / "p.l0"
    prog.write_text(PROG)
    r = run_tool(run.main, ["-v", "--backend=interp", str(prog)], "[1.0]")
    assert r.returncode == 0
    assert "LLVM IR" not in r.stderr and "run main" in r.stderr
    # an input error: the stages so far, and the error
    r = run_tool(run.main, ["-v", str(prog)], "[1]")
    assert r.returncode == 2
    assert "<stdin>:1:2: error" in r.stderr and "parse input" in r.stderr


def test_probes_are_removed_afterwards() -> None:
    import l0.frontend  # noqa: F401 - the modules whose attributes are replaced
    from l0.syntax import parser

    before = parser.parse_program
    with timed_stages() as times:
        assert parser.parse_program is not before
        parser.parse_program("fun int main() = 1", "x.l0")
    assert parser.parse_program is before
    assert set(times.seconds) == {"parse"}
    stream = io.StringIO()
    assert run_with_stage_times(lambda: 5, stream) == 5
    assert stream.getvalue().startswith("total")
