"""User-facing diagnostics: source locations and the one error type for user errors.

Every error caused by what the user wrote (source text, values on stdin, a run-time
fault of their program) is an `L0Error`. Drivers print it as
`FILE:LINE:COL: error: message` and exit with status 2. A back end that cannot run on
this machine (its runtime library missing) raises `Unavailable`, reported the same way
without a location. Anything else escaping from the compiler is a bug of ours (an
internal error), never a user error.

The command-line tools add the offending line of source below that first line, with a
marker under the span (`format_error`), reading the text from `register_source` (the
program and stdin, which cannot be read twice) or else from the file named in the
location. `L0Error.render()` stays one line: `l0-opt --verify-diagnostics` and tests
match it line by line.
"""

from __future__ import annotations

from dataclasses import dataclass

_SOURCES: dict[str, str] = {}


@dataclass(frozen=True)
class Loc:
    """A source position: 1-based line and column, plus where the construct ends."""

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def span(self) -> str:
        """`FILE:L1:C1-L2:C2`, the form the 2014 `trace` output uses."""
        return f"{self.file}:{self.line}:{self.col}-{self.end_line}:{self.end_col}"


NOWHERE = Loc("<unknown>", 0, 0)


class L0Error(Exception):
    """An error in the user's program or input, reported at a source location.

    `kind` is a short kebab-case code (e.g. `use-after-consume`, `parse-error`,
    `index-out-of-bounds`) so tests and docs can refer to error kinds by name.
    """

    def __init__(self, loc: Loc, message: str, kind: str = "error") -> None:
        super().__init__(message)
        self.loc = loc
        self.message = message
        self.kind = kind

    def __reduce__(self) -> tuple[object, ...]:
        # Pickled whole (Exception's default keeps only the message): an error raised
        # in a Dask worker process reaches the client as it was raised.
        return (type(self), (self.loc, self.message, self.kind))

    def render(self) -> str:
        return f"{self.loc}: error: {self.message}"

    def __str__(self) -> str:
        return self.render()


class Unavailable(Exception):
    """Something a back end needs is missing from this machine (a runtime library): not
    the program's fault nor the compiler's. Drivers print `PROGRAM: error: message` in
    one line and exit with status 2, as for a user error."""


def register_source(name: str, text: str) -> None:
    """Remember `text` as the contents of `name`, for snippets in `format_error`."""
    _SOURCES[name] = text


def _source_text(name: str) -> str | None:
    if name in _SOURCES:
        return _SOURCES[name]
    if name.startswith("<"):  # `<stdin>`, `<unknown>`: nothing on disk
        return None
    try:
        with open(name, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def snippet(loc: Loc, text: str) -> str:
    """The line of `text` that `loc` starts on, numbered, with `^` under the span (to the
    end of the line for a span over several lines); "" if `loc` is not inside `text`."""
    lines = text.split("\n")
    if not 1 <= loc.line <= len(lines) or loc.col < 1:
        return ""
    line = lines[loc.line - 1].rstrip("\r")
    if loc.end_line == loc.line and loc.end_col >= loc.col:
        end = loc.end_col  # inclusive
    elif loc.end_line > loc.line:
        end = max(len(line), loc.col)
    else:  # a point (values on stdin, lexical errors)
        end = loc.col
    # Tabs are copied into the marker line so that `^` lines up however they are shown.
    pad = "".join(c if c == "\t" else " " for c in line[: loc.col - 1])
    pad += " " * (loc.col - 1 - len(pad))  # a column just past the end of the line
    gutter = " " * len(str(loc.line))
    return (
        f"{gutter} |\n{loc.line} | {line}\n{gutter} | {pad}{'^' * (end - loc.col + 1)}"
    )


def format_error(err: L0Error) -> str:
    """`err.render()` followed by the source line it points at, when that can be found."""
    text = _source_text(err.loc.file)
    shown = snippet(err.loc, text) if text is not None else ""
    return f"{err.render()}\n{shown}" if shown else err.render()
