"""Tuning files: the run-time parameters `l0 autotune` chose for a program, beside it.

The tuning file of `prog.l0` is `prog.l0.tuning`, plain text:

    # l0 autotune: run-time parameters of prog.l0
    [multicore]
    main:12:5:map.min_work=4096
    main:20:9:reduce.min_work=9223372036854775807

A `[BACKEND]` line opens the section of a back end (`l0.targets`); under it each
`NAME=VALUE` line sets a parameter (`l0-run --print-params` lists them) to an integer
>= 0 (the largest i64 is "never": no size reaches it). Blank lines and lines starting
with `#` are ignored; space around names and values is too. `l0-run`, `l0 bench` and
`l0.compile(PATH)` read the section of their back end when the file exists, before
any `--param` (which wins); `--no-tuning` (`tuning=False`) ignores the file. Anything
else, or a name the compiled program does not declare (the program changed since it
was tuned: its parameters are named after source locations), is an `L0Error` at its
line and column. This module imports no compiler module (`l0-run` reads the file
before compiling).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from l0.diagnostics import L0Error, Loc
from l0.targets import target

SUFFIX = ".tuning"
KIND = "tuning-error"


@dataclass(frozen=True)
class Setting:
    """One `NAME=VALUE` line: its value and where its name starts."""

    value: int
    loc: Loc


def tuning_path(program: str | os.PathLike[str]) -> str:
    """The tuning file of the program at `program`."""
    return os.fspath(program) + SUFFIX


def parse(text: str, path: str) -> dict[str, dict[str, Setting]]:
    """The settings of a tuning file's text, by back end and name (module docstring);
    `L0Error` at the line and column of the first malformed thing."""
    sections: dict[str, dict[str, Setting]] = {}
    current: dict[str, Setting] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        col = len(line) - len(line.lstrip()) + 1
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            if not stripped.endswith("]"):
                raise _error(path, number, col, "expected ']' closing the back end's name")
            title = stripped[1:-1].strip()
            try:
                target(title)
            except ValueError as err:
                raise _error(path, number, col + 1, str(err)) from None
            if title in sections:
                raise _error(path, number, col + 1, f"a second [{title}] section")
            current = sections[title] = {}
            continue
        name, eq, value = line.partition("=")
        if not eq or not name.strip():
            raise _error(path, number, col, "expected NAME=VALUE or [BACKEND]")
        if current is None:
            raise _error(path, number, col, "a setting before any [BACKEND] section")
        value_col = len(name) + 2 + len(value) - len(value.lstrip())
        text_value = value.strip()
        if not text_value.isdigit() or not text_value.isascii():
            raise _error(path, number, value_col,
                         f"expected an integer >= 0 as the value, not {text_value!r}")
        number_value = int(text_value)
        if number_value >= 1 << 63:
            raise _error(path, number, value_col, "the value does not fit in 64 bits")
        key = name.strip()
        if key in current:
            raise _error(path, number, col, f"{key!r} is set twice in this section")
        current[key] = Setting(number_value, Loc(path, number, col))
    return sections


def read_text(path: str) -> str:
    """The text of the tuning file at `path`; an unreadable file is an `L0Error`."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise L0Error(Loc(path, 1, 1), f"cannot read tuning file: {reason}", KIND) from None


def read(path: str) -> dict[str, dict[str, Setting]]:
    """The settings of the tuning file at `path` (`parse`)."""
    return parse(read_text(path), path)


def checked(settings: Mapping[str, Setting], backend: str,
            known: Mapping[str, int]) -> dict[str, int]:
    """The values of a back end's `settings`, checked against `known`, the parameters
    the compiled program declares: another name is an `L0Error` at its line."""
    for name, setting in settings.items():
        if name not in known:
            listed = ", ".join(known) if known else "none"
            raise L0Error(setting.loc, f"unknown parameter {name!r} for {backend} (the "
                          f"program's parameters: {listed}); run `l0 autotune` again, or "
                          "ignore the file with --no-tuning", KIND)
    return {name: s.value for name, s in settings.items()}


def tuned_values(program: str | os.PathLike[str], backend: str,
                 known: Mapping[str, int]) -> dict[str, int]:
    """The values the tuning file of `program` sets for `backend` ({} when there is no
    file or no section for it), `checked` against `known`."""
    path = tuning_path(program)
    if not os.path.exists(path):
        return {}
    return checked(read(path).get(backend, {}), backend, known)


def format_tuning(program: str, sections: Mapping[str, Mapping[str, int]]) -> str:
    """The text of a tuning file holding `sections` (back end -> name -> value)."""
    lines = [f"# l0 autotune: run-time parameters of {os.path.basename(program)}, by back "
             "end (l0-run --print-params)"]
    for backend, values in sections.items():
        lines.append(f"[{backend}]")
        lines.extend(f"{name}={value}" for name, value in values.items())
    return "\n".join(lines) + "\n"


def write(program: str, backend: str, values: Mapping[str, int]) -> str:
    """Write `values` as the section of `backend` in the tuning file of `program`,
    keeping the other back ends' sections of an existing file; return its path."""
    path = tuning_path(program)
    sections: dict[str, dict[str, int]] = {}
    if os.path.exists(path):
        sections = {b: {n: s.value for n, s in settings.items()}
                    for b, settings in read(path).items()}
    sections[backend] = dict(values)
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(format_tuning(program, sections))
    except OSError as err:
        raise L0Error(Loc(path, 1, 1), f"cannot write tuning file: {err.strerror}",
                      KIND) from None
    return path


def _error(path: str, line: int, col: int, message: str) -> L0Error:
    return L0Error(Loc(path, line, col), message, KIND)
