"""LLVM IR emission for the CPU back end (the input level: func/scf/cf/arith/math/memref).

`emit_module(module) -> EmittedModule` translates loop-level IR to an llvmlite module
following the calling convention of `abi.py`; `print_llvm_ir(module)` gives its text.
`l0.lowering.backends.jit` optimises, JIT-compiles and calls the result. See `docs/backend.md`.
The emitter is imported on first use, so that `abi` alone imports no xDSL (code loaded
from the compile cache calls through `abi` only: `l0.compile_cache`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from l0.lowering.llvm.emit import EmittedModule, emit_module, print_llvm_ir
    from l0.lowering.llvm.types import LoweringError

__all__ = ["EmittedModule", "LoweringError", "emit_module", "print_llvm_ir"]

_HOMES = {"EmittedModule": "emit", "emit_module": "emit", "print_llvm_ir": "emit",
          "LoweringError": "types"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
