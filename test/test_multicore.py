"""The multicore back end on inputs big enough to fork threads and split into chunks.

The corpus's inputs are small (one chunk, often below the grain size); here every
parallel form runs with several chunks on 1, 2 and 3 threads: the results must be the
sequential back end's (integers: exactly), and a failing iteration must report the
error of the smallest failing index, as the sequential run does.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import l0
from l0.diagnostics import L0Error

THREADS = (1, 2, 3)
N = 100_000  # > 2 * MIN_CHUNK rows and > the grain size: chunked and threaded

FORMS = """
fun int sum([int] a) = reduce(op +, 0, a)
fun [int] prefix([int] a) = scan(op +, 0, a)
fun [int] evens([int] a) = filter(fn bool (int x) => x % 2 = 0, a)
fun [real] scaled([real] a) = map(fn real (real x) => x * 2.0 + 1.0, a)
fun [[int]] table(int n, int m) = map(fn [int] (int i) => map(op + (i), iota(m)), iota(n))
fun int maxi([int] a) = reduce(fn int (int x, int y) => if x < y then y else x, -1, a)
fun int main() = 0
"""


@pytest.fixture(scope="module")
def data() -> np.ndarray:
    return np.random.default_rng(7).integers(-1000, 1000, N, dtype=np.int64)


@pytest.mark.parametrize("threads", THREADS)
def test_forms_match_the_sequential_back_end(threads: int, data: np.ndarray) -> None:
    cpu = l0.compile(FORMS, backend="cpu", optimise=False)
    par = l0.compile(FORMS, backend="multicore", threads=threads, optimise=False)
    for name in ("sum", "prefix", "evens", "maxi"):
        np.testing.assert_array_equal(getattr(par, name)(data), getattr(cpu, name)(data))
    reals = data.astype(np.float64)
    np.testing.assert_array_equal(par.scaled(reals), cpu.scaled(reals))
    np.testing.assert_array_equal(par.table(300, 70), cpu.table(300, 70))
    assert par.sum(data[:0]) == 0 and par.maxi(data[:1]) == max(-1, int(data[0]))


SCANOMAPS = {
    "squares": "fun [int] main([int] a) = scan(op +, 0, map(fn int (int x) => x * x, a))",
    # composing affine maps x -> a*x + b (mod p): associative, not commutative
    "affine": """
fun [int] main([int] a) =
  let {p, q} = unzip(scan(fn {int, int} ({int, int} f, {int, int} g) =>
                            let {a1, b1} = f in
                            let {a2, b2} = g in
                            {(a1 * a2) % 1000003, (b1 * a2 + b2) % 1000003},
                          {1, 0},
                          map(fn {int, int} (int x) => {x % 7 + 8, x % 1000 + 1000}, a))) in
  map(op +, zip(p, q))""",
    "rows": """
fun [int] main([[int]] m) = scan(op +, 0, map(fn int ([int] r) => reduce(op +, 0, r), m))""",
}
"""Maps into scans: `main` only, as the optimiser keeps (and fuses) only `main`."""


@pytest.mark.parametrize("threads", THREADS)
def test_fused_scans_match_the_sequential_back_end(threads: int, data: np.ndarray) -> None:
    """Maps fused into scans (scanomap) scan in chunks combined with the scan's operator,
    here also one that is not commutative (composing affine maps): the unfused result."""
    for name, src in SCANOMAPS.items():
        cpu = l0.compile(src, backend="cpu", optimise=False)
        par = l0.compile(src, backend="multicore", threads=threads)
        assert "soac.scanomap" in str(par.module), name
        arg = data.reshape(-1, 4) if name == "rows" else data
        np.testing.assert_array_equal(par.main(arg), cpu.main(arg), err_msg=name)


# Fused (optimise=True, which keeps what `main` reaches): `squares` and `dot` become
# redomaps (the map fused into the reduce), `argmin` and `minmax` reduce with tuple
# operators; `mean` is real-valued, so it is compared to the printed precision (the
# chunks' sums are combined in order).
REDUCTIONS = """
fun int squares([int] a) = reduce(op +, 0, map(fn int (int x) => x * x, a))
fun int dot([int] a, [int] b) = reduce(op +, 0, map(op *, zip(a, b)))
fun {int, int} argmin([int] a) =
  reduce(fn {int, int} ({int, int} p, {int, int} q) =>
           let {i, x} = p in let {j, y} = q in
           if y < x || (y = x && j < i) then {j, y} else {i, x},
         {-1, 1000000}, zip(iota(size(0, a)), a))
fun {int, int} minmax([int] a) =
  reduce(fn {int, int} ({int, int} p, {int, int} q) =>
           let {lo, hi} = p in let {x, y} = q in
           {if x < lo then x else lo, if hi < y then y else hi},
         {1000000, -1000000}, zip(a, a))
fun real mean([real] a) = reduce(op +, 0.0, map(fn real (real x) => x / 3.0, a))
fun {int, int, {int, int}, {int, int}, real} main([int] a, [int] b, [real] r) =
  {squares(a), dot(a, b), argmin(a), minmax(a), mean(r)}
"""


def _reductions(a: np.ndarray, b: np.ndarray, r: np.ndarray) -> tuple:
    return (int((a * a).sum()), int((a * b).sum()), (int(a.argmin()), int(a.min())),
            (int(a.min()), int(a.max())), float((r / 3.0).sum()))


@pytest.mark.parametrize("threads", THREADS)
def test_redomap_and_tuple_reductions_match_the_sequential_back_end(
        threads: int, data: np.ndarray) -> None:
    cpu = l0.compile(REDUCTIONS, backend="cpu")
    par = l0.compile(REDUCTIONS, backend="multicore", threads=threads)
    args = (data, np.roll(data, 1), data.astype(np.float64))
    *ints, mean = par.main(*args)
    *cpu_ints, cpu_mean = cpu.main(*args)
    *expected, _ = _reductions(*args)
    assert ints == cpu_ints == expected
    assert abs(mean - cpu_mean) <= 1e-6 * max(1.0, abs(cpu_mean))
    empty = par.main(data[:0], data[:0], args[2][:0])
    assert empty == cpu.main(data[:0], data[:0], args[2][:0]) == \
        (0, 0, (-1, 1000000), (1000000, -1000000), 0.0)


def test_redomap_and_tuple_reductions_are_blocked_parallel_loops() -> None:
    # Lowered, each reduction left after -O (horizontal fusion merges some of the five)
    # is the blocked reduction (Note [Parallel width]): an scf.parallel over chunks, its
    # chunk count from l0_parallel_width.
    from l0.api import CompiledProgram
    from l0.lowering.pipeline import lower

    prog = CompiledProgram(REDUCTIONS, "r.l0", "interp")
    folds = sum(op.name in ("soac.reduce", "soac.redomap") for op in prog.module.walk())
    text = str(lower(prog.module, entries=["main"]))
    assert folds >= 1 and text.count("func.call @l0_parallel_width()") == folds
    assert "scf.reduce(" not in text  # no scf.reduce with operands: all blocked


FAILING = """
fun [int] main(int n, [int] a) =
  map(fn int (int i) => if i % 40000 = 39999 then a[i] else i, iota(n))
fun int total(int n, [int] a) =
  reduce(op +, 0, map(fn int (int i) => if i % 40000 = 39999 then a[i] else i, iota(n)))
"""


@pytest.mark.parametrize("threads", THREADS)
def test_smallest_failing_index_wins(threads: int) -> None:
    # With 2 threads, thread 1 (rows 50000..99999) fails at 79999 after fewer
    # iterations than thread 0 needs to fail at 39999; 39999 must be reported.
    prog = l0.compile(FAILING, filename="failing.l0", backend="multicore", threads=threads,
                      optimise=False)
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
        [str(Path(sys.executable).parent / "l0-run"), "--backend=multicore", "--threads", "2",
         str(src)], input=f"{N} [1, 2, 3]", capture_output=True, text=True, check=False)
    assert run.returncode == 2
    assert f"{src}:3:51: error: index 39999 out of bounds" in run.stderr
    assert "Traceback" not in run.stderr


def test_threads_must_be_positive(tmp_path: Path) -> None:
    src = tmp_path / "p.l0"
    src.write_text("fun int main() = 1", encoding="utf-8")
    run = subprocess.run(
        [str(Path(sys.executable).parent / "l0-run"), "--backend=multicore", "--threads", "0",
         str(src)], input="", capture_output=True, text=True, check=False)
    assert run.returncode == 2 and "--threads" in run.stderr


def test_no_leak_nor_bad_free_in_threads(monkeypatch: pytest.MonkeyPatch,
                                          data: np.ndarray) -> None:
    # The checking heap (called from every thread) sees each buffer freed once.
    import gc

    from l0.lowering.runtime import checked_memory

    monkeypatch.setenv(checked_memory.ENV, "1")
    checked_memory.reset_problems()
    prog = l0.compile(FORMS + "\n// checked", backend="multicore", threads=3, optimise=False)
    before = checked_memory.live()
    for name in ("sum", "prefix", "evens", "maxi"):
        getattr(prog, name)(data)
    prog.table(300, 70)
    gc.collect()
    assert checked_memory.live() == before, "buffers leaked"
    assert checked_memory.problems() == []


# The lambda allocates (an iota of varying size, updated), so chunk-parallel makes the
# map one chunk of rows per thread, each a sequential loop.
FAILING_ALLOCATING = """
fun [int] main(int n, [int] a) =
  map(fn int (int i) =>
        let r = iota(i % 7 + 1) in
        let r[0] = i in
        if i % 40000 = 39999 then a[i] + r[0] else r[0] + r[i % 7],
      iota(n))
"""


@pytest.mark.parametrize("threads", THREADS)
def test_smallest_failing_index_wins_in_chunked_maps(threads: int) -> None:
    from l0.api import CompiledProgram
    from l0.lowering.pipeline import lower

    plain = CompiledProgram(FAILING_ALLOCATING, "f.l0", "interp", optimise=False)
    assert "l0_parallel_width" in str(lower(plain.module, entries=["main"]))  # chunked
    prog = l0.compile(FAILING_ALLOCATING, filename="f.l0", backend="multicore",
                      threads=threads, optimise=False)
    with pytest.raises(L0Error) as info:
        prog.main(N, np.arange(3, dtype=np.int64))
    assert "index 39999 out of bounds for array of size 3" in info.value.render()
    rows = np.arange(30000, dtype=np.int64)
    np.testing.assert_array_equal(prog.main(30000, np.arange(3, dtype=np.int64)),
                                  rows + np.where(rows % 7 == 0, rows, rows % 7))


# `x + 1` is not associative: the blocked reduction folds each chunk from 0 and then
# the chunks' results, so what it returns depends on the number of chunks, the thread
# count (Note [Parallel width]). One chunk is the sequential fold: the length.
COUNT_CHUNKS = "fun int main([int] a) = reduce(fn int (int x, int y) => x + 1, 0, a)"


def test_one_compilation_serves_every_thread_count(monkeypatch: pytest.MonkeyPatch) -> None:
    # The count is set when the code is called (l0.lowering.runtime.openmp_runtime), so the JIT
    # compiles the program once for all counts, and each engine still runs on its own.
    from l0.lowering.backends import jit

    builds = []
    build = jit._build
    monkeypatch.setattr(jit, "_build", lambda *a, **k: builds.append(1) or build(*a, **k))
    a = np.zeros(N, dtype=np.int64)
    src = COUNT_CHUNKS + "\n// one compilation"
    results = {t: l0.compile(src, backend="multicore", threads=t, optimise=False).main(a)
               for t in THREADS}
    assert len(builds) == 1
    assert results[1] == N
    assert len(set(results.values())) == len(THREADS)
# Reductions with array accumulators (Note [Array accumulators] in
# l0.lowering.scf.convert_soac_to_scf): a chunk per thread folds into its own copy of the
# neutral element; `last`'s neutral element has another shape than its partials, so the
# fold runs again sequentially. `colsquares` and `lastplus` reduce a map: fused,
# redomaps whose partials are combined with the outer lambda (`lastplus`: again
# sequentially); `histogram`'s map, unique, stays unfused.
ARRAY_REDUCTIONS = """
fun [real] colsums([[real]] rows) =
  reduce(fn [real] ([real] a, [real] b) => map(op +, zip(a, b)), replicate(size(1, rows), 0.0),
         rows)
fun [int] histogram(int k, [int] xs) =
  reduce(fn *[int] (*[int] a, *[int] b) =>
           loop (a) = for i < k do let a[i] = a[i] + b[i] in a in a,
         replicate(k, 0),
         map(fn *[int] (int x) => let h = replicate(k, 0) in let h[x % k] = 1 in h, xs))
fun [int] last([[int]] rows) = reduce(fn [int] ([int] a, [int] b) => copy(b), iota(0), rows)
fun [real] colsquares([[real]] rows) =
  reduce(fn [real] ([real] a, [real] b) => map(op +, zip(a, b)), replicate(size(1, rows), 0.0),
         map(fn [real] ([real] r) => map(fn real (real x) => x * x, r), rows))
fun [int] lastplus([[int]] rows) =
  reduce(fn [int] ([int] a, [int] b) => copy(b), iota(0),
         map(fn [int] ([int] r) => map(op + (1), r), rows))
fun [[int]] product([[int]] x, [[int]] y) =
  map(fn [int] ([int] row) =>
        map(fn int ([int] col) => reduce(op +, 0, map(op *, zip(row, col))), transpose(y)),
      x)
fun int main() = 0
"""


def _array_reduction_results(prog: l0.CompiledProgram, ints: np.ndarray) -> list:
    reals = (ints[:20_000].reshape(-1, 4) % 7).astype(np.float64)
    x, y = ints[:37 * 45].reshape(37, 45), ints[:45 * 70].reshape(45, 70)
    return [prog.colsums(reals), prog.histogram(7, ints[:30_000] + 1000),
            prog.last(ints[:30_000].reshape(-1, 3)), prog.product(x, y),
            prog.colsquares(reals), prog.lastplus(ints[:30_000].reshape(-1, 3))]


@pytest.mark.parametrize("threads", THREADS)
def test_array_accumulators_and_tiled_products_match_the_interpreter(
        threads: int, data: np.ndarray) -> None:
    interp = l0.compile(ARRAY_REDUCTIONS, backend="interp")
    par = l0.compile(ARRAY_REDUCTIONS, backend="multicore", threads=threads)
    for got, want in zip(_array_reduction_results(par, data),
                         _array_reduction_results(interp, data), strict=True):
        np.testing.assert_array_equal(got, want)


def test_array_accumulators_are_blocked_and_free_what_they_allocate(
        monkeypatch: pytest.MonkeyPatch, data: np.ndarray) -> None:
    import gc

    from l0.api import CompiledProgram
    from l0.lowering.pipeline import lower
    from l0.lowering.runtime import checked_memory

    for entry, redomap in (("colsums(r)", False), ("colsquares(r)", True)):
        source = ARRAY_REDUCTIONS.replace("fun int main() = 0",
                                          f"fun [real] main([[real]] r) = {entry}")
        module = CompiledProgram(source, "a.l0", "interp").module
        assert redomap == any(op.name == "soac.redomap" for op in module.walk())
        text = str(lower(module, entries=["main"]))
        # The flags saying which chunk's partial has the neutral element's shape.
        assert "func.call @l0_parallel_width()" in text and "memref<?xi1>" in text
    monkeypatch.setenv(checked_memory.ENV, "1")
    checked_memory.reset_problems()
    prog = l0.compile(ARRAY_REDUCTIONS + "\n// checked", backend="multicore", threads=3)
    before = checked_memory.live()
    _array_reduction_results(prog, data)
    gc.collect()
    assert checked_memory.live() == before, "buffers leaked"
    assert checked_memory.problems() == []


HISTOGRAM = """
fun [int] main(int k, [int] xs) =
  redomap(fn *[int] (*[int] a, *[int] b) =>
            loop (a) = for i < k do let a[i] = a[i] + b[i] in a in a,
          fn *[int] (*[int] h, int x) => let h[x] = h[x] + 1 in h,
          replicate(k, 0), xs)
"""


@pytest.mark.parametrize("threads", THREADS)
def test_redomap_histogram_counts_and_fails_at_the_smallest_index(threads: int) -> None:
    # A redomap with an array accumulator, counted in place: blocked, each chunk into a
    # copy of its own of the neutral element. Bad rows at 14000, 15001 and 20001: with
    # 2 or 3 threads a later chunk fails after fewer rows than the first failing one.
    prog = l0.compile(HISTOGRAM, filename="h.l0", backend="multicore", threads=threads)
    xs = np.arange(30_000, dtype=np.int64) % 5
    assert prog.main(5, xs).tolist() == [6000] * 5
    xs[[14_000, 15_001, 20_001]] = [7, 9, 8]
    with pytest.raises(L0Error) as info:
        prog.main(5, xs)
    assert "index 7 out of bounds for array of size 5" in info.value.render()
    assert info.value.loc.line == 5

COPIES = """
fun [[int]] flip([[int]] a) = copy(transpose(a))
fun [[[int]]] flip3([[[int]]] a) = copy(transpose(a))
fun int main() = 0
"""


@pytest.mark.parametrize("threads", (2, 3))
def test_large_copies_run_by_rows_and_match(threads: int, data: np.ndarray) -> None:
    # Above the grain (2^14 elements): the copy becomes a parallel loop over rows;
    # rows of unequal count and length, and a rank-3 copy (rows that are matrices).
    prog = l0.compile(COPIES, backend="multicore", threads=threads)
    a = data[:170 * 130].reshape(170, 130)
    np.testing.assert_array_equal(prog.flip(a), a.T)
    b = data[:40 * 30 * 20].reshape(40, 30, 20)
    np.testing.assert_array_equal(prog.flip3(b), np.transpose(b, (1, 0, 2)))
    small = data[:12].reshape(3, 4)
    np.testing.assert_array_equal(prog.flip(small), small.T)


# Note [Chunk bounds without overflow] in l0.lowering.loop_ir.parallel_loops: c*n left 64 bits
# at n = 2^62 + 12345 with 3 chunks (-4099276460773547872 instead of the sum). The iota
# is streamed into the reduction (`forward-iota`: nothing stored), and LLVM folds each
# chunk's loop into a closed form, so the 2^62 rows take no time; the sum wraps as L0
# integers do.
IOTA_SUM = "fun int main(int n) = reduce(op +, 0, iota(n))"


def _wrapped_iota_sum(n: int) -> int:
    return (n * (n - 1) // 2 + 2**63) % 2**64 - 2**63


@pytest.mark.llvm_o3  # only LLVM's optimiser folds the loops
@pytest.mark.timeout(300)  # a loop LLVM no longer folds would run for years: fail
@pytest.mark.parametrize("threads", (2, 3))
def test_chunks_of_2_62_rows_do_not_overflow(threads: int) -> None:
    from l0.lowering.pipeline import lower

    prog = l0.compile(IOTA_SUM, backend="multicore", threads=threads)
    assert "memref.alloc" not in str(lower(prog.module, entries=["main"]))  # streamed
    for n in (2**62 + 12345, 2**63 - 1):
        assert prog.main(n) == _wrapped_iota_sum(n), n


# Four loops of one block (unoptimised: the squares are a map of their own), none able
# to fail: one OpenMP region of four phases (Note [One region per parallel phase] in
# `l0.lowering.cpu.omp_phases`), a barrier before the squares of y and one before
# their reduction; `failing`'s two maps are independent: no barrier.
PHASES = """
fun {[int], [int], int} main([int] a, [int] b) =
  let x = map(fn int (int v) => v * 2, a) in
  let y = map(fn int (int v) => v + 1, b) in
  {x, y, reduce(op +, 0, map(fn int (int v) => v * v, y))}
fun {[int], [int]} failing(int n, [int] a) =
  let x = map(fn int (int i) => i * 2, iota(n)) in
  let y = map(fn int (int i) => if i % 40000 = 39999 then a[i] else i, iota(n)) in
  {x, y}
"""


def test_consecutive_loops_are_one_region() -> None:
    from l0.api import CompiledProgram
    from l0.lowering.pipeline import lower

    plain = CompiledProgram(PHASES, "phases.l0", "interp", optimise=False)
    text = str(lower(plain.module, target="multicore"))
    regions = [r.split("func.func")[0] for r in text.split('"omp.parallel"')[1:]]
    assert [(r.count('"omp.wsloop"'), r.count('"omp.barrier"')) for r in regions] \
        == [(4, 2), (2, 0)]


@pytest.mark.parametrize("threads", THREADS)
def test_phases_match_the_sequential_back_end(threads: int, data: np.ndarray) -> None:
    a, b = data, data[::-1].copy()
    prog = l0.compile(PHASES, backend="multicore", threads=threads, optimise=False)
    seq = l0.compile(PHASES, backend="cpu", optimise=False)
    for got, want in zip(prog.main(a, b), seq.main(a, b), strict=True):
        np.testing.assert_array_equal(got, want)
    # The second phase fails in every thread's chunk: the smallest index is reported.
    with pytest.raises(L0Error) as info:
        prog.failing(N, np.arange(3, dtype=np.int64))
    assert "index 39999 out of bounds for array of size 3" in info.value.render()
    assert info.value.loc.line == 8


# Two maps in a sequential loop (their buffers allocated once, before it, by
# `hoist-allocs`), the first of which may fail: one region, a barrier between them.
# The first map fails at 39999 (thread 0) and 79999; the second would fail at 5, in
# thread 0, had it run: the first map's error is the sequential run's.
FAILING_PHASES = """
fun int main(int n, [int] a) =
  loop (acc = 0) = for it < 2 do
    let y = map(fn int (int i) => if i % 40000 = 39999 then a[i] else i + it, iota(n)) in
    let z = map(fn int (int i) => if i = 5 then a[i] else i * 3 + it, iota(n + 1)) in
    acc + y[it] + z[it]
  in acc
"""


@pytest.mark.parametrize("threads", THREADS)
def test_a_failing_phase_stops_the_phases_after_it(threads: int) -> None:
    from l0.api import CompiledProgram
    from l0.lowering.pipeline import lower

    plain = CompiledProgram(FAILING_PHASES, "f.l0", "interp")
    text = str(lower(plain.module, target="multicore"))
    regions = [r.split("func.func")[0] for r in text.split('"omp.parallel"')[1:]]
    assert [(r.count('"omp.wsloop"'), r.count('"omp.barrier"')) for r in regions] == [(2, 1)]
    prog = l0.compile(FAILING_PHASES, filename="f.l0", backend="multicore", threads=threads)
    with pytest.raises(L0Error) as info:
        prog.main(N, np.arange(3, dtype=np.int64))
    assert "index 39999 out of bounds for array of size 3" in info.value.render()
    assert info.value.loc.line == 4
    with pytest.raises(L0Error) as info:
        prog.main(N, np.arange(39999, dtype=np.int64))
    assert "index 5 out of bounds for array of size 39999" not in info.value.render()
    assert "index 39999 out of bounds" in info.value.render()
    # Below 39999 elements only the second map's index 5 could fail, and a has it.
    assert prog.main(30000, np.arange(10, dtype=np.int64)) == (0 + 0) + (2 + 4)
