"""LLVM IR emission for the CPU back end (the input level: func/scf/cf/arith/math/memref).

`emit_module(module) -> EmittedModule` translates loop-level IR to an llvmlite module
following the calling convention of `abi.py`; `print_llvm_ir(module)` gives its text.
`l0.lowering.jit` optimises, JIT-compiles and calls the result. See `docs/backend.md`.
"""

from l0.lowering.llvm.emit import EmittedModule, emit_module, print_llvm_ir
from l0.lowering.llvm.types import LoweringError

__all__ = ["EmittedModule", "LoweringError", "emit_module", "print_llvm_ir"]
