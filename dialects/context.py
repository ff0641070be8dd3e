"""The dialects l0's tools load, in one list, and the xDSL context made of them.

The IR of l0 has levels (`docs/lowering.md`); each names the dialects its ops come
from, by their xDSL names:

* `SOAC_LEVEL`: internal L0 (`docs/ir.md`), what the internaliser builds and the
  interpreter and the passes read;
* `LOWERING_LEVELS`: what the lowering passes add on the way to loops (bufferised IR
  with `msoac`, then `memref` and `cf`, and `omp` for the multicore back end);
* `FOREIGN`: upstream dialects that l0 never produces, read so that IR mixing them in
  (a test of a verifier, say) parses and reports what is wrong with it.

`dialect_loaders()` maps every name to a function loading the dialect only when asked
for: `l0-opt` registers them all that way, so that a run on soac IR never imports the
lowering levels. `l0_context()` is the context every component that parses or builds
IR uses (internaliser, interpreter, passes, lowering, tests).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.ir import Dialect

SOAC_LEVEL: tuple[str, ...] = ("builtin", "func", "arith", "scf", "math", "soac")
"""The dialects of internal L0."""

LOWERING_LEVELS: tuple[str, ...] = ("memref", "cf", "msoac", "omp", "gpu")
"""The dialects the lowering passes add, beyond those of internal L0."""

FOREIGN: tuple[str, ...] = ("tensor", "llvm")
"""Upstream dialects read but never produced by l0."""

DIALECTS: tuple[str, ...] = SOAC_LEVEL + LOWERING_LEVELS + FOREIGN
"""Every dialect l0's tools load, in the order they register them."""


def _soac() -> Dialect:
    from l0.dialects.soac import SOAC

    return SOAC


def _msoac() -> Dialect:
    from l0.dialects.msoac import MSOAC

    return MSOAC


def dialect_loaders() -> dict[str, Callable[[], Dialect]]:
    """Name -> loader for each dialect of `DIALECTS`, in that order."""
    upstream = get_all_dialects()
    own: dict[str, Callable[[], Dialect]] = {"soac": _soac, "msoac": _msoac}
    return {name: own.get(name) or upstream[name] for name in DIALECTS}


def l0_context(levels: tuple[str, ...] = SOAC_LEVEL) -> Context:
    """A fresh context with the dialects `levels` names loaded (by default those of
    internal L0; `SOAC_LEVEL + LOWERING_LEVELS` for every level down to loops)."""
    loaders = dialect_loaders()
    ctx = Context()
    for name in levels:
        ctx.load_dialect(loaders[name]())
    return ctx
