"""Black-Scholes past one machine's memory: l0 over Dask against a `dask.array` expression.

    python -m benchmarks.dask_scale                        # the full run: 1.5e9 options
    python -m benchmarks.dask_scale --options 2e7 --chunk 1e6 --local 1e7   # minutes

The call prices of n options (three real arrays: price, strike, years to expiry) are
summed, the arrays generated chunk by chunk on the workers (`dask.array.random`), on a
`distributed.LocalCluster` of `--workers` processes (one thread each) with
`--memory-limit` each. At the full size the input is 36 GB: more than this machine's
memory, so it exists only a few chunks at a time. Printed, from one run:

* the time of the L0 program over the Dask arrays (`l0.compile(...).main(p, s, y)`: one
  fused per-chunk kernel, a redomap, and the tree of combines) and of the same formula as
  a `dask.array` expression (op-by-op NumPy on each chunk), both including the generation
  of the inputs, which is the same graph; their ratio (target <= 0.5) and the relative
  difference of the two sums;
* first, with `--local M` (default 1e8): at M options, the arrays persisted in the workers'
  memory first, l0 over Dask against `l0.compile(..., backend="multicore")` on the same
  arrays as NumPy arrays in this process (all cores; generation excluded from both):
  the ratio is Dask's overhead (target <= 1.3).

* before both, the cost of one chunk in this process, per option (best of 2): generating
  its three arrays (common to both sides), the l0 kernel (the compiled `main` on the
  chunk) and the NumPy expression on it; what the ratio of the big run should be on an
  idle machine follows from them: (generation + kernel) / (generation + NumPy).

The targets come from the issue "Past one machine"; they are reported, never enforced.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from typing import Any

import numpy as np

SOURCE = """
// The call price of one option (Black-Scholes), summed over all options.
fun real cnd(real d) =
  let k = 1.0 / (1.0 + 0.2316419 * (if d < 0.0 then -d else d)) in
  let p = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937
              + k * (-1.821255978 + k * 1.330274429)))) in
  let c = 0.39894228040143267793994605993438 * exp(-0.5 * d * d) * p in
  if 0.0 < d then 1.0 - c else c

fun real call({real, real, real} o) =
  let {price, strike, years} = o in
  let r = 0.08 in
  let v = 0.30 in
  let v_sqrtT = v * sqrt(years) in
  let d1 = (log(price / strike) + (r + 0.5 * v * v) * years) / v_sqrtT in
  let d2 = d1 - v_sqrtT in
  price * cnd(d1) - strike * exp(-r * years) * cnd(d2)

fun real main([real] prices, [real] strikes, [real] years) =
  reduce(op +, 0.0, map(call, zip(prices, strikes, years)))
"""


def black_scholes_sum(xp: Any, p: Any, s: Any, y: Any) -> Any:
    """The same formula, op by op, with the array module `xp`: `dask.array` for the
    whole arrays, NumPy for one chunk (the calls each of the Dask expression's tasks
    makes)."""
    r, v = 0.08, 0.30
    v_sqrt_t = v * xp.sqrt(y)
    d1 = (xp.log(p / s) + (r + 0.5 * v * v) * y) / v_sqrt_t
    d2 = d1 - v_sqrt_t

    def cnd(d: Any) -> Any:
        k = 1.0 / (1.0 + 0.2316419 * abs(d))
        poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937
                    + k * (-1.821255978 + k * 1.330274429))))
        c = 0.39894228040143267793994605993438 * xp.exp(-0.5 * d * d) * poly
        return xp.where(0.0 < d, 1.0 - c, c)

    return (p * cnd(d1) - s * xp.exp(-r * y) * cnd(d2)).sum()


def dask_expression(p: Any, s: Any, y: Any) -> Any:
    """The formula as a `dask.array` expression."""
    import dask.array as da

    return black_scholes_sum(da, p, s, y)


def inputs(n: int, chunk: int, seed: int = 7) -> tuple[Any, Any, Any]:
    import dask.array as da

    rs = da.random.RandomState(seed)
    return (rs.uniform(10.0, 60.0, size=n, chunks=chunk),
            rs.uniform(10.0, 60.0, size=n, chunks=chunk),
            rs.uniform(0.1, 5.0, size=n, chunks=chunk))


def timed(f: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def numpy_expression(p: Any, s: Any, y: Any) -> Any:
    """`dask_expression` on one chunk: the NumPy calls each of its tasks makes."""
    return black_scholes_sum(np, p, s, y)


def per_chunk(prog: Any, chunk: int) -> None:
    """One chunk's costs in this process, per option (best of 2 each)."""
    rs = np.random.RandomState(7)

    def generate() -> tuple[Any, ...]:
        return (rs.uniform(10.0, 60.0, chunk), rs.uniform(10.0, 60.0, chunk),
                rs.uniform(0.1, 5.0, chunk))

    t_gen = min(timed(generate)[0] for _ in range(2))
    p, s, y = generate()
    t_l0 = min(timed(lambda: prog.main(p, s, y))[0] for _ in range(2))
    t_np = min(timed(lambda: numpy_expression(p, s, y))[0] for _ in range(2))
    ns = 1e9 / chunk
    print(f"one chunk of {chunk:.3g} options in this process, per option: generation "
          f"{t_gen * ns:.0f} ns, l0 kernel {t_l0 * ns:.0f} ns, NumPy expression "
          f"{t_np * ns:.0f} ns; expected ratio {(t_gen + t_l0) / (t_gen + t_np):.2f}",
          flush=True)


def compare_with_multicore(prog: Any, local: int, chunk: int, fast_math: bool) -> None:
    """At `local` options persisted in the workers' memory: l0 over Dask against
    `backend="multicore"` on the same arrays in this process (best of 2 each)."""
    import dask
    from distributed import wait

    import l0

    p, s, y = dask.persist(*inputs(local, chunk))
    wait([p, s, y])
    t_l0, total_l0 = timed(lambda: float(prog.main(p, s, y).compute()))
    t_l0 = min(t_l0, timed(lambda: float(prog.main(p, s, y).compute()))[0])
    arrays = [np.asarray(a) for a in dask.compute(p, s, y)]
    p = s = y = None  # the persisted chunks are released
    # Every core, said explicitly: starting the cluster's worker processes set
    # OMP_NUM_THREADS=1 in this process's environment (distributed's `pre-spawn-environ`
    # for workers), which libgomp's default would obey: one thread.
    multicore = l0.compile(SOURCE, filename="dask_scale.l0", backend="multicore",
                           threads=os.cpu_count() or 1,
                           fast_math=fast_math)
    multicore.main(*(a[:1000] for a in arrays))  # compiled before timing
    t_mc, total_mc = timed(lambda: multicore.main(*arrays))
    t_mc = min(t_mc, timed(lambda: multicore.main(*arrays))[0])
    print(f"{local:.3g} options, inputs in memory (best of 2):")
    print(f"  l0 over Dask        {t_l0:8.2f} s   sum {total_l0:.10g}")
    print(f"  l0 multicore        {t_mc:8.2f} s   sum {total_mc:.10g}")
    print(f"  Dask/multicore      {t_l0 / t_mc:8.2f}   (target <= 1.3)", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--options", type=float, default=1.5e9, help="options in the big run")
    ap.add_argument("--chunk", type=float, default=1e7, help="options per chunk")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="2.5GB", help="per worker")
    ap.add_argument("--local", type=float, default=1e8,
                    help="options in the comparison with multicore (0: none)")
    ap.add_argument("--fast-math", action="store_true",
                    help="compile the kernels with fast_math (reassociated float sums "
                         "vectorise); off: the program's own order, as reported")
    args = ap.parse_args(argv)

    from distributed import Client, LocalCluster

    import l0

    n, chunk, local = int(args.options), int(args.chunk), int(args.local)
    prog = l0.compile(SOURCE, filename="dask_scale.l0", fast_math=args.fast_math)
    per_chunk(prog, chunk)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               memory_limit=args.memory_limit, host="127.0.0.1",
                               dashboard_address=None)
        client = Client(cluster)
    try:
        print(f"# {args.workers} workers x 1 thread, {args.memory_limit} each; "
              f"load average {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores")
        # Each worker compiles the kernels once: warm them up, as a long run would.
        p, s, y = inputs(4 * chunk if n > 4 * chunk else n, chunk)
        prog.main(p, s, y).compute()
        if local:  # first: the short part, so that a long run cut off still has it
            compare_with_multicore(prog, local, chunk, args.fast_math)
        p, s, y = inputs(n, chunk)
        gb = 3 * 8 * n / 1e9
        print(f"{n:.3g} options ({gb:.1f} GB of input), chunks of {chunk:.3g}:", flush=True)
        t_l0, total_l0 = timed(lambda: float(prog.main(p, s, y).compute()))
        print(f"  l0 over Dask        {t_l0:8.2f} s   sum {total_l0:.10g}", flush=True)
        t_da, total_da = timed(lambda: float(dask_expression(p, s, y).compute()))
        print(f"  dask.array          {t_da:8.2f} s   sum {total_da:.10g}")
        print(f"  l0/dask.array       {t_l0 / t_da:8.2f}   (target <= 0.5); relative difference "
              f"{abs(total_l0 - total_da) / abs(total_da):.1e}")
    finally:
        client.close()
        cluster.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
