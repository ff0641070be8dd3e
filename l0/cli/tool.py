"""`l0`: the tools a Futhark user reaches for, as subcommands of one command.

    l0 test [--backend B]... PATH...      test programs against their expectations
    l0 bench PROG.l0 [-r N] [--json F]    time main over the program's datasets
    l0 bench --compare A.json B.json      the speed-up per dataset between two runs
    l0 autotune PROG.l0 [--backend B]     search its thresholds; write PROG.l0.tuning
    l0 dataset -g TYPE[:DIMS]... [-b]     random or given values, as text or binary
    l0 compile PROG.l0 [-o prog]          a native executable running main as l0-run does
    l0 check PROG.l0...                   parse and type check only
    l0 repl [PROG.l0]                     evaluate expressions at a prompt
    l0 lsp                                the language server, for editors

`l0-run` and `l0-opt` stay the commands to run one program and to look at its IR.
Each subcommand lives in its own module (`l0.cli.testcmd`, `l0.cli.bench`,
`l0.cli.autotune`, `l0.cli.dataset`, `l0.cli.compile`, `l0.cli.check`, `l0.cli.repl`, `l0.cli.lsp`)
and registers its parser here; docs/tools.md describes them.
Bad arguments give a message and exit status 2, as argparse does.
"""

from __future__ import annotations

import argparse
import sys

from l0.cli import autotune, bench, check, compile, dataset, lsp, repl, testcmd


def build_argparser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="l0",
        description="Tools for L0 programs: test them, benchmark them, make data for them. "
        "Run `l0 COMMAND --help` for each command; l0-run runs one program, "
        "l0-opt shows its IR.",
    )
    ap.add_argument("-V", "--version", action="store_true", help="print the version and exit")
    commands = ap.add_subparsers(dest="command", metavar="COMMAND")
    testcmd.add_parser(commands)
    bench.add_parser(commands)
    autotune.add_parser(commands)
    dataset.add_parser(commands)
    compile.add_parser(commands)
    check.add_parser(commands)
    repl.add_parser(commands)
    lsp.add_parser(commands)
    return ap


def main(argv: list[str] | None = None) -> None:
    ap = build_argparser()
    args = ap.parse_args(argv)
    if args.version:
        from importlib.metadata import version

        print(f"l0 {version('l0')}")
        sys.exit(0)
    if args.command is None:
        ap.error("a command is needed: test, bench, autotune, dataset, compile, check, repl or lsp")
    sys.exit(args.run(args))
