"""The pass registry (`l0.passes.PASSES`) is consistent with the passes it names.

As xDSL's `tests/test_cli.py` does: every key is its pass's `name`, and (STYLE.md 5)
every pass is documented, lives in the module its name gives, and is listed by
`l0-opt --help`.
"""

from __future__ import annotations

import inspect
import re

import pytest
from l0.passes import PASSES, describe_passes, pass_summary
from xdsl.passes import ModulePass

NAMES = sorted(PASSES)


def test_registry_has_the_generic_passes() -> None:
    assert {"canonicalize", "cse", "dce"} <= set(PASSES)


@pytest.mark.parametrize("name", NAMES)
def test_key_is_the_pass_name(name: str) -> None:
    pass_class = PASSES[name]()
    assert isinstance(pass_class, type) and issubclass(pass_class, ModulePass)
    assert pass_class.name == name


@pytest.mark.parametrize("name", NAMES)
def test_name_is_kebab_case(name: str) -> None:
    assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", name), name


@pytest.mark.parametrize("name", NAMES)
def test_pass_has_its_own_docstring(name: str) -> None:
    pass_class = PASSES[name]()
    doc = pass_class.__dict__.get("__doc__") or ""
    # @dataclass invents "ClassName(field=...)" for a class without a docstring
    assert doc.strip() and not doc.startswith(f"{pass_class.__name__}("), (
        f"pass '{name}' ({pass_class.__qualname__}) has no docstring"
    )
    assert pass_summary(pass_class) == inspect.cleandoc(doc).split("\n")[0].strip()


@pytest.mark.parametrize("name", NAMES)
def test_pass_lives_in_the_module_its_name_gives(name: str) -> None:
    module = PASSES[name]().__module__
    if module == "l0.passes.canonicalize":  # xDSL's passes, wrapped for their docs
        return
    expected = "l0.passes." + name.replace("-", "_")
    assert module == expected or module.startswith(expected + "."), (
        f"pass '{name}' is defined in {module}, expected {expected}"
    )


def test_describe_passes_lists_every_pass_once() -> None:
    rows = describe_passes()
    assert [name for name, _ in rows] == NAMES
    assert all(summary for _, summary in rows)


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
