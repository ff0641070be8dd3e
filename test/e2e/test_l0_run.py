"""`l0-run` as a user sees it: output, exit statuses, timing files, binary values, and a
light start-up.

Most tests call its `main` in this process (`in_process.py`); the real console script,
the start-up's imports and a missing OpenMP runtime are checked in processes of their own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from in_process import Ran, run_tool

from l0.cli.run import main
from l0.types import ArrayType, Basic, BasicType
from l0.values.binary import write_binary

INT, REAL, BOOL = (BasicType(k) for k in (Basic.INT, Basic.REAL, Basic.BOOL))


def arr(t: BasicType, rank: int = 1) -> ArrayType:
    return ArrayType(t, rank)

ROOT = Path(__file__).resolve().parents[2]


def l0_run(args: list[str], stdin: str = "", tmp: Path | None = None) -> Ran:
    return run_tool(main, args, stdin, cwd=tmp or ROOT)


def l0_run_bytes(args: list[str], stdin: bytes) -> Ran:
    return run_tool(main, args, stdin)


@pytest.fixture
def prog(tmp_path: Path):
    def write(text: str) -> str:
        path = tmp_path / "p.l0"
        path.write_text(text)
        return str(path)

    return write


def test_runs_example() -> None:
    """The console script itself, in a process of its own."""
    r = subprocess.run([str(Path(sys.executable).parent / "l0-run"), "examples/blackscholes.l0"],
                       input=(ROOT / "examples/blackscholes.in").read_text(),
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("[1.471058, ")
    assert r.stdout == l0_run(["examples/blackscholes.l0"],
                              (ROOT / "examples/blackscholes.in").read_text()).stdout


def test_compile_error_is_located(prog) -> None:
    path = prog("fun int main(int x) =\n  x + True")
    r = l0_run([path], "1")
    assert r.returncode == 2
    assert r.stderr.startswith(f"{path}:2:")
    assert "Traceback" not in r.stderr


def test_runtime_error_is_located(prog) -> None:
    path = prog("fun int main([int] a) =\n  a[3]")
    r = l0_run([path], "[1, 2]")
    assert r.returncode == 2
    assert r.stderr.startswith(f"{path}:2:3: error: index 3 out of bounds")


def test_bad_input_value(prog) -> None:
    r = l0_run([prog("fun int main([int] a) = a[0]")], "[1, 2.5]")
    assert r.returncode == 2
    assert r.stderr.startswith("<stdin>:1:")


def test_missing_file() -> None:
    r = l0_run(["/nonexistent/x.l0"])
    assert r.returncode == 2
    assert "error: cannot read program" in r.stderr


def test_timing_file(prog, tmp_path: Path) -> None:
    times = tmp_path / "times.txt"
    path = prog("fun int main(int n) = reduce(op +, 0, iota(n))")
    r = l0_run(["-r", "3", "-t", str(times), path], "10")
    assert r.returncode == 0 and r.stdout.strip() == "45"
    lines = times.read_text().split()
    assert len(lines) == 3 and all(x.isdigit() for x in lines)


def test_repeated_runs_see_fresh_unique_arguments(prog) -> None:
    # main updates its unique argument in place; each of the 3 runs must start from the input.
    path = prog("fun *[int] main(*[int] a) = let a[0] = a[0] + 1 in a")
    r = l0_run(["-r", "3", path], "[1, 2]")
    assert r.stdout.strip() == "[2, 2]"


@pytest.mark.parametrize("backend", ["cpu", "interp"])
def test_repeated_runs_copy_only_unique_arguments(prog, backend: str) -> None:
    # A unique component among others (a tuple, a certificate before a sized array):
    # each run starts from the input, whatever the positions of the copied values.
    from l0.types import ArrayType, Basic, BasicType, TupleType
    from l0.values.arguments import consumed_arguments

    ints = BasicType(Basic.INT)
    params = [ArrayType(ints, 1), TupleType((ints, ArrayType(ints, 1, unique=True)))]
    copied = consumed_arguments(params)
    assert copied.count(True) == 1 and len(copied) >= 3
    path = prog("fun *[int] main([int] b, {int, *[int]} p) =\n"
                "  let {k, a} = p in let a[0] = a[0] + b[0] + k in a")
    r = l0_run([f"--backend={backend}", "-r", "3", path], "[10, 20] 1 [1, 2]")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[12, 2]"


def test_startup_imports_no_code_generator(prog) -> None:
    path = prog("fun int main() = 1")
    code = (
        "import sys\nfrom l0.cli.run import main\n"
        f"try:\n    main(['--backend=interp', {path!r}])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('numba', 'llvmlite') if m in sys.modules))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.stdout.split() == ["1", "[]"]


def test_inhibit_uniqueness_checking_keeps_value_semantics(prog) -> None:
    # Rejected by the sequence rule; with the checks off, the update must not be seen.
    path = prog("fun int main(int n) = let a = iota(n) in (let a[0] = 5 in 0) + a[0]")
    assert l0_run([path], "3").returncode == 2
    r = l0_run(["--inhibit-uniqueness-checking", path], "3")
    assert r.returncode == 0 and r.stdout.strip() == "0"


def test_version_is_the_package_version_and_imports_no_compiler() -> None:
    from importlib.metadata import version

    code = (
        "import sys\nfrom l0.cli.run import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('xdsl', 'numpy', 'numba', 'llvmlite', 'l0.api')"
        " if m in sys.modules))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.stdout.splitlines() == [f"l0-run {version('l0')}", "[]"], r.stderr


@pytest.mark.parametrize("tool", ["run", "tool"])
def test_capital_v_is_the_version(tool: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`-V` prints the version in every tool (`-v` is verbose: l0-run, l0-opt, l0 compile)."""
    import importlib
    from importlib.metadata import version

    main = importlib.import_module(f"l0.cli.{tool}").main
    with pytest.raises(SystemExit) as info:
        main(["-V"])
    assert info.value.code in (0, None)
    name = "l0-run" if tool == "run" else "l0"
    assert capsys.readouterr().out == f"{name} {version('l0')}\n"


def test_errors_show_the_source_line_with_a_marker(prog) -> None:
    path = prog('fun int main(int x) =\n  let msg = trace("Computed RMS is:") in\n  msg + True')
    r = l0_run([path], "1")
    assert r.returncode == 2
    lines = r.stderr.splitlines()
    assert lines[0].startswith(f"{path}:3:3: error: ")  # the line tools parse stays first
    assert lines[1:4] == ["  |", "3 |   msg + True", "  |   ^^^"]


def test_runtime_errors_show_the_source_line(prog) -> None:
    path = prog("fun int main([int] a) =\n\tlet b = a in\n\tb[3]")
    for backend in ("cpu", "interp"):
        r = l0_run([f"--backend={backend}", path], "[1, 2]")
        assert r.returncode == 2
        assert r.stderr.splitlines()[1:4] == ["  |", "3 | \tb[3]", "  | \t^"], r.stderr


def test_values_left_over_on_stdin_are_errors(prog) -> None:
    path = prog("fun int main(int x, [real] y) = x")
    assert l0_run([path], "1 [2.0]\n// a comment\n\n").stdout == "1\n"
    r = l0_run([path], "1 [2.0]\n// two values\n 3 4\n")
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        "<stdin>:3:2: error: unexpected `3` after the last argument (expected 2 values)",
        "  |",
        "3 |  3 4",
        "  |  ^",
    ]
    r = l0_run([prog("fun int main() = 1")], "5")
    assert r.returncode == 2 and r.stderr.startswith("<stdin>:1:1: error: unexpected `5`")


def test_out_of_range_literals_are_errors(prog) -> None:
    path = prog("fun int main(int x) = x")
    r = l0_run([path], "\n 99999999999999999999999")
    assert r.returncode == 2
    assert r.stderr.startswith("<stdin>:2:2: error: integer `99999999999999999999999` is out")
    assert r.stderr.splitlines()[3] == "  |  " + "^" * 23
    assert l0_run([path], "-9223372036854775808").stdout == "-9223372036854775808\n"
    r = l0_run([prog("fun int main() =\n  99999999999999999999999 + 1")])
    assert r.returncode == 2
    assert r.stderr.splitlines()[0].endswith(":2:3: error: integer literal "
                                             "'99999999999999999999999' is out of the 64-bit range")
    assert r.stderr.splitlines()[3] == "  |   " + "^" * 23
    assert l0_run([prog("fun int main() = -9223372036854775808")]).stdout == (
        "-9223372036854775808\n"
    )


def test_run_offers_the_back_ends_of_the_api() -> None:
    from l0.api import BACKENDS
    from l0.cli import run

    assert run.BACKENDS == BACKENDS


def test_a_missing_openmp_runtime_is_one_line_and_exit_2(prog, tmp_path: Path) -> None:
    # L0_LIBGOMP points the loader at a library that is not there.
    missing = tmp_path / "no" / "libgomp.so.1"
    r = subprocess.run(
        [sys.executable, "-c", "from l0.cli.run import main; main()", "--backend=multicore",
         prog("fun int main() = 1\n")],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={**os.environ, "L0_LIBGOMP": str(missing)},
    )
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "error: the multicore back end cannot load libgomp" in lines[0]
    assert str(missing) in lines[0] and "internal" not in lines[0]
    assert r.stdout == ""


@pytest.mark.parametrize("flags,message", [
    (["--threads", "2"], "--threads applies to --backend=multicore only, not cpu"),
    (["--backend=gpu-sim", "--threads", "2"], "--threads applies to --backend=multicore only"),
    (["--backend=interp", "--fast-math"], "--fast-math applies to the compiled back ends only"),
])
def test_options_the_back_end_would_ignore_are_refused(
        flags: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    from l0.cli.run import main

    with pytest.raises(SystemExit) as info:
        main([*flags, "prog.l0"])
    assert info.value.code == 2
    assert capsys.readouterr().err.startswith(f"l0-run: error: {message}")



# -- binary values in and out (`l0-run -b`, Futhark's binary format) --------------------


@pytest.mark.parametrize("backend", ["cpu", "interp"])
def test_l0_run_binary_in_and_out(backend: str, tmp_path: Path) -> None:
    prog = tmp_path / "p.l0"
    prog.write_text("fun {[[real]], int, [bool]} main([[real]] m, int k, [bool] b) =\n"
                    "  {map(fn [real] ([real] r) => map(op * (2.0), r), m), k + 1, b}\n")
    m = np.arange(6.0).reshape(2, 3)
    data = write_binary(arr(REAL, 2), m) + b" 41 " + write_binary(arr(BOOL), np.array([True]))
    text = l0_run_bytes([f"--backend={backend}", str(prog)], data)
    assert text.returncode == 0, text.stderr
    assert text.stdout_bytes == b"{[[0.000000, 2.000000, 4.000000], [6.000000, 8.000000, " \
                          b"10.000000]], 42, [True]}\n"
    binary = l0_run_bytes([f"--backend={backend}", "-b", str(prog)], data)
    assert binary.returncode == 0, binary.stderr
    assert binary.stdout_bytes == (write_binary(arr(REAL, 2), 2 * m) + write_binary(INT, 42)
                             + write_binary(arr(BOOL), np.array([True])))
    again = l0_run_bytes([f"--backend={backend}", str(prog)], binary.stdout_bytes)
    assert again.stdout_bytes.startswith(b"{[[0.000000, 4.000000, 8.000000], ")


def test_l0_run_bad_binary_input_is_located(tmp_path: Path) -> None:
    prog = tmp_path / "p.l0"
    prog.write_text("fun int main([int] a) = a[0]\n")
    r = l0_run_bytes([str(prog)], write_binary(arr(REAL), np.ones(2)))
    assert r.returncode == 2
    assert r.stderr.startswith("<stdin>:1:1: error: expected a value of type [int]")


def test_l0_run_dimensions_past_64_bits_are_located(tmp_path: Path) -> None:
    # Once an internal error (numpy: "Maximum allowed dimension exceeded").
    prog = tmp_path / "p.l0"
    prog.write_text("fun int main([[int]] a) = size(0, a)\n")
    header = b"b\x02\x02 i64" + (2**64 - 1).to_bytes(8, "little") + (0).to_bytes(8, "little")
    r = l0_run_bytes(["--backend=interp", str(prog)], header)
    assert r.returncode == 2
    assert r.stderr.startswith("<stdin>:1:1: error: binary value too large: "
                               "18446744073709551615x0 of ' i64'")
