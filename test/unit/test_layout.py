"""Project layout rules: every package is installed, dependencies run one way
(docs/architecture.md §2), and the repository cites no document outside itself."""

from __future__ import annotations

import ast
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIRS = {
    "l0": "l0", "l0.dialects": "dialects", "l0.passes": "passes", "l0.lowering": "lowering"
}


def _packages_on_disk() -> set[str]:
    found = set()
    for name, directory in PACKAGE_DIRS.items():
        for init in (ROOT / directory).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / directory)
            found.add(".".join([name, *rel.parts]) if rel.parts else name)
    return found


def test_every_package_is_installed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    assert _packages_on_disk() <= listed


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


# module prefix -> prefixes it must never import
FORBIDDEN = {
    "syntax": ["xdsl", "l0.typecheck", "l0.internalise", "l0.interp", "l0.dialects", "l0.passes",
               "l0.lowering"],
    "typecheck": ["xdsl", "l0.internalise", "l0.interp", "l0.dialects", "l0.passes", "l0.lowering"],
    "dialects": ["l0.passes", "l0.lowering", "l0.syntax", "l0.typecheck", "l0.internalise"],
    "passes": ["l0.lowering", "l0.syntax", "l0.typecheck", "l0.internalise", "l0.cli"],
    "interp": ["l0.passes", "l0.lowering", "l0.syntax", "l0.typecheck", "l0.internalise"],
}
WHERE = {"syntax": ROOT / "l0/syntax", "typecheck": ROOT / "l0/typecheck",
         "dialects": ROOT / "dialects", "passes": ROOT / "passes", "interp": ROOT / "l0/interp"}


def test_dependencies_run_one_way() -> None:
    bad = []
    for part, directory in WHERE.items():
        for path in directory.rglob("*.py"):
            for imported in _imports(path):
                if any(imported == f or imported.startswith(f + ".") for f in FORBIDDEN[part]):
                    bad.append(f"{path.relative_to(ROOT)} imports {imported}")
    assert not bad, "\n".join(bad)


# Documents that lived beside the repository while it was written; what the code needs of
# them is in docs/ (reference.md, style.md, architecture.md), so nothing may cite them.
# The names are split so that this file does not mention them itself.
OUTSIDE_DOCUMENTS = tuple(a + b for a, b in [
    ("L0-", "REFERENCE"), ("STYLE", ".md"), ("DESIGN", ".md"), ("../", "shared"),
    ("shared/", "notes"),
])


def test_no_citations_of_outside_documents() -> None:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    bad = []
    for name in filter(None, listed):
        path = ROOT / name
        if not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data:  # binary
            continue
        text = data.decode("utf-8", errors="replace")
        for lineno, line in enumerate(text.splitlines(), 1):
            bad += [f"{name}:{lineno}: {word}" for word in OUTSIDE_DOCUMENTS if word in line]
    assert not bad, "\n".join(bad)
