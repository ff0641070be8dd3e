"""How hard LLVM optimises JIT-compiled code, and the test-only setting that lowers it.

The JIT (`l0.lowering.backends.jit`) runs LLVM's O3 pipeline and generates machine code
at opt level 3: what `l0-run` and `l0.compile` ship. Two thirds of a small program's
compile time is LLVM's (its optimiser, then code generation), and on the test corpus,
whose inputs are a few rows long, the optimised code gains nothing. `L0_LLVM_OPT=0`
in the environment of the compiler skips LLVM's optimiser and generates code at opt
level 0, about 12 times faster; 1 and 2 choose those levels of both, and anything else
is the default, 3. The test suite compiles that way, except where it checks what
`l0-run` ships (Note [LLVM's level in the tests] in `test/conftest.py`).
It changes the code, so it is part of the JIT's and the compile cache's keys. The CPU
JIT and PTX (`l0.lowering.llvm.ptx`: at 0, only libdevice's unused functions are
dropped) read it; native executables are always built at 3.

This module imports nothing heavy: the compile cache's key reads it on every run.
"""

from __future__ import annotations

import os

DEFAULT = 3
ENV = "L0_LLVM_OPT"


def llvm_level() -> int:
    """LLVM's optimisation level for the JIT: `L0_LLVM_OPT` if it is 0, 1, 2 or 3, else
    DEFAULT."""
    value = os.environ.get(ENV, "").strip()
    return int(value) if value in ("0", "1", "2", "3") else DEFAULT
