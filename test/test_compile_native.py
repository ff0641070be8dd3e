"""`l0 compile`: native executables print exactly what `l0-run` prints.

Each program is compiled with `l0.lowering.backends.native.build_executable` and run on its
`X.in`; its stdout, stderr and exit status must be byte for byte those of `l0-run`
(computed in this process the way `l0-run` computes them: the same `CompiledProgram`,
trace output captured). A representative subset runs by default; `make native-corpus`
(`L0_NATIVE_CORPUS=1`) runs every runnable program of `test/programs/`.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from corpus import ROOT, runnable

from l0.api import CompiledProgram
from l0.bigstack import call_with_big_stack
from l0.cli.compile import build
from l0.diagnostics import L0Error, format_error, register_source
from l0.lowering.runtime import trace_runtime as trace

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
PROGRAMS = [p.path for p in runnable()] if ALL else [ROOT / f"{name}.l0" for name in SUBSET]


def l0_run_output(path: Path, stdin: str) -> tuple[str, str, int]:
    """(stdout, stderr, exit status) of `l0-run PATH < stdin`, in this process."""
    text = path.read_text(encoding="utf-8")
    register_source(str(path), text)
    register_source("<stdin>", stdin)  # as l0-run does, for the line shown with an error
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
    build(path.read_text(encoding="utf-8"), str(path), exe)
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


REALS = """fun [real] main([real] a) = a"""
TRICKY_REALS = [0.0, -0.0, 1.0, -2.5, 0.1, 1e-7, 5e-7, -5e-7, 1.5e-6, 2.5e-6, 0.0000005,
                0.1234565, 0.1234575, 1234.5678905, 99999999.9999995, 1e8, 123456789.125,
                1e22, 1e23, 1.7976931348623157e308, 5e-324, -1e300, 3.14159265358979,
                float("inf"), float("-inf"), float("nan")]


def _build(tmp: Path, source: str, name: str = "prog") -> Path:
    src = tmp / f"{name}.l0"
    src.write_text(source, encoding="utf-8")
    exe = tmp / name
    build(source, str(src), exe)
    return exe


def test_reals_print_as_l0_run(tmp_path: Path) -> None:
    """Reals round as GHC's printf did (ties of the shortest digits, huge values)."""
    import random

    from l0.values import format_real

    rng = random.Random(7)
    values = TRICKY_REALS + [rng.uniform(-1e9, 1e9) for _ in range(200)] + [
        round(rng.uniform(-100, 100), 7) for _ in range(200)]
    exe = _build(tmp_path, REALS)
    text = "[" + ", ".join(_real_text(v) for v in values) + "]"
    got = subprocess.run([str(exe)], input=text.encode(), capture_output=True, check=True)
    want = "[" + ", ".join(format_real(v) for v in values) + "]\n"
    assert got.stdout.decode() == want


def _real_text(v: float) -> str:
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    return repr(v)


BINARY = """fun {[[int]], [real], [char], bool} main([[int]] m, [real] r, [char] s, bool b) =
  {m, map(fn real (real x) => x * 2.0, r), s, not b}"""


def test_binary_values_in_and_out(tmp_path: Path) -> None:
    """Binary and text values mix on stdin; `-b` writes the result as `l0-run -b` does."""
    import numpy as np

    from l0.types import CHAR, INT, REAL, ArrayType
    from l0.values.binary import write_binary, write_binary_values

    exe = _build(tmp_path, BINARY)
    m = np.arange(6, dtype=np.int64).reshape(2, 3)
    stdin = (write_binary(ArrayType(INT, 2), m) + b" [1.5, -2.0]\n"
             + write_binary(ArrayType(CHAR, 1), np.array([104, 105], dtype=np.int32))
             + b" True")
    got = subprocess.run([str(exe)], input=stdin, capture_output=True, check=True)
    assert got.stdout == b"{[[0, 1, 2], [3, 4, 5]], [3.000000, -4.000000], hi, False}\n"
    got_b = subprocess.run([str(exe), "-b"], input=stdin, capture_output=True, check=True)
    ret = load_ret(BINARY)
    want = write_binary_values(ret, [m, np.array([3.0, -4.0]), np.array([104, 105]), False])
    assert got_b.stdout == want
    bad = subprocess.run([str(exe)], input=write_binary(REAL, 1.0), capture_output=True,
                         check=False)
    assert bad.returncode == 2
    assert bad.stderr.decode() == ("<stdin>:1:1: error: expected a value of type [[int]] for "
                                   "parameter 1, found a binary value of rank 0 of ' f64' "
                                   "(binary form: rank 2 of ' i64')\n")
    # Dimensions that are no 64-bit size (beside a 0) or whose product leaves 64 bits,
    # and negative character codes: the errors of l0/values/binary.py.
    for dims in ((2**64 - 1, 0), (0, 2**63), (2**40, 2**40)):
        header = b"b\x02" + bytes([len(dims)]) + b" i64" + b"".join(
            d.to_bytes(8, "little") for d in dims)
        bad = subprocess.run([str(exe)], input=header, capture_output=True, check=False)
        assert bad.returncode == 2, dims
        assert bad.stderr.decode().startswith("<stdin>:1:1: error: binary value too large: "
                                              + "x".join(map(str, dims)) + " of ' i64' ")
    negative = write_binary(ArrayType(CHAR, 1), np.array([104, -1], dtype=np.int32))
    bad = subprocess.run([str(exe)], input=write_binary(ArrayType(INT, 2), m) + b" [1.5] "
                         + negative + b" True", capture_output=True, check=False)
    assert bad.returncode == 2
    assert bad.stderr.decode() == "<stdin>:1:79: error: binary ' i32' value is not a character " \
        "code\n"


# A certificate before a sized array, a tuple holding a unique array: the copied
# argument is not the first slot.
CONSUMED = """fun *[int] main([int] b, {int, *[int]} p) =
  let {k, a} = p in let a[0] = a[0] + b[0] + k in a"""


def test_repeated_runs_copy_only_unique_arguments(tmp_path: Path) -> None:
    """`-r N`: every run starts from the input although main updates its unique argument
    in place, and only that argument is copied again (Note [Inputs of repeated runs]):
    `-v` counts the copies."""
    exe = _build(tmp_path, CONSUMED)
    got = subprocess.run([str(exe), "-r", "3", "-v"], input=b"[10, 20, 30] 1 [1, 2]",
                         capture_output=True, check=True)
    assert got.stdout == b"[12, 2]\n"
    assert got.stderr.decode() == ("arguments copied: 2 arrays (40 bytes) before the first "
                                   "run, 2 (32 bytes) before the 2 later ones\n")
    once = subprocess.run([str(exe), "-v"], input=b"[10, 20, 30] 1 [1, 2]",
                          capture_output=True, check=True)
    assert once.stdout == b"[12, 2]\n"
    assert once.stderr.decode().endswith("0 (0 bytes) before the 0 later ones\n")


def load_ret(source: str) -> object:
    from l0.frontend import load_program

    prog = load_program(source, "<test>")
    return next(f for f in prog.fundefs if f.name == "main").ret


LIBRARY = """fun {int, [[real]]} main([int] a, [[real]] m, int i) =
  {a[i], map(fn [real] ([real] row) => map(fn real (real x) => x + toReal(i), row), m)}"""


def test_library_module_calls_main(tmp_path: Path) -> None:
    """`--library`: the Python module calls the shared library with numpy arrays."""
    import importlib.util

    import numpy as np
    src = tmp_path / "lib.l0"
    src.write_text(LIBRARY, encoding="utf-8")
    paths = build(LIBRARY, str(src), tmp_path / "prog", library=True)
    assert [Path(p).name for p in paths] == ["libprog.so", "prog.h", "prog.py"]
    assert "int l0_main(int64_t *slots);" in (tmp_path / "prog.h").read_text()
    spec = importlib.util.spec_from_file_location("prog", tmp_path / "prog.py")
    assert spec is not None and spec.loader is not None
    prog = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(prog)
    a = np.array([5, 6, 7])
    m = np.arange(6.0).reshape(2, 3)
    first, rows = prog.main(a, m, 1)
    assert first == 6
    np.testing.assert_array_equal(rows, m + 1.0)
    np.testing.assert_array_equal(a, [5, 6, 7])  # arguments are not updated
    with pytest.raises(prog.L0RuntimeError, match="index 3 out of bounds"):
        prog.main(a, m, 3)


def test_library_module_rejects_chars_that_are_no_code_points(tmp_path: Path) -> None:
    import importlib.util

    import numpy as np
    source = "fun [char] main([char] s, char c) = concat(s, [c])"
    build(source, str(tmp_path / "chars.l0"), tmp_path / "chars", library=True)
    spec = importlib.util.spec_from_file_location("chars", tmp_path / "chars.py")
    assert spec is not None and spec.loader is not None
    prog = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(prog)
    assert list(prog.main("hi", "!")) == [104, 105, 33]
    assert list(prog.main(np.array([104, 105], dtype=np.int32), 33)) == [104, 105, 33]
    for s, c in (([104, -1], "!"), ([0x110000], "!"), ("hi", -5), ("hi", 0x110000)):
        with pytest.raises(ValueError, match="code point"):
            prog.main(s, c)


BAD_INPUT_PROGRAM = """fun [real] main([int] a, real x, [[char]] s) =
  map(fn real (int v) => toReal(v) * x, a)"""
BAD_INPUTS = ["[1,2", "[1,2,3] 5", "[1,2,3]", "[1,2.0] 0.5", "[[1]] 0.5",
              "[1] 0.5 [\"a\"] 7", "99999999999999999999 1.0", "empty(real) 2.0",
              "[] 1e400", "[1, 2x] 1.0", "(1,2)", "[1,2] 1.5.3", "[1] 1.0 [\"ab\", \"c\"]",
              "[1] 1.0 [[\'a\'], []]", "[1] 1.0 empty(char)", "[1] 1.0 \"ab\"",
              "[1] 1.0 [\"\u00e9t\u00e9\", \"abc\"] x",
              # escapes, as in programs (Haskell's)
              "[1] 1.0 [\"\\q\"]", "[1] 1.0 [\"\\x110000\"]", "[1] 1.0 [\"\\^1\"]",
              "[1] 1.0 [\"\\x\"]", "[1] 1.0 [\"a\\   b\"]", "[1] 1.0 [\"\\BEL\\SOH\\&1\"] x",
              "[1] 1.0 [['\\&']]", "[1] 1.0 [['ab']]", "[1] 1.0 [['']]", "[1] 1.0 [['\\DEL']] x"]


@pytest.fixture(scope="module")
def bad_input_exe(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("bad-input")
    src = tmp / "prog.l0"
    src.write_text(BAD_INPUT_PROGRAM, encoding="utf-8")
    build(BAD_INPUT_PROGRAM, str(src), tmp / "prog")
    return src, tmp / "prog"


@pytest.mark.parametrize("stdin", BAD_INPUTS)
def test_bad_input_reported_as_l0_run(bad_input_exe: tuple[Path, Path], stdin: str) -> None:
    """Malformed input: the same located message, line and caret as l0-run, status 2."""
    src, exe = bad_input_exe
    want_out, want_err, want_status = l0_run_output(src, stdin + "\n")
    got = subprocess.run([str(exe)], input=(stdin + "\n").encode(), capture_output=True,
                         check=False)
    assert (got.stdout.decode(), got.stderr.decode(), got.returncode) == (
        want_out, want_err, want_status)


C_CLIENT = r"""
#include <stdio.h>
#include "sum.h"
int main(void) {
    int64_t a[4] = {1, 2, 3, 4};
    int64_t slots[L0_MAIN_SLOTS] = {0, (int64_t)(intptr_t)a, 0, 4, 1, 2};
    if (l0_main(slots) != 0) { printf("error\n"); return 1; }
    printf("%ld\n", (long)slots[6]);
    slots[5] = 9;  /* out of bounds */
    if (l0_main(slots) != 0) printf("%s\n", l0_error());
    return 0;
}
"""
SUM = """fun int main([int] a, int i) = reduce(op +, 0, map(fn int (int x) => x * x, a)) + a[i]"""


def test_library_from_c(tmp_path: Path) -> None:
    """A C program calls the library through its header, as Futhark's C API is used."""
    src = tmp_path / "sum.l0"
    src.write_text(SUM, encoding="utf-8")
    build(SUM, str(src), tmp_path / "sum", library=True)
    (tmp_path / "client.c").write_text(C_CLIENT, encoding="utf-8")
    cc = shutil.which(os.environ.get("CC", "cc"))
    assert cc is not None
    subprocess.run([cc, "-o", str(tmp_path / "client"), str(tmp_path / "client.c"),
                    f"-L{tmp_path}", "-lsum", f"-Wl,-rpath,{tmp_path}"], check=True)
    got = subprocess.run([str(tmp_path / "client")], capture_output=True, check=True)
    lines = got.stdout.decode().splitlines()
    assert lines[0] == "33"
    assert lines[1].startswith(f"{src}:1:") and "error: index 9 out of bounds" in lines[1]


MULTICORE = """fun real main(int n) =
  reduce(op +, 0.0, map(fn real (int i) => sqrt(toReal(i)), iota(n)))"""


def _most_threads(command: list[str], stdin: str, env: dict[str, str]) -> tuple[str, int]:
    """(stdout, the most threads the process had at once, sampled from /proc)."""
    import time

    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    most = 0
    while proc.poll() is None:
        try:
            most = max(most, len(os.listdir(f"/proc/{proc.pid}/task")))
        except OSError:
            break
        time.sleep(0.005)
    out = proc.stdout.read()
    proc.wait()
    return out, most


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_multicore_executable_runs_on_the_threads_asked_for(tmp_path: Path) -> None:
    """`--backend multicore`: libgomp linked in; `--threads N`, else `L0_NUM_THREADS`.
    The process has the main thread, the one thread running every `-r` run of `main` (its
    big stack) and the N - 1 workers of libgomp, made once."""
    src = tmp_path / "mc.l0"
    src.write_text(MULTICORE, encoding="utf-8")
    exe = tmp_path / "mc"
    build(MULTICORE, str(src), exe, target="multicore")

    def want(threads: int) -> str:
        # The JIT's multicore code on as many threads: the real sum is combined from
        # one partial sum per chunk, so the last digits depend on the thread count.
        return call_with_big_stack(lambda: CompiledProgram(
            MULTICORE, str(src), "multicore", threads=threads).run_main("3000000")) + "\n"

    env = {k: v for k, v in os.environ.items()
           if k not in ("L0_NUM_THREADS", "OMP_NUM_THREADS")}
    runs = [(["--threads", "3"], {}, 3), ([], {"L0_NUM_THREADS": "2"}, 2),
            (["--threads", "1"], {"L0_NUM_THREADS": "3"}, 1)]
    for args, extra, threads in runs:
        out, most = _most_threads([str(exe), "-r", "60", *args], "3000000",
                                    {**env, **extra})
        assert out == want(threads)
        assert most == threads + 1, (args, extra)
    bad = subprocess.run([str(exe), "--threads", "0"], input="1", capture_output=True,
                         text=True, check=False)
    assert bad.returncode == 2 and "--threads needs a positive number" in bad.stderr


def test_compile_verbose_reports_every_stage(tmp_path: Path) -> None:
    from l0.cli.stages import COMPILE_STAGES
    from l0.cli.tool import main

    src = tmp_path / "p.l0"
    src.write_text(MULTICORE, encoding="utf-8")
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), pytest.raises(SystemExit) as done:
        main(["compile", "-v", "--backend", "multicore", str(src), "-o",
              str(tmp_path / "p")])
    assert done.value.code == 0
    reported = {line.rsplit("  ", 1)[0].strip() for line in stderr.getvalue().splitlines()}
    assert reported == {stage for stage, _, _ in COMPILE_STAGES} | {"total"}
    out = subprocess.run([str(tmp_path / "p")], input="4", capture_output=True, text=True,
                         check=False)
    assert out.stdout == "4.146264\n"


def test_outputs_beginning_with_a_dash_are_paths(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # gcc read `-o -lead` as `-o` and the library `-lead`, writing `./--library=ead`.
    from l0.cli.tool import main

    monkeypatch.chdir(tmp_path)
    Path("-lead.l0").write_text("fun int main(int n) = n + 1\n", encoding="utf-8")
    for args, exe in ((["--", "-lead.l0"], "-lead"), (["--output=-x", "--", "-lead.l0"], "-x")):
        with pytest.raises(SystemExit) as done:
            main(["compile", *args])
        assert done.value.code == 0, args
        out = subprocess.run([f"./{exe}"], input="41", capture_output=True, text=True,
                             check=False)
        assert out.stdout == "42\n", args
    assert sorted(p.name for p in tmp_path.iterdir()) == ["-lead", "-lead.l0", "-x"]
