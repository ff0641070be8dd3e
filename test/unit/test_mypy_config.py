"""The type checker's configuration follows the package layout (docs/testing.md §0).

mypy cannot follow the package-dir mapping of `[tool.setuptools]`; `mypy_path/l0/`
lays the mapped folders out under `l0` with symlinks. A package mapped without its
symlink, or left out of `[tool.mypy].packages`, would silently go unchecked.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _mapped_tops() -> dict[str, str]:
    """The top-level `l0.X` packages that live in another folder: name -> folder."""
    mapping = CONFIG["tool"]["setuptools"]["package-dir"]
    return {name: folder for name, folder in mapping.items()
            if name.count(".") == 1 and name != folder.replace("/", ".")}


def test_every_mapped_package_has_its_symlink() -> None:
    tops = _mapped_tops()
    assert tops, "the package-dir mapping maps no l0.X package any more"
    for name, folder in tops.items():
        link = ROOT / "mypy_path" / "l0" / name.split(".")[1]
        assert link.is_symlink(), f"{link} is missing: {name} would go unchecked"
        assert link.resolve() == (ROOT / folder).resolve(), f"{link} points elsewhere"
    init = ROOT / "mypy_path" / "l0" / "__init__.py"
    assert init.resolve() == (ROOT / "l0" / "__init__.py").resolve()


def test_mypy_checks_every_package() -> None:
    mypy = CONFIG["tool"]["mypy"]
    assert "mypy_path" in mypy["mypy_path"]
    assert set(mypy["packages"]) == {"l0", *_mapped_tops()}


IGNORE = re.compile(r"#\s*type:\s*ignore(?P<rest>.*)$")
EXPLAINED = re.compile(r"\[[-a-z]+(, *[-a-z]+)*\]  # \S")
"""An ignore that names its error codes and says why on the same line (docs/testing.md
§0): `# type: ignore[attr-defined]  # every SOAC has a cert list`."""


def test_every_type_ignore_names_its_code_and_says_why() -> None:
    folders = ["l0", *_mapped_tops().values()]
    bare = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
            for folder in folders for path in sorted((ROOT / folder).rglob("*.py"))
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if (m := IGNORE.search(line)) and not EXPLAINED.match(m["rest"])]
    assert bare == []
