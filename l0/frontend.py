"""The front end as one call: L0 source text to type-checked AST, or to soac IR.

parse (`l0.syntax.parser`) -> type check (`l0.typecheck`) -> internalise
(`l0.internalise`). Every user error surfaces as an `L0Error`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from l0.diagnostics import L0Error

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from l0.syntax.ast import Program


def load_program(text: str, filename: str, *, inhibit_uniqueness: bool = False) -> Program:
    """Parse and type check `text`; the returned AST carries the checker's annotations."""
    from l0.syntax.parser import parse_program
    from l0.typecheck import check_program

    prog = parse_program(text, filename)
    check_program(prog, inhibit_uniqueness=inhibit_uniqueness)
    return prog


def check_source(
    text: str, filename: str, *, inhibit_uniqueness: bool = False
) -> tuple[Program | None, list[L0Error]]:
    """Parse and type check `text`, collecting errors rather than stopping at the first:
    the parse error alone if it does not parse (and no program), else the first type
    error of each function (`l0.typecheck.program_errors`). The program carries the
    checker's annotations as far as checking got; an editor's view of the source."""
    from l0.syntax.parser import parse_program
    from l0.typecheck import program_errors

    try:
        prog = parse_program(text, filename)
    except L0Error as err:
        return None, [err]
    return prog, list(program_errors(prog, inhibit_uniqueness=inhibit_uniqueness))


def to_module(prog: Program, *, verify: bool = True) -> ModuleOp:
    """Internalise a type-checked program into a soac-level module, verified unless
    `verify` is false (the compile path of `l0.compile`/`l0-run` skips it: the tests
    verify the internaliser's output on the whole corpus, and it costs ~5% of a compile)."""
    from l0.internalise import internalise

    module = internalise(prog)
    if verify:
        module.verify()
    return module


def l0_to_module(text: str, filename: str) -> ModuleOp:
    """Parse, type check and internalise `text` into a verified soac-level module."""
    return to_module(load_program(text, filename))
