"""The pass registries (`l0.passes.PASSES`, `l0.lowering.LOWERINGS`) are consistent with
the passes they name.

As xDSL's `tests/test_cli.py` does: every key is its pass's `name`, and (docs/style.md §1)
every pass is documented, lives in the module its name gives (a lowering: in the folder
of its stage), and is listed by `l0-opt --help`.
"""

from __future__ import annotations

import inspect
import re

import pytest
from xdsl.passes import ModulePass

from l0.lowering import LOWERINGS
from l0.passes import PASSES, describe_passes, pass_summary

REGISTRIES = {"l0.passes": PASSES, "l0.lowering": LOWERINGS}
ENTRIES = [(package, name) for package, registry in REGISTRIES.items()
           for name in sorted(registry)]
"""(package, pipeline name) of every registered pass, optimisation or lowering."""


def test_registry_has_the_generic_passes() -> None:
    assert {"canonicalize", "cse", "dce"} <= set(PASSES)


@pytest.mark.parametrize(("package", "name"), ENTRIES)
def test_key_is_the_pass_name(package: str, name: str) -> None:
    pass_class = REGISTRIES[package][name]()
    assert isinstance(pass_class, type) and issubclass(pass_class, ModulePass)
    assert pass_class.name == name


@pytest.mark.parametrize(("package", "name"), ENTRIES)
def test_name_is_kebab_case(package: str, name: str) -> None:
    assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", name), name


@pytest.mark.parametrize(("package", "name"), ENTRIES)
def test_pass_has_its_own_docstring(package: str, name: str) -> None:
    pass_class = REGISTRIES[package][name]()
    doc = pass_class.__dict__.get("__doc__") or ""
    # @dataclass invents "ClassName(field=...)" for a class without a docstring
    assert doc.strip() and not doc.startswith(f"{pass_class.__name__}("), (
        f"pass '{name}' ({pass_class.__qualname__}) has no docstring"
    )
    assert pass_summary(pass_class) == inspect.cleandoc(doc).split("\n")[0].strip()


@pytest.mark.parametrize(("package", "name"), ENTRIES)
def test_pass_lives_in_the_module_its_name_gives(package: str, name: str) -> None:
    module = REGISTRIES[package][name]().__module__
    if module == "l0.passes.canonicalize":  # xDSL's passes, wrapped for their docs
        return
    # a lowering lives in the folder of its stage (l0.lowering.STAGE.a_b), or is one
    stage = r"([a-z_]+\.)?" if package == "l0.lowering" else ""
    expected = re.escape(f"{package}.") + stage + re.escape(name.replace("-", "_"))
    assert re.fullmatch(expected + r"(\..*)?", module), (
        f"pass '{name}' is defined in {module}, expected {expected}"
    )


def test_describe_passes_lists_every_pass_once() -> None:
    for registry in (PASSES, LOWERINGS):
        rows = describe_passes(registry)
        assert [name for name, _ in rows] == sorted(registry)
        assert all(summary for _, summary in rows)
    assert describe_passes() == describe_passes(PASSES)


def test_loading_the_registry_imports_no_pass() -> None:
    import subprocess
    import sys

    code = (
        "import sys, l0.passes; "
        "print(sorted(m for m in sys.modules if m.startswith('xdsl.transforms.') "
        "or (m.startswith('l0.passes.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
