"""`python -m l0.lowering.llvm FILE.mlir [--optimize] [--fast-math]`: print LLVM IR.

A small driver for looking at (and lit-testing) what the CPU back end emits for
loop-level IR, until `l0-opt` prints LLVM IR itself. `-` reads stdin.
"""

from __future__ import annotations

import argparse
import sys

from l0.dialects.soac import SOAC
from l0.lowering.llvm import print_llvm_ir
from xdsl.context import Context
from xdsl.dialects import arith, builtin, cf, func, math, memref, scf
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m l0.lowering.llvm", description=__doc__)
    ap.add_argument("file", help="an .mlir file at the scf/memref level, or - for stdin")
    ap.add_argument("--optimize", "-O", action="store_true", help="print after the O3 pipeline")
    ap.add_argument("--fast-math", action="store_true", help="fast-math flags on float ops")
    args = ap.parse_args(argv)
    text = sys.stdin.read() if args.file == "-" else open(args.file, encoding="utf-8").read()
    ctx = Context()
    for d in (builtin.Builtin, func.Func, arith.Arith, scf.Scf, math.Math, memref.MemRef,
              cf.Cf, SOAC):
        ctx.load_dialect(d)
    try:
        module = Parser(ctx, text, args.file).parse_module()
        module.verify()
        if args.optimize:
            from l0.lowering.jit import optimized_llvm_ir

            print(optimized_llvm_ir(module, fast_math=args.fast_math))
        else:
            print(print_llvm_ir(module, fast_math=args.fast_math))
    except (ParseError, DiagnosticException) as e:
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
