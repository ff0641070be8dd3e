"""The program corpus (`test/programs/`): what each program is, and what it must do.

The l0c test protocol (`test/programs/README.md`), with one addition:

* `X.l0` + `X.in` + `X.out`: `main` on the input prints the expected output (whitespace
  ignored);
* `X.l0` + `X.in` + `X.err`: running fails; `.err` is `LINE:COL: error: PHRASE`, the
  error's location and a phrase its message contains;
* `X.l0` alone: compilation fails; a first line `// error: KIND` names the error kind;
* `X.trace` (with a run test): what `trace` prints on stderr, byte for byte; without it a
  run must trace nothing.

The expectations are read as `l0 test` reads them, by `l0.testing.spec_of` under the 2014
protocol (Note [Two protocols] there); the corpus adds `.trace` and the rule below.

A program with an input must have exactly one of `X.out` and `X.err`: the 2014 suite's
compile-only tests (`X.l0` + `X.in`) compiled programs but ran none of their code, so the
corpus has none (`incomplete()` lists offenders; the matrix fails on them).

Programs are named by their path relative to `test/programs/`, which is also the file
name given to the compiler, so that locations in traces and errors do not depend on
where the checkout is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from l0.testing import ErrorSpec, RunCase, Spec, spec_of

ROOT = Path(__file__).parent / "programs"


@cache
def _spec(path: Path) -> Spec:
    return spec_of(path, protocol="2014")


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
    def spec(self) -> Spec:
        """Everything `l0 test` expects of the program (`l0.testing.spec_of`)."""
        return _spec(self.path)

    @property
    def _sibling_run(self) -> RunCase | None:
        """The run of `X.in`, with the output of `X.out` or the error of `X.err`."""
        name = self.sibling(".in").name
        return next((r for r in self.spec.runs if r.name == name), None)

    @property
    def expected_output(self) -> str | None:
        run = self._sibling_run
        return None if run is None else run.output

    @property
    def expected_error(self) -> ErrorSpec | None:
        """The error of `X.err`, which is a run-time failure."""
        run = self._sibling_run
        if run is None or run.error is None:
            return None
        return replace(run.error, kind="runtime-error")

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


def expected_kind(path: Path) -> str | None:
    """The error kind a rejected program's first line names (`// error: KIND`)."""
    error = _spec(path).compile_error
    return None if error is None else error.kind
