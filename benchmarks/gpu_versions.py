"""The GPU peers of the benchmarks: CuPy (array at a time) and a fused numba.cuda kernel.

* CuPy: the NumPy versions (`numpy_versions.py`) run with CuPy as their array module:
  the same whole-array code, each operation a kernel and every intermediate array
  materialised in device memory, which is how array-at-a-time GPU code performs.
* numba.cuda, Black-Scholes: one hand-written fused kernel, a grid-stride loop
  computing each option's price with the L0 program's formulas (no intermediate array),
  the best a programmer writing CUDA by hand would do for this map; matmul: the naive
  kernel, a thread per element of the product (16 x 16 blocks), each a dot product of
  a row and a column, no shared-memory tiling.

Each is timed two ways (`GpuTimes`): `kernel`, the computation on inputs already in
device memory until the device is idle; `end_to_end`, from host arrays to a host array
(copies in, computation, copy out), which is what l0's `main` does on `--backend=gpu`
(its arguments and result are host arrays, copied in and out by numba.cuda too).
Medians of `runs`, after one warm-up run (compilation of CuPy's and numba's kernels is
not timed).

`unavailable()` says why the peers cannot run (no GPU, CuPy or numba-cuda: the
`gpu-bench` extra), or None; the runner then leaves their columns empty.
"""

from __future__ import annotations

import math
import statistics
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks import numpy_versions

BLOCK = 256
BLOCKS_PER_SM = 8


@dataclass
class GpuTimes:
    """Median seconds of one GPU version, and its result (on the host)."""

    kernel: float
    end_to_end: float
    result: np.ndarray


def unavailable() -> str | None:
    """Why the GPU peers cannot run here, or None if they can."""
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "no GPU"
    except ImportError:
        return "CuPy is not installed (pip install 'l0[gpu-bench]')"
    except Exception as err:  # CuPy's CUDARuntimeError and friends: no usable device
        return f"no GPU ({type(err).__name__}: {err})"
    return None


# Note [NumPy code on CuPy]
# The NumPy versions use `np.` for every array operation; run with `np` bound to CuPy
# they are the idiomatic CuPy programs (CuPy mirrors NumPy's API). The one function
# CuPy may lack here, `broadcast_shapes`, only computes a shape, so NumPy's serves.
class _CupyAsNumpy(types.SimpleNamespace):
    def __init__(self, cupy: Any) -> None:
        super().__init__()
        self._cupy = cupy

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._cupy, name, None)
        return found if found is not None else getattr(np, name)


def _on_cupy(fn: Callable[..., Any], cupy: Any) -> Callable[..., Any]:
    """`fn` of `numpy_versions` with CuPy as its `np` (and its helpers' too)."""
    module = {**vars(numpy_versions), "np": _CupyAsNumpy(cupy)}
    for name, value in vars(numpy_versions).items():
        if isinstance(value, types.FunctionType):
            module[name] = types.FunctionType(value.__code__, module, name,
                                              value.__defaults__, value.__closure__)
    return module[fn.__name__]


def _median_seconds(run: Callable[[], Any], sync: Callable[[], None], runs: int) -> float:
    times = []
    for _ in range(runs):
        sync()
        start = time.perf_counter()
        run()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_cupy(name: str, args: list[np.ndarray], runs: int) -> GpuTimes:
    """The CuPy version of benchmark `name` on `args` (host arrays)."""
    import cupy

    fn = _on_cupy(numpy_versions.VERSIONS[name], cupy)
    sync = cupy.cuda.Device().synchronize
    dev = [cupy.asarray(a) for a in args]
    result = cupy.asnumpy(fn(*dev))  # warm-up: CuPy compiles its kernels

    def end_to_end() -> None:
        cupy.asnumpy(fn(*[cupy.asarray(a) for a in args]))

    kernel = _median_seconds(lambda: fn(*dev), sync, runs)
    return GpuTimes(kernel, _median_seconds(end_to_end, sync, runs), np.asarray(result))


def _import_numba_cuda() -> Any:
    """numba.cuda as the gpu back end imports it (numpy 2.5's `row_stack` put back)."""
    from l0.lowering.runtime.gpu_runtime import numba_cuda

    return numba_cuda()


def _time_numba(cuda: Any, launch: Callable[[list[Any], Any], None], args: list[np.ndarray],
                shape: int | tuple[int, ...], dtype: Any, runs: int) -> GpuTimes:
    """Time a hand-written numba.cuda kernel, `launch(inputs, out)` on device arrays:
    kernel only (the inputs on the device) and end to end (from `args` on the host to
    a host result of `shape` and `dtype`)."""
    dev = [cuda.to_device(a) for a in args]
    out = cuda.device_array(shape, dtype=dtype)
    launch(dev, out)  # warm-up: numba compiles the kernel
    cuda.synchronize()
    result = out.copy_to_host()

    def end_to_end() -> None:
        res = cuda.device_array(shape, dtype=dtype)
        launch([cuda.to_device(a) for a in args], res)
        res.copy_to_host()

    kernel_time = _median_seconds(lambda: launch(dev, out), cuda.synchronize, runs)
    return GpuTimes(kernel_time, _median_seconds(end_to_end, cuda.synchronize, runs), result)


_bs_kernel: Any = None


def _blackscholes_kernel(cuda: Any) -> Any:
    """The fused Black-Scholes kernel (compiled once per process)."""
    global _bs_kernel
    if _bs_kernel is not None:
        return _bs_kernel
    c1, c2, c3, c4, c5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
    rsqrt2pi = 0.39894228040143267793994605993438

    @cuda.jit(device=True)
    def cnd(d: float) -> float:
        k = 1.0 / (1.0 + 0.2316419 * abs(d))
        p = k * (c1 + k * (c2 + k * (c3 + k * (c4 + k * c5))))
        c = rsqrt2pi * math.exp(-0.5 * d * d) * p
        return 1.0 - c if 0.0 < d else c

    @cuda.jit
    def kernel(calls: Any, prices: Any, strikes: Any, years: Any, out: Any) -> None:
        r, v = 0.08, 0.30
        for i in range(cuda.grid(1), prices.shape[0], cuda.gridsize(1)):
            v_sqrt_t = v * math.sqrt(years[i])
            d1 = (math.log(prices[i] / strikes[i]) + (r + 0.5 * v * v) * years[i]) / v_sqrt_t
            d2 = d1 - v_sqrt_t
            cnd_d1, cnd_d2 = cnd(d1), cnd(d2)
            x_exp_rt = strikes[i] * math.exp(-r * years[i])
            if calls[i]:
                out[i] = prices[i] * cnd_d1 - x_exp_rt * cnd_d2
            else:
                out[i] = x_exp_rt * (1.0 - cnd_d2) - prices[i] * (1.0 - cnd_d1)

    _bs_kernel = kernel
    return kernel


def run_numba_blackscholes(args: list[np.ndarray], runs: int) -> GpuTimes:
    """The fused numba.cuda kernel on Black-Scholes's `args` (host arrays)."""
    cuda = _import_numba_cuda()
    kernel = _blackscholes_kernel(cuda)
    n = args[1].shape[0]
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    grid = max(1, min(math.ceil(n / BLOCK), sms * BLOCKS_PER_SM))

    def compute(inputs: list[Any], result: Any) -> None:
        kernel[grid, BLOCK](*inputs, result)

    return _time_numba(cuda, compute, args, n, np.float64, runs)


TILE = 16
"""The naive matrix product's blocks: TILE x TILE threads."""

_mm_kernel: Any = None


def _matmul_kernel(cuda: Any) -> Any:
    global _mm_kernel
    if _mm_kernel is None:
        @cuda.jit
        def kernel(x: Any, y: Any, out: Any) -> None:
            i, j = cuda.grid(2)
            if i < out.shape[0] and j < out.shape[1]:
                acc = x[i, 0] * 0
                for k in range(x.shape[1]):
                    acc += x[i, k] * y[k, j]
                out[i, j] = acc

        _mm_kernel = kernel
    return _mm_kernel


def run_numba_matmul(args: list[np.ndarray], runs: int) -> GpuTimes:
    """The naive numba.cuda matrix product on matmul's `args` (two host matrices)."""
    cuda = _import_numba_cuda()
    kernel = _matmul_kernel(cuda)
    x, y = args
    shape = (x.shape[0], y.shape[1])
    grid = (math.ceil(shape[0] / TILE), math.ceil(shape[1] / TILE))

    def compute(inputs: list[Any], result: Any) -> None:
        kernel[grid, (TILE, TILE)](*inputs, result)

    return _time_numba(cuda, compute, args, shape, np.result_type(x, y), runs)


FUSED: dict[str, Callable[[list[np.ndarray], int], GpuTimes]] = {
    "blackscholes": run_numba_blackscholes,
    "matmul": run_numba_matmul,
}
"""The benchmarks with a hand-written numba.cuda kernel (fused Black-Scholes, naive
matmul)."""


# --------------------------------------------------------------------------- the figures


@dataclass(frozen=True)
class Figure:
    """One of the GPU back end's targets: `ratio` of a benchmark's results, at most
    (`most`) or at least `bound`."""

    what: str
    ratio: Callable[[dict[str, Any]], float | None]
    bound: float
    most: bool

    def verdict(self, results: dict[str, Any]) -> str:
        r = self.ratio(results)
        if r is None:
            return f"{self.what}: not measured"
        ok = r <= self.bound if self.most else r >= self.bound
        sign = "<=" if self.most else ">="
        return f"{self.what}: {r:.2f} (target {sign} {self.bound:g}): {'met' if ok else 'NOT met'}"


def _e2e(t: GpuTimes | None) -> float | None:
    return t.end_to_end if t is not None else None


def _div(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


FIGURES = [
    Figure("Black-Scholes 10^7: l0 / fused numba.cuda (end to end)",
           lambda r: _div(r["blackscholes"].l0, _e2e(r["blackscholes"].fused)), 1.5, True),
    Figure("Black-Scholes 10^7: CuPy / l0 (end to end)",
           lambda r: _div(_e2e(r["blackscholes"].cupy), r["blackscholes"].l0), 10.0, False),
    Figure("matmul 1000: l0 / naive numba.cuda (end to end)",
           lambda r: _div(r["matmul"].l0, _e2e(r["matmul"].fused)), 2.0, True),
    Figure("LocVolCalib Medium: multicore / l0 on the GPU",
           lambda r: _div(r["locvolcalib-multicore"].multicore, r["locvolcalib"].l0), 10.0,
           False),
]
"""The issue's targets for the GPU back end (its notes measured the peers on an H100)."""


def figures(argv: list[str] | None = None) -> int:
    """`python -m benchmarks.gpu_versions`: the issue's figures in one run (Black-Scholes
    over 10^7 options against the fused kernel and CuPy, a 1000 x 1000 matrix product
    against the naive kernel, LocVolCalib Medium on the GPU against multicore on this
    machine), each benchmark's table row and the ratios with their targets.
    `--tiny`: tiny sizes (a smoke test); `--dry-run`: tiny sizes and `gpu-sim` in place
    of `gpu` (no GPU needed; the peers' columns stay empty), to check the command
    itself."""
    import argparse

    from benchmarks import run

    ap = argparse.ArgumentParser(prog="python -m benchmarks.gpu_versions",
                                 description=figures.__doc__)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    opts = ap.parse_args(argv)
    backend = "gpu-sim" if opts.dry_run else "gpu"
    tiny = opts.tiny or opts.dry_run
    sizes = {"blackscholes": 1000, "matmul": 12, "locvolcalib": 4} if tiny else \
        {"blackscholes": 10_000_000, "matmul": 1000, "locvolcalib": "Medium"}
    results: dict[str, Any] = {}
    rows: list[Any] = []
    for key, name, on in (("blackscholes", "blackscholes", backend),
                          ("matmul", "matmul", backend),
                          ("locvolcalib", "locvolcalib", backend),
                          ("locvolcalib-multicore", "locvolcalib", "multicore")):
        args = run.build_argparser().parse_args(
            [name, "--backend", on, "--runs", str(opts.runs), "--no-compile-time",
             *(["--threads", str(opts.threads)] if opts.threads else [])])
        args.no_gpu = args.no_gpu_peers = None
        if on == "gpu":
            args.no_gpu, args.no_gpu_peers = run.l0_gpu_unavailable(), unavailable()
        elif opts.dry_run:
            args.no_gpu_peers = "a dry run (gpu-sim)"
        results[key] = res = run.run_benchmark(run.BENCHMARKS[name], sizes[name], args)
        print(run.report([res], [], args), flush=True)
        rows.append(res)
    if opts.dry_run:
        print("dry run: tiny sizes on gpu-sim; the ratios below say nothing of a GPU")
    print("\n".join(f.verdict(results) for f in FIGURES))
    return 0 if all(r.agree for r in rows) else 1


if __name__ == "__main__":
    import sys

    sys.exit(figures())
