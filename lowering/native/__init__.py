"""Native executables of L0 programs (`l0 compile`): see `build.py`."""

from l0.lowering.native.build import BuildError, build_executable

__all__ = ["BuildError", "build_executable"]
