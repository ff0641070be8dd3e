"""The test protocol of L0 programs: what a program is expected to do, and checking it.

Two sources of expectations, which may be combined (docs/tools.md "l0 test"):

* sibling files (docs/reference.md §6.4, test/programs/README.md): `X.l0` + `X.in` +
  `X.out` must print `X.out`; + `X.in` + `X.err` must fail when run, at the `LINE:COL`
  of `X.err`, with a message containing its phrase; `X.l0` + `X.in` must compile.
  `X.l0` alone (no sibling files, no test block) must compile, as in Futhark; under the
  2014 protocol (`protocol="2014"`, or a marker file `l0test.toml` saying
  `protocol = "2014"` in the program's directory or one above it: Note [Two protocols])
  it must instead fail to compile, with the kind named by a first line
  `// error: KIND` if there is one;
* a test block in the program itself: a comment line `// ==` followed by comment lines

      // input { 1 [2, 3] }          the values of main's parameters (as on stdin)
      // output { 6 }                what main prints (whitespace ignored)
      // input @ big.in              values, or expected output, from a file beside
      // output @ big.out            the program (text or binary values)
      // input { [1] 5 }
      // error: runtime-error 9:7 index     a run-time failure: kind, location, phrase
      // random input { [real]:1000 int }   random values (l0.values.generate), seeded:
      //                                    an input without output or error must run
      // error: type-error 3:12      before any input: compilation must fail
      // structure { map 1 reduce 0 }       SOACs left after the back end's -O pipeline
      // structure gpu { map 0 }            the same after the gpu target's -O, for
      //                                    gpu and gpu-sim (`l0.targets.Target.pipeline`)

  In an `error:` line each part is optional: a first word containing a hyphen is the
  error kind, then `LINE:COL`, and the rest a phrase the message must contain.

Expected outputs are compared with `main`'s values, reals within a tolerance
(`l0.values.compare`). `spec_of(path)` reads both into a `Spec`;
`check_program(path, backend)` runs it in this process and returns a `Verdict`.
`l0 test` runs this over directories, and other test drivers (the corpus tests) can use
the same functions.

Note [Two protocols]
~~~~~~~~~~~~~~~~~~~~
The 2014 test runner read a program without an input as a test that the compiler must
reject: its suite (and our corpus, `test/programs/`) has dozens of them. A user running
`l0 test` over their own programs, which have no sibling files, expects what
`futhark test` does: each is compiled, and passes if it compiles. The user's reading is
the default; a directory of 2014-style tests says so with a marker file, `l0test.toml`
holding `protocol = "2014"`, which applies to every program under it (the nearest one
above a program wins), so `l0 test test/programs/errors` keeps the corpus's verdicts
without a flag. `l0 test --protocol=...` overrides any marker.
"""

from __future__ import annotations

import re
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
from l0.values.compare import DEFAULT_TOLERANCE, Tolerance, output_mismatch, squash

__all__ = ["PROTOCOLS", "ErrorSpec", "RunCase", "Spec", "SpecError", "Tolerance", "Verdict",
           "check_program", "find_programs", "protocol_of", "spec_of", "squash",
           "structure_of"]

# The ops counted by `structure`: the SOACs and array constructions of the soac dialect.
STRUCTURE_OPS = ("map", "reduce", "scan", "filter", "redomap", "scanomap", "iota", "replicate",
                 "concat", "copy", "reshape", "transpose", "split", "update", "index", "array")


@dataclass(frozen=True)
class ErrorSpec:
    """An expected error; a part left `None` is not checked."""

    kind: str | None = None
    line: int | None = None
    col: int | None = None
    phrase: str | None = None

    def mismatch(self, err: L0Error) -> str | None:
        """Why `err` is not the expected error, or `None` when it is."""
        if self.kind is not None and err.kind != self.kind:
            return f"expected an error of kind {self.kind}, got {err.kind}: {err.render()}"
        if self.line is not None and (err.loc.line, err.loc.col) != (self.line, self.col):
            return f"expected an error at {self.line}:{self.col}, got {err.render()}"
        if self.phrase is not None and self.phrase not in err.message:
            return f"expected an error containing {self.phrase!r}, got {err.render()}"
        return None

    def __str__(self) -> str:
        parts = [self.kind or "", f"{self.line}:{self.col}" if self.line else "", self.phrase or ""]
        return " ".join(p for p in parts if p) or "an error"


@dataclass(frozen=True)
class RunCase:
    """One run of `main`: its input, and either its printed output or an error."""

    name: str  # for messages: `X.in` or `input 2`
    input: bytes
    output: str | None = None
    error: ErrorSpec | None = None
    file: str | None = None  # where the input came from: `X.in`, or `input @ FILE`
    random: str | None = None  # the generators of a `random input`


@dataclass
class Spec:
    """Everything expected of one program."""

    compile_error: ErrorSpec | None = None  # compilation must fail (so nothing runs)
    runs: list[RunCase] = field(default_factory=list)
    structure: dict[str, int] | None = None  # after -O, whatever the target
    target_structure: dict[str, dict[str, int]] = field(default_factory=dict)
    """`structure TARGET { ... }`: after the -O of that pipeline target, instead of
    `structure` (`-O` differs per target: Note [One pipeline per target])."""

    def structure_for(self, target: str) -> dict[str, int] | None:
        """The structure expected after the -O of pipeline target `target`."""
        return self.target_structure.get(target, self.structure)


@dataclass(frozen=True)
class Verdict:
    """The outcome of testing one program on one back end."""

    program: str
    backend: str
    passed: bool
    message: str = ""
    seconds: float = 0.0

    def to_json(self) -> dict[str, object]:
        return asdict(self)


class SpecError(Exception):
    """A malformed test block; reported as a failure of that program."""


# -- reading the expectations -----------------------------------------------------------

_FIRST_LINE_KIND = re.compile(r"//\s*error:\s*([a-z][a-z-]*)")
_ERROR_WORDS = re.compile(
    r"\s*(?P<kind>[a-z]+(?:-[a-z]+)+)?\s*(?:(?P<line>\d+):(?P<col>\d+))?\s*(?P<phrase>.*?)\s*$"
)


PROTOCOLS = ("futhark", "2014")
"""How a program without sibling files or test block is read: "futhark" (it must
compile) or "2014" (it must fail to compile): Note [Two protocols]."""
MARKER = "l0test.toml"


def protocol_of(directory: Path) -> str:
    """The protocol of the programs in `directory`: that of the nearest `l0test.toml` in
    it or above it, else "futhark" (Note [Two protocols])."""
    for d in (directory.resolve(), *directory.resolve().parents):
        marker = d / MARKER
        if marker.is_file():
            try:
                settings = tomllib.loads(marker.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
                raise SpecError(f"{marker}: {err}") from None
            protocol = settings.get("protocol", "futhark")
            if protocol not in PROTOCOLS or set(settings) - {"protocol"}:
                raise SpecError(f"{marker}: expected only `protocol = \"2014\"` or "
                                f"`protocol = \"futhark\"`, found {settings}")
            return str(protocol)
    return "futhark"


def spec_of(path: Path, protocol: str | None = None) -> Spec:
    """The expectations of the program at `path`: its sibling files and its test block,
    read by `protocol` (default: `protocol_of` its directory)."""
    text = path.read_text(encoding="utf-8")
    protocol = protocol or protocol_of(path.parent)  # a bad marker fails every program
    spec = _block_spec(text, path.parent)
    inp, out, err = (path.with_suffix(s) for s in (".in", ".out", ".err"))
    if inp.exists() and out.exists():
        spec.runs.insert(0, RunCase(inp.name, inp.read_bytes(),
                                    output=out.read_text(encoding="utf-8"), file=inp.name))
    elif inp.exists() and err.exists():
        spec.runs.insert(0, RunCase(inp.name, inp.read_bytes(), error=_err_file(err),
                                    file=inp.name))
    elif (not inp.exists() and not spec.runs and spec.structure is None
          and not spec.target_structure and protocol == "2014"):
        # `X.l0` alone: the 2014 protocol expects a compile-time failure.
        first = (text.splitlines() or [""])[0]
        m = _FIRST_LINE_KIND.match(first)
        if spec.compile_error is None:
            spec.compile_error = ErrorSpec(kind=m.group(1) if m else None)
    return spec


def _err_file(path: Path) -> ErrorSpec:
    """`X.err`: one line `LINE:COL: error: PHRASE` (test/programs/README.md)."""
    line = path.read_text(encoding="utf-8").strip()
    m = re.fullmatch(r"(\d+):(\d+):\s*error:\s*(.*)", line)
    if m is None:
        raise SpecError(f"{path.name}: expected `LINE:COL: error: PHRASE`, found {line!r}")
    return ErrorSpec(line=int(m.group(1)), col=int(m.group(2)), phrase=m.group(3) or None)


def _block_lines(text: str) -> tuple[list[str], int, list[int]] | None:
    """The comment lines after `// ==` with their `//` removed, the number of the first
    in the file, and the column before each in its line; `None` without a block."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "// ==":
            body, indents = [], []
            for after in lines[i + 1:]:
                stripped = after.strip()
                if not stripped.startswith("//"):
                    break
                body.append(stripped[2:])
                indents.append(len(after) - len(after.lstrip()) + 2)
            return body, i + 2, indents
    return None


class _SpecErrorAt(SpecError):
    """A malformed part of a test block at offset `pos` of its text."""

    def __init__(self, message: str, pos: int) -> None:
        super().__init__(message)
        self.pos = pos


def _block_spec(text: str, directory: Path) -> Spec:
    """The expectations of the test block; an error in it says where it is in the file
    (`LINE:COL`): at the malformed part, or else at the entry holding it."""
    block = _block_lines(text)
    if block is None:
        return Spec()
    lines, first_line, indents = block
    body = "\n".join(lines)
    entry = [0]  # where the entry being read starts

    def located(message: str, at: int) -> SpecError:
        k = body.count("\n", 0, at)
        col = indents[k] + at - (body.rfind("\n", 0, at) + 1) + 1
        return SpecError(f"test block: {first_line + k}:{col}: "
                         + message.removeprefix("test block: "))

    try:
        return _read_block(body, directory, entry)
    except _SpecErrorAt as err:
        raise located(str(err), err.pos) from None
    except SpecError as err:
        raise located(str(err), entry[0]) from None


def _read_block(body: str, directory: Path, entry: list[int]) -> Spec:
    """The expectations of a test block's text `body`; `entry[0]` follows the offset of
    the entry being read."""
    spec = Spec()
    pos = 0
    # An input waiting for its output or error: its name, values and file.
    pending: tuple[str, bytes, str | None] | None = None
    random: str | None = None  # the generators of a pending `random input`

    def close_pending() -> None:
        """An input followed by neither output nor error only needs to run."""
        nonlocal pending, random
        if pending is not None:
            spec.runs.append(RunCase(pending[0], pending[1], file=pending[2], random=random))
        pending = random = None

    while True:
        pos = _skip_space(body, pos)
        if pos >= len(body):
            break
        entry[0] = pos
        word = re.match(r"[a-z]+:?", body[pos:])
        if word is None:
            raise SpecError(f"test block: unexpected {body[pos:].split()[0]!r}")
        key = word.group()
        pos += len(key)
        if key == "input":
            close_pending()
            data, pos, file = _payload(body, pos, directory)
            pending = (f"input {len(spec.runs) + 1}", data, file)
        elif key == "random":
            close_pending()
            m = re.match(r"\s*input\b", body[pos:])
            if m is None:
                raise SpecError("test block: expected `input` after `random`")
            generators, pos = _braces(body, pos + m.end())
            name = f"input {len(spec.runs) + 1}"
            pending = (name, _random_input(generators, seed=len(spec.runs)), None)
            random = " ".join(generators.split())
        elif key == "output":
            if pending is None:
                raise SpecError("test block: output without an input")
            data, pos, _ = _payload(body, pos, directory)
            spec.runs.append(RunCase(pending[0], pending[1], output=data.decode("utf-8"),
                                     file=pending[2], random=random))
            pending = random = None
        elif key == "error:":
            end = body.find("\n", pos)
            end = len(body) if end < 0 else end
            expected = _error_words(body[pos:end])
            pos = end
            if pending is None:
                spec.compile_error = expected
            else:
                spec.runs.append(RunCase(pending[0], pending[1], error=expected,
                                         file=pending[2], random=random))
                pending = random = None
        elif key == "structure":
            close_pending()
            target = re.match(r"\s*([a-z]+)\b", body[pos:])
            if target is None:
                braces, pos = _braces(body, pos)
                spec.structure = _structure(braces)
            else:
                braces, pos = _braces(body, pos + target.end())
                spec.target_structure[_pipeline_target(target.group(1))] = _structure(braces)
        else:
            raise SpecError(f"test block: unknown entry {key!r} (input, random input, "
                            "output, error:, structure)")
    close_pending()
    return spec


def _random_input(generators: str, seed: int) -> bytes:
    """The binary values of `random input { TYPE:DIMS ... }`, the same on every run."""
    import numpy as np

    from l0.values.binary import write_binary
    from l0.values.generate import GeneratorError, parse_generator, random_value

    rng = np.random.default_rng(seed)
    out = []
    for spec in generators.split():
        try:
            t, dims = parse_generator(spec)
        except GeneratorError as err:
            raise SpecError(f"test block: random input: {err}") from None
        out.append(write_binary(t, random_value(t, dims, rng)))
    return b"".join(out)


def _skip_space(body: str, pos: int) -> int:
    while pos < len(body) and body[pos].isspace():
        pos += 1
    return pos


def _payload(body: str, pos: int, directory: Path) -> tuple[bytes, int, str | None]:
    """`{ values }` or `@ FILE` after `input`/`output`: the bytes, the position after
    them, and the file's name if they came from one."""
    pos = _skip_space(body, pos)
    if body.startswith("@", pos):
        m = re.match(r"@\s*(\S+)", body[pos:])
        if m is None:
            raise SpecError("test block: expected a file name after `@`")
        file = directory / m.group(1)
        try:
            return file.read_bytes(), pos + m.end(), m.group(1)
        except OSError as err:
            raise SpecError(f"test block: cannot read {m.group(1)}: {err.strerror}") from None
    inner, pos = _braces(body, pos)
    return inner.encode("utf-8"), pos, None


def _braces(body: str, pos: int) -> tuple[str, int]:
    """The text inside the `{ ... }` at `pos` (nested braces and quotes respected)."""
    pos = _skip_space(body, pos)
    if not body.startswith("{", pos):
        raise _SpecErrorAt("test block: expected `{`", pos)
    depth, i = 0, pos
    while i < len(body):
        c = body[i]
        if c in "\"'":  # a char or string literal: skip to its closing quote
            i += 1
            while i < len(body) and body[i] != c:
                i += 2 if body[i] == "\\" else 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return body[pos + 1 : i], i + 1
        i += 1
    raise _SpecErrorAt("test block: unbalanced `{`: it is never closed", pos)


def _error_words(words: str) -> ErrorSpec:
    m = _ERROR_WORDS.match(words)
    assert m is not None  # every part of the pattern is optional
    line, col = m.group("line"), m.group("col")
    return ErrorSpec(kind=m.group("kind"), line=int(line) if line else None,
                     col=int(col) if col else None, phrase=m.group("phrase") or None)


def _pipeline_target(word: str) -> str:
    """The pipeline target named by `structure TARGET { ... }`."""
    from l0.passes.pipeline import TARGETS

    if word not in TARGETS:
        raise SpecError(f"test block: unknown target `{word}` after structure (targets: "
                        f"{', '.join(TARGETS)})")
    return word


def _structure(text: str) -> dict[str, int]:
    words = text.split()
    if len(words) % 2:
        raise SpecError("test block: structure needs pairs `OP COUNT`")
    out = {}
    for op, count in zip(words[0::2], words[1::2], strict=True):
        if op not in STRUCTURE_OPS or not count.isdigit():
            raise SpecError(f"test block: bad structure entry `{op} {count}` (ops: "
                            f"{', '.join(STRUCTURE_OPS)})")
        out[op] = int(count)
    return out


# -- checking ---------------------------------------------------------------------------


def check_program(path: Path, backend: str, *, optimise: bool = True,
                  protocol: str | None = None, tolerance: Tolerance = DEFAULT_TOLERANCE) -> Verdict:
    """Test the program at `path` on `backend` in this process; `protocol` as `spec_of`,
    reals compared within `tolerance`."""
    start = time.perf_counter()
    try:
        problem = call_with_big_stack(
            lambda: _problem(path, backend, optimise, protocol, tolerance))
    except SpecError as err:
        problem = str(err)
    except (OSError, UnicodeDecodeError) as err:
        problem = f"cannot read the program or its files: {err}"
    except RecursionError:
        problem = "program nested or recursive too deeply"
    except Exception as err:  # a crash of the compiler: the test fails, the run goes on
        problem = f"internal compiler error: {type(err).__name__}: {err}"
    seconds = time.perf_counter() - start
    return Verdict(str(path), backend, problem is None, problem or "", seconds)


def _problem(path: Path, backend: str, optimise: bool, protocol: str | None,
             tolerance: Tolerance) -> str | None:
    """What is wrong with the program at `path` on `backend`, or `None`."""
    from l0.api import CompiledProgram
    from l0.targets import target as as_target

    spec = spec_of(path, protocol)
    source = path.read_text(encoding="utf-8")
    try:
        prog = CompiledProgram(source, str(path), backend, optimise=optimise)
    except L0Error as err:
        if spec.compile_error is None:
            return f"compilation failed: {err.render()}"
        return spec.compile_error.mismatch(err)
    if spec.compile_error is not None:
        return f"compiled, but expected a compile-time error ({spec.compile_error})"
    if "main" not in prog.functions:
        return "the program has no main"
    target = as_target(backend).pipeline
    expected = spec.structure_for(target)
    if expected is not None:
        problem = _structure_problem(source, str(path), expected, target)
        if problem:
            return problem
    for case in spec.runs:
        problem = _run_problem(prog, case, tolerance)
        if problem:
            return problem
    return None


def _run_problem(prog: object, case: RunCase, tolerance: Tolerance) -> str | None:
    from l0.api import CompiledProgram
    from l0.values import format_result

    assert isinstance(prog, CompiledProgram)
    ret = prog.functions["main"].ret
    try:
        actual = prog.main_values(case.input)
    except L0Error as err:
        if case.error is None:
            return f"{case.name}: failed: {err.render()}"
        problem = case.error.mismatch(err)
        return f"{case.name}: {problem}" if problem else None
    if case.error is not None:
        printed = format_result(ret, actual)
        return f"{case.name}: ran, but expected an error ({case.error}); printed {printed}"
    if case.output is None:  # only required to run
        return None
    problem = output_mismatch(case.output, ret, actual, tolerance)
    return f"{case.name}: {problem}" if problem else None


def _structure_problem(source: str, filename: str, expected: dict[str, int],
                       target: str) -> str | None:
    counts = structure_of(source, filename, target)
    wrong = [f"{op} {counts.get(op, 0)} (expected {n})" for op, n in expected.items()
             if counts.get(op, 0) != n]
    return "structure: " + ", ".join(wrong) if wrong else None


def structure_of(source: str, filename: str, target: str = "cpu") -> dict[str, int]:
    """How many of each `STRUCTURE_OPS` op the module optimised for `target` (the
    pipeline's: `l0.passes.pipeline.TARGETS`) holds, nested ones included."""
    from l0.frontend import load_program, to_module
    from l0.passes.pipeline import optimise

    module = to_module(load_program(source, filename), verify=False)
    optimise(module, target=target)
    counts: dict[str, int] = {}
    for op in module.walk():
        dialect, _, name = op.name.partition(".")
        if dialect == "soac" and name in STRUCTURE_OPS:
            counts[name] = counts.get(name, 0) + 1
    return counts


def find_programs(paths: list[Path]) -> list[Path]:
    """The `.l0` files named or found (recursively, sorted) under `paths`."""
    out: list[Path] = []
    for p in paths:
        out.extend(sorted(p.rglob("*.l0")) if p.is_dir() else [p])
    return out
