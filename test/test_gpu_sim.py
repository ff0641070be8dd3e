"""The GPU back end's kernels on the CPU (`gpu-sim`) with inputs big enough for many
blocks, several chunks and grid-stride loops.

The corpus's inputs are small (a block or two); here the map, reduction, scan and
filter kernels run over 100,000 rows (391 blocks of 256 threads, several chunks per
blocked form): integer results must equal the sequential back end's exactly, and a
failing check in a kernel must report the error of the smallest failing index, located,
as on the CPU (exit 2 through `l0-run`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import l0
from l0.diagnostics import L0Error

N = 100_000

FORMS = """
fun int sum([int] a) = reduce(op +, 0, a)
fun [int] prefix([int] a) = scan(op +, 0, a)
fun [int] evens([int] a) = filter(fn bool (int x) => x % 2 = 0, a)
fun [real] scaled([real] a) = map(fn real (real x) => x * 2.0 + 1.0, a)
fun [[int]] table(int n, int m) = map(fn [int] (int i) => map(op + (i), iota(m)), iota(n))
fun int maxi([int] a) = reduce(fn int (int x, int y) => if x < y then y else x, -1, a)
fun {int, int} minmax([int] a) =
  reduce(fn {int, int} ({int, int} x, {int, int} y) =>
           let {a1, b1} = x in let {a2, b2} = y in
           {if a1 < a2 then a1 else a2, if b1 < b2 then b2 else b1},
         {1000000, -1000000}, zip(a, a))
fun int digits([int] a) = reduce(fn int (int acc, int d) => acc * 10 + d, 0, a)
fun int main() = 0
"""


@pytest.fixture(scope="module")
def data() -> np.ndarray:
    return np.random.default_rng(7).integers(-1000, 1000, N, dtype=np.int64)


def test_forms_match_the_sequential_back_end(data: np.ndarray) -> None:
    cpu = l0.compile(FORMS, backend="cpu", optimise=False)
    sim = l0.compile(FORMS, backend="gpu-sim", optimise=False)
    for name in ("sum", "prefix", "evens", "maxi", "minmax"):
        np.testing.assert_array_equal(getattr(sim, name)(data), getattr(cpu, name)(data))
    reals = data.astype(np.float64)
    np.testing.assert_array_equal(sim.scaled(reals), cpu.scaled(reals))
    np.testing.assert_array_equal(sim.table(300, 70), cpu.table(300, 70))
    assert sim.sum(data[:0]) == 0 and sim.maxi(data[:1]) == max(-1, int(data[0]))


def test_a_short_reduction_is_the_left_fold() -> None:
    # Below 2 * MIN_CHUNK rows one thread folds all rows from the initial value: an
    # operator that is not associative still gives the interpreter's result.
    sim = l0.compile(FORMS, backend="gpu-sim", optimise=False)
    assert sim.digits(np.array([1, 2, 3, 4], dtype=np.int64)) == 1234


TUPLES = """
fun {int, int, int} stats([int] a) =
  let b = map(fn int (int x) => x * 3 + 1, a) in
  {reduce(op +, 0, b), reduce(fn int (int p, int q) => if p < q then q else p, -100000, b),
   reduce(fn int (int p, int q) => if p < q then p else q, 100000, b)}
fun {int, int} affine([int] a, [int] b) =
  reduce(fn {int, int} ({int, int} f, {int, int} g) =>
           let {p, q} = f in let {r, s} = g in {p * r, q * r + s},
         {1, 0}, zip(a, b))
fun int main() = 0
"""


def test_tuple_reductions_are_block_reductions(data: np.ndarray) -> None:
    # Horizontally fused sibling folds (a redomap of three accumulators) and a tuple
    # operator that does not commute (composing affine maps: the order of the chunks
    # matters) run as the scalar reductions' two kernels (Note [Blocked reductions]):
    # many blocks, chunks contiguous and combined in order, so integers equal the
    # sequential left fold exactly.
    cpu = l0.compile(TUPLES, backend="cpu")
    sim = l0.compile(TUPLES, backend="gpu-sim")
    assert sim.stats(data) == cpu.stats(data)
    units = np.where(data % 2 == 0, 1, -1).astype(np.int64)
    assert sim.affine(units, data) == cpu.affine(units, data)
    for n in (0, 1, 9000):
        assert sim.stats(data[:n]) == cpu.stats(data[:n])
        assert sim.affine(units[:n], data[:n]) == cpu.affine(units[:n], data[:n])


INTERLEAVED = """
fun int sum([int] a) = reduce(op +, 0, a)
fun int mini([int] a) = reduce(fn int (int x, int y) => if x < y then x else y, 5000, a)
fun {int, int} squares([int] a) =
  {reduce(op +, 0, map(fn int (int x) => x * x, a)),
   reduce(fn int (int x, int y) => if x < y then y else x, -5000, map(fn int (int x) => 3 * x, a))}
fun real mean([real] a) = reduce(op +, 0.0, a) / toReal(size(0, a))
fun int main() = 0
"""


def test_interleaved_chunks_of_many_rows(data: np.ndarray,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # Operators that commute fold interleaved chunks (Note [Interleaved chunks]). With
    # more rows than threads each thread folds rows t, t + P, ...: 600,000 rows over the
    # plain reduction's 1024 blocks of 256 threads, and, with L0_MIN_CHUNK=1, over the
    # blocked reduction's (a redomap, sibling folds) 4 blocks. Integers must be the
    # sequential fold's exactly; the real sum adds integers, exact in any order.
    monkeypatch.setenv("L0_MIN_CHUNK", "1")
    big = np.concatenate([data] * 6)
    cpu = l0.compile(INTERLEAVED, backend="cpu", cache=False)
    sim = l0.compile(INTERLEAVED, backend="gpu-sim", cache=False)
    for n in (len(big), 1023, 3):
        xs = big[:n]
        assert sim.sum(xs) == cpu.sum(xs) == int(xs.sum())
        assert sim.mini(xs) == cpu.mini(xs) == min(5000, int(xs.min()))
        assert sim.squares(xs) == cpu.squares(xs)
        assert sim.mean(xs.astype(np.float64)) == cpu.mean(xs.astype(np.float64))


FAILING = """
fun [int] main(int n, [int] a) =
  map(fn int (int i) => if i % 40000 = 39999 then a[i] else i, iota(n))
fun int total(int n, [int] a) =
  reduce(op +, 0, map(fn int (int i) => if i % 40000 = 39999 then a[i] else i, iota(n)))
"""


@pytest.mark.parametrize("optimise", [False, True])
def test_smallest_failing_index_wins(optimise: bool) -> None:
    # Optimised, `total` is a redomap: a blocked reduction, a chunk per thread.
    prog = l0.compile(FAILING, filename="failing.l0", backend="gpu-sim", optimise=optimise)
    for fn, line in ((prog.main, 3), (prog.total, 5)):
        with pytest.raises(L0Error) as info:
            fn(N, np.arange(3, dtype=np.int64))
        assert info.value.kind == "runtime-error"
        assert "index 39999 out of bounds for array of size 3" in info.value.render()
        assert info.value.loc.line == line


def test_l0_run_reports_the_error_located_exit_2(tmp_path: Path) -> None:
    src = tmp_path / "failing.l0"
    src.write_text(FAILING, encoding="utf-8")
    run = subprocess.run(
        [str(Path(sys.executable).parent / "l0-run"), "--backend=gpu-sim", str(src)],
        input=f"{N} [1, 2, 3]", capture_output=True, text=True, check=False)
    assert run.returncode == 2
    assert "failing.l0:3:" in run.stderr
    assert "index 39999 out of bounds for array of size 3" in run.stderr


@pytest.mark.parametrize("target", ["gpu", "gpu-sim"])
def test_every_stage_verifies(target: str) -> None:
    # The gpu level is checked IR: launches match their kernels' signatures (the error
    # word's type included), device functions live in the gpu.module.
    from l0.frontend import load_program, to_module
    from l0.lowering.pipeline import lower
    from l0.passes.pipeline import optimise

    for src in (FORMS, FAILING):
        module = to_module(load_program(src, "p.l0"))
        lower(module, target=target, verify=True)
        optimise(module, target="gpu")
        lower(module, target=target, verify=True)


PUBLISHED = """
fun [int] main([int] a) =
  let {x, y} = split((3), a) in
  map(fn int (int i) => x[i % 5], iota(size(0, a)))
"""


def test_the_error_word_reports_the_lowest_failing_thread() -> None:
    # Kernels that publish their failures to the error word and go on, as threads on a
    # GPU do (`convert-gpu-to-sim{publish=true}`: safe here, the failing index 3 of the
    # split's first part is still inside `a`), so the error comes from the host's
    # reading of the word: the CPU's error, values included, from the lowest thread.
    from l0.dialects.context import l0_context
    from l0.dialects.soac import AssertOp
    from l0.frontend import load_program, to_module
    from l0.lowering.backends.jit import JitModule
    from l0.lowering.gpu.convert_gpu_to_sim import PREFIX, ConvertGpuToSimPass
    from l0.lowering.pipeline import lower

    gpu_level = lower(to_module(load_program(PUBLISHED, "w.l0")), entries=["main"],
                      target="gpu", verify=True)
    ConvertGpuToSimPass(publish=True).apply(l0_context(), gpu_level)
    kernels = [f for f in gpu_level.ops if f.sym_name.data.startswith(PREFIX)]  # type: ignore[attr-defined]
    assert kernels and not any(isinstance(o, AssertOp) for k in kernels for o in k.walk())
    main = JitModule(gpu_level, entries=["main"]).function("main")
    with pytest.raises(L0Error) as info:
        main(np.arange(1000, dtype=np.int64))
    assert info.value.render().startswith(
        "w.l0:4:25: error: index 3 out of bounds for array of size 3")
    np.testing.assert_array_equal(main(np.arange(3, dtype=np.int64)), [0, 1, 2])


def test_a_thread_failing_before_a_barrier_leaves_its_block_running() -> None:
    # A redomap is a blocked reduction: its chunk kernel folds, then combines the
    # block's chunks behind barriers. Threads that fail in the fold (a division by zero,
    # which guards no memory access) publish to the error word and stop their work;
    # their blocks' other threads still pass every barrier (Note [Barriers and failing
    # threads]), and the host reports the lowest failing row's error from the word.
    from l0.dialects.context import l0_context
    from l0.frontend import load_program, to_module
    from l0.lowering.backends.jit import JitModule
    from l0.lowering.gpu.convert_gpu_to_sim import ConvertGpuToSimPass
    from l0.lowering.pipeline import lower
    from l0.passes.pipeline import optimise

    src = ("fun int main([int] a) =\n"
           "  reduce(op +, 0, map(fn int (int x) => 1000000 / x + 7 % (x + 1), a))")
    module = to_module(load_program(src, "d.l0"))
    optimise(module, target="gpu")
    gpu_level = lower(module, entries=["main"], target="gpu", verify=True)
    assert "main_reduce_final_0" in str(gpu_level) and "serial" not in str(gpu_level)
    ConvertGpuToSimPass(publish=True).apply(l0_context(), gpu_level)
    main = JitModule(gpu_level, entries=["main"]).function("main")
    rows = np.arange(1, N + 1, dtype=np.int64)
    assert main(rows) == int(np.sum(1000000 // rows + 7 % (rows + 1)))
    for first, second, error in ((0, -1, "2:41: error: division"), (-1, 0, "2:55: error: modulo")):
        rows[[70000, 90000]] = first, second
        with pytest.raises(L0Error) as info:
            main(rows)
        assert info.value.render().startswith(f"d.l0:{error} by zero")


TRACED = """
fun [int] doubled([int] a) = map(fn int (int x) => trace(x * 2) + 1, a)
fun real total([real] a) = reduce(fn real (real p, real q) => trace(p + q), 0.0, a)
fun {int, int} pairs([int] a) =
  reduce(fn {int, int} ({int, int} p, {int, int} q) =>
           let {x, y} = p in let {u, v} = q in {trace(x + u), y * v},
         {0, 1}, zip(a, a))
fun [[int]] views([[int]] m) = let t = trace(transpose(m)) in let r = trace(m[1]) in t
fun int main() = 0
"""


@pytest.mark.parametrize("n", [5, 3 * 4096])
def test_traces_in_kernels_print_in_the_interpreters_order(
        n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Note [Traces in kernels]: kernels that trace log their values on the device and
    # the host prints them after the launch; such a kernel runs its iterations in
    # order (one thread, or one chunk: above 2 * 4096 rows the reduction would
    # otherwise be cut into chunks), so the output is the sequential run's.
    import io

    from l0.lowering.runtime import trace_runtime

    data = np.arange(1, n + 1, dtype=np.int64) % 7
    printed = {}
    for backend in ("cpu", "gpu-sim"):
        stream = io.StringIO()
        monkeypatch.setattr(trace_runtime, "STREAM", stream)
        prog = l0.compile(TRACED, filename="t.l0", backend=backend, optimise=False)
        results = (list(prog.doubled(data)), prog.total(data.astype(np.float64)),
                   prog.pairs(data))
        # Arrays traced on the host: a host copy (through a copy kernel when strided).
        prog.views(data[:4].reshape(2, 2))
        printed[backend] = (results, stream.getvalue())
    assert printed["gpu-sim"] == printed["cpu"]
    assert printed["cpu"][1].count("\n") == 3 * n + 2


# Note [Chunk bounds without overflow] in l0.lowering.loop_ir.parallel_loops: a thread's rows
# started at gt*n/P, which left 64 bits from n = 2^46 with the 2^18 threads of a full
# reduction grid (35993612781092864 instead of -35184372088832). The simulator runs every
# thread, but the iota is streamed into the reduction (nothing stored) and LLVM folds
# each thread's loop into a closed form, so 2^18 threads over 2^46 (or 2^62) rows take
# well under a second; the sum wraps as L0 integers do.
IOTA_SUM = "fun int main(int n) = reduce(op +, 0, iota(n))"


@pytest.mark.llvm_o3  # only LLVM's optimiser folds the loops
@pytest.mark.timeout(300)  # a loop LLVM no longer folds would run for years: fail
def test_reductions_over_2_46_rows_do_not_overflow() -> None:
    sim = l0.compile(IOTA_SUM, backend="gpu-sim")
    for n in (2**46, 2**46 + 12345, 2**62 + 12345):
        assert sim.main(n) == (n * (n - 1) // 2 + 2**63) % 2**64 - 2**63, n
