"""Running a tool's `main(argv)` in this process, as a user's shell would run the tool.

A tool started as a subprocess spends about 2.5 s importing xDSL and the compiler
before it reads its arguments; `run_tool` calls its `main` here instead, with standard
input, output and error as byte streams of their own, the working directory and the
environment set for the call, and the exit status taken from `SystemExit`. What only a
fresh process shows (what start-up imports, a library the loader cannot find, the real
console script) stays with `subprocess` in the tests that check it.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Ran:
    """What a run printed and its exit status, as `subprocess.CompletedProcess` has it."""

    returncode: int
    stdout: str
    stderr: str
    stdout_bytes: bytes
    stderr_bytes: bytes


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    """A text stream over bytes, with `.buffer`, as `sys.stdin` and `sys.stdout` have."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape",
                            newline="\n", write_through=True)


@contextlib.contextmanager
def _environment(cwd: str | Path | None, env: Mapping[str, str] | None) -> Iterator[None]:
    saved_cwd, saved_env = os.getcwd(), dict(os.environ)
    try:
        if cwd is not None:
            os.chdir(cwd)
        if env is not None:
            os.environ.update(env)
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def run_tool(main: Callable[[list[str]], object], args: Sequence[str],
             stdin: str | bytes = "", *, cwd: str | Path | None = None,
             env: Mapping[str, str] | None = None) -> Ran:
    """Call `main(list(args))` with `stdin` as standard input; `env` adds to the
    environment for the call. An exception other than `SystemExit` propagates (a tool
    must not end with a traceback)."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    streams = _stream(data), _stream(), _stream()
    saved = sys.stdin, sys.stdout, sys.stderr
    code: object = 0
    with _environment(cwd, env):
        sys.stdin, sys.stdout, sys.stderr = streams
        try:
            main(list(args))
        except SystemExit as done:
            code = done.code
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved
    if code is None:
        code = 0
    elif not isinstance(code, int):  # sys.exit("message"): printed, status 1
        streams[2].write(f"{code}\n")
        code = 1
    out, err = (s.buffer.getvalue() for s in streams[1:])  # type: ignore[attr-defined]
    return Ran(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), out, err)
