"""l0: an optimising compiler for L0, the data-parallel language of Henriksen's 2014 thesis.

`l0.compile(source_or_path)` compiles a program for calling from Python (see `l0.api`);
in IPython and Jupyter, `%load_ext l0` adds the `%%l0` cell magic (`l0.notebook`).
The package imports nothing heavy until a function is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from l0.api import compile as compile

__all__ = ["compile"]


def __getattr__(name: str) -> Any:
    # `l0.compile` is `l0.api.compile` itself (its signature and docstring for `help`),
    # imported on first use: `l0.api` imports no code generator.
    if name == "compile":
        from l0.api import compile

        return compile
    raise AttributeError(f"module 'l0' has no attribute {name!r}")


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext l0` in IPython or Jupyter: the `%%l0` cell magic (`l0.notebook`)."""
    from l0.notebook import load_ipython_extension as load

    load(ipython)


def __dir__() -> list[str]:
    return sorted([*globals(), "compile"])
