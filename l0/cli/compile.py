"""`l0 compile PROG.l0 [-o prog]`: a native executable that runs the program's `main`.

The executable reads `main`'s arguments from stdin and prints its result exactly as
`l0-run` does; `-r N` runs `main` N times and `-t FILE` writes the run times, as with
Futhark's compiled programs. `--backend multicore` runs the parallel loops on the
threads of libgomp, linked in; the executable then takes `--threads N` (default:
`L0_NUM_THREADS`, else all cores), as `l0-run` does. `--library` makes a shared
library, its C header and a Python module instead (`l0.lowering.backends.native.library`). `-v`
reports the time of each stage on stderr (`l0.cli.stages.COMPILE_STAGES`). How it is
made: `l0.lowering.backends.native`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from l0.cli.guard import EXIT_USER_ERROR, run_guarded
from l0.diagnostics import L0Error, Loc, register_source
from l0.targets import DEFAULT, TARGETS, Target, names
from l0.targets import target as as_target

BACKENDS = names(executable=True)
"""The back ends that make executables (`l0.targets`)."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    ap = commands.add_parser(
        "compile",
        help="compile a program to a native executable",
        description="Compile PROG.l0 to a native executable that reads main's arguments "
        "from stdin and prints its result as l0-run does (options of the executable: "
        "-r N runs main N times, -t FILE writes the run times in microseconds). "
        "Needs a C compiler (cc, or $CC) to link.",
        epilog="Exit status: 0 on success, 2 for an error in the program or when no "
        "executable can be made, 3 for an internal compiler error.",
    )
    ap.add_argument("program", help="the L0 source file (.l0)")
    ap.add_argument("-o", "--output", metavar="FILE",
                    help="the executable to write (default: PROG without .l0)")
    ap.add_argument("--backend", choices=BACKENDS, default=DEFAULT.name,
                    help="the code generator: " + ", ".join(
                        f"{t.name} = {t.help}" for t in map(TARGETS.get, BACKENDS) if t)
                    + " (on threads, the executable takes --threads N, default "
                    "L0_NUM_THREADS, else all cores) (default: %(default)s)")
    ap.add_argument("-O0", dest="optimise", action="store_false", default=True,
                    help="run no optimisation pass (as l0-run -O0)")
    ap.add_argument("--library", action="store_true",
                    help="make a shared library libFILE.so, its C header FILE.h and a Python "
                    "module FILE.py calling it with numpy arrays, instead of an executable")
    ap.add_argument("--fast-math", action="store_true",
                    help="let LLVM reassociate real arithmetic (as l0-run --fast-math)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="report on stderr the time of each stage (parse, check, passes, "
                    "lowering, LLVM, object code, linking)")
    ap.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.verbose:
        from l0.cli.stages import COMPILE_STAGES, run_with_stage_times

        return run_with_stage_times(
            lambda: run_guarded(lambda: _compile(args), what=args.program),
            stages=COMPILE_STAGES)
    return run_guarded(lambda: _compile(args), what=args.program)


def _read_program(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise L0Error(Loc(path, 1, 1), f"cannot read program: {reason}",
                      "io-error") from None


def _compile(args: argparse.Namespace) -> int:
    from l0.lowering.backends.native import BuildError

    source = _read_program(args.program)
    register_source(args.program, source)
    output = args.output or _default_output(args.program)
    try:
        build(source, args.program, output, library=args.library, optimise=args.optimise,
              fast_math=args.fast_math, target=args.backend)
    except BuildError as err:
        print(f"l0 compile: error: {err}", file=sys.stderr)
        return EXIT_USER_ERROR
    return 0


def build(source: str, filename: str, output: str | os.PathLike[str], *,
          library: bool = False, optimise: bool = True, fast_math: bool = False,
          target: str | Target = DEFAULT) -> list[str]:
    """Compile the L0 program `source` (named `filename` in messages) as `l0-run` does
    (the front end, then the default pipeline unless not `optimise`) and make the
    executable `output`, or with `library` libOUTPUT.so, OUTPUT.h and OUTPUT.py; return the
    paths made; `target`, a back end that makes executables, as `l0-run --backend`.
    Raises `L0Error` for errors in the program, `BuildError` when no executable can be
    made."""
    from l0.frontend import load_program, to_module
    from l0.lowering.backends.native import build_executable, build_library

    backend = as_target(target)
    prog = load_program(source, filename)
    entry = next(f for f in prog.fundefs if f.name == "main")  # the checker requires it
    module = to_module(prog, verify=False)
    if optimise:
        from l0.passes.pipeline import optimise as run_pipeline

        run_pipeline(module, target=backend.pipeline)
    params = [p.type for p in entry.params]
    if library:
        return build_library(module, params, entry.ret, filename, output,
                             fast_math=fast_math, target=backend)
    build_executable(module, params, entry.ret, output, fast_math=fast_math, target=backend)
    return [os.fspath(output)]


def _default_output(program: str) -> str:
    path = Path(program)
    return str(path.with_suffix("")) if path.suffix == ".l0" else str(path) + ".out"
