"""`l0-run`: compile an L0 program and run its `main` on values read from standard input.

    l0-run [--backend=cpu|multicore|interp|gpu-sim|gpu] [--threads N] [--fast-math] [-O | -O0]
           [-r N] [-t FILE] [-b] [-v] [--profile FILE] [--param NAME=V]... [--print-params]
           [--no-tuning] prog.l0 < input

Prints `main`'s result exactly as the 2014 compiler did (docs/reference.md §6.3).
`-r N` runs `main` N times and `-t FILE` writes the time of each run in microseconds,
one per line; these times exclude compilation and value input/output, as the
benchmark harness of Futhark's compiled programs does. `-O` (the default) runs the
default optimisation pipeline (`l0.passes.pipeline`) of the back end's target before
running (gpu and gpu-sim: the gpu's, which recomputes transcendental functions more
readily; the others: the cpu's); `-O0` runs none.
`-v` (cpu) counts the heap allocations of compiled code (`l0.lowering.runtime.alloc_stats`) and
prints, after the result, `l0-run: allocations per run of main: N` on stderr (the
largest count of the runs).

`--backend=cpu` (the default) compiles `main` to native code (`l0.lowering.pipeline`);
`-r`/`-t` then time the compiled `main` only. `--fast-math` lets LLVM reassociate real
arithmetic (vectorised reductions); it is off by default, so reductions run in the
strict left-to-right order of the interpreter. `--backend=multicore` compiles as `cpu`
does and runs the outermost parallel loops on `--threads N` threads of the OpenMP
runtime (default: `L0_NUM_THREADS`, else all cores; docs/backend.md). `--backend=gpu-sim`
compiles through the GPU back end's kernels and runs them on the CPU (docs/gpu.md).
`--threads` with another back end than multicore, and `--fast-math` with the
interpreter, are refused (exit status 2), not ignored.
`--backend=interp` runs the reference interpreter. `--backend=gpu` runs the parallel
loops as kernels on an NVIDIA GPU (docs/gpu-codegen.md); without a GPU, its driver or
the gpu extra (`pip install 'l0[gpu]'`) it prints one line, `l0-run: error: ...`, and
exits with 2.

`--profile FILE` counts every parallel region (multicore) and kernel launch (gpu,
gpu-sim) and writes them as JSON (`l0/cli/profile_table.py`; docs/tools.md); `--param
NAME=V` sets a run-time parameter of the compiled code, `--print-params` lists them
(`l0.lowering.runtime.run_tables`). The values of the program's tuning file
(`PROG.l0.tuning`, written by `l0 autotune`: `l0.tuning`) for its back end are set
first, so `--param` wins; `--no-tuning` ignores the file.

The input may mix text values and binary ones (Futhark's binary format,
`l0/values/binary.py`); `-b` writes the result in binary. `-v` reports the time of
each stage on stderr (`l0/cli/stages.py`) and, when it compiles for cpu or multicore,
the decisions of the lowering passes that report them (`l0.lowering.loop_ir.decisions`):
`l0-run: simd-map: LOC: map went SIMD, 8 lanes`, or why not (docs/backend.md).

Native code is kept in the compile cache (`l0.compile_cache`): a second run of an
unchanged program with the same options loads it instead of compiling (and imports
nothing of the compiler). `--no-cache` (or `L0_NO_CACHE=1`) compiles afresh.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import os
import sys
import time
from collections.abc import Callable, Iterator

from l0.cli.guard import run_guarded
from l0.diagnostics import L0Error, Loc, register_source
from l0.targets import DEFAULT, TARGETS, Target

BACKENDS = tuple(TARGETS)
"""The back ends (`l0.targets`, which imports nothing else: `--help` and `--version`
load no compiler module)."""
ALLOC_STATS_ENV = "L0_COUNT_ALLOCATIONS"
"""`l0.lowering.runtime.alloc_stats.ENV` (not imported: the interpreter needs no back end)."""


def _names(has: Callable[[Target], bool]) -> str:
    """The back ends that `has` something, for a help text: "cpu, multicore"."""
    return ", ".join(t.name for t in TARGETS.values() if has(t))


def build_argparser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="l0-run",
        description="Compile an L0 program and run its main function on values read from stdin.",
        epilog="Exit status: 0 on success, 2 for an error in the program or its input "
        "(reported as FILE:LINE:COL: error: ...), 3 for an internal compiler error.",
    )
    ap.add_argument("program", help="the L0 source file (.l0)")
    ap.add_argument(
        "--backend",
        choices=BACKENDS,
        default=DEFAULT.name,
        help="how to run the program: "
        + ", ".join(f"{t.name} = {t.help}" for t in TARGETS.values())
        + " (default: %(default)s)",
    )
    ap.add_argument(
        "--threads",
        type=int,
        default=None,
        metavar="N",
        help=f"{_names(lambda t: t.threads)}: the number of threads (default: "
        "L0_NUM_THREADS, else all cores)",
    )
    ap.add_argument(
        "--fast-math",
        action="store_true",
        help="compiled back ends (not interp): let LLVM reassociate real arithmetic "
        "(vectorised reductions; results may differ in the last bits)",
    )
    ap.add_argument(
        "-O",
        dest="optimise",
        action="store_true",
        default=True,
        help="optimise with the default pipeline of the back end's target "
        "(l0.passes.pipeline.default_pipeline) (the default)",
    )
    ap.add_argument(
        "-O0",
        dest="optimise",
        action="store_false",
        help="run no optimisation pass",
    )
    ap.add_argument(
        "-r",
        "--runs",
        type=int,
        default=1,
        metavar="N",
        help="run main N times (for timing; the result is printed once)",
    )
    ap.add_argument(
        "-t",
        "--timing",
        metavar="FILE",
        help="write the run time of each run of main in microseconds to FILE, one per line",
    )
    ap.add_argument(
        "-b",
        "--binary-output",
        action="store_true",
        help="write the result in Futhark's binary value format (one value per component)",
    )
    ap.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="report on stderr the time of each stage (parse, check, passes, LLVM, JIT, run) "
        f"and, on {_names(lambda t: t.counts_allocations)}, the heap allocations per run of "
        "main and which maps run in SIMD lanes",
    )
    ap.add_argument(
        "--profile",
        metavar="FILE",
        help="count every parallel region (multicore) or kernel launch (gpu, gpu-sim) and "
        "write, as JSON, one record per region or kernel: name, launches, threads, "
        "iterations and time_us, summed over the runs (with -v, also a table on stderr)",
    )
    ap.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=V",
        help="set a run-time parameter of the program (a threshold; repeatable; "
        "--print-params lists them)",
    )
    ap.add_argument(
        "--no-tuning",
        action="store_true",
        help="ignore the program's tuning file, PROG.l0.tuning (written by l0 autotune; "
        "read by default, before any --param)",
    )
    ap.add_argument(
        "--print-params",
        action="store_true",
        help="print the program's run-time parameters and their values, one "
        "'NAME VALUE' a line, and exit without running main",
    )
    ap.add_argument(
        "--no-cache",
        action="store_true",
        help=f"{_names(lambda t: t.loader is not None)}: compile even if the compile cache "
        "has the code, and do not "
        "keep it there (also L0_NO_CACHE=1; the cache is $XDG_CACHE_HOME/l0)",
    )
    ap.add_argument(
        "--inhibit-uniqueness-checking",
        action="store_true",
        help="skip the occurrence/consumption checks of the type checker (as l0c did); "
        "the program then runs unoptimised in the interpreter, which copies on every update",
    )
    ap.add_argument("-V", "--version", action=_VersionAction)
    return ap


class _VersionAction(argparse.Action):
    """`--version`: `l0-run VERSION`; importlib.metadata is imported only then (start-up)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from importlib.metadata import version

        print(f"{parser.prog} {version('l0')}")
        parser.exit()


def main(argv: list[str] | None = None) -> None:
    args = build_argparser().parse_args(argv)
    if args.runs < 1:
        print("l0-run: error: -r needs a positive number of runs", file=sys.stderr)
        sys.exit(2)
    if args.threads is not None and args.threads < 1:
        print("l0-run: error: --threads needs a positive number of threads", file=sys.stderr)
        sys.exit(2)
    # An option the back end would ignore is refused, as the executables of `l0 compile`
    # refuse `--threads` when not multicore: a user giving it expects it to act.
    if args.threads is not None and not TARGETS[args.backend].threads:
        print(f"l0-run: error: --threads applies to --backend="
              f"{_names(lambda t: t.threads)} only, not {args.backend}", file=sys.stderr)
        sys.exit(2)
    if args.fast_math and not TARGETS[args.backend].lowerings:  # not compiled
        print("l0-run: error: --fast-math applies to the compiled back ends only: the "
              "interpreter computes every real operation exactly as IEEE arithmetic says",
              file=sys.stderr)
        sys.exit(2)
    try:
        args.param_values = parse_params(args.param)
    except ValueError as err:
        print(f"l0-run: error: {err}", file=sys.stderr)
        sys.exit(2)
    if args.verbose:
        from l0.cli.stages import run_with_stage_times

        sys.exit(run_with_stage_times(lambda: run_guarded(lambda: run(args), what=args.program)))
    sys.exit(run_guarded(lambda: run(args), what=args.program))


def run(args: argparse.Namespace) -> int:
    from l0.api import BackendUnavailable, CompiledProgram
    from l0.values import format_result, from_ir_results, read_arguments, to_ir_arguments
    from l0.values.arguments import fresh_arguments

    # No isolation: the inputs are ours (a fresh copy per run), and copying would be timed.
    counting = args.verbose and TARGETS[args.backend].counts_allocations
    if counting:
        # before compiling: the counter is compiled into the code (l0.lowering.runtime.alloc_stats)
        os.environ[ALLOC_STATS_ENV] = "1"
    source = _read_source(args.program)
    register_source(args.program, source)
    try:
        with _reporting_decisions(args.verbose):
            prog = CompiledProgram(
                source, args.program, args.backend,
                optimise=args.optimise, fast_math=args.fast_math,
                inhibit_uniqueness=args.inhibit_uniqueness_checking, main_only=True,
                isolate=False, threads=args.threads, cache=not args.no_cache,
                profile=args.profile is not None,
            )
        prog.set_params({**_tuned(args, prog.param_values()), **args.param_values})
    except (BackendUnavailable, ValueError) as err:
        print(f"l0-run: error: {err}", file=sys.stderr)
        return 2
    if args.verbose and prog.from_cache and "simd-map" in TARGETS[args.backend].lowerings:
        print("l0-run: code from the compile cache: no lowering decisions to report "
              "(--no-cache)", file=sys.stderr)
    if args.print_params:
        for name, value in prog.param_values().items():
            print(f"{name} {value}")
        return 0
    entry = prog.functions["main"]
    params = [p.type for p in entry.params]
    # Without parameters a terminal is not waited on; piped input must then be empty.
    data = _read_stdin() if params or not sys.stdin.isatty() else b""
    inputs = read_arguments(data, params, "<stdin>")  # text and binary values
    inputs = to_ir_arguments(params, inputs)

    times: list[int] = []
    allocations = 0
    prog.reset_profile()
    results: list[object] = []
    if args.runs > 1:
        inputs = copy.deepcopy(inputs)  # buffers of numpy's (Note [Inputs of repeated runs])
    for _ in range(args.runs):
        # main may update unique arguments in place: every run gets its own copy of
        # those (Note [Inputs of repeated runs] in `l0.values.arguments`).
        run_inputs = fresh_arguments(params, inputs) if args.runs > 1 else inputs
        before = _allocations() if counting else 0
        start = time.perf_counter_ns()
        results = prog.call_flat("main", run_inputs)
        times.append((time.perf_counter_ns() - start) // 1000)
        if counting:
            allocations = max(allocations, _allocations() - before)

    if args.binary_output:
        from l0.values.binary import write_binary_values

        sys.stdout.flush()
        sys.stdout.buffer.write(write_binary_values(entry.ret,
                                                    from_ir_results(entry.ret, results)))
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(format_result(entry.ret, from_ir_results(entry.ret, results)) + "\n")
        sys.stdout.flush()
    if counting:
        print(f"l0-run: allocations per run of main: {allocations}", file=sys.stderr)
    if args.timing:
        _write_times(args.timing, times)
    if args.profile is not None:
        from l0.cli.profile_table import format_table, write_profile

        records = prog.profile_records()
        write_profile(args.profile, records)
        if args.verbose:
            print(format_table(records), file=sys.stderr)
    return 0


def _tuned(args: argparse.Namespace, known: dict[str, int]) -> dict[str, int]:
    """The values of the program's tuning file for its back end (`l0.tuning`), unless
    `--no-tuning`."""
    if args.no_tuning:
        return {}
    from l0.tuning import tuned_values

    return tuned_values(args.program, args.backend, known)


@contextlib.contextmanager
def _reporting_decisions(verbose: bool) -> Iterator[None]:
    """With `verbose`, print the lowering passes' decisions on stderr as they are made,
    while compiling (the probe is put back after: tools also run in one process)."""
    if not verbose:
        yield
        return
    from l0.lowering.loop_ir import decisions

    def report(pass_name: str, message: str) -> None:
        print(f"l0-run: {pass_name}: {message}", file=sys.stderr)

    saved, decisions.report = decisions.report, report
    try:
        yield
    finally:
        decisions.report = saved


def parse_params(settings: list[str]) -> dict[str, int]:
    """`--param NAME=V` settings as a mapping (ValueError saying what is malformed)."""
    values: dict[str, int] = {}
    for setting in settings:
        name, eq, value = setting.partition("=")
        try:
            number = int(value.strip())
        except ValueError:
            number = -1
        if not eq or not name.strip() or number < 0:
            raise ValueError(f"--param expects NAME=V with V an integer >= 0, not {setting!r}")
        values[name.strip()] = number
    return values


def _read_stdin() -> bytearray:
    """All of stdin as bytes: binary values are read from it without copies."""
    from l0.values.binary import read_input_bytes

    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # a text stream put in place of stdin (tests)
        return bytearray(sys.stdin.read().encode("utf-8"))
    return read_input_bytes(buffer)


def _allocations() -> int:
    from l0.lowering.runtime import alloc_stats

    return alloc_stats.count()


def _read_source(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise L0Error(Loc(path, 1, 1), f"cannot read program: {reason}", "io-error") from None


def _write_times(path: str, times: list[int]) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(f"{t}\n" for t in times)
    except OSError as err:
        message = f"cannot write timings: {err.strerror}"
        raise L0Error(Loc(path, 1, 1), message, "io-error") from None
