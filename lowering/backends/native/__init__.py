"""Native code of L0 programs outside Python (`l0 compile`): executables (`build.py`)
and shared libraries with a C header and a Python module (`library.py`)."""

from l0.lowering.backends.native.build import BuildError, build_executable
from l0.lowering.backends.native.library import build_library

__all__ = ["BuildError", "build_executable", "build_library"]
