"""The session of `l0 repl`: L0 expressions evaluated in the scope of a program's functions.

An entry at the prompt is one of

* an expression, evaluated and printed as `l0-run` prints `main`'s result;
* a binding `let PAT = e` (a `let` without `in`): its names stay in scope for later
  entries, as in `futhark repl`;
* function definitions (`fun ...`), which join those of the loaded program;
* a command: `:type e`, `:load FILE`, `:reload`, `:help`, `:quit`.

Note [Evaluating an entry]
~~~~~~~~~~~~~~~~~~~~~~~~~~
An entry is not interpreted on its own: it becomes a function of a whole program. The
loaded file and the definitions entered so far are parsed again, the bindings become
the parameters of a new function whose body is the expression, and the type checker
gives the body's type (`l0.typecheck.check_expression`), which becomes the function's
return type (made non-unique, which every body satisfies). The program is then compiled
for the session's back end with that function as its only entry point
(`CompiledProgram(checked=..., entries=...)`), unoptimised (the optimiser keeps only
`main`), and called with the bound values. So an entry means exactly what it would
mean in a program, with the same errors, and runs on any back end. Bound values are
kept as the flattened values a call returns (`l0.values.from_ir_results`) with their
L0 type, and passed back as arguments; callers get value semantics from every back
end, so a function that consumes a bound array leaves the binding as it was.

Each entry is parsed as its own source, named `[N]` after its prompt `[N]> ` (commands
are not numbered), so an
error in it is reported at `[N]:LINE:COL` with the entry's line under it, and a
function entered at `[3]` that fails when called from `[5]` is reported at `[3]`.
An error never ends the session.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error, Loc, format_error, register_source
from l0.types import TupleType, Type, flatten, set_unique

if TYPE_CHECKING:
    from l0.syntax import ast as A

HELP = """\
Enter an L0 expression to evaluate it, in the scope of the loaded program's functions.
  let x = e            bind x (or a pattern: let {a, b} = e) for later entries
  fun T f(...) = e     define a function
  :type e              the type of e, without evaluating it
  :load FILE           load a program (forgets definitions and bindings)
  :reload              load the same program again, as it is now on disk
  :help                this text
  :quit                leave (also end of input: Ctrl-D)
An entry that is not complete (an open bracket, a trailing operator) continues on the
next line."""

_FUNCTION = "repl_entry"
"""The name of the function an entry becomes (a suffix keeps it unique)."""


@dataclass
class Binding:
    """A name bound at the prompt: its L0 type and flattened value."""

    type: Type
    values: list[Any]


@dataclass
class Session:
    """The state of a REPL session, and the evaluation of entries (the module's doc)."""

    backend: str = "interp"
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    program: Path | None = None
    source: str = ""
    definitions: list[tuple[str, str]] = field(default_factory=list)  # (source name, text)
    bindings: dict[str, Binding] = field(default_factory=dict)
    count: int = 0  # entries read so far; the next prompt is [count]

    # -- entries ---------------------------------------------------------------------

    @property
    def prompt(self) -> str:
        return f"[{self.count}]> "

    def incomplete(self, text: str) -> bool:
        """Whether `text` is the beginning of an entry that continues on another line
        (the parser ran out of input)."""
        if text.lstrip().startswith(":") or not text.strip():
            return False
        from l0.syntax.parser import parse_prompt

        try:
            call_with_big_stack(lambda: parse_prompt(text, self._name()))
        except L0Error as err:
            return err.message.startswith("unexpected end of file")
        except RecursionError:
            return False
        return False

    def handle(self, text: str) -> bool:
        """Act on one entry (its lines joined); print what it gives. Returns False when
        the session is to end."""
        if not text.strip():
            return True
        name = self._name()
        stripped = text.strip()
        if stripped.startswith(":"):  # commands are not numbered: they define nothing
            command, _, rest = stripped.partition(" ")
            return self._command(command, rest.strip(), name, text)
        self.count += 1
        register_source(name, text)
        self._guarded(lambda: self._entry(text, name))
        return True

    def names(self) -> list[str]:
        """The names in scope at the prompt: bindings, functions, built-ins and keywords
        (for completion); those of the program only if it is still correct."""
        from l0.syntax.lexer import KEYWORDS
        from l0.typecheck.builtins import BUILTIN_NAMES

        functions: list[str] = []
        try:
            prog, _ = call_with_big_stack(lambda: self._checked_program([], None))
            functions = [fd.name for fd in prog.fundefs]
        except (L0Error, RecursionError):
            pass
        return sorted({*self.bindings, *functions, *BUILTIN_NAMES, *KEYWORDS})

    def _name(self) -> str:
        return f"[{self.count}]"

    def _guarded(self, work: Callable[[], None]) -> None:
        """Run `work` on a big stack, reporting any error on `err`; the session goes on."""
        from l0.api import BackendUnavailable

        try:
            call_with_big_stack(work)
        except L0Error as err:
            self._error(format_error(err))
        except (BackendUnavailable, OSError) as err:
            self._error(f"error: {err}")
        except RecursionError:
            self._error("error: nested or recursive too deeply")
        except MemoryError:
            self._error("error: out of memory")
        except KeyboardInterrupt:
            self._error("interrupted")
        except Exception as err:  # a bug of ours: say so, keep the session
            if os.environ.get("L0_TRACEBACK"):  # as the tools do (l0.cli.guard)
                traceback.print_exc(file=self.err)
            self._error(f"internal compiler error: {type(err).__name__}: {err}")

    def _error(self, message: str) -> None:
        self.out.flush()
        print(message, file=self.err)
        self.err.flush()

    def _print(self, text: str) -> None:
        print(text, file=self.out)
        self.out.flush()

    # -- commands --------------------------------------------------------------------

    def _command(self, command: str, argument: str, name: str, text: str) -> bool:
        if command in (":q", ":quit"):
            return False
        if command in (":h", ":help", ":?"):
            self._print(HELP)
        elif command in (":t", ":type"):
            if not argument:
                self._error(":type needs an expression")
                return True
            # the expression keeps its columns in the entry, for error locations
            start = text.index(argument, text.index(command) + len(command))
            padded = " " * start + argument
            register_source(name, text)
            self._guarded(lambda: self._print(self._type_of(padded, name)))
        elif command in (":l", ":load"):
            if not argument:
                self._error(":load needs a file name")
            else:
                self._guarded(lambda: self.load(Path(argument)))
        elif command in (":r", ":reload"):
            if self.program is None:
                self._error(":reload: no program was loaded")
            else:
                program = self.program
                self._guarded(lambda: self.load(program))
        else:
            self._error(f"unknown command {command} (:help lists the commands)")
        return True

    def load(self, path: Path) -> None:
        """Make the program at `path` the session's, forgetting definitions and
        bindings; on an error in it the session stays as it was."""
        from l0.syntax.parser import parse_program

        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            raise L0Error(Loc(str(path), 1, 1), f"cannot read program: {reason}",
                          "io-error") from None
        register_source(str(path), source)
        from l0.typecheck import check_program

        prog = parse_program(source, str(path))
        check_program(prog, require_main=False)
        self.program, self.source = path, source
        self.definitions, self.bindings = [], {}
        names = ", ".join(fd.name for fd in prog.fundefs)
        self._print(f"loaded {path}: {names}")

    # -- evaluation (Note [Evaluating an entry]) -------------------------------------

    def _entry(self, text: str, name: str) -> None:
        from l0.syntax import ast as A
        from l0.syntax.parser import parse_prompt

        entry = parse_prompt(text, name)
        if isinstance(entry, list):  # definitions: checked with the others, then kept
            self._checked_program([(name, text)], None)
            self.definitions.append((name, text))
            return
        if isinstance(entry, A.LetPat):
            assert entry.pat is not None and entry.value is not None
            t, values = self._evaluate(entry.value)
            self._bind(entry.pat, t, values)
            return
        t, values = self._evaluate(entry)
        from l0.values import format_result

        self._print(format_result(t, values))

    def _type_of(self, text: str, name: str) -> str:
        """The type of the expression `text`, or the signature of the function it names."""
        from l0.syntax import ast as A
        from l0.syntax.parser import parse_prompt

        entry = parse_prompt(text, name)
        if isinstance(entry, list | A.LetPat):
            raise L0Error(Loc(name, 1, 1), ":type needs an expression", "parse-error")
        if isinstance(entry, A.Var) and entry.name not in self.bindings:
            prog, _ = self._checked_program([], None)
            for fd in prog.fundefs:
                if fd.name == entry.name:
                    params = ", ".join(f"{p.type} {p.name}" for p in fd.params)
                    return f"fun {fd.ret} {fd.name}({params})"
        _, t = self._checked_program([], entry)
        return str(t)

    def _checked_program(self, extra: list[tuple[str, str]],
                         exp: A.Exp | None) -> tuple[A.Program, Type]:
        """The loaded program with the definitions (and `extra` ones), type checked, and
        the type of `exp` among them, the bindings its parameters (`A.TupleLit` `{}`
        without an expression)."""
        from l0.syntax import ast as A
        from l0.syntax.parser import parse_program
        from l0.typecheck import check_expression

        fundefs = parse_program(self.source, str(self.program)).fundefs if self.program else []
        for source_name, text in [*self.definitions, *extra]:
            fundefs.extend(parse_program(text, source_name).fundefs)
        prog = A.Program(fundefs, file=str(self.program or "[repl]"))
        body = exp if exp is not None else A.TupleLit(Loc("[repl]", 1, 1))
        return prog, check_expression(prog, self._parameters(), body)

    def _parameters(self) -> list[A.Param]:
        """The bindings as the parameters of an entry: unique, since every entry gets
        its own copy of their values (so an entry may update one in place)."""
        from l0.syntax import ast as A

        return [A.Param(set_unique(b.type, True), n, Loc("[repl]", 1, 1))
                for n, b in self.bindings.items()]

    def _evaluate(self, exp: A.Exp) -> tuple[Type, list[Any]]:
        """The type and flattened value of `exp` (Note [Evaluating an entry])."""
        from l0.api import CompiledProgram
        from l0.syntax import ast as A
        from l0.values import from_ir_results, to_ir_arguments

        prog, t = self._checked_program([], exp)
        ret = set_unique(t, False)
        taken = {fd.name for fd in prog.fundefs}
        entry = next(f"{_FUNCTION}{i or ''}" for i in range(len(taken) + 1)
                     if f"{_FUNCTION}{i or ''}" not in taken)
        prog.fundefs.append(A.FunDef(entry, ret, self._parameters(), exp, exp.loc))
        compiled = CompiledProgram(self.source, prog.file, self.backend, optimise=False,
                                   checked=prog, entries=[entry])
        args = [v for b in self.bindings.values() for v in b.values]
        types = [set_unique(b.type, True) for b in self.bindings.values()]
        results = compiled.call_flat(entry, to_ir_arguments(types, args))
        return ret, from_ir_results(ret, results)

    def _bind(self, pat: A.Pattern, t: Type, values: list[Any]) -> None:
        """Bind the names of `pat` to the parts of a value of type `t`."""
        from l0.syntax import ast as A

        if isinstance(pat, A.PId):
            self.bindings.pop(pat.name, None)  # a new binding comes last, as in a let chain
            self.bindings[pat.name] = Binding(t, values)
        elif isinstance(pat, A.PTuple):
            if not isinstance(t, TupleType) or len(t.elems) != len(pat.elems):
                raise L0Error(pat.loc, f"the pattern has {len(pat.elems)} components, but "
                              f"the value is of type {t}", "invalid-pattern")
            start = 0
            for p, e in zip(pat.elems, t.elems, strict=True):
                n = len(flatten(e))
                self._bind(p, e, values[start:start + n])
                start += n


def run(session: Session, read_line: Callable[[str], str | None],
        continuation: str = "...> ") -> None:
    """The read-eval-print loop: `read_line(prompt)` gives the next line, or `None` at the
    end of the input; an entry continues over lines while it is incomplete."""
    while True:
        line = read_line(session.prompt)
        if line is None:
            return
        text = line
        while session.incomplete(text):
            more = read_line(continuation)
            if more is None:
                break
            text += "\n" + more
        if not session.handle(text):
            return


def stream_reader(stream: TextIO, echo: TextIO | None = None) -> Callable[[str], str | None]:
    """`read_line` over a text stream (piped input, tests); with `echo`, prompts are
    written there."""

    def read_line(prompt: str) -> str | None:
        if echo is not None:
            echo.write(prompt)
            echo.flush()
        line = stream.readline()
        return None if line == "" else line.rstrip("\n")

    return read_line
