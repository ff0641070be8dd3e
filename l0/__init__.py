"""l0: an optimising compiler for L0, the data-parallel language of Henriksen's 2014 thesis.

`l0.compile(source_or_path)` compiles a program for calling from Python (see `l0.api`).
The package imports nothing heavy until a function is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from l0.api import CompiledProgram


def compile(source_or_path: Any, **options: Any) -> CompiledProgram:  # noqa: A001
    """Compile an L0 program (source text or a `.l0` path); see `l0.api.compile`."""
    from l0.api import compile as _compile

    return _compile(source_or_path, **options)
