"""Deterministic benchmark inputs, written once for each of the three implementations.

For a benchmark and a size, `ensure(name, n)` generates the arguments of `main` with a
fixed seed and caches them under `benchmarks/data/` (git-ignored) in three forms:

* `NAME-nN-vV.in`: L0 value syntax, one value per parameter of `main`, read by `l0-run`
  from stdin (docs/reference.md §6.2);
* `NAME-nN-vV.bin`: the same arrays in the binary layout that `c/bench.h` reads: per array
  an int64 rank, int64 dimensions, then the elements (int64, float64, or one byte per bool);
* `NAME-nN-vV.npz`: the same arrays for the NumPy versions.

The real-world benchmarks read finpar's datasets (`finpar_files`): their `input.data` is
fed to `l0-run` as it is (the L0 value reader reads that format), and its values, read by
the L0 value reader with the types of the program's `main`, are cached in the other two
forms. `finpar_reference` reads a dataset's expected result, `output.data`. A dataset is
looked for (`finpar_dataset`) in `$L0_FINPAR_DIR`, then in `benchmarks/data/finpar/`
(git-ignored, like the generated inputs), then in `benchmarks/finpar-data/`, where the
repository keeps copies of finpar's small datasets (its README); a benchmark whose
dataset is in none of them is skipped.

The text and binary forms hold exactly the same numbers: reals are multiples of 1/100
(or 1/1000), written with Python's shortest round-trip `repr`, so `l0-run` parses the very
doubles the C version reads. The generators are those of the thesis's artificial
benchmarks (Part IV, P0-P2); `V` is bumped whenever a generator changes, which makes old
cache files unused rather than wrong.

    python -m benchmarks.datagen blackscholes 1000      # prints the paths, generating if needed
    python -m benchmarks.datagen --strikes Small 2 Small-Outer2   # LocVolCalib, 2 strikes

The second writes `finpar-data/LocVolCalib/Small-Outer2/`: Small's grid and time steps
with OUTER = 2 (`fewer_strikes`), a dataset whose parallelism is in the inner levels.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

DATA_DIR = Path(__file__).resolve().parent / "data"
TRACKED_FINPAR_DIR = Path(__file__).resolve().parent / "finpar-data"
DATA_VERSION = 1
SEED = 20140601

Arrays = list[np.ndarray]


@dataclass(frozen=True)
class DataFiles:
    """The cached forms of one input."""

    text: Path  # L0 value syntax, for l0-run
    binary: Path  # for the C versions
    npz: Path  # for the NumPy versions

    def load(self) -> Arrays:
        """The arrays, in the order of `main`'s parameters."""
        with np.load(self.npz) as z:
            return [z[f"a{i}"] for i in range(len(z.files))]


# --------------------------------------------------------------------------- generators


def gen_blackscholes(n: int, rng: np.random.Generator) -> Arrays:
    """P0: n options: call or put, spot price, strike price, years to expiry."""
    calls = rng.random(n) < 0.5
    prices = rng.integers(500, 15_000, n) / 100.0  # 5.00 .. 149.99
    strikes = rng.integers(500, 15_000, n) / 100.0
    years = rng.integers(50, 5_000, n) / 1000.0  # 0.050 .. 4.999
    return [calls, prices, strikes, years]


def gen_matmul(n: int, rng: np.random.Generator) -> Arrays:
    """P1: two n x n int matrices. |entries| <= 100, so no sum of n <= 10^5 products overflows."""
    return [rng.integers(-100, 101, (n, n), dtype=np.int64) for _ in range(2)]


def gen_shortest_paths(n: int, rng: np.random.Generator) -> Arrays:
    """P2: an n x n matrix of edge lengths in 1..599 with a zero diagonal.

    The program's reduction starts from 1200, its stand-in for infinity, so every sum
    of two lengths must stay below it."""
    d = rng.integers(1, 600, (n, n), dtype=np.int64)
    np.fill_diagonal(d, 0)
    return [d]


def gen_locvolcalib(n: int, rng: np.random.Generator) -> Arrays:
    """R1 on a small grid of our own: n strikes, a 12 x 10 grid, 8 time steps, and finpar's
    model parameters (its datasets are used for the other sizes)."""
    del rng  # nothing random: the grid and the model parameters are the input
    ints = [np.asarray(v, dtype=np.int64) for v in (n, 12, 10, 8)]
    reals = [np.asarray(v, dtype=np.float64) for v in (0.03, 5.0, 0.2, 0.6, 0.5)]
    return ints + reals


def gen_nbody(n: int, rng: np.random.Generator) -> Arrays:
    """N-body: 4 time steps of 0.01 for n bodies: masses in [0.5, 1.5], positions in a
    20-unit cube, small velocities (all multiples of 1/100)."""
    ms = rng.integers(50, 151, n) / 100.0
    pos = [rng.integers(-1000, 1001, n) / 100.0 for _ in range(3)]
    vel = [rng.integers(-10, 11, n) / 100.0 for _ in range(3)]
    return [np.asarray(4, dtype=np.int64), np.asarray(0.01), ms, *pos, *vel]


def gen_kmeans(n: int, rng: np.random.Generator) -> Arrays:
    """K-means: k = 5 centres, 10 iterations, n points of 34 features (Rodinia's
    kdd_cup shape) in [0, 10), multiples of 1/100."""
    points = rng.integers(0, 1000, (n, 34)) / 100.0
    return [np.asarray(5, dtype=np.int64), np.asarray(10, dtype=np.int64), points]


def gen_hotspot(n: int, rng: np.random.Generator) -> Arrays:
    """Hotspot: 20 time steps on an n x n chip: temperatures in [320, 345), power in
    [0, 1) (Rodinia's ranges), multiples of 1/100."""
    temp = rng.integers(32_000, 34_500, (n, n)) / 100.0
    power = rng.integers(0, 100, (n, n)) / 100.0
    return [np.asarray(20, dtype=np.int64), temp, power]


def gen_radix_sort(n: int, rng: np.random.Generator) -> Arrays:
    """Radix sort: n keys in [0, 2^16), sorted on their 16 bits."""
    return [np.asarray(16, dtype=np.int64), rng.integers(0, 1 << 16, n, dtype=np.int64)]


def gen_histogram(n: int, rng: np.random.Generator) -> Arrays:
    """Histogram: n points in 16 buckets, each point a bucket in [0, 16)."""
    return [np.asarray(16, dtype=np.int64), rng.integers(0, 16, n, dtype=np.int64)]


GENERATORS: dict[str, Callable[[int, np.random.Generator], Arrays]] = {
    "blackscholes": gen_blackscholes,
    "matmul": gen_matmul,
    "shortest_paths": gen_shortest_paths,
    "locvolcalib": gen_locvolcalib,
    "nbody": gen_nbody,
    "kmeans": gen_kmeans,
    "hotspot": gen_hotspot,
    "radix_sort": gen_radix_sort,
    "histogram": gen_histogram,
}


# --------------------------------------------------------------------------- writers


def l0_text(a: np.ndarray) -> str:
    """A value in L0 value syntax (`[1, 2]`, `[1.5, 2.0]`, `[True, False]`, `3`, `0.5`)."""
    if a.ndim == 0:
        return l0_text(a.reshape(1))[1:-1]
    if a.ndim > 1:
        return "[" + ",\n".join(l0_text(row) for row in a) + "]"
    if a.dtype == np.bool_:
        return "[" + ", ".join(np.where(a, "True", "False").tolist()) + "]"
    if a.dtype == np.float64:
        # repr is the shortest string that reads back as the same double; L0 needs a point.
        return "[" + ", ".join(map(repr, a.tolist())) + "]"
    return "[" + ", ".join(map(str, a.tolist())) + "]"


def write_binary(f: BinaryIO, a: np.ndarray) -> None:
    """One array in the layout of `c/bench.h`: rank, dims, elements (native little-endian)."""
    np.array([a.ndim, *a.shape], dtype=np.int64).tofile(f)
    np.ascontiguousarray(a.astype(np.uint8) if a.dtype == np.bool_ else a).tofile(f)


def read_binary(path: Path) -> np.ndarray:
    """The array written by a C version (`write_array` in `c/bench.h`): int64 or float64,
    told apart by the file's extension `.i64` / `.f64`."""
    raw = path.read_bytes()
    rank = int(np.frombuffer(raw, np.int64, 1)[0])
    shape = tuple(int(x) for x in np.frombuffer(raw, np.int64, rank, 8))
    dtype = np.float64 if path.suffix == ".f64" else np.int64
    return np.frombuffer(raw, dtype, offset=8 * (1 + rank)).reshape(shape)


def files_for(name: str, n: int) -> DataFiles:
    stem = DATA_DIR / f"{name}-n{n}-v{DATA_VERSION}"
    return DataFiles(stem.with_suffix(".in"), stem.with_suffix(".bin"), stem.with_suffix(".npz"))


def ensure(name: str, n: int) -> DataFiles:
    """Generate (unless cached) the input of benchmark `name` at size `n`."""
    files = files_for(name, n)
    if files.text.exists() and files.binary.exists() and files.npz.exists():
        return files
    if name not in GENERATORS:
        raise KeyError(f"no data generator for benchmark {name!r}")
    arrays = GENERATORS[name](n, np.random.default_rng([SEED, n]))
    _write_cached(files, arrays, text=True)
    return files


def _write_cached(files: DataFiles, arrays: Arrays, *, text: bool) -> None:
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    targets = [files.text, files.binary, files.npz] if text else [files.binary, files.npz]
    # Written under temporary names and renamed last, so an interrupted run leaves no half
    # file; the process id keeps two runners that generate the same input at once apart.
    tmp = {p: p.with_name(f"{p.name}.{os.getpid()}.tmp") for p in targets}
    if text:
        with open(tmp[files.text], "w", encoding="ascii") as f:
            for a in arrays:
                f.write(l0_text(a) + "\n")
    with open(tmp[files.binary], "wb") as f:
        for a in arrays:
            write_binary(f, a)
    with open(tmp[files.npz], "wb") as f:
        np.savez(f, **{f"a{i}": a for i, a in enumerate(arrays)})
    for final, t in tmp.items():
        t.replace(final)


# --------------------------------------------------------------------------- finpar datasets


def finpar_dir() -> Path:
    """Where finpar's datasets are: `$L0_FINPAR_DIR`, else `finpar/` in the data folder."""
    env = os.environ.get("L0_FINPAR_DIR")
    return Path(env) if env else DATA_DIR / "finpar"


def finpar_reference_dir() -> Path:
    """Where finpar's reference sources are (`OptionPricing/OrigCpp/...`):
    `$L0_FINPAR_REF`, else `reference/` in `finpar_dir()`."""
    env = os.environ.get("L0_FINPAR_REF")
    return Path(env) if env else finpar_dir() / "reference"


def finpar_dataset(benchmark: str, dataset: str) -> Path:
    """The folder of finpar dataset `dataset` of `benchmark` (`LocVolCalib`, `Small`): the
    first of `finpar_dir()` and the repository's copies that has its `input.data` (else
    the one in `finpar_dir()`, which does not exist)."""
    for root in (finpar_dir(), TRACKED_FINPAR_DIR):
        if (root / benchmark / dataset / "input.data").exists():
            return root / benchmark / dataset
    return finpar_dir() / benchmark / dataset


def finpar_files(name: str, dataset: Path, program: Path) -> DataFiles:
    """The input of benchmark `name` from a finpar dataset folder (`.../LocVolCalib/Small`).

    The L0 program's `main` says how to read `input.data`; its values are cached as `.bin`
    and `.npz` (scalars as rank-0 arrays)."""
    source = dataset / "input.data"
    stem = DATA_DIR / f"{name}-{dataset.parent.name}-{dataset.name}-v{DATA_VERSION}"
    files = DataFiles(source, stem.with_suffix(".bin"), stem.with_suffix(".npz"))
    if files.binary.exists() and files.npz.exists():
        return files
    arrays = [np.asarray(v) for v in read_main_arguments(program, source)]
    _write_cached(files, arrays, text=False)
    return files


def read_main_arguments(program: Path, data: Path) -> list[object]:
    """The arguments of `program`'s `main` read from `data` by the L0 value reader."""
    from l0.bigstack import call_with_big_stack
    from l0.frontend import load_program
    from l0.types import flatten
    from l0.values import read_values

    def read() -> list[object]:
        prog = load_program(program.read_text(encoding="utf-8"), str(program))
        entry = next(f for f in prog.fundefs if f.name == "main")
        types = [c for p in entry.params for c in flatten(p.type)]
        return list(read_values(data.read_text(encoding="utf-8"), types, str(data)))

    return call_with_big_stack(read)


def finpar_reference(dataset: Path) -> np.ndarray:
    """The numbers of a dataset's `output.data`, flattened (`//` comments dropped)."""
    lines = (dataset / "output.data").read_text(encoding="utf-8").splitlines()
    text = " ".join(line.split("//", 1)[0] for line in lines)
    tokens = text.replace("[", " ").replace("]", " ").replace(",", " ").split()
    return np.array([float(t) for t in tokens])


def fewer_strikes(source: Path, outer: int, dest: Path) -> None:
    """A LocVolCalib dataset like the one in folder `source` with `outer` strikes: its
    `input.data` with OUTER (the first number) replaced, and the first `outer` numbers of
    its `output.data`, where it has one. Strike i is 0.001 * i whatever OUTER is (finpar's
    reference and `programs/locvolcalib.l0` alike), so each strike's price is the one the
    larger dataset gives it: the expected result is the larger one's prefix."""
    lines = (source / "input.data").read_text(encoding="utf-8").splitlines(keepends=True)
    first = next(k for k, line in enumerate(lines) if line.split("//", 1)[0].strip())
    value, sep, comment = lines[first].partition("//")
    old = int(value)
    if not 0 < outer <= old:
        raise ValueError(f"OUTER must be between 1 and {source.name}'s {old}, not {outer}")
    lines[first] = f"{outer}{' ' * max(1, len(value) - len(str(outer)))}{sep}{comment}"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "input.data").write_text("".join(lines), encoding="utf-8")
    if (source / "output.data").exists():
        prices = ", ".join(f"{x:g}" for x in finpar_reference(source)[:outer])
        (dest / "output.data").write_text(
            f"[ {prices} ] // The first {outer} prices of {source.name}'s output.data.\n",
            encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 4 and args[0] == "--strikes" and args[2].isdigit():
        # python -m benchmarks.datagen --strikes DATASET OUTER NAME: a LocVolCalib
        # dataset of our own, DATASET's with OUTER strikes, beside finpar's copies
        root = TRACKED_FINPAR_DIR / "LocVolCalib"
        try:
            fewer_strikes(root / args[1], int(args[2]), root / args[3])
        except (OSError, ValueError, StopIteration) as err:
            print(f"datagen: error: {err or 'no numbers in input.data'}", file=sys.stderr)
            sys.exit(2)
        print(root / args[3])
        return
    if len(args) != 2 or args[0] not in GENERATORS or not args[1].isdigit():
        print(f"usage: python -m benchmarks.datagen {{{'|'.join(GENERATORS)}}} N\n"
              "       python -m benchmarks.datagen --strikes DATASET OUTER NAME",
              file=sys.stderr)
        sys.exit(2)
    files = ensure(args[0], int(args[1]))
    print(files.text, files.binary, files.npz, sep="\n")


if __name__ == "__main__":
    main()
