"""The program corpus (`test/programs/`): what each program is, and what it must do.

The l0c test protocol (`test/programs/README.md`), with one addition:

* `X.l0` + `X.in` + `X.out`: `main` on the input prints the expected output (whitespace
  ignored);
* `X.l0` + `X.in` + `X.err`: running fails; `.err` is `LINE:COL: error: PHRASE`, the
  error's location and a phrase its message contains;
* `X.l0` alone: compilation fails; a first line `// error: KIND` names the error kind;
* `X.trace` (with a run test): what `trace` prints on stderr, byte for byte; without it a
  run must trace nothing.

A program with an input must have exactly one of `X.out` and `X.err`: the 2014 suite's
compile-only tests (`X.l0` + `X.in`) compiled programs but ran none of their code, so the
corpus has none (`incomplete()` lists offenders; the matrix fails on them).

Programs are named by their path relative to `test/programs/`, which is also the file
name given to the compiler, so that locations in traces and errors do not depend on
where the checkout is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from l0.diagnostics import L0Error

ROOT = Path(__file__).parent / "programs"


@dataclass(frozen=True)
class Program:
    """One corpus program with an input: its source, input and expected behaviour."""

    name: str  # relative to ROOT, e.g. "basics/trace.l0"

    @property
    def path(self) -> Path:
        return ROOT / self.name

    def sibling(self, suffix: str) -> Path:
        return self.path.with_suffix(suffix)

    @property
    def source(self) -> str:
        return self.path.read_text(encoding="utf-8")

    @property
    def input(self) -> str:
        return self.sibling(".in").read_text(encoding="utf-8")

    @property
    def expected_output(self) -> str | None:
        out = self.sibling(".out")
        return out.read_text(encoding="utf-8") if out.exists() else None

    @property
    def expected_error(self) -> str | None:
        err = self.sibling(".err")
        return err.read_text(encoding="utf-8").strip() if err.exists() else None

    @property
    def expected_trace(self) -> str:
        trace = self.sibling(".trace")
        return trace.read_text(encoding="utf-8") if trace.exists() else ""


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def all_sources() -> list[Path]:
    return sorted(ROOT.rglob("*.l0"))


def runnable() -> list[Program]:
    """The programs with an input, in a stable order."""
    return [Program(_name(p)) for p in all_sources() if p.with_suffix(".in").exists()]


def rejected() -> list[Path]:
    """The programs without an input: the compiler must reject them."""
    return [p for p in all_sources() if not p.with_suffix(".in").exists()]


def incomplete() -> list[str]:
    """Problems with the corpus files: an input without exactly one expected result, or
    an expected output, error or trace without a program and input."""
    problems = []
    for prog in runnable():
        outcomes = [s for s in (".out", ".err") if prog.sibling(s).exists()]
        if len(outcomes) != 1:
            problems.append(f"{prog.name}: has an input and {len(outcomes)} of .out/.err")
    for suffix in (".out", ".err", ".trace"):
        for f in sorted(ROOT.rglob(f"*{suffix}")):
            if not f.with_suffix(".in").exists() or not f.with_suffix(".l0").exists():
                problems.append(f"{_name(f)}: no program with an input")
    return problems


def squash(s: str) -> str:
    """`s` without whitespace: how the 2014 runner compared outputs."""
    return re.sub(r"\s+", "", s)


def expected_kind(path: Path) -> str | None:
    """The error kind a rejected program's first line names (`// error: KIND`)."""
    first = path.read_text(encoding="utf-8").splitlines()[0]
    m = re.match(r"//\s*error:\s*([a-z-]+)", first)
    return m.group(1) if m else None


def error_mismatch(expected: str, err: L0Error) -> str | None:
    """Why `err` is not the run-time error `expected` (`LINE:COL: error: PHRASE`), or None."""
    where, _, phrase = expected.partition("error:")
    rendered = err.render()
    if err.kind != "runtime-error":
        return f"expected a runtime-error, found a {err.kind}: {rendered}"
    if f":{where.strip()} error:" not in rendered or phrase.strip() not in rendered:
        return f"expected `{expected}`, found: {rendered}"
    return None
