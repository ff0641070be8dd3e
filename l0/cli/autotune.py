"""`l0 autotune`: search a program's run-time thresholds over its datasets; keep them beside it.

    l0 autotune PROG.l0 [--backend B] [--threads N] [--dataset NAME]... [--datasets DIR]
                [-r N] [--timeout S]

Compiles the program once for timing and once with profiling (the sizes each threshold
is compared with), lists its run-time parameters, searches each over the datasets
(`l0.autotune`: the datasets are `l0 bench`'s, `--dataset NAME` keeps the named ones)
and writes the values that beat the defaults to `PROG.l0.tuning` (`l0.tuning`), in the
back end's section (the other sections of an existing file stay). `l0-run`,
`l0 bench` and `l0.compile` read it from then on. A program without parameters on
the back end is said so, and nothing is written.

Exit status: 0 on success, 2 for an error in the program, its data or the arguments,
3 when a threshold changed the output of `main` (a compiler bug).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from l0.autotune import DEFAULT_RUNS, DEFAULT_TIMEOUT
from l0.cli.guard import EXIT_INTERNAL_ERROR, run_guarded
from l0.diagnostics import L0Error, Loc, register_source
from l0.targets import DEFAULT, TARGETS


def add_parser(commands: argparse._SubParsersAction) -> None:
    ap = commands.add_parser(
        "autotune",
        help="search a program's run-time thresholds over its datasets; write PROG.l0.tuning",
        description="Compile PROG once, list its run-time parameters (thresholds; "
        "l0-run --print-params) and search each over the program's datasets (those of "
        "l0 bench): the candidates are the sizes the threshold was compared with while "
        "running them, plus 0 (always) and the largest i64 (never). Each candidate runs "
        "main on every dataset; the fastest is kept, the default unless a candidate is "
        "more than 2%% faster. Every candidate's output must equal the default's. The "
        "values that beat the defaults go to PROG.l0.tuning, under the back end, which "
        "l0-run, l0 bench and l0.compile then read (--no-tuning ignores it).",
        epilog="Exit status: 0 on success (also when the program has no parameters: "
        "nothing is written), 2 for an error in the program, its data or the "
        "arguments, 3 when a threshold changed the result (a compiler bug).",
    )
    ap.add_argument("program", metavar="PROG.l0", help="the program to tune")
    ap.add_argument("--backend", choices=tuple(TARGETS), default=DEFAULT.name,
                    help="the back end whose parameters are tuned (default: %(default)s)")
    ap.add_argument("--threads", type=int, default=None, metavar="N",
                    help="multicore: the number of threads (default: L0_NUM_THREADS, else "
                    "all cores)")
    ap.add_argument("--dataset", action="append", default=[], metavar="NAME",
                    help="tune on this dataset only, by its name as l0 bench prints it "
                    "(repeatable; default: all; with --datasets, a file's name)")
    ap.add_argument("--datasets", metavar="DIR",
                    help="the *.in files of DIR are the datasets, instead of the "
                    "program's own inputs")
    ap.add_argument("-r", "--runs", type=int, default=DEFAULT_RUNS, metavar="N",
                    help="timed rounds, in which each candidate runs main once on each "
                    "dataset; its median run counts (default: %(default)s)")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                    help="give up a candidate one of whose runs takes more than S seconds "
                    "(default: %(default)s), or more than 1.2 times the default's first run "
                    "plus a second")
    ap.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from l0.api import backend_unavailable

    if args.runs < 1:
        return _usage("-r needs a positive number of runs")
    if not args.timeout > 0:
        return _usage("--timeout needs a positive number of seconds")
    if args.threads is not None and (args.threads < 1 or not TARGETS[args.backend].threads):
        return _usage("--threads needs a positive number of threads, and applies to "
                      + ", ".join(t.name for t in TARGETS.values() if t.threads) + " only")
    if (why := backend_unavailable(args.backend)) is not None:
        return _usage(why)
    return run_guarded(lambda: autotune(args), what=args.program)


def _usage(message: str) -> int:
    print(f"l0 autotune: error: {message}", file=sys.stderr)
    return 2


def autotune(args: argparse.Namespace) -> int:
    from l0.api import CompiledProgram
    from l0.autotune import Dataset, ProgramRunner, ResultsDiffer, tune
    from l0.cli.bench import datasets_of
    from l0.tuning import write

    program = Path(args.program)
    source = _read(program)
    register_source(str(program), source)
    found = datasets_of(program, Path(args.datasets) if args.datasets else None)
    sets = [Dataset(d.name, d.input) for d in found]
    if args.dataset:
        names = [d.name for d in sets]
        for wanted in args.dataset:
            if wanted not in names:
                return _usage(f"no dataset {wanted!r} (the program's datasets: "
                              f"{', '.join(names) if names else 'none'})")
        sets = [d for d in sets if d.name in args.dataset]

    def compiled(profile: bool) -> Any:
        return CompiledProgram(source, str(program), args.backend, main_only=True,
                               isolate=False, threads=args.threads, profile=profile)

    timed = compiled(False)
    defaults = timed.param_defaults()
    if not defaults:
        print(f"{program}: no run-time parameters on {args.backend}: nothing to tune, "
              "no tuning file written")
        return 0
    if not sets:
        raise L0Error(Loc(str(program), 1, 1), "no datasets to tune on: give the program a "
                      "test block with inputs, a .in file beside it, or --datasets DIR",
                      "io-error")
    print(f"{program}: {len(defaults)} run-time parameter"
          f"{'' if len(defaults) == 1 else 's'} on {args.backend}, "
          f"{len(sets)} dataset{'' if len(sets) == 1 else 's'}:")
    for name, value in defaults.items():
        print(f"  {name} (default {value})")
    runner = ProgramRunner(timed, compiled(True), sets)
    try:
        result = tune(runner, sets, runs=args.runs, timeout=args.timeout, report=_report)
    except ResultsDiffer as err:
        print(f"l0 autotune: error: {err}", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    path = write(str(program), args.backend, result.values())
    changed = len(result.values())
    print(f"wrote {path}: {changed} parameter{'' if changed == 1 else 's'} away from "
          "the default")
    return 0


def _report(tuned: Any) -> None:
    """Print what the search found for one parameter (`l0.autotune.Tuned`)."""
    print(f"{tuned.name}:")
    if tuned.sizes is None:
        print("  its comparisons are not noted: trying always, the default and never")
    elif not tuned.sizes:
        print("  not compared on these datasets: the default stays")
    else:
        more = f" (and {tuned.dropped} more the table could not keep)" if tuned.dropped else ""
        print(f"  compared with {', '.join(str(s) for s in tuned.sizes)}{more}")
    for trial in tuned.trials:
        took = "given up (too slow)" if trial.time_us is None else f"{trial.time_us:.0f}us"
        print(f"  {_shown(trial.value, tuned):<30} {took}")
    print(f"  -> {_shown(tuned.value, tuned)}")


def _shown(value: int, tuned: Any) -> str:
    """A candidate value of the parameter `tuned` (`l0.autotune.Tuned`), with what it
    means on the sizes compared: every one reaches it (always), none does (never)."""
    from l0.lowering.runtime.run_tables import NEVER

    sizes = tuned.sizes or ()
    always = value == 0 or (bool(sizes) and value <= min(sizes))
    never = value != NEVER and bool(sizes) and value > max(sizes)
    notes = [word for word, is_it in (("default", value == tuned.default),
                                      ("always", always), ("never", never)) if is_it]
    text = "never" if value == NEVER else str(value)
    return f"{text} ({', '.join(notes)})" if notes else text


def _read(program: Path) -> str:
    try:
        return program.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise L0Error(Loc(str(program), 1, 1), f"cannot read program: {reason}",
                      "io-error") from None
