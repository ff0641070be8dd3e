"""The benchmark runner: l0 against hand-written C and idiomatic NumPy, ratios from one run.

    python -m benchmarks.run [--size tiny|small|full] [--runs N]
                             [--backend cpu|multicore|interp|gpu-sim|gpu] [--threads N]
                             [--set NAME=SIZE] [--o0] [--json FILE] [NAMES...]

For each benchmark (default: every one in `BENCHMARKS` whose L0 program exists) it gets the
input (`datagen.py`: generated and cached under `benchmarks/data/`, or a finpar dataset),
builds the C version with `gcc -O3 -march=native -fno-math-errno -ffp-contract=off`
(README: why), then runs
one after the other:

* C: `c/NAME.c`, which times its own computation (`clock_gettime`) N times;
* NumPy: `numpy_versions.NAME`, timed here N times with `time.perf_counter`;
* l0: `l0-run --backend=B -r N -t FILE -v programs/NAME.l0 < input`, whose timing file holds
  the time of each run of `main` (compilation and value I/O excluded) and whose `-v` line
  gives the heap allocations per run of `main` (cpu);
* the compile time: `l0.compile(path, backend=B)` in a fresh Python process (front end,
  optimisation and code generation, and the imports they trigger).

With `--backend multicore`, l0 runs twice: on `cpu` (the l0 column and its ratios) and
on `multicore` with `--threads N` threads (default: all cores), whose column and
speedup over `cpu` (multicore/cpu) are added, with the issue "Parallel code"'s bounds
(0.6 for Black-Scholes and matmul, 1.05, no slower, for the rest). A C version with
`#pragma omp` loops is also built with `-fopenmp` and run on as many threads
(`OMP_NUM_THREADS`): its column and multicore/C-OpenMP are added.

With `--backend gpu`, l0 runs on the GPU (its time is `main`'s, host arrays in and out,
so copies included) and the GPU peers of `gpu_versions.py` are added: CuPy for every
benchmark and a fused numba.cuda kernel for Black-Scholes, each timed as kernel only
(inputs already on the device) and end to end (host to host); l0's ratios to them are
end to end. Without a GPU (or CuPy) those columns are empty and a line says why: not a
failure.

It checks that the three results agree (ints exactly; reals to the 6 decimals l0 prints),
and with a finpar dataset that they match its `output.data` to finpar's tolerance, then
prints a table of median wall-clock times, l0's allocations per run of `main`, the ratios
l0/C and l0/NumPy, and the compile time. Exit status: 0 when every version ran and all
agreed, 1 otherwise. The performance targets of the issue "Compiled CPU back end" are
reported, never enforced: these are benchmarks, not timed tests.

The programs are the thesis's artificial benchmarks P0-P2 (its Part IV) and the real-world
R0-R2 (finpar's OptionPricing, LocVolCalib and InterestCalib). For R0 and R2 the C version
is finpar's own sequential C++ reference, built here from its sources when they are
present (README). `--o0` adds the thesis's measurement: l0 again with -O0, the speed-up of
-O beside the thesis's, and main's SOACs after -O (top-level and nested).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as `python benchmarks/run.py`: make the package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import datagen  # noqa: E402
from benchmarks.gpu_versions import FUSED, GpuTimes  # noqa: E402
from benchmarks.numpy_versions import VERSIONS  # noqa: E402

HERE = Path(__file__).resolve().parent
BIN_DIR = datagen.DATA_DIR / "bin"
CFLAGS = ["-O3", "-march=native", "-fno-math-errno", "-ffp-contract=off"]
SIZES = ("tiny", "small", "full")

# l0 prints reals with 6 decimals: more than half a unit in the last place means disagreement.
PRINT_ATOL = 1e-6
# C and NumPy compute in doubles with the same operations; their exp/log may differ by ulps.
DOUBLE_RTOL = DOUBLE_ATOL = 1e-9


@dataclass(frozen=True)
class Benchmark:
    """One benchmark: its L0 program, C version, NumPy version and inputs."""

    name: str
    what: str  # what a numeric size counts
    # For each of SIZES: n for a generated input, or the name of a finpar dataset folder.
    sizes: dict[str, int | str | None]  # None: not run at that size
    real_result: bool  # the result is [real] (else an int array)
    c_target: float | None = None  # the bound on l0/C at full size
    numpy_target: float | None = None  # ... and on l0/NumPy
    finpar: str | None = None  # the finpar benchmark whose datasets the sizes name
    finpar_atol: float = 0.0  # finpar's validation tolerance for its output.data
    # finpar's sequential C++ reference (its main source, under the reference folder), the
    # C version where there is no c/NAME.c; it computes in single precision, so its result
    # is checked against output.data only, not against NumPy's to the last bits.
    reference: str | None = None
    thesis_speedup: float | None = None  # the thesis's speed-up of -O over -O0 (0.46: +46%)
    # How to judge a result against output.data when it need not match it number by
    # number (InterestCalib: another genome as good); None: within finpar_atol.
    finpar_check: Callable[[np.ndarray, np.ndarray], str | None] | None = None
    multicore_target: float = 1.05  # the bound on multicore/cpu at full size (2 cores)

    @property
    def program(self) -> Path:
        return HERE / "programs" / f"{self.name}.l0"

    @property
    def c_source(self) -> Path:
        return HERE / "c" / f"{self.name}.c"


def _cauchy_log_likelihood(quote: np.ndarray, price: np.ndarray) -> np.ndarray:
    gamma = np.abs(quote) / 50.0 * 5.0 + 0.01
    x = (price - quote) / gamma
    return np.log(1.0 / (3.14159265358 * gamma * (1.0 + x * x)) + 1e-20)


def check_interest_calib(got: np.ndarray, expected: np.ndarray) -> str | None:
    """finpar's validation of InterestCalib: the winning genome may differ from
    output.data's, but its log-likelihood must be within 1.0 of it (and not worse by more
    than 0.5), and no swaption's price scored more than 0.7 worse. Both are the winning
    genome (5 numbers), its log-likelihood and [calibrated, Black, % difference] per
    swaption (prices times 10^4)."""
    if got.shape != expected.shape:
        return f"{got.size} numbers, expected {expected.size}"
    mine, theirs = got[5], expected[5]
    if abs(mine - theirs) > 1.0 or theirs - mine > 0.5:
        return f"log-likelihood {mine:.6f}, finpar's {theirs:.6f}"
    rows, ref_rows = got[6:].reshape(-1, 3) / 1e4, expected[6:].reshape(-1, 3) / 1e4
    worse = (_cauchy_log_likelihood(ref_rows[:, 1], ref_rows[:, 0])
             - _cauchy_log_likelihood(rows[:, 1], rows[:, 0]))
    if worse.max() > 0.7:
        return f"swaption {int(worse.argmax())} scores {worse.max():.3f} worse than finpar's"
    return None


# Full sizes: the 10^7 options and 1000 x 1000 matrices. P2 at n = 500: its
# replicate(N, transpose(D)), the rows replicated by replin and their sum abr are three
# n^3 arrays if nothing fuses them, 3 x 1 GB at n = 500 (fits in ~4 GB) but 3 x 8 GB at
# n = 1000; `--set shortest_paths=1000` runs the bigger size where fusion makes it fit.
# LocVolCalib: finpar's Tiny-R1 (the thesis's own size) and Small datasets; its tiny size
# is a generated grid small enough for the interpreter. OptionPricing and InterestCalib
# have no tiny size (their smallest finpar dataset takes seconds): `test/test_finpar.py`
# checks them. InterestCalib's only size is full: its Small takes minutes.
BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark("blackscholes", "options", {"tiny": 1000, "small": 100_000, "full": 10_000_000},
                  real_result=True, c_target=1.25, numpy_target=0.5, multicore_target=0.6),
        Benchmark("matmul", "n x n matrices", {"tiny": 12, "small": 100, "full": 1000},
                  real_result=False, c_target=1.5, numpy_target=0.5, multicore_target=0.6),
        Benchmark("shortest_paths", "nodes", {"tiny": 12, "small": 100, "full": 500},
                  real_result=False, c_target=1.5, numpy_target=0.5),
        Benchmark("locvolcalib", "strikes", {"tiny": 4, "small": "Tiny-R1", "full": "Small"},
                  real_result=True, finpar="LocVolCalib", finpar_atol=1e-5,
                  thesis_speedup=0.71),
        Benchmark("optionpricing", "", {"tiny": None, "small": "Small", "full": "Medium"},
                  real_result=True, finpar="OptionPricing", finpar_atol=5e-4,
                  reference="OptionPricing/OrigCpp/GenPricing.cpp", thesis_speedup=0.46),
        Benchmark("interestcalib", "", {"tiny": None, "small": None, "full": "Small"},
                  real_result=True, finpar="InterestCalib", finpar_atol=0.7,
                  reference="InterestCalib/OrigCpp/SwapCalib.cpp", thesis_speedup=0.31,
                  finpar_check=check_interest_calib),
        Benchmark("nbody", "bodies, 4 steps", {"tiny": 64, "small": 1024, "full": 4096},
                  real_result=True, c_target=1.2),
        Benchmark("kmeans", "points of 34 features, k = 5, 10 iterations",
                  {"tiny": 200, "small": 20_000, "full": 200_000}, real_result=True,
                  c_target=1.2),
        Benchmark("hotspot", "n x n grid, 20 steps", {"tiny": 16, "small": 256, "full": 1024},
                  real_result=True),
        Benchmark("radix_sort", "keys of 16 bits, a pass per bit",
                  {"tiny": 1000, "small": 100_000, "full": 2_000_000}, real_result=False,
                  c_target=1.3),
        Benchmark("histogram", "points in 16 buckets",
                  {"tiny": 1000, "small": 100_000, "full": 1_000_000}, real_result=False,
                  multicore_target=0.6),
    )
}  # fmt: skip


@dataclass
class Result:
    """What one benchmark measured: median times in seconds, None where a version failed."""

    name: str
    size: str
    runs: int
    c: float | None = None
    numpy: float | None = None
    l0: float | None = None
    allocations: int | None = None
    compile: float | None = None
    multicore: float | None = None  # with --backend multicore (then l0 is cpu's time)
    c_openmp: float | None = None  # ... and the C version built with -fopenmp, if it has one
    l0_o0: float | None = None  # with --o0: l0 without the optimiser (-O0)
    soacs: tuple[int, int] | None = None  # with --o0: top-level and nested SOACs after -O
    cupy: GpuTimes | None = None  # with --backend gpu, where there is a GPU
    fused: GpuTimes | None = None  # ... and a hand-written numba.cuda kernel
    agree: bool = False
    problems: list[str] = field(default_factory=list)

    def ratio(self, other: float | None) -> float | None:
        return None if self.l0 is None or not other else self.l0 / other

    @property
    def o_speedup(self) -> float | None:
        """How much faster -O is than -O0 (0.46: +46%)."""
        return None if self.l0_o0 is None or not self.l0 else self.l0_o0 / self.l0 - 1.0

    @property
    def speedup(self) -> float | None:
        """multicore/cpu (below 1: multicore is faster)."""
        return None if self.multicore is None or not self.l0 else self.multicore / self.l0


class Skipped(Exception):
    """A benchmark that cannot run here (its dataset is missing)."""


# --------------------------------------------------------------------------- the inputs


def input_for(bench: Benchmark, size: int | str) -> tuple[datagen.DataFiles, np.ndarray | None]:
    """The input files of `bench` at `size`, and the expected result where finpar has one."""
    if isinstance(size, int):
        return datagen.ensure(bench.name, size), None
    assert bench.finpar is not None, f"{bench.name} has no datasets"
    dataset = datagen.finpar_dataset(bench.finpar, size)
    if not (dataset / "input.data").exists():
        raise Skipped(f"finpar dataset {dataset} not found (set L0_FINPAR_DIR)")
    files = datagen.finpar_files(bench.name, dataset, bench.program)
    if not (dataset / "output.data").exists():  # the versions are compared with each other
        return files, None
    return files, datagen.finpar_reference(dataset)


# --------------------------------------------------------------------------- the three versions


def has_openmp_version(bench: Benchmark) -> bool:
    """Whether the C version has `#pragma omp` loops (built with -fopenmp: the OpenMP
    version; without it they are ignored: the sequential one)."""
    return bench.c_source.exists() and "#pragma omp" in bench.c_source.read_text()


def build_c(bench: Benchmark, openmp: bool = False) -> Path:
    """Compile the C version (with `openmp`, with -fopenmp) unless its binary is newer
    than its sources."""
    exe = BIN_DIR / (f"{bench.name}-openmp" if openmp else bench.name)
    cflags = [*CFLAGS, "-fopenmp"] if openmp else CFLAGS
    flags = exe.with_name(f"{exe.name}.flags")  # a binary built with other flags is stale
    sources = [bench.c_source, HERE / "c" / "bench.h"]
    if (exe.exists() and all(exe.stat().st_mtime > s.stat().st_mtime for s in sources)
            and flags.exists() and flags.read_text() == " ".join(cflags)):
        return exe
    BIN_DIR.mkdir(parents=True, exist_ok=True)
    tmp = exe.with_name(f"{exe.name}.{os.getpid()}.tmp")  # never run a half-written binary
    cmd = ["gcc", *cflags, "-o", str(tmp), str(bench.c_source), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"gcc failed on {bench.c_source.name}:\n{proc.stderr}")
    tmp.replace(exe)
    flags.write_text(" ".join(cflags))
    return exe


def build_reference(bench: Benchmark) -> Path:
    """Compile finpar's sequential C++ reference of `bench` (g++, CFLAGS) unless its binary
    is newer than its sources. Its headers `ParserC.h` and `Util.h`, which finpar keeps
    outside the benchmark's folder, are this repository's (`c/finpar/`)."""
    assert bench.reference is not None
    main = datagen.finpar_reference_dir() / bench.reference
    if not main.exists():
        raise RuntimeError(f"finpar's reference {main} not found (set L0_FINPAR_REF)")
    program = main.parent.parent  # .../OptionPricing
    own = HERE / "c" / "finpar"
    sources = [*main.parent.glob("*.h"), *(program / "includeC").glob("*.h"), main,
               *own.glob("*.h")]
    exe = BIN_DIR / f"{bench.name}-finpar"
    flags = exe.with_name(f"{exe.name}.flags")
    if (exe.exists() and all(exe.stat().st_mtime > s.stat().st_mtime for s in sources)
            and flags.exists() and flags.read_text() == " ".join(CFLAGS)):
        return exe
    BIN_DIR.mkdir(parents=True, exist_ok=True)
    tmp = exe.with_name(f"{exe.name}.{os.getpid()}.tmp")
    cmd = ["g++", *CFLAGS, "-w", f"-I{own}", f"-I{program / 'includeC'}", f"-I{main.parent}",
           "-o", str(tmp), str(main), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"g++ failed on {main}:\n{proc.stderr[-2000:]}")
    tmp.replace(exe)
    flags.write_text(" ".join(CFLAGS))
    return exe


_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")


def parse_reference_output(text: str) -> tuple[float, np.ndarray]:
    """The time (seconds) and the result numbers that a finpar reference prints: a line
    `1 // VALID Result,` (or 0, INVALID), the runtime in microseconds, the thread count,
    then the result, `//` comments throughout."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "VALID" in line), None)
    if start is None or len(lines) < start + 3:
        raise RuntimeError(f"unexpected output of finpar's reference: {text[-500:]!r}")
    if not lines[start].split("//")[0].strip().startswith("1"):
        raise RuntimeError("finpar's reference says its own result is INVALID")
    seconds = float(lines[start + 1].split("//")[0]) * 1e-6
    rest = " ".join(line.split("//")[0] for line in lines[start + 3:])
    return seconds, np.array([float(t) for t in _NUMBER.findall(rest)])


def run_reference(
    bench: Benchmark, files: datagen.DataFiles, runs: int, timeout: float
) -> tuple[float, np.ndarray]:
    """Run finpar's reference `runs` times on the dataset (input.data then output.data on
    stdin, which it validates itself); the median of the times it reports, its result."""
    exe = build_reference(bench)
    stdin = files.text.read_bytes() + b"\n" + files.text.with_name("output.data").read_bytes()
    times, result = [], np.empty(0)
    for _ in range(runs):
        proc = subprocess.run([str(exe)], input=stdin, capture_output=True, timeout=timeout)
        if proc.returncode not in (0, 1):  # InterestCalib's main returns 1
            raise RuntimeError(f"finpar's reference failed: {proc.stderr.decode()[-500:]}")
        seconds, result = parse_reference_output(proc.stdout.decode(errors="replace"))
        times.append(seconds)
    return statistics.median(times), result


def run_c(
    bench: Benchmark, files: datagen.DataFiles, runs: int, timeout: float,
    openmp_threads: int | None = None,
) -> tuple[float, np.ndarray]:
    """The C version's median time and result; with `openmp_threads`, its OpenMP build
    on that many threads (0: OpenMP's default, all cores)."""
    if bench.reference is not None and not bench.c_source.exists():
        return run_reference(bench, files, runs, timeout)
    exe = build_c(bench, openmp=openmp_threads is not None)
    env = dict(os.environ)
    if openmp_threads:
        env["OMP_NUM_THREADS"] = str(openmp_threads)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / ("result.f64" if bench.real_result else "result.i64")
        cmd = [str(exe), str(files.binary), str(out), str(runs)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"the C version failed: {proc.stderr.strip()}")
        times = [float(t) * 1e-6 for t in proc.stdout.split()]
        return statistics.median(times), datagen.read_binary(out).copy()


def run_numpy(bench: Benchmark, files: datagen.DataFiles, runs: int) -> tuple[float, np.ndarray]:
    """The NumPy version's median time and result (the caller checks that there is one)."""
    args = files.load()
    fn = VERSIONS[bench.name]
    times: list[float] = []
    result = np.empty(0)
    for _ in range(runs):
        start = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times), np.asarray(result)


def run_l0(
    bench: Benchmark, files: datagen.DataFiles, runs: int, backend: str, timeout: float,
    threads: int | None = None, optimise: bool = True,
) -> tuple[float, str, int | None]:
    """Run l0-run in a fresh process; return the median time of `main`, the printed result
    and the heap allocations per run of `main` (None where l0-run does not count them)."""
    with tempfile.TemporaryDirectory() as tmp, open(files.text, "rb") as stdin:
        timing = Path(tmp) / "times"
        cmd = [
            sys.executable, "-c", "from l0.cli.run import main; main()",
            f"--backend={backend}", "-r", str(runs), "-t", str(timing), "-v",
            str(bench.program), *(["--threads", str(threads)] if threads else []),
            *([] if optimise else ["-O0"]),
        ]  # fmt: skip
        proc = subprocess.run(cmd, stdin=stdin, capture_output=True, timeout=timeout)
        if proc.returncode != 0:
            err = proc.stderr.decode(errors="replace").strip()
            raise RuntimeError(f"l0-run failed (exit {proc.returncode}): {err[-2000:]}")
        times = [int(t) * 1e-6 for t in timing.read_text().split()]
        found = ALLOCATIONS.search(proc.stderr.decode(errors="replace"))
        allocations = int(found.group(1)) if found else None
        return statistics.median(times), proc.stdout.decode(), allocations


ALLOCATIONS = re.compile(r"allocations per run of main: (\d+)")
"""The line `l0-run -v` writes on stderr (cpu)."""


_COMPILE = """
import sys, time
import l0
start = time.perf_counter()
l0.compile(sys.argv[1], backend=sys.argv[2])
print(time.perf_counter() - start)
"""


def ensure_bytecode() -> None:
    """Byte-compile the compiler's own modules, as installing a package does, so that a
    fresh process measures compiling L0, not compiling Python (with an editable install
    and PYTHONDONTWRITEBYTECODE=1, every process would recompile them: ~0.4 s)."""
    import compileall

    for package in ("l0", "dialects", "passes", "lowering"):
        compileall.compile_dir(HERE.parent / package, quiet=1)


def cold_compile_seconds(program: Path, backend: str, timeout: float,
                         cache_dir: Path | None = None) -> float:
    """Seconds `l0.compile(program, backend=...)` takes in a fresh process (after `import l0`):
    compiling, with the compile cache off; with `cache_dir`, with the cache on in that
    directory (a hit, if the program was compiled with it before)."""
    ensure_bytecode()
    cmd = [sys.executable, "-c", _COMPILE, str(program), backend]
    env = dict(os.environ, L0_NO_CACHE="1")
    if cache_dir is not None:
        env.update(L0_NO_CACHE="", XDG_CACHE_HOME=str(cache_dir))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"l0.compile failed: {proc.stderr.strip()[-2000:]}")
    return float(proc.stdout.split()[-1])


# --------------------------------------------------------------------------- checking results


def parse_l0_output(text: str, like: np.ndarray) -> np.ndarray:
    """l0-run's printed array (`[[1, 2], [3, 4]]`, `[0.5, 1.25]`) shaped like `like`."""
    flat = text.replace("[", " ").replace("]", " ").replace("{", " ").replace("}", " ")
    dtype = np.float64 if like.dtype.kind == "f" else np.int64
    values = np.array(flat.split(","), dtype=dtype) if flat.strip() else np.empty(0, dtype)
    if values.size != like.size:
        raise ValueError(f"l0 printed {values.size} numbers, expected {like.size}")
    return values.reshape(like.shape)


def _differ(a: np.ndarray, b: np.ndarray, atol: float, rtol: float = 0.0) -> str | None:
    """None if a and b agree (exactly for ints), else where and by how much they differ."""
    if a.shape != b.shape:
        return f"shapes {a.shape} and {b.shape}"
    bad = ~np.isclose(a, b, rtol=rtol, atol=atol) if b.dtype.kind == "f" else a != b
    if not bad.any():
        return None
    i = np.unravel_index(int(np.flatnonzero(bad)[0]), b.shape)
    where = tuple(map(int, i))
    return f"{int(bad.sum())} elements, first at {where}: {a[i].item()!r} vs {b[i].item()!r}"


def compare(
    result: Result,
    c: np.ndarray | None,
    ref: np.ndarray | None,
    l0_text: str | None,
    expected: np.ndarray | None = None,
    expected_atol: float = 0.0,
    c_exact: bool = True,
    check: Callable[[np.ndarray, np.ndarray], str | None] | None = None,
    needed: bool = True,
) -> None:
    """Set `result.agree`, recording every disagreement among the versions that ran.

    `ref` is NumPy's result (None: no NumPy version; then `expected` must be given);
    `expected`, if given, finpar's (flat, within `expected_atol`, or as `check` says).
    `c_exact`: C computes what NumPy does (else it is only checked against `expected`).
    Without `needed`, l0 not running (gpu without a GPU) is no disagreement."""
    problems: list[str] = []
    like = ref if ref is not None else expected
    assert like is not None, "nothing to compare with"
    if (c_exact and c is not None and ref is not None
            and (d := _differ(c, ref, DOUBLE_ATOL, DOUBLE_RTOL))):
        problems.append(f"C and NumPy differ at {d}")
    mine = None
    if l0_text is not None:
        try:
            mine = parse_l0_output(l0_text, like)
        except ValueError as err:
            problems.append(str(err))
    if mine is not None and ref is not None and (d := _differ(mine, ref, PRINT_ATOL)):
        problems.append(f"l0 and NumPy differ at {d}")
    if expected is not None:
        named = [("NumPy", ref), ("C", c), ("l0", mine)]
        for who, got in ((w, g) for w, g in named if g is not None):
            flat = got.reshape(-1)
            if d := (check(flat, expected) if check else _differ(flat, expected, expected_atol)):
                problems.append(f"{who} and finpar's output.data differ: {d}")
    result.problems += problems
    result.agree = not problems and c is not None and (mine is not None or l0_text is None
                                                        and result.l0 is None and not needed)


# --------------------------------------------------------------------------- driver


def run_benchmark(bench: Benchmark, size: int | str, args: argparse.Namespace) -> Result:
    result = Result(bench.name, str(size), args.runs)
    what = f"n = {size} ({bench.what})" if isinstance(size, int) else f"dataset {size}"
    log(f"{bench.name}: {what}: input")
    files, expected = input_for(bench, size)
    c_out = l0_text = None
    if shutil.which("gcc") is None:
        result.problems.append("gcc not found: no C version")
    else:
        log(f"{bench.name}: C")
        try:
            result.c, c_out = run_c(bench, files, args.runs, args.timeout)
        except (RuntimeError, subprocess.TimeoutExpired) as err:
            result.problems.append(str(err))
    ref = None
    if bench.name in VERSIONS:
        log(f"{bench.name}: NumPy")
        result.numpy, ref = run_numpy(bench, files, args.runs)
    multicore = args.backend == "multicore"
    backend = "cpu" if multicore else args.backend
    no_gpu = args.backend == "gpu" and args.no_gpu is not None
    if not no_gpu:
        log(f"{bench.name}: l0 ({backend})")
        try:
            result.l0, l0_text, result.allocations = run_l0(bench, files, args.runs, backend,
                                                            args.timeout)
            if not args.no_compile_time:
                result.compile = cold_compile_seconds(bench.program, backend, args.timeout)
        except (RuntimeError, subprocess.TimeoutExpired) as err:
            result.problems.append(str(err))
    c_exact = bench.reference is None or bench.c_source.exists()
    compare(result, c_out, ref, l0_text, expected, bench.finpar_atol, c_exact,
            bench.finpar_check, needed=not no_gpu)
    if args.o0 and not no_gpu:
        log(f"{bench.name}: l0 ({backend}, -O0)")
        try:
            result.l0_o0, o0_text, _ = run_l0(bench, files, args.runs, backend, args.timeout,
                                              optimise=False)
            agree = result.agree
            compare(result, c_out, ref, o0_text, expected, bench.finpar_atol, c_exact,
                    bench.finpar_check)
            result.agree = result.agree and agree
        except (RuntimeError, subprocess.TimeoutExpired) as err:
            result.problems.append(str(err))
            result.agree = False
        result.soacs = soac_structure(bench.program, backend)
    if args.backend == "gpu" and args.no_gpu_peers is None and ref is not None:
        run_gpu_peers(bench, files, ref, result, args.runs)
    if multicore:
        log(f"{bench.name}: l0 (multicore, {args.threads or 'all'} threads)")
        agree = result.agree
        try:
            result.multicore, mc_text, _ = run_l0(bench, files, args.runs, "multicore",
                                               args.timeout, args.threads)
            compare(result, c_out, ref, mc_text, expected, bench.finpar_atol, c_exact,
                    bench.finpar_check)
            result.agree = result.agree and agree
        except (RuntimeError, subprocess.TimeoutExpired) as err:
            result.problems.append(str(err))
            result.agree = False
        if has_openmp_version(bench) and shutil.which("gcc") is not None:
            log(f"{bench.name}: C (OpenMP, {args.threads or 'all'} threads)")
            try:
                result.c_openmp, omp_out = run_c(bench, files, args.runs, args.timeout,
                                                 args.threads or 0)
                if c_out is not None and (d := _differ(omp_out, c_out, 0.0)):
                    result.problems.append(f"C with and without OpenMP differ at {d}")
                    result.agree = False
            except (RuntimeError, subprocess.TimeoutExpired) as err:
                result.problems.append(str(err))
                result.agree = False
    return result


SOACS = frozenset(f"soac.{k}" for k in ("map", "reduce", "scan", "filter", "redomap"))
"""The second-order array combinators of the IR (its other `soac` ops are first-order)."""


def soac_structure(program: Path, backend: str = "cpu") -> tuple[int, int]:
    """How many SOACs `main` holds after `backend`'s -O (`l0.api.pipeline_target`): those
    at its top level (not inside another SOAC; inside a sequential loop counts as top
    level) and those nested in one."""
    from l0.api import pipeline_target
    from l0.bigstack import call_with_big_stack
    from l0.frontend import load_program, to_module
    from l0.passes.pipeline import optimise

    def count() -> tuple[int, int]:
        module = to_module(load_program(program.read_text(encoding="utf-8"), str(program)),
                           verify=False)
        optimise(module, target=pipeline_target(backend))
        main = next(op for op in module.walk()
                    if op.name == "func.func" and op.sym_name.data == "main")
        top = nested = 0
        for op in main.walk():
            if op.name not in SOACS:
                continue
            parent, inside = op.parent_op(), False
            while parent is not None and parent is not main:
                inside = inside or parent.name in SOACS
                parent = parent.parent_op()
            nested, top = (nested + 1, top) if inside else (nested, top + 1)
        return top, nested

    return call_with_big_stack(count)
def run_gpu_peers(bench: Benchmark, files: datagen.DataFiles, ref: np.ndarray, result: Result,
                  runs: int) -> None:
    """Time the CuPy version and the fused kernel (if any); check them against NumPy."""
    from benchmarks import gpu_versions

    peers = [("CuPy", "cupy", lambda a: gpu_versions.run_cupy(bench.name, a, runs))]
    if bench.name in FUSED:
        peers.append(("numba.cuda", "fused", lambda a: FUSED[bench.name](a, runs)))
    for who, field_name, run in peers:
        log(f"{bench.name}: {who}")
        try:
            times = run(list(files.load()))
        except Exception as err:  # a GPU library's failure: reported, the rest goes on
            result.problems.append(f"{who} failed: {type(err).__name__}: {err}")
            continue
        setattr(result, field_name, times)
        if d := _differ(times.result.reshape(ref.shape), ref, DOUBLE_ATOL, DOUBLE_RTOL):
            result.problems.append(f"{who} and NumPy differ at {d}")
            result.agree = False


def log(msg: str) -> None:
    print(f"-- {msg}", file=sys.stderr, flush=True)


def _ms(t: float | None) -> str:
    return "-" if t is None else f"{t * 1e3:.4g}"


def _pct(r: float | None) -> str:
    return "-" if r is None else f"{r:+.0%}"


def _x(r: float | None) -> str:
    return "-" if r is None else f"{r:.3g}"


def _targets(bench: Benchmark, res: Result) -> str:
    bounds = [(f"l0/C <= {bench.c_target}", res.ratio(res.c), bench.c_target),
              (f"l0/NumPy <= {bench.numpy_target}", res.ratio(res.numpy), bench.numpy_target)]
    bounds = [b for b in bounds if b[2] is not None]
    if not bounds or any(r is None for _, r, _ in bounds):
        return "-"
    met = all(r <= t for _, r, t in bounds)
    return f"{'met' if met else 'MISSED'} ({', '.join(what for what, _, _ in bounds)})"


def _multicore_target(bench: Benchmark, res: Result) -> str:
    s = res.speedup
    if s is None:
        return "-"
    return f"{'met' if s <= bench.multicore_target else 'MISSED'} " \
        f"(multicore/cpu <= {bench.multicore_target})"


def _gpu_columns(r: Result) -> list[str]:
    """CuPy's and the fused kernel's times (kernel, end to end), l0's ratios to them."""
    cols = []
    for t in (r.cupy, r.fused):
        cols += [_ms(t.kernel if t else None), _ms(t.end_to_end if t else None)]
    cols += [_x(r.ratio(r.cupy.end_to_end if r.cupy else None)),
             _x(r.ratio(r.fused.end_to_end if r.fused else None))]
    return cols


GPU_HEAD = ["CuPy kernel ms", "CuPy e2e ms", "fused kernel ms", "fused e2e ms", "l0/CuPy e2e",
            "l0/fused e2e"]


def report(results: list[Result], skipped: list[str], args: argparse.Namespace) -> str:
    multicore = args.backend == "multicore"
    gpu = args.backend == "gpu"
    head = ["benchmark", "size", "C ms", "NumPy ms", "l0 ms", "l0 allocs", "l0/C", "l0/NumPy",
            "compile s", "agree", "targets"]  # fmt: skip
    if multicore:
        head[8:8] = ["multicore ms", "multicore/cpu", "C OpenMP ms", "multicore/C OpenMP"]
        head.append("multicore target")
    if args.o0:
        head += ["l0 -O0 ms", "-O speed-up", "thesis", "SOACs top/nested"]
    if gpu:
        head[8:8] = GPU_HEAD
    rows = []
    for r in results:
        row = [
            r.name, r.size, _ms(r.c), _ms(r.numpy), _ms(r.l0),
            "-" if r.allocations is None else str(r.allocations), _x(r.ratio(r.c)),
            _x(r.ratio(r.numpy)), "-" if r.compile is None else f"{r.compile:.2f}",
            "yes" if r.agree else "NO", _targets(BENCHMARKS[r.name], r),
        ]  # fmt: skip
        if multicore:
            omp = None if r.multicore is None or not r.c_openmp else r.multicore / r.c_openmp
            row[8:8] = [_ms(r.multicore), _x(r.speedup), _ms(r.c_openmp), _x(omp)]
            row.append(_multicore_target(BENCHMARKS[r.name], r))
        if args.o0:
            thesis = BENCHMARKS[r.name].thesis_speedup
            row += [_ms(r.l0_o0), _pct(r.o_speedup), _pct(thesis),
                    "-" if r.soacs is None else f"{r.soacs[0]}/{r.soacs[1]}"]
        if gpu:
            row[8:8] = _gpu_columns(r)
        rows.append(row)
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=True)]
    lines = [
        f"l0 benchmarks: size {args.size}, backend {args.backend}"
        f"{f' ({args.threads or os.cpu_count()} threads)' if multicore else ''}, "
        f"median of {args.runs} runs",
        f"machine: {cpu_name()}, {os.cpu_count()} cores, load average {load()}; "
        f"{gcc_version()}; numpy {np.__version__}",
        "",
        "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip(),
    ]
    for row in rows:
        lines.append("  ".join(x.ljust(w) for x, w in zip(row, widths, strict=True)).rstrip())
    lines += [f"{r.name}: {p}" for r in results for p in r.problems]
    lines += skipped
    if gpu and args.no_gpu is not None:
        lines.append(f"no l0 on the GPU: {args.no_gpu}")
    if gpu and args.no_gpu_peers is not None:
        lines.append(f"no GPU peers: {args.no_gpu_peers}")
    if args.size != "full":
        lines.append("(the targets apply to the full sizes)")
    return "\n".join(lines)


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "?"


def gcc_version() -> str:
    if shutil.which("gcc") is None:
        return "no gcc"
    out = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else "gcc"


def default_backend() -> str:
    """`cpu` where l0-run has it, else the interpreter."""
    try:
        from l0.cli.run import BACKENDS
    except ImportError:
        return "cpu"
    return "cpu" if "cpu" in BACKENDS else "interp"


def build_argparser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description="Time the thesis's benchmarks in l0, C (gcc -O3 -march=native) and NumPy; "
        "print the ratios l0/C and l0/NumPy and the compile time.",
    )
    ap.add_argument("names", nargs="*", metavar="NAME",
                    help=f"benchmarks to run (default: those with an L0 program, of "
                    f"{', '.join(BENCHMARKS)})")
    ap.add_argument("--size", choices=SIZES, default="full",
                    help="input sizes (default: %(default)s; small takes seconds with the cpu "
                    "back end, tiny is for the smoke test)")
    ap.add_argument("--runs", "-r", type=int, default=5, metavar="N",
                    help="runs of each version; the median is reported (default: %(default)s)")
    ap.add_argument("--backend", default=default_backend(),
                    help="l0-run's back end (default: %(default)s); multicore also runs cpu "
                    "and reports the speedup")
    ap.add_argument("--threads", type=int, default=None, metavar="N",
                    help="multicore: threads (default: all cores)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=SIZE",
                    help="override one benchmark's size: a number (shortest_paths=1000) or a "
                    "finpar dataset (locvolcalib=Medium)")
    ap.add_argument("--timeout", type=float, default=3600.0, metavar="S",
                    help="limit for each process the runner starts (default: %(default)s s)")
    ap.add_argument("--o0", action="store_true",
                    help="also run l0 without the optimiser (-O0) and report the speed-up of "
                    "-O, the thesis's figure beside it, and main's SOACs after -O")
    ap.add_argument("--no-compile-time", action="store_true",
                    help="do not measure the compile time (saves a process per benchmark)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    return ap  # fmt: skip


def _sizes(ap: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, int | str]:
    """The size of each benchmark to run: `--size`'s, except where `--set` says otherwise."""
    names = args.names or [n for n, b in BENCHMARKS.items()
                           if b.program.exists() and b.sizes[args.size] is not None]
    for name in names:
        if name not in BENCHMARKS:
            ap.error(f"unknown benchmark {name!r} (expected one of {', '.join(BENCHMARKS)})")
        if not BENCHMARKS[name].program.exists():
            ap.error(f"{name} has no L0 program yet ({BENCHMARKS[name].program} is missing)")
    sizes: dict[str, int | str | None] = {n: BENCHMARKS[n].sizes[args.size] for n in names}
    for item in args.set:
        name, _, value = item.partition("=")
        if name not in BENCHMARKS or not value:
            ap.error(f"--set expects NAME=SIZE with NAME a benchmark, found {item!r}")
        if value.isdigit() and int(value) > 0:
            sizes[name] = int(value)
        elif BENCHMARKS[name].finpar is not None:
            sizes[name] = value
        else:
            ap.error(f"--set {name}= expects a positive number, found {value!r}")
    for name in names:
        if sizes[name] is None:
            ap.error(f"{name} has no {args.size} size (--set {name}=DATASET)")
    return {name: size for name in names if (size := sizes[name]) is not None}


def l0_gpu_unavailable() -> str | None:
    """Why l0 cannot run on the GPU here (no GPU, driver, gpu extra or kernel
    extraction), or None."""
    from l0.api import backend_unavailable

    return backend_unavailable("gpu")


def main(argv: list[str] | None = None) -> int:
    ap = build_argparser()
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs expects a positive number")
    results: list[Result] = []
    skipped: list[str] = []
    args.no_gpu = args.no_gpu_peers = None
    if args.backend == "gpu":
        from benchmarks.gpu_versions import unavailable

        args.no_gpu, args.no_gpu_peers = l0_gpu_unavailable(), unavailable()
    for name, size in _sizes(ap, args).items():
        try:
            results.append(run_benchmark(BENCHMARKS[name], size, args))
        except Skipped as why:
            skipped.append(f"{name}: skipped: {why}")
    print(report(results, skipped, args))
    if args.json:
        rows = [asdict(r) for r in results]  # results of the GPU versions are left out
        Path(args.json).write_text(json.dumps(rows, indent=2, default=lambda _: None) + "\n")
    return 0 if all(r.agree for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
