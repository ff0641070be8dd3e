"""The gpu back end on a real GPU (marked `gpu`: skipped without a device, its driver or
the gpu extra).

* a hand-written gpu-level module (`test/lit/gpu/gpu-host.mlir`: copies, a map kernel,
  frees) against numpy;
* the corpus on `--backend=gpu` with the protocol of `test/corpus.py` (expected output,
  or the expected located error);
* the kernel forms over 100,000 rows against the sequential back end (the forms of
  `test/test_gpu_sim.py`, tuple reductions included), the lowest failing index's error
  through the error word, threads failing before a reduction's barriers, the compile
  cache, and the benchmarks' figures command at tiny sizes;
* numba.cuda loading the PTX into its context and moving `main`'s arrays, in a thread
  of its own too (`l0-run` calls from a big-stack thread).

Nothing here has run on a GPU yet (docs/gpu-codegen.md).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from corpus import ROOT, runnable

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
from l0.testing import squash


def _device():  # noqa: ANN202
    from l0.lowering.runtime.gpu_runtime import device

    why = _no_gpu()
    if why is not None:
        pytest.skip(f"no GPU: {why}")
    return device()


@functools.cache
def _no_gpu() -> str | None:
    """Why the gpu back end cannot run here (None: it can), asked once per test process:
    without a driver, each look for it (`ctypes.util.find_library`) starts ldconfig, gcc
    and ld, three processes per skipped test."""
    from l0.lowering.llvm.ptx import GpuToolMissing, find_libdevice
    from l0.lowering.runtime.gpu_runtime import GpuUnavailable, device

    try:
        find_libdevice()
        device()
    except (GpuUnavailable, GpuToolMissing) as err:
        return str(err)
    return None


pytestmark = pytest.mark.gpu
HOST = Path(__file__).parent / "lit" / "gpu" / "gpu-host.mlir"


def test_hand_written_module_runs_on_the_gpu() -> None:
    from xdsl.parser import Parser

    from l0.dialects.context import LOWERING_LEVELS, SOAC_LEVEL, l0_context
    from l0.lowering.backends.gpu import compile_gpu_module

    dev = _device()
    module = Parser(l0_context(SOAC_LEVEL + LOWERING_LEVELS), HOST.read_text()).parse_module()
    main = compile_gpu_module(module, dev, entries=["main"]).function("main")
    for n in (0, 1, 255, 256, 257, 100_000):
        x = np.linspace(0.5, 3.0, n)
        dev.make_current()
        y = main(x)
        np.testing.assert_allclose(y, -(np.sqrt((x + x) * x) - x), rtol=1e-15, atol=0)


PROGRAMS = [p.path for p in runnable()]


@pytest.mark.parametrize("path", PROGRAMS, ids=[str(p.relative_to(ROOT)) for p in PROGRAMS])
def test_corpus_program_on_gpu(path: Path) -> None:
    _device()
    from l0.api import CompiledProgram

    inp, out, err = (path.with_suffix(s) for s in (".in", ".out", ".err"))
    text = path.read_text(encoding="utf-8")
    prog = call_with_big_stack(lambda: CompiledProgram(text, str(path), "gpu"))
    if out.exists():
        actual = prog.run_main(inp.read_text(encoding="utf-8"))
        assert squash(actual) == squash(out.read_text(encoding="utf-8"))
        return
    with pytest.raises(L0Error) as info:
        prog.run_main(inp.read_text(encoding="utf-8"))
    where, _, phrase = err.read_text(encoding="utf-8").strip().partition("error:")
    rendered = info.value.render()
    assert info.value.kind == "runtime-error", rendered
    assert f":{where.strip()} error:" in rendered and phrase.strip() in rendered, rendered


def test_kernel_forms_match_the_sequential_back_end() -> None:
    _device()
    from test_gpu_sim import FORMS, TUPLES, N

    import l0

    data = np.random.default_rng(7).integers(-1000, 1000, N, dtype=np.int64)
    for src, names, optimise in ((FORMS, ("sum", "prefix", "evens", "maxi", "minmax"), False),
                                 (TUPLES, ("stats",), True)):
        cpu = l0.compile(src, backend="cpu", optimise=optimise)
        gpu = l0.compile(src, backend="gpu", optimise=optimise)
        for name in names:
            np.testing.assert_array_equal(getattr(gpu, name)(data), getattr(cpu, name)(data))
    units = np.where(data % 2 == 0, 1, -1).astype(np.int64)
    assert gpu.affine(units, data) == cpu.affine(units, data)


@pytest.mark.parametrize("optimise", [False, True])
def test_the_error_word_reports_the_smallest_failing_index(optimise: bool) -> None:
    _device()
    from test_gpu_sim import FAILING, N

    import l0

    prog = l0.compile(FAILING, filename="failing.l0", backend="gpu", optimise=optimise)
    for fn, line in ((prog.main, 3), (prog.total, 5)):
        with pytest.raises(L0Error) as info:
            fn(N, np.arange(3, dtype=np.int64))
        assert "index 39999 out of bounds for array of size 3" in info.value.render()
        assert info.value.loc.line == line


def test_threads_failing_before_barriers_leave_their_blocks_running() -> None:
    # Note [Barriers and failing threads]: the launch finishes (no block waits at a
    # barrier for a failed thread) and the lowest failing row's error is reported.
    _device()
    import l0

    src = ("fun int main([int] a) =\n"
           "  reduce(op +, 0, map(fn int (int x) => 1000000 / x + 7 % (x + 1), a))")
    prog = l0.compile(src, filename="d.l0", backend="gpu")
    rows = np.arange(1, 100_001, dtype=np.int64)
    assert prog.main(rows) == int(np.sum(1000000 // rows + 7 % (rows + 1)))
    for first, second, error in ((0, -1, "2:41: error: division"), (-1, 0, "2:55: error: modulo")):
        rows[[70000, 90000]] = first, second
        with pytest.raises(L0Error) as info:
            prog.main(rows)
        assert info.value.render().startswith(f"d.l0:{error} by zero")


def test_the_compile_cache_on_the_gpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _device()
    from l0.api import CompiledProgram

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("L0_NO_CACHE", raising=False)
    src = "fun [real] main([real] xs) = map(fn real (real x) => x * 2.0, xs)"
    x = np.linspace(0.0, 1.0, 10_000)
    first = CompiledProgram(src, "double.l0", "gpu", cache=True)
    second = CompiledProgram(src, "double.l0", "gpu", cache=True)
    assert (first.from_cache, second.from_cache) == (False, True)
    np.testing.assert_array_equal(second.main(x), x * 2.0)


def test_numba_cuda_loads_the_kernels_and_moves_the_arrays() -> None:
    dev = _device()
    import threading

    from numba import cuda

    import l0

    assert dev.cuda is cuda
    loaded = len(cuda.current_context().modules)
    prog = l0.compile("fun [real] main([real] xs) = map(fn real (real x) => x + 1.0, xs)",
                      backend="gpu")
    assert len(cuda.current_context().modules) == loaded + 1
    x = np.linspace(0.0, 1.0, 100_000)
    np.testing.assert_array_equal(prog.main(x), x + 1.0)
    seen: list[np.ndarray] = []
    thread = threading.Thread(target=lambda: seen.append(prog.main(x[::2])))
    thread.start()
    thread.join()
    np.testing.assert_array_equal(seen[0], x[::2] + 1.0)


def test_the_benchmark_figures_command_runs() -> None:
    _device()
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root
    from benchmarks.gpu_versions import figures

    assert figures(["--tiny", "--runs", "1"]) == 0
