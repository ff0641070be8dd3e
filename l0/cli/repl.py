"""`l0 repl [PROG.l0]`: the interactive session of `l0.repl` at a terminal or on piped input.

At a terminal, lines are read with GNU readline (the standard library's `readline`):
line editing, the history of earlier sessions (kept in
`$XDG_STATE_HOME/l0/repl_history`, default `~/.local/state/l0/repl_history`) and Tab
completion of commands, functions and bound names. On piped input nothing is shown
but results and errors, so a file of entries can be run as a script. Errors never end
the session; the exit status is 0 unless the arguments are wrong.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from l0.api import BACKENDS, backend_unavailable

if TYPE_CHECKING:
    from l0.repl import Session

COMMANDS = (":type", ":load", ":reload", ":help", ":quit")


def add_parser(commands: argparse._SubParsersAction) -> None:
    ap = commands.add_parser(
        "repl",
        help="evaluate L0 expressions interactively",
        description="Start an interactive session: enter L0 expressions to evaluate them "
        "in the scope of PROG's functions, `let x = e` to bind names, `fun ...` to define "
        "functions, :help for the commands. See docs/tools.md.",
    )
    ap.add_argument("program", nargs="?", metavar="PROG.l0", help="a program to load")
    ap.add_argument("--backend", choices=BACKENDS, default="interp",
                    help="how entries run: interp = the reference interpreter (the default), "
                    "or compiled, as l0-run --backend runs programs (unoptimised)")
    ap.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from l0.repl import Session
    from l0.repl import run as loop

    if (why := backend_unavailable(args.backend)) is not None:
        print(f"l0 repl: error: {why}", file=sys.stderr)
        return 2
    session = Session(backend=args.backend)
    interactive = sys.stdin.isatty()
    if interactive:
        from importlib.metadata import version

        print(f"l0 repl {version('l0')} ({args.backend}); :help for help, :quit to leave")
    if args.program:
        session.handle(f":load {args.program}")
    loop(session, terminal_reader(session) if interactive else _piped_reader())
    return 0


def _piped_reader() -> Callable[[str], str | None]:
    from l0.repl import stream_reader

    return stream_reader(sys.stdin)


def history_file() -> Path:
    """Where the history of the sessions is kept."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(state) / "l0" / "repl_history"


def terminal_reader(session: Session) -> Callable[[str], str | None]:
    """`read_line` on the terminal: readline's editing, history and completion."""
    try:
        import readline
    except ImportError:  # not on every platform: plain input() then
        readline = None  # type: ignore[assignment]  # None: this Python has no readline
    if readline is not None:
        import atexit

        path = history_file()
        try:
            readline.read_history_file(path)
        except (OSError, ValueError):
            pass
        readline.set_history_length(1000)

        def save() -> None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                readline.write_history_file(path)
            except OSError:
                pass

        atexit.register(save)
        readline.set_completer(_completer(session))
        readline.set_completer_delims(" \t\n()[]{},+-*/%=<>&|^")
        readline.parse_and_bind("tab: complete")

    def read_line(prompt: str) -> str | None:
        while True:
            try:
                return input(prompt)
            except EOFError:
                print()
                return None
            except KeyboardInterrupt:  # Ctrl-C drops the line, as in Python's REPL
                print()

    return read_line


def _completer(session: Session) -> Callable[[str, int], str | None]:
    """Tab completion: commands, then the session's names (`l0.repl.Session.names`)."""
    matches: list[str] = []

    def complete(text: str, state: int) -> str | None:
        if state == 0:
            names = COMMANDS if text.startswith(":") else session.names()
            matches[:] = sorted(n for n in names if n.startswith(text))
        return matches[state] if state < len(matches) else None

    return complete
