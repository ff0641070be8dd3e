"""The CPU back end end to end: run-time faults, in-place updates, memory, the Python API.

* Faults: every kind of run-time error in compiled code is reported like the
  interpreter reports it (same location and message), and `l0-run` prints it as
  `FILE:LINE:COL: error: ...` with exit status 2; none takes the process down.
* `let a[i] = v` on a unique array is O(1): 10^6 updates of a 10^5-element array
  would copy 10^11 elements if let-with copied.
* Memory: a loop building a new array every iteration runs in constant memory.
* The API (`l0.compile`): numpy arrays of any strides in, value semantics, results
  owned by Python, caching.
"""

from __future__ import annotations

import gc
import io
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import l0
from l0.api import CompiledProgram
from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
from l0.frontend import l0_to_module
from l0.interp import Interpreter
from l0.lowering.backends.cpu import CpuEngine
from l0.lowering.pipeline import lower

ROOT = Path(__file__).resolve().parents[2]


def _cpu(source: str, name: str = "p.l0") -> CompiledProgram:
    return call_with_big_stack(lambda: CompiledProgram(source, name, "cpu", optimise=False))


def _l0_run(tmp_path: Path, source: str, stdin: str, *flags: str,
            monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
            ) -> tuple[int, str, str]:
    """Run `l0-run` in-process; returns (status, stdout, stderr)."""
    from l0.cli.run import main

    path = tmp_path / "prog.l0"
    path.write_text(source)
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    with pytest.raises(SystemExit) as info:
        main([*flags, str(path)])
    out = capsys.readouterr()
    return int(info.value.code or 0), out.out, out.err


# ---------------------------------------------------------------------------------------
# Faults
# ---------------------------------------------------------------------------------------

FAULTS = {
    "index_read": ("fun int main([int] a, int i) =\n  a[i]", "[1, 2, 3] 5",
                   "2:3: error: index 5 out of bounds for array of size 3"),
    "index_negative": ("fun int main([[int]] a, int i) =\n  a[0, i]", "[[1, 2]] -1",
                       "error: index -1 out of bounds for array of size 2"),
    "index_letwith": ("fun [int] main(*[int] a, int i) =\n  let a[i] = 0 in a", "[1, 2] 2",
                      "error: index 2 out of bounds for array of size 2"),
    "index_in_lambda": ("fun [int] main([int] a, [int] b) =\n  map(fn int (int i) => b[i], a)",
                        "[0, 1, 7] [5, 6]", "error: index 7 out of bounds"),
    "assert": ("fun int main(int x) =\n  let c = assert(x < 3) in x", "5",
               "error: assertion failed"),
    "zip": ("fun [int] main([int] a, [int] b) =\n  map(op +, zip(a, b))", "[1, 2] [3]",
            "error: arrays given to zip have different sizes: 2, 1"),
    "irregular_map": ("fun [[int]] main(int n) =\n  map(fn [int] (int i) => iota(i), iota(n))",
                      "3", "2:3: error: irregular array: row 1 has shape [1], expected [0]"),
    "irregular_literal": ("fun [[int]] main(int n) =\n  [iota(2), iota(n)]", "3",
                          "error: irregular array: row 1 has shape [3], expected [2]"),
    "concat_rows": ("fun [[int]] main([[int]] a, [[int]] b) =\n  concat(a, b)",
                    "[[1, 2]] [[3]]", "error: cannot concatenate arrays with rows"),
    "reshape": ("fun [[int]] main([int] a) =\n  reshape((2, 2), a)", "[1, 2, 3]",
                "2:3: error: cannot reshape an array of 3 elements to shape (2, 2)"),
    "split": ("fun [int] main([int] a, int i) =\n  let {x, y} = split(i, a) in y", "[1, 2] 3",
              "error: split point 3 out of bounds for array of size 2"),
    "iota_negative": ("fun [int] main(int n) =\n  iota(n)", "-4",
                      "error: negative size -4 given to iota"),
    "replicate_negative": ("fun [real] main(int n) =\n  replicate(n, 1.5)", "-1",
                           "error: negative size -1 given to replicate"),
    "division": ("fun int main(int a, int b) =\n  a / b", "7 0", "error: division by zero"),
    "modulo": ("fun int main(int a, int b) =\n  a % b", "7 0", "error: "),
    "shift": ("fun int main(int a, int b) =\n  a << b", "7 -2",
              "2:3: error: shift by a negative amount: -2"),
    "trunc": ("fun int main(real x) =\n  trunc(x / 0.0)", "1.0",
              "2:3: error: cannot convert"),
}


@pytest.mark.parametrize("kind", sorted(FAULTS))
def test_fault_is_reported_like_the_interpreter(kind: str) -> None:
    source, stdin, expected = FAULTS[kind]
    errors: list[str] = []
    for backend in ("cpu", "interp"):
        prog = call_with_big_stack(
            lambda b=backend: CompiledProgram(source, "p.l0", b, optimise=False))  # type: ignore[misc]
        with pytest.raises(L0Error) as info:
            prog.run_main(stdin)
        assert info.value.kind == "runtime-error"
        errors.append(info.value.render())
    cpu, interp = errors
    assert expected in cpu, cpu
    if kind != "trunc":  # the interpreter also shows the real (`the real inf`)
        assert cpu == interp


def test_l0_run_fault_status_and_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    source, stdin, expected = FAULTS["index_read"]
    status, out, err = _l0_run(tmp_path, source, stdin, monkeypatch=monkeypatch, capsys=capsys)
    assert status == 2
    assert out == ""
    assert err.startswith(f"{tmp_path / 'prog.l0'}:{expected}\n  |\n2 |   a[i]\n  |   ^")


def test_deep_recursion_is_an_error_not_a_crash() -> None:
    # Not a tail call, nor an accumulator LLVM could turn into a loop.
    prog = _cpu("fun int f(int n) = if n = 0 then 0 else f(n - 1) * 3 + 1\n"
                "fun int main(int n) = f(n)")
    assert prog.main(10) == sum(3**k for k in range(10))
    with pytest.raises(L0Error, match="stack overflow"):
        prog.main(10**9)


def test_huge_allocation_is_an_error_not_a_crash() -> None:
    prog = _cpu("fun [[int]] main(int n) = replicate(n, replicate(n, 0))")
    with pytest.raises(L0Error, match="out of memory"):
        prog.main(1 << 40)


# ---------------------------------------------------------------------------------------
# In place and in constant memory
# ---------------------------------------------------------------------------------------

INPLACE = """
fun *[int] bump(*[int] a, int i) =
  let a[i] = a[i] + 1 in a

fun {[int], [int]} main(int n, int m) =
  let a = replicate(n, 0) in
  loop (a) = for i < m do
    let a[i % n] = a[i % n] + i in a
  in
  loop (b = replicate(n, 0)) = for i < m do
    bump(b, (i * 7) % n)
  in {a, b}
"""


def test_letwith_is_in_place() -> None:
    n, m = 100_000, 1_000_000
    prog = _cpu(INPLACE)
    prog.main(10, 10)  # compile and warm up
    start = time.perf_counter()
    a, b = prog.main(n, m)
    elapsed = time.perf_counter() - start
    expected = np.zeros(n, dtype=np.int64)
    np.add.at(expected, np.arange(m) % n, np.arange(m))
    assert np.array_equal(a, expected)
    assert np.array_equal(b, np.bincount((np.arange(m) * 7) % n, minlength=n))
    # Copying on every update would move 10^11 elements (minutes); in place it is ms.
    assert elapsed < 5.0, f"{m} updates took {elapsed:.1f} s"


def test_loop_building_arrays_runs_in_constant_memory() -> None:
    prog = _cpu("""
fun real main(int n, int k) =
  let xs = replicate(k, 1.0) in
  let xs = loop (xs) = for i < n do map(fn real (real x) => x * 0.5 + 1.0, xs) in xs in
  reduce(op +, 0.0, xs)
""")
    prog.main(10, 10)
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    assert prog.main(100_000, 1000) == pytest.approx(2000.0)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    # Leaking every iteration's array would take 800 MB.
    assert grown < 100 * 1024, f"max RSS grew by {grown} KiB"


def test_views_are_not_copied_and_results_are_fresh() -> None:
    prog = _cpu("""
fun {[[int]], [int], [int]} main([[int]] m) =
  let t = transpose(m) in
  let {x, y} = split(1, m[0]) in
  {t, x, y}
""")
    m = np.arange(6).reshape(2, 3)
    t, x, y = prog.main(m)
    assert np.array_equal(t, m.T) and list(x) == [0] and list(y) == [1, 2]
    for r in (t, x, y):  # value semantics: views of the argument come back as copies
        assert not np.may_share_memory(r, m)


# ---------------------------------------------------------------------------------------
# The Python API
# ---------------------------------------------------------------------------------------

API_SOURCE = """
fun [real] scale(real k, [real] xs) = map(fn real (real x) => k * x, xs)
fun *[int] setFirst(*[int] a, int v) = let a[0] = v in a
fun {[int], [int]} pair([int] a) = {a, map(op + (1), a)}
fun real dot([real] a, [real] b) = reduce(op +, 0.0, map(op *, zip(a, b)))
fun [[int]] cols([[int]] m) = transpose(m)
fun int main() = 0
"""


def test_api_numpy_in_and_out() -> None:
    prog = l0.compile(API_SOURCE)
    xs = np.linspace(0.0, 1.0, 11)
    out = prog.scale(2.0, xs)
    assert isinstance(out, np.ndarray) and out.dtype == np.float64
    assert np.allclose(out, 2 * xs)
    assert prog.dot(xs, xs) == pytest.approx(float(xs @ xs))
    assert prog.scale(1.0, []).shape == (0,)


def test_api_accepts_any_strides() -> None:
    prog = l0.compile(API_SOURCE)
    base = np.arange(40, dtype=np.float64)
    for view in (base[::3], base[::-2], base[5:9]):
        assert np.array_equal(prog.scale(1.0, view), view)
    m = np.arange(12).reshape(3, 4)
    for view in (m.T, m[:, ::2], m[::-1, 1:]):
        assert np.array_equal(prog.cols(view), view.T)


def test_api_value_semantics() -> None:
    prog = l0.compile(API_SOURCE)
    a = np.array([5, 6, 7])
    r = prog.setFirst(a, 9)
    assert list(r) == [9, 6, 7] and list(a) == [5, 6, 7]  # the unique argument is copied
    same, plus = prog.pair(a)
    assert list(same) == [5, 6, 7] and list(plus) == [6, 7, 8]
    assert not np.may_share_memory(same, a)
    same[0] = 0
    assert a[0] == 5


def test_api_results_outlive_the_call() -> None:
    prog = l0.compile(API_SOURCE)
    results = [prog.scale(float(k), np.ones(1000)) for k in range(50)]
    gc.collect()
    for k, r in enumerate(results):
        assert r[0] == k and r[-1] == k


def test_api_caches_compilations() -> None:
    assert l0.compile(API_SOURCE) is l0.compile(API_SOURCE)
    assert l0.compile(API_SOURCE, fast_math=True) is not l0.compile(API_SOURCE)


def test_fast_math_reassociates_but_stays_close() -> None:
    src = "fun real main([real] a) = reduce(op +, 0.0, a)"
    xs = np.random.default_rng(0).random(10_001)
    strict = l0.compile(src, optimise=False).main(xs)
    fast = l0.compile(src, optimise=False, fast_math=True).main(xs)
    assert strict == pytest.approx(fast, rel=1e-12)
    left_fold = 0.0
    for x in xs.tolist():
        left_fold += x
    assert strict == left_fold  # no reassociation without fast-math


def test_api_optimised_and_interpreted_agree() -> None:
    path = ROOT / "test/programs/benchmarks/lu.l0"
    inp = path.with_suffix(".in").read_text()
    results = {l0.compile(path, backend=b, optimise=o).run_main(inp)
               for b in ("cpu", "interp") for o in (True, False)}
    assert len(results) == 1


# ---------------------------------------------------------------------------------------
# Driver and pipeline
# ---------------------------------------------------------------------------------------


def test_l0_run_cpu_is_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    from l0.cli.run import build_argparser

    assert build_argparser().parse_args(["x.l0"]).backend == "cpu"
    timing = tmp_path / "times.txt"
    status, out, _ = _l0_run(tmp_path, "fun [int] main(int n) = map(op * (2), iota(n))", "4",
                             "--fast-math", "-r", "3", "-t", str(timing),
                             monkeypatch=monkeypatch, capsys=capsys)
    assert status == 0 and out == "[0, 2, 4, 6]\n"
    assert len(timing.read_text().split()) == 3


def test_trace_prints_located_values(monkeypatch: pytest.MonkeyPatch) -> None:
    from l0.lowering.runtime import trace_runtime as trace

    stream = io.StringIO()
    monkeypatch.setattr(trace, "STREAM", stream)
    prog = _cpu("fun [int] main([int] a) =\n  trace(map(op + (1), a))")
    assert list(prog.main(np.array([1, 2]))) == [2, 3]
    assert stream.getvalue() == "p.l0:2:3-2:25: [2, 3]\n"


def test_every_stage_verifies() -> None:
    for name in ("benchmarks/matmult_fun", "soacs/filter_pairs", "tuples/zip_unzip",
                 "uniqueness/reduce_unique_acc", "arrays/reshape"):
        path = ROOT / "test/programs" / f"{name}.l0"
        module = l0_to_module(path.read_text(), str(path))
        lower(module, verify=True)


def test_engine_matches_interpreter_on_certificate_arrays() -> None:
    module = l0_to_module(
        "fun {[cert], int} main([int] a) =\n"
        "  {map(fn cert (int x) => assert(0 <= x), a), size(0, a)}", "c.l0")
    args = [np.array([1, 2, 3])]
    cpu = CpuEngine(module).call("main", args)
    ref = Interpreter(module).call("main", args)
    assert list(cpu[0]) == list(ref[0]) and cpu[1] == ref[1]
