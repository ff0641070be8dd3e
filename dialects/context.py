"""The xDSL context for internal L0: the dialects the soac-level IR is made of.

`l0_context()` is what every component that parses or builds soac-level IR uses
(internaliser, interpreter, passes in tests); `l0-opt` registers the same dialects
plus those of the later lowering stages (see `l0.cli.opt`).
"""

from __future__ import annotations

from l0.dialects.soac import SOAC
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.dialects.math import Math
from xdsl.dialects.scf import Scf
from xdsl.ir import Dialect

L0_DIALECTS: tuple[Dialect, ...] = (Builtin, Func, Arith, Scf, Math, SOAC)
"""The dialects of internal L0 (`docs/ir.md`)."""


def l0_context() -> Context:
    """A fresh context with builtin, func, arith, scf, math and soac loaded."""
    ctx = Context()
    for dialect in L0_DIALECTS:
        ctx.load_dialect(dialect)
    return ctx
