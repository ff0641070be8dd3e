"""`l0 test`: test L0 programs against their expectations (l0.testing), in parallel.

    l0 test [--backend B]... [-O0] [-j N] [--json FILE] [--protocol P] [--rtol R]
            [--atol A] PATH...

Every `.l0` under each PATH is tested on every back end named (default: cpu), the
programs spread over N worker processes. Each failure prints `FAIL program (backend):
why`; the last line is `N passed, M failed`; the exit status is 1 when any failed, 2
when there is nothing to test. `--json FILE` writes every verdict. `--protocol` says
how a program without expectations is read (Note [Two protocols] in `l0.testing`);
`--rtol`/`--atol` how close reals must be to the expected ones (`l0.values.compare`).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from l0.api import BACKENDS, backend_unavailable
from l0.cli.progress import Progress
from l0.testing import PROTOCOLS, Tolerance, Verdict, check_program, find_programs


def add_parser(commands: argparse._SubParsersAction) -> None:
    ap = commands.add_parser(
        "test",
        help="test programs against their expected outputs and errors",
        description="Test every .l0 program under the PATHs against the expectations of "
        "its sibling files (X.in with X.out or X.err) and of a `// ==` test block in the "
        "program (inputs and outputs, errors with kind and location, SOAC counts after "
        "optimisation); a program without any must compile. Reals are compared within a "
        "tolerance. See docs/tools.md.",
        epilog="Exit status: 0 when every test passed, 1 when one failed, 2 for bad arguments "
        "or when no program was found.",
    )
    ap.add_argument("paths", nargs="+", metavar="PATH", help="a .l0 file or a directory")
    ap.add_argument("--backend", action="append", choices=BACKENDS,
                    help="a back end to test on; repeat for several (default: cpu)")
    ap.add_argument("-O0", dest="optimise", action="store_false",
                    help="run no optimisation pass (structure expectations still use -O)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                    help="worker processes (default: the number of CPUs; 1 runs in this process)")
    ap.add_argument("--json", metavar="FILE", help="write every verdict to FILE as JSON")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="print only the summary line")
    ap.add_argument("--protocol", choices=PROTOCOLS,
                    help="a program without sibling files or test block must compile "
                    "(futhark) or must fail to compile (2014, the protocol of the 2014 test "
                    "suite); default: as a file l0test.toml in or above its directory says, "
                    "else futhark")
    ap.add_argument("--rtol", type=_tolerance, default=Tolerance().rtol, metavar="R",
                    help="relative tolerance of reals in expected outputs "
                    "(default: %(default)g)")
    ap.add_argument("--atol", type=_tolerance, default=Tolerance().atol, metavar="A",
                    help="absolute tolerance of reals in expected outputs "
                    "(default: %(default)g)")
    ap.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        print("l0 test: error: -j needs a positive number", file=sys.stderr)
        return 2
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        print(f"l0 test: error: no such file or directory: {missing[0]}", file=sys.stderr)
        return 2
    programs = find_programs([Path(p) for p in args.paths])
    if not programs:
        print(f"l0 test: error: no .l0 program found in {', '.join(args.paths)}",
              file=sys.stderr)
        return 2
    backends = args.backend or ["cpu"]
    for backend in backends:
        if (why := backend_unavailable(backend)) is not None:
            print(f"l0 test: error: {why}", file=sys.stderr)
            return 2
    jobs = [(p, b) for p in programs for b in backends]
    verdicts = run_tests(jobs, args.optimise, args.jobs, protocol=args.protocol,
                         tolerance=Tolerance(args.rtol, args.atol))
    for v in verdicts:
        if not v.passed and not args.quiet:
            print(f"FAIL {v.program} ({v.backend}): {v.message}")
    passed = sum(v.passed for v in verdicts)
    failed = len(verdicts) - passed
    print(f"{passed} passed, {failed} failed")
    if args.json and not _write_json(args.json, verdicts):
        return 2
    return 1 if failed else 0


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:  # NaN too
        raise argparse.ArgumentTypeError(f"expected a number >= 0, found {text!r}")
    return value


def run_tests(jobs: list[tuple[Path, str]], optimise: bool, workers: int, *,
              protocol: str | None = None,
              tolerance: Tolerance | None = None) -> list[Verdict]:
    """The verdicts of `jobs` (program, back end), in the order of `jobs`; `protocol` and
    `tolerance` as `l0.testing.check_program` takes them."""
    progress = Progress(len(jobs))
    verdicts: dict[int, Verdict] = {}
    options = _Options(optimise, protocol, tolerance or Tolerance())
    if workers == 1 or len(jobs) < 2:
        for i, (path, backend) in enumerate(jobs):
            verdicts[i] = _quiet_check(path, backend, options)
            progress.update(i + 1, str(path))
    else:
        crashed = _in_pool(list(enumerate(jobs)), options, min(workers, len(jobs)), verdicts,
                           progress)
        # A crash (a signal in compiled code) takes the whole pool down: the jobs it
        # left run again one per process, so that only the crashing one fails.
        for i in crashed:
            if _in_pool([(i, jobs[i])], options, 1, verdicts, progress):
                path, backend = jobs[i]
                verdicts[i] = Verdict(str(path), backend, False,
                                      "the test process crashed (a signal or out of memory)")
    progress.finish()
    return [verdicts[i] for i in range(len(jobs))]


def _in_pool(jobs: list[tuple[int, tuple[Path, str]]], options: _Options, workers: int,
             verdicts: dict[int, Verdict], progress: Progress) -> list[int]:
    """Run `jobs` in a pool of `workers` processes into `verdicts`; return the indices of
    the jobs that did not finish because a worker died."""
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool

    # forkserver: workers start from a clean process, not from this one's threads.
    context = multiprocessing.get_context("forkserver")
    crashed: list[int] = []
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures: dict[Future[Verdict], int] = {
            pool.submit(_quiet_check, path, backend, options): i for i, (path, backend) in jobs
        }
        for future in as_completed(futures):
            i = futures[future]
            try:
                verdicts[i] = future.result()
            except BrokenProcessPool:
                crashed.append(i)
                continue
            progress.update(len(verdicts), verdicts[i].program)
    return sorted(crashed)


@dataclass(frozen=True)
class _Options:
    """How every program of a run is checked (sent to each worker)."""

    optimise: bool
    protocol: str | None
    tolerance: Tolerance


def _quiet_check(path: Path, backend: str, options: _Options) -> Verdict:
    """`check_program` with what the program traces kept off the terminal."""
    with contextlib.redirect_stderr(io.StringIO()):
        return check_program(path, backend, optimise=options.optimise,
                             protocol=options.protocol, tolerance=options.tolerance)


def _write_json(path: str, verdicts: list[Verdict]) -> bool:
    passed = sum(v.passed for v in verdicts)
    doc = {"passed": passed, "failed": len(verdicts) - passed,
           "tests": [v.to_json() for v in verdicts]}
    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    except OSError as err:
        print(f"l0 test: error: cannot write {path}: {err.strerror}", file=sys.stderr)
        return False
    return True
