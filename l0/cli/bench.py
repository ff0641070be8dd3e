"""`l0 bench`: time `main` of a program over its datasets; compare two such runs.

    l0 bench PROG.l0 [--backend B] [-O0] [-r N] [--datasets DIR] [--json FILE] [--profile]
                 [--no-tuning]
    l0 bench --compare A.json B.json

The datasets of a program are the inputs of its test block (docs/tools.md) and its
sibling `PROG.in`, or every `*.in` file of `--datasets DIR`. The program is compiled
once; each dataset's values are read once, then `main` runs once to warm up (and its
output is checked against the expected one where the dataset has one) and N times
timed. Only `main` is timed: not compiling, reading values or copying them for the
next run (main may update its unique arguments in place). The times are kept in
microseconds, as `futhark bench` does, and the JSON has the shape of its:
`{"PROG.l0": {"datasets": {"NAME": {"runtimes": [...], "min": ...}}}}`; with `--profile`
each dataset also has the profile of its timed runs (`l0-run --profile`'s records).
The run-time parameters of the program's tuning file (`l0.tuning`) are set unless
`--no-tuning`.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from l0.api import BACKENDS, backend_unavailable
from l0.cli.guard import run_guarded
from l0.cli.progress import Progress
from l0.diagnostics import L0Error, Loc, register_source
from l0.targets import DEFAULT
from l0.testing import RunCase, SpecError, spec_of
from l0.values.compare import output_mismatch


def add_parser(commands: argparse._SubParsersAction) -> None:
    ap = commands.add_parser(
        "bench",
        help="time main over a program's datasets, or compare two benchmark results",
        description="Compile PROG once and time main on each of its datasets: the inputs "
        "of its test block and PROG.in, or the *.in files of --datasets DIR. Prints the "
        "mean, relative deviation, min, median and max per dataset, in microseconds. "
        "With --compare, prints the speed-up of B over A per dataset instead.",
        epilog="Exit status: 0 on success, 1 when a dataset's output is wrong, 2 for an "
        "error in the program, its data or the arguments.",
    )
    ap.add_argument("program", nargs="?", metavar="PROG.l0", help="the program to time")
    ap.add_argument("--backend", choices=BACKENDS, default=DEFAULT.name,
                    help="the back end (default: %(default)s)")
    ap.add_argument("-O0", dest="optimise", action="store_false",
                    help="run no optimisation pass")
    ap.add_argument("-r", "--runs", type=int, default=10, metavar="N",
                    help="timed runs per dataset (default: %(default)s)")
    ap.add_argument("--datasets", metavar="DIR",
                    help="time on every *.in file of DIR instead of the program's own inputs")
    ap.add_argument("--json", metavar="FILE", help="write the run times to FILE as JSON")
    ap.add_argument("--profile", action="store_true",
                    help="count parallel regions and kernel launches (l0-run --profile) "
                    "over each dataset's timed runs and add them to the JSON as 'profile'")
    ap.add_argument("--no-tuning", action="store_true",
                    help="ignore the program's tuning file, PROG.l0.tuning (l0 autotune), "
                    "which is read by default")
    ap.add_argument("--compare", nargs=2, metavar=("A.json", "B.json"),
                    help="print the speed-up of B over A per dataset (no program is run)")
    ap.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.compare:
        if args.program:
            return _usage("give either a program or --compare, not both")
        return compare(*args.compare)
    if not args.program:
        return _usage("a program to benchmark is needed (or --compare A.json B.json)")
    if args.runs < 1:
        return _usage("-r needs a positive number of runs")
    if (why := backend_unavailable(args.backend)) is not None:
        return _usage(why)
    return run_guarded(lambda: bench(args), what=args.program)


def _usage(message: str) -> int:
    print(f"l0 bench: error: {message}", file=sys.stderr)
    return 2


@dataclass(frozen=True)
class Dataset:
    name: str
    input: bytes
    output: str | None  # the expected printed result, if known


def datasets_of(program: Path, directory: Path | None) -> list[Dataset]:
    """The datasets of `program`: the `*.in` files of `directory`, or else the inputs
    of its test block and its sibling `.in` (with their expected outputs)."""
    if directory is not None:
        if not directory.is_dir():
            raise L0Error(Loc(str(directory), 1, 1), "no such directory", "io-error")
        found = []
        for path in sorted(directory.glob("*.in")):
            out = path.with_suffix(".out")
            found.append(Dataset(path.name, path.read_bytes(),
                                 out.read_text(encoding="utf-8") if out.exists() else None))
        return found
    try:
        spec = spec_of(program)
    except SpecError as err:
        raise L0Error(Loc(str(program), 1, 1), str(err), "test-block-error") from None
    sibling = program.with_suffix(".in")
    found = [Dataset(_dataset_name(case), case.input, case.output)
             for case in spec.runs if case.error is None]
    if sibling.exists() and not any(c.file == sibling.name for c in spec.runs):
        found.append(Dataset(sibling.name, sibling.read_bytes(), None))
    return found


def _dataset_name(case: RunCase) -> str:
    """A dataset's file, or for values in the test block `#N` and the values abbreviated
    (or the generators of a random input)."""
    if case.file is not None:
        return case.file
    number = case.name.split()[-1]
    if case.random is not None:
        return f"#{number} (random {case.random})"
    text = " ".join(case.input.decode("utf-8", "replace").split())
    shown = text if len(text) <= 40 else text[:37] + "..."
    return f"#{number} ({shown})"


def bench(args: argparse.Namespace) -> int:
    from l0.api import CompiledProgram

    program = Path(args.program)
    source = _read(program)
    register_source(str(program), source)
    sets = datasets_of(program, Path(args.datasets) if args.datasets else None)
    if not sets:
        raise L0Error(Loc(str(program), 1, 1), "no datasets: give the program a test block "
                      "with inputs, a .in file beside it, or --datasets DIR", "io-error")
    prog = CompiledProgram(source, str(program), args.backend, optimise=args.optimise,
                           main_only=True, isolate=False, profile=args.profile)
    if not args.no_tuning:
        from l0.tuning import tuned_values

        prog.set_params(tuned_values(program, args.backend, prog.param_values()))
    progress = Progress(len(sets) * args.runs)
    results: dict[str, dict[str, Any]] = {}
    wrong = 0
    for k, dataset in enumerate(sets):
        runtimes, values = _time_dataset(prog, dataset, args.runs,
                                          lambda i, k=k: progress.update(k * args.runs + i,
                                                                         sets[k].name))
        results[dataset.name] = summary(runtimes)
        if args.profile:
            results[dataset.name]["profile"] = prog.profile_records()
        progress.finish()
        print(_line(dataset.name, results[dataset.name]))
        problem = None if dataset.output is None else output_mismatch(
            dataset.output, prog.functions["main"].ret, values)
        if problem is not None:
            print(f"  wrong output: {problem}")
            wrong += 1
    if args.json:
        _write_json(args.json, {str(program): {"datasets": results}})
    return 1 if wrong else 0


def _time_dataset(prog: Any, dataset: Dataset, runs: int,
                  tick: Any) -> tuple[list[int], list[Any]]:
    """The run times of `main` on `dataset` in microseconds, and its (flattened) result."""
    from l0.values import from_ir_results, read_arguments, to_ir_arguments
    from l0.values.arguments import fresh_arguments

    entry = prog.functions["main"]
    params = [p.type for p in entry.params]
    name = f"<{dataset.name}>"
    # Text and binary values; a bytearray lets binary arrays be read without copies.
    inputs = to_ir_arguments(params, read_arguments(bytearray(dataset.input), params, name))
    inputs = copy.deepcopy(inputs)  # buffers of numpy's (Note [Inputs of repeated runs])
    # The warm-up run: its result is the one checked.
    results = from_ir_results(entry.ret, prog.call_flat("main", fresh_arguments(params, inputs)))
    prog.reset_profile()  # the profile covers the timed runs only
    runtimes = []
    for i in range(runs):
        fresh = fresh_arguments(params, inputs)  # Note [Inputs of repeated runs]
        start = time.perf_counter_ns()
        prog.call_flat("main", fresh)
        runtimes.append((time.perf_counter_ns() - start) // 1000)
        tick(i + 1)
    return runtimes, results


def summary(runtimes: list[int]) -> dict[str, Any]:
    """The JSON of one dataset: its run times and their statistics (microseconds)."""
    mean = statistics.fmean(runtimes)
    deviation = statistics.pstdev(runtimes) if len(runtimes) > 1 else 0.0
    return {"runtimes": runtimes, "min": min(runtimes), "median": statistics.median(runtimes),
            "max": max(runtimes), "mean": mean, "stddev": deviation}


def _line(name: str, s: dict[str, Any]) -> str:
    rsd = s["stddev"] / s["mean"] if s["mean"] else 0.0
    return (f"{name}: {s['mean']:.0f}us (RSD {rsd:.3f}; min {s['min']}us, "
            f"median {s['median']:.0f}us, max {s['max']}us; {len(s['runtimes'])} runs)")


def _read(program: Path) -> str:
    try:
        return program.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise L0Error(Loc(str(program), 1, 1), f"cannot read program: {reason}",
                      "io-error") from None


def _write_json(path: str, doc: dict[str, Any]) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    except OSError as err:
        raise L0Error(Loc(path, 1, 1), f"cannot write results: {err.strerror}",
                      "io-error") from None


# -- comparing two runs ---------------------------------------------------------------


def compare(path_a: str, path_b: str) -> int:
    """Print, per program and dataset found in both files, the speed-up of B over A
    (A's mean run time over B's: above 1 means B is faster)."""
    try:
        a, b = _load(path_a), _load(path_b)
    except ValueError as err:
        print(f"l0 bench: error: {err}", file=sys.stderr)
        return 2
    for prog, sets_a in a.items():
        sets_b = b.get(prog)
        if sets_b is None:
            print(f"{prog}: only in {path_a}")
            continue
        for name, ra in sets_a.items():
            rb = sets_b.get(name)
            if rb is None:
                print(f"{prog} {name}: only in {path_a}")
                continue
            ma, mb = statistics.fmean(ra), statistics.fmean(rb)
            speedup = ma / mb if mb else float("inf")
            print(f"{prog} {name}: {ma:.0f}us -> {mb:.0f}us, x{speedup:.2f}")
        for name in sets_b.keys() - sets_a.keys():
            print(f"{prog} {name}: only in {path_b}")
    for prog in b.keys() - a.keys():
        print(f"{prog}: only in {path_b}")
    return 0


def _load(path: str) -> dict[str, dict[str, list[float]]]:
    """The run times per program and dataset of a `l0 bench --json` (or `futhark bench
    --json`) file; `ValueError` saying what is wrong otherwise."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as err:
        raise ValueError(f"cannot read {path}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{path} is not JSON: {err}") from None
    out: dict[str, dict[str, list[float]]] = {}
    try:
        for prog, entry in doc.items():
            out[prog] = {name: [float(t) for t in d["runtimes"]] if d["runtimes"] else []
                         for name, d in entry["datasets"].items()}
            if any(not times for times in out[prog].values()):
                raise ValueError(f"{path}: a dataset of {prog} has no run times")
    except (AttributeError, KeyError, TypeError) as err:
        raise ValueError(f"{path} is not a benchmark result ({type(err).__name__}: "
                         f"{err})") from None
    return out
