"""`l0 check PROG.l0...`: parse and type check programs, nothing more (as `futhark check`).

Each program is parsed and type checked (aliasing and uniqueness included); nothing
is internalised, optimised or run. Nothing is printed for a correct program; the
first error of a wrong one is printed as every tool prints it (`FILE:LINE:COL: error:
...` and the source line), and the exit status is 2 if any program had an error.
"""

from __future__ import annotations

import argparse
from functools import partial

from l0.cli.guard import EXIT_OK, run_guarded
from l0.diagnostics import L0Error, Loc, register_source


def add_parser(commands: argparse._SubParsersAction) -> None:
    ap = commands.add_parser(
        "check",
        help="parse and type check programs without compiling them",
        description="Parse and type check each PROG.l0 (uniqueness included), without "
        "compiling or running it; print the first error of each program.",
        epilog="Exit status: 0 when every program is correct, 2 when one has an error, "
        "3 for an internal compiler error.",
    )
    ap.add_argument("programs", nargs="+", metavar="PROG.l0", help="an L0 source file")
    ap.add_argument("--inhibit-uniqueness-checking", action="store_true",
                    help="skip the occurrence/consumption checks (as l0-run does with it)")
    ap.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    statuses = [run_guarded(partial(_check, p, args.inhibit_uniqueness_checking), what=p)
                for p in args.programs]
    return max(statuses, default=EXIT_OK)


def _check(path: str, inhibit_uniqueness: bool) -> int:
    from l0.frontend import load_program

    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise L0Error(Loc(path, 1, 1), f"cannot read program: {reason}", "io-error") from None
    register_source(path, source)
    load_program(source, path, inhibit_uniqueness=inhibit_uniqueness)
    return EXIT_OK



