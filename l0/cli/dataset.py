"""`l0 dataset`: write random values of L0 types, or convert given values, as text or binary.

    l0 dataset -g '[[real]]:1000x1000' -g int [-b] [-s SEED] > data.in
    l0 dataset -b -t '[int]' -t real < text.in > binary.in
    l0 dataset -b --for prog.l0 < text.in > binary.in

As `futhark dataset` does: `-g TYPE[:DIMS]` generates a value of a basic type or an array
of one, with its dimensions written `NxMx...`; `-t TYPE` (or `--for PROG`, the parameter
types of its `main`) reads values of those types from stdin (text or binary, mixed) and
writes them again. `-b` writes Futhark's binary format (`l0.values.binary`), else the
text syntax that `l0-run` reads, one value a line. Random ints lie in `--int-bounds`,
reals in `--real-bounds`, chars are printable ASCII; a fixed `--seed` (default 0)
makes the same data every time.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from l0.cli.guard import run_guarded
from l0.diagnostics import L0Error, Loc
from l0.types import ArrayType, Basic, BasicType, Type, flatten
from l0.values.generate import GeneratorError, parse_generator, random_value


def add_parser(commands: argparse._SubParsersAction) -> None:
    ap = commands.add_parser(
        "dataset",
        help="write random values of L0 types, or convert values between text and binary",
        description="Write random values (-g TYPE[:DIMS], e.g. -g '[[real]]:100x100' -g int) "
        "or the values on stdin of the types given with -t TYPE or --for PROG.l0, as text "
        "or, with -b, in Futhark's binary value format.",
        epilog="Exit status: 0 on success, 2 for bad arguments or bad input values.",
    )
    ap.add_argument("-g", "--generate", action="append", default=[], metavar="TYPE[:DIMS]",
                    help="generate a random value of TYPE (an array has dimensions NxM...)")
    ap.add_argument("-t", "--type", action="append", default=[], metavar="TYPE",
                    help="read a value of TYPE from stdin (repeat for several)")
    ap.add_argument("--for", dest="program", metavar="PROG.l0",
                    help="read values of the parameter types of PROG's main from stdin")
    ap.add_argument("-b", "--binary", action="store_true",
                    help="write in Futhark's binary value format")
    ap.add_argument("-s", "--seed", type=int, default=0, help="random seed (default: 0)")
    ap.add_argument("--int-bounds", default="0:100", metavar="LO:HI",
                    help="range of random ints, both included (default: %(default)s)")
    ap.add_argument("--real-bounds", default="0.0:1.0", metavar="LO:HI",
                    help="range of random reals (default: %(default)s)")
    ap.set_defaults(run=run)


class UsageError(Exception):
    """Bad arguments: reported as `l0 dataset: error: ...`, exit status 2."""


def run(args: argparse.Namespace) -> int:
    sources = sum(map(bool, (args.generate, args.type, args.program)))
    try:
        if sources != 1:
            raise UsageError("give one of -g TYPE[:DIMS]..., -t TYPE... or --for PROG.l0")
        generators = [_generator(spec) for spec in args.generate]
        ints = _bounds(args.int_bounds, int, "--int-bounds")
        reals = _bounds(args.real_bounds, float, "--real-bounds")
        given = [_parse_type(text, "-t") for text in args.type]
    except UsageError as err:
        print(f"l0 dataset: error: {err}", file=sys.stderr)
        return 2

    def work() -> int:
        if generators:
            rng = np.random.default_rng(args.seed)
            types = [t for t, _ in generators]
            values = [random_value(t, dims, rng, ints, reals) for t, dims in generators]
        else:
            types = [c for p in (given or _main_params(args.program)) for c in flatten(p)]
            values = _read_stdin(types)
        _write(types, values, args.binary)
        return 0

    return run_guarded(work, what=args.program or "<stdin>")


def _generator(spec: str) -> tuple[Type, tuple[int, ...]]:
    try:
        return parse_generator(spec)
    except GeneratorError as err:
        raise UsageError(f"-g {err}") from None


def _parse_type(text: str, option: str) -> Type:
    from l0.syntax.parser import parse_type

    try:
        return parse_type(text.strip(), option)
    except L0Error as err:
        raise UsageError(f"{option} {text}: {err.message}") from None


def _bounds(text: str, kind: type, option: str) -> tuple[Any, Any]:
    lo, sep, hi = text.partition(":")
    try:
        bounds = (kind(lo), kind(hi))
    except ValueError:
        bounds = None
    if not sep or bounds is None or bounds[1] < bounds[0]:
        raise UsageError(f"{option} needs LO:HI with LO <= HI, found {text!r}")
    return bounds


def _main_params(program: str) -> list[Type]:
    """The parameter types of `main` of `program` (parsed and type checked)."""
    from l0.frontend import load_program

    try:
        with open(program, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise L0Error(Loc(program, 1, 1), f"cannot read program: {reason}",
                      "io-error") from None
    mains = [f for f in load_program(source, program).fundefs if f.name == "main"]
    if not mains:
        raise L0Error(Loc(program, 1, 1), "the program has no main", "missing-main")
    return [p.type for p in mains[0].params]


def _read_stdin(types: list[Type]) -> list[Any]:
    from l0.values import read_values
    from l0.values.binary import read_input_bytes

    buffer = getattr(sys.stdin, "buffer", None)
    data = (read_input_bytes(buffer) if buffer is not None
            else bytearray(sys.stdin.read().encode("utf-8")))
    return read_values(data, types, "<stdin>")


def _write(types: list[Type], values: list[Any], binary: bool) -> None:
    if binary:
        from l0.values.binary import write_binary

        out = getattr(sys.stdout, "buffer", None)
        for t, v in zip(types, values, strict=True):
            if t in (BasicType(Basic.CERT),) or (isinstance(t, ArrayType)
                                                 and t.elem == BasicType(Basic.CERT)):
                raise L0Error(Loc("<stdin>", 1, 1), "values of type cert have no binary form",
                              "value-error")
            data = write_binary(t, v)
            if out is not None:
                out.write(data)
            else:  # a text stream put in place of stdout (tests)
                sys.stdout.write(data.decode("latin-1"))
        if out is not None:
            out.flush()
        return
    from l0.values import write_values

    sys.stdout.write(write_values(types, values))
    sys.stdout.flush()
