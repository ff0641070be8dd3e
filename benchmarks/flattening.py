"""The flattening figures of LocVolCalib, read from a kernel profile (issue 29).

    python -m benchmarks.flattening PROFILE.json INPUT.data [--runs N]

PROFILE.json is what `l0-run --backend=gpu-sim --profile=PROFILE.json` wrote for
LocVolCalib run on INPUT.data (finpar's format: OUTER, NUM_X, NUM_Y, NUM_T first), N
the runs it summed (`-r N`, default 1). Prints, as JSON:

* `wide_time_share`: the share of the profile's kernel time spent in kernels whose
  iterations per launch are at least OUTER x min(NUM_X, NUM_Y) (the goal: >= 0.9);
* `wide_iteration_share`: the same share of the iterations (work items), which,
  unlike time, does not depend on the machine's load (what the suite's test checks);
* `launches_per_run` and its bound 40 x NUM_T (the goal: at most the bound).

A kernel with enough iterations per launch spreads the work of all strikes over the
grid's rows or columns: the parallelism that flattening (`interchange`, `distribute`)
exposes, where the unflattened program launches one thread per strike.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Sizes:
    """The sizes of a LocVolCalib dataset (finpar's input.data)."""

    outer: int
    num_x: int
    num_y: int
    num_t: int

    @property
    def wide(self) -> int:
        """The iterations per launch of a kernel that spans all strikes and a grid axis."""
        return self.outer * min(self.num_x, self.num_y)

    @property
    def launch_bound(self) -> int:
        return 40 * self.num_t


def read_sizes(text: str) -> Sizes:
    """The first four numbers of a finpar input (comments after `//` ignored)."""
    fields = [line.split("//")[0].strip() for line in text.splitlines()]
    try:
        numbers = [int(f) for f in [f for f in fields if f][:4]]
    except ValueError:
        numbers = []
    if len(numbers) < 4:
        raise ValueError("expected the integers OUTER, NUM_X, NUM_Y and NUM_T first")
    return Sizes(*numbers)


@dataclass(frozen=True)
class Figures:
    wide_time_share: float
    wide_iteration_share: float
    launches_per_run: float
    launch_bound: int
    wide_iterations_per_launch: int

    @property
    def met(self) -> bool:
        return self.wide_time_share >= 0.9 and self.launches_per_run <= self.launch_bound


def figures(records: Sequence[dict[str, Any]], sizes: Sizes, runs: int = 1) -> Figures:
    """The figures of a profile (`l0-run --profile`'s records, summed over `runs`)."""
    def wide(r: dict[str, Any]) -> bool:
        return r["launches"] > 0 and r["iterations"] >= sizes.wide * r["launches"]

    time = sum(r["time_us"] for r in records)
    iterations = sum(r["iterations"] for r in records)
    return Figures(
        wide_time_share=sum(r["time_us"] for r in records if wide(r)) / time if time else 0.0,
        wide_iteration_share=(sum(r["iterations"] for r in records if wide(r)) / iterations
                              if iterations else 0.0),
        launches_per_run=sum(r["launches"] for r in records) / runs,
        launch_bound=sizes.launch_bound,
        wide_iterations_per_launch=sizes.wide,
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.flattening",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("profile", type=Path, help="the JSON of l0-run --profile")
    ap.add_argument("input", type=Path, help="the dataset LocVolCalib ran on")
    ap.add_argument("--runs", type=int, default=1, help="the runs the profile sums (-r N)")
    args = ap.parse_args(argv)
    try:
        found = figures(json.loads(args.profile.read_text()),
                        read_sizes(args.input.read_text()), args.runs)
    except (OSError, ValueError, KeyError, TypeError) as err:
        ap.error(str(err))
    print(json.dumps({**asdict(found), "met": found.met}, indent=1))
    return 0 if found.met else 1


if __name__ == "__main__":
    raise SystemExit(main())
