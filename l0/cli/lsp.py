"""`l0 lsp`: the language server, on stdin and stdout, for editors (docs/tools.md).

pygls is imported only here, when the server starts: the other tools' start-up does
not pay for it. It comes with the extra `l0[lsp]`.
"""

from __future__ import annotations

import argparse
import sys


def add_parser(commands: argparse._SubParsersAction) -> None:
    ap = commands.add_parser(
        "lsp",
        help="run the language server (for editors)",
        description="Serve the Language Server Protocol on stdin and stdout: errors as "
        "you type, the type of a name or expression on hover, go to definition, "
        "completion and the outline of a program. Editors start it; see docs/tools.md.",
        epilog="Needs pygls: pip install 'l0[lsp]'.",
    )
    ap.add_argument("--stdio", action="store_true",
                    help="accepted for editors that pass it; stdio is the only transport")
    ap.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        from l0.editor.server import serve
    except ImportError as err:
        print(f"l0 lsp: error: the language server needs pygls ({err}); "
              "install it with: pip install 'l0[lsp]'", file=sys.stderr)
        return 2
    serve()
    return 0
