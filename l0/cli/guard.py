"""How the command-line tools run compiler work: on a big stack, errors reported, no traceback.

The front end, the passes and the interpreter recurse over the program (expression
trees, recursive L0 functions), so the work runs in a thread with a large stack and a
high recursion limit. User errors (`L0Error`) print as `FILE:LINE:COL: error: ...`
followed by the offending source line (`l0.diagnostics.format_error`) and give exit
status 2, as does a back end missing its runtime library (`Unavailable`, one
line); a program too deeply nested or recursive for our stack is also
reported as a user error; anything else is a bug of ours, reported in one line as an
internal error with status 3 (set `L0_TRACEBACK=1` to see the traceback).
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error, Unavailable, format_error

EXIT_OK = 0
EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 3


def run_guarded(work: Callable[[], int], *, what: str) -> int:
    """Run `work` on a big stack; return its exit status, or the status of the error it raised.

    `what` names the input (a file name) for errors that have no location of their own.
    """
    return call_with_big_stack(lambda: _report_errors(work, what))


def _report_errors(work: Callable[[], int], what: str) -> int:
    try:
        return work()
    except L0Error as err:
        _flush_stdout()
        print(format_error(err), file=sys.stderr)
        return EXIT_USER_ERROR
    except Unavailable as err:
        _flush_stdout()
        print(f"{what}: error: {err}", file=sys.stderr)
        return EXIT_USER_ERROR
    except RecursionError:
        _flush_stdout()
        print(f"{what}: error: program nested or recursive too deeply", file=sys.stderr)
        return EXIT_USER_ERROR
    except MemoryError:
        _flush_stdout()
        print(f"{what}: error: out of memory", file=sys.stderr)
        return EXIT_USER_ERROR
    except BrokenPipeError:
        return EXIT_OK
    except Exception as err:  # a bug of ours: one line, no traceback unless asked for
        _flush_stdout()
        if os.environ.get("L0_TRACEBACK"):
            traceback.print_exc()
        print(
            f"{what}: internal compiler error: {type(err).__name__}: {err}",
            file=sys.stderr,
        )
        return EXIT_INTERNAL_ERROR


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except Exception:
        pass
