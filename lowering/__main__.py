"""`python -m l0.lowering [-p PASSES] FILE`: run lowering passes and print the IR.

FILE is soac IR (`.mlir`, any lowering level) or an L0 program (`.l0`, internalised
first); `-` reads `.mlir` from stdin. PASSES is a comma-separated list of names from
`l0.lowering.LOWERINGS` (and `l0.passes.PASSES`). Used by the lit tests of
`test/lit/lowering/` until `l0-opt` registers the lowerings itself.
"""

from __future__ import annotations

import argparse
import sys

from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError

from l0.diagnostics import L0Error


def _load(path: str) -> ModuleOp:
    from l0.dialects.context import l0_context
    from l0.lowering import lowering_dialects

    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    if path.endswith(".l0"):
        from l0.frontend import l0_to_module

        return l0_to_module(text, path)
    ctx = l0_context()
    for d in lowering_dialects():
        ctx.load_dialect(d)
    module = Parser(ctx, text, path).parse_module()
    module.verify()
    return module


def main(argv: list[str] | None = None) -> int:
    from l0.lowering import LOWERINGS
    from l0.passes import PASSES

    ap = argparse.ArgumentParser(prog="python -m l0.lowering", description=__doc__)
    ap.add_argument("file", help="an .mlir or .l0 file, or - for .mlir on stdin")
    ap.add_argument("-p", "--pass-pipeline", default="", help="comma-separated passes")
    args = ap.parse_args(argv)
    try:
        module = _load(args.file)
        from l0.dialects.context import l0_context

        for name in filter(None, args.pass_pipeline.split(",")):
            factory = LOWERINGS.get(name) or PASSES.get(name)
            if factory is None:
                print(f"unknown pass '{name}'", file=sys.stderr)
                return 2
            factory()().apply(l0_context(), module)
            module.verify()
    except L0Error as err:
        print(err.render(), file=sys.stderr)
        return 2
    except (ParseError, DiagnosticException) as err:
        print(err, file=sys.stderr)
        return 2
    print(module)
    return 0


if __name__ == "__main__":
    sys.exit(main())
