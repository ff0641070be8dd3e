"""L0 in IPython and Jupyter: `%load_ext l0`, then `%%l0` cells.

    %%l0 [--backend=cpu|multicore|interp|gpu-sim|gpu] [-O0] [--fast-math] [--threads N]
    fun [real] normalise([real] v) = ...

A `%%l0` cell is an L0 program: it is compiled (by default as `l0.compile` does: the
cpu back end, optimised) and each of its functions becomes a Python function of the
same name in the notebook, taking and returning numpy arrays and Python scalars exactly
as the functions of `l0.compile`'s programs do (`help(f)` shows the L0 signature). A
cell needs no `main`: its functions are what the notebook calls. A later cell defining
a name again replaces it.

An error in the cell (or in a later call) is shown as the command-line tools print it,
`<l0 cell N>:LINE:COL: error: ...` (the N-th `%%l0` cell run) with the cell's line and
a marker, without a Python traceback (a `CellError` renders itself so through IPython's
`_render_traceback_`; an `L0Error` raised by a call goes to the handler the extension
gives IPython), and the cell still counts as failed, so a notebook run stops there.
This module imports nothing of IPython: IPython hands itself to
`load_ipython_extension`.
"""

from __future__ import annotations

import argparse
import itertools
import shlex
from typing import Any

from l0.diagnostics import L0Error, Unavailable, format_error, register_source


class CellError(Exception):
    """An error in a `%%l0` cell or its options, shown without a traceback."""

    def _render_traceback_(self) -> list[str]:
        return str(self).splitlines()


def _show_l0_error(shell: Any, etype: type, value: BaseException, tb: Any,
                   tb_offset: int | None = None) -> list[str]:
    """IPython's handler of an `L0Error` raised in a cell (a function of a `%%l0` cell
    failing at run time, `l0.compile` of a wrong program): shown as the tools show it."""
    assert isinstance(value, L0Error)
    lines = format_error(value).splitlines()
    shell._showtraceback(etype, value, lines)
    return lines


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext l0`: register the `%%l0` cell magic, and show `L0Error`s raised in
    cells as the tools print them."""
    ipython.set_custom_exc((L0Error,), _show_l0_error)
    cells = itertools.count(1)

    def l0(line: str, cell: str) -> None:
        run_cell(ipython, line, cell, f"<l0 cell {next(cells)}>")

    l0.__doc__ = __doc__
    ipython.register_magic_function(l0, magic_kind="cell", magic_name="l0")


def _options() -> argparse.ArgumentParser:
    from l0.api import BACKENDS
    from l0.targets import DEFAULT

    ap = argparse.ArgumentParser(prog="%%l0", add_help=False, exit_on_error=False)
    ap.add_argument("--backend", choices=BACKENDS, default=DEFAULT.name)
    ap.add_argument("-O0", dest="optimise", action="store_false", default=True)
    ap.add_argument("--fast-math", action="store_true")
    ap.add_argument("--threads", type=int, default=None)
    return ap


def run_cell(ipython: Any, line: str, cell: str, name: str) -> list[str]:
    """Compile the L0 program `cell` (called `name` in messages) with the options of
    `line`; bind its functions in the notebook's namespace; return their names. Raises
    `CellError` for errors."""
    ap = _options()
    try:
        args = ap.parse_args(shlex.split(line))
    except (argparse.ArgumentError, ValueError) as err:
        raise CellError(f"%%l0: error: {err}\n{ap.format_usage().rstrip()}") from None
    except SystemExit:  # argparse's exit for what exit_on_error does not cover
        raise CellError(f"%%l0: error: bad options: {line}\n"
                        f"{ap.format_usage().rstrip()}") from None
    register_source(name, cell)
    try:
        program = compile_cell(cell, name, args.backend, optimise=args.optimise,
                               fast_math=args.fast_math, threads=args.threads)
    except L0Error as err:
        raise CellError(format_error(err)) from None
    except (Unavailable, ValueError) as err:
        raise CellError(f"{name}: error: {err}") from None
    except RecursionError:
        raise CellError(f"{name}: error: program nested or recursive too deeply") from None
    for function in program.functions:
        ipython.user_ns[function] = getattr(program, function)
    return list(program.functions)


def compile_cell(text: str, name: str, backend: str, **options: Any) -> Any:
    """The `CompiledProgram` of a cell: type checked without needing a `main`."""
    from l0.api import BackendUnavailable, CompiledProgram
    from l0.bigstack import call_with_big_stack
    from l0.syntax.parser import parse_program
    from l0.typecheck import check_program

    def build() -> CompiledProgram:
        checked = parse_program(text, name)
        check_program(checked, require_main=False)
        return CompiledProgram(text, name, backend, checked=checked, **options)

    try:
        return call_with_big_stack(build)
    except BackendUnavailable as err:
        raise Unavailable(str(err)) from None
