"""The pass registry: every pipeline name `l0-opt -p` accepts, mapped to its pass.

`PASSES` maps a pipeline name to a function that imports the pass class only when it is
asked for, as xDSL's `xdsl/transforms/__init__.py` does, so that loading the registry
(e.g. for `l0-opt --help`) imports no pass. A pass `name` lives in
`l0.passes.<name with - replaced by _>` as a `ModulePass` subclass whose class attribute
`name` is that pipeline name and whose docstring is its documentation; its first line
is the summary `l0-opt --help` shows. `test/unit/test_registry.py` keeps this true.

To add a pass, add one line to `PASSES`: `"fuse": _lazy("l0.passes.fuse", "FusePass"),`.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # not at run time: a registry lookup imports no xDSL (the compile cache)
    from xdsl.passes import ModulePass


def lazy_pass(module: str, class_name: str) -> Callable[[], type[ModulePass]]:
    """A factory that imports `module` and returns its pass class `class_name`."""

    def load() -> type[ModulePass]:
        from xdsl.passes import ModulePass

        pass_class = getattr(importlib.import_module(module), class_name)
        assert isinstance(pass_class, type) and issubclass(pass_class, ModulePass)
        return pass_class

    return load


_lazy = lazy_pass

PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    # xDSL's generic passes (documented wrappers in l0.passes.canonicalize)
    "canonicalize": _lazy("l0.passes.canonicalize", "CanonicalizePass"),
    # first-order optimisations (thesis 5)
    "dce": _lazy("l0.passes.dce", "DcePass"),
    "inline": _lazy("l0.passes.inline", "InlinePass"),
    "simplify": _lazy("l0.passes.simplify", "SimplifyPass"),
    # the Rebinder (thesis 6) and range analysis
    "bounds": _lazy("l0.passes.bounds", "BoundsPass"),
    "cse": _lazy("l0.passes.cse", "CsePass"),
    "hoist": _lazy("l0.passes.hoist", "HoistPass"),
    "rebind": _lazy("l0.passes.rebind", "RebindPass"),
    # fusion (thesis 7)
    "fuse": _lazy("l0.passes.fuse", "FusePass"),
    # fusion-enabling transformations (thesis 8)
    "distribute": _lazy("l0.passes.distribute", "DistributePass"),
    "interchange": _lazy("l0.passes.interchange", "InterchangePass"),
    "iswim": _lazy("l0.passes.iswim", "IswimPass"),
    # hindrance removal (thesis 9)
    "inline-map-index": _lazy("l0.passes.inline_map_index", "InlineMapIndexPass"),
    "size-hindrance": _lazy("l0.passes.size_hindrance", "SizeHindrancePass"),
    # checks
    "verify-uniqueness": _lazy("l0.passes.verify_uniqueness", "VerifyUniquenessPass"),
}
"""Pipeline name -> factory of the pass class (kept in alphabetical order per group)."""


def pass_summary(pass_class: type[ModulePass]) -> str:
    """The first line of a pass's own docstring ("" when it has none)."""
    doc = inspect.cleandoc(pass_class.__dict__.get("__doc__") or "")
    return doc.split("\n", 1)[0].strip()


def describe_passes(
    registry: Mapping[str, Callable[[], type[ModulePass]]] | None = None,
) -> list[tuple[str, str]]:
    """(name, summary) of every pass of `registry` (default `PASSES`), sorted by name;
    imports every pass."""
    passes = PASSES if registry is None else registry
    return [(name, pass_summary(passes[name]())) for name in sorted(passes)]
