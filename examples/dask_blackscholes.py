"""Black-Scholes over Dask arrays: examples/blackscholes.l0, unchanged, on more options
than fit in memory (docs/distributed.md).

    python examples/dask_blackscholes.py                 # 1e9 options: 25 GB of input
    python examples/dask_blackscholes.py --options 1e7   # seconds
    python examples/dask_blackscholes.py --scheduler tcp://host:8786   # a running cluster

The options are generated chunk by chunk on the workers; `prog.main` returns a lazy Dask
array of prices, one task per chunk running the compiled map, and Dask's own reductions
summarise it without ever holding all of it: only a few chunks exist at a time.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import dask
import dask.array as da
from distributed import Client, LocalCluster

import l0

PROGRAM = Path(__file__).with_name("blackscholes.l0")


def options(n: int, chunk: int) -> tuple[da.Array, ...]:
    """n random options: call or put, price, strike, years to expiry."""
    rs = da.random.RandomState(42)
    calls = rs.random_sample(n, chunks=chunk) < 0.5
    prices = rs.uniform(10.0, 60.0, size=n, chunks=chunk)
    strikes = rs.uniform(10.0, 60.0, size=n, chunks=chunk)
    years = rs.uniform(0.1, 5.0, size=n, chunks=chunk)
    return calls, prices, strikes, years


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--options", type=float, default=1e9)
    ap.add_argument("--chunk", type=float, default=1e7)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="2.5GB", help="per local worker")
    ap.add_argument("--scheduler", help="the address of a running Dask scheduler")
    args = ap.parse_args()

    if args.scheduler:
        client = Client(args.scheduler)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            client = Client(LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                         memory_limit=args.memory_limit, host="127.0.0.1",
                                         dashboard_address=None))
    prog = l0.compile(PROGRAM)
    n, chunk = int(args.options), int(args.chunk)
    prices = prog.main(*options(n, chunk))  # lazy: nothing has run yet
    print(f"{n:.3g} options in {prices.numblocks[0]} chunks")
    t0 = time.perf_counter()
    total, cheapest, dearest = dask.compute(prices.sum(), prices.min(), prices.max())
    print(f"mean price {total / n:.6f}, min {cheapest:.6f}, max {dearest:.6f} "
          f"({time.perf_counter() - t0:.1f} s)")
    client.close()


if __name__ == "__main__":
    main()
