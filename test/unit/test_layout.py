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


# Inside passes/ (docs/architecture.md §4): analyses form one layer that imports no
# pass; the shared rewriting cores import analyses; a pass imports analyses, cores and
# its own package, never another pass. Passes that compose others (`rebind` runs the
# hoisting and CSE cores) import the cores; the one exception is the pipeline, which
# runs passes by name through the registry.
PASS_LAYERS = {"analysis": {"analysis"}, "cores": {"analysis", "cores"}}
COMPOSITES = {"pipeline": {""}}
"""A pass -> the other parts of `l0.passes` it may import besides analyses and cores
("": the registry)."""


def _part_of_passes(module: str) -> str | None:
    """The part of `l0.passes` that `module` is in ("" for the registry itself), or None
    when it is not under `l0.passes`."""
    if module == "l0.passes":
        return ""
    if not module.startswith("l0.passes."):
        return None
    return module.split(".")[2]


def _allowed_parts(part: str) -> set[str]:
    return PASS_LAYERS.get(part) or {"analysis", "cores", part, *COMPOSITES.get(part, ())}


def pass_import_violations(root: Path) -> list[str]:
    """`file imports module` for every import inside `root` (a passes/ directory) that
    crosses from one part of `l0.passes` to one it may not use."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts == ("__init__.py",):
            continue  # the registry names every pass, importing none
        part = rel.parts[0].removesuffix(".py")
        if any(isinstance(node, ast.ImportFrom) and node.level > 0
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))):
            bad.append(f"passes/{rel.as_posix()} has a relative import (say l0.passes...)")
        for imported in _imports(path):
            target = _part_of_passes(imported)
            if target is not None and target not in _allowed_parts(part):
                bad.append(f"passes/{rel.as_posix()} imports {imported}")
    return bad


def test_passes_import_no_other_pass() -> None:
    bad = pass_import_violations(ROOT / "passes")
    assert not bad, "\n".join(bad)


def test_the_pass_import_rule_catches_a_cross_import(tmp_path: Path) -> None:
    for name, text in {"cse.py": "from l0.passes.hoist import Hoister\n",
                       "hoist.py": "from l0.passes.cores.hoisting import Hoister\n",
                       "analysis/effects.py": "from l0.passes.dce import EraseDeadOp\n",
                       "cores/hoisting.py": "import l0.passes.simplify.common\n",
                       "rebind.py": "from l0.passes.cse import CseDriver\n",
                       "fuse/transpose.py": "from ..hoist import Hoister\n"}.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    assert pass_import_violations(tmp_path) == [
        "passes/analysis/effects.py imports l0.passes.dce",
        "passes/cores/hoisting.py imports l0.passes.simplify.common",
        "passes/cse.py imports l0.passes.hoist",
        "passes/fuse/transpose.py has a relative import (say l0.passes...)",
        "passes/rebind.py imports l0.passes.cse",
    ]


LOWERING_ANALYSES = {"l0.lowering.memory.dealloc.aliases"}
"""Analyses inside a lowering pass's package that other passes may use: dealloc's
may-alias classes, which memory planning trusts."""


def test_lowering_passes_import_no_other_lowering_pass() -> None:
    """A lowering pass (`l0.lowering.LOWERINGS`) imports shared modules
    (`l0.lowering.memory.memory_plan`, `builder`, ...) and `LOWERING_ANALYSES`, never another
    pass's module; the pipeline, which runs them in order, is the one composite."""
    from l0.lowering import LOWERINGS

    modules = {LOWERINGS[name]().__module__ for name in LOWERINGS}
    modules = {m.removesuffix(".__init__") for m in modules}
    bad = []
    for module in sorted(modules):
        path = ROOT / "lowering" / module.removeprefix("l0.lowering.").replace(".", "/")
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")]
        for file in files:
            for imported in _imports(file):
                owner = next((m for m in modules
                              if imported == m or imported.startswith(m + ".")), None)
                if owner is not None and owner != module and imported not in LOWERING_ANALYSES:
                    bad.append(f"{file.relative_to(ROOT)} imports {imported}")
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


# docs/architecture.md describes the layout; these tests keep it true to the tree.
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _section(title: str) -> str:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def _first_column_paths(section: str) -> set[str]:
    """The backquoted paths in the first column of the table rows of `section`."""
    paths = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            paths.update(p.strip("/") for p in first.split("`")[1::2])
    return paths


def test_architecture_names_every_part_and_only_parts_that_exist() -> None:
    named = _first_column_paths(_section("1. The parts"))
    assert all((ROOT / p).exists() for p in named), sorted(p for p in named
                                                         if not (ROOT / p).exists())
    parts = {f"l0/{d.name}" for d in (ROOT / "l0").iterdir() if (d / "__init__.py").exists()}
    parts |= {"dialects", "passes", "lowering"}
    assert parts <= named, sorted(parts - named)


def test_architecture_names_every_analysis_and_core() -> None:
    section = _section("4. Passes and analyses")
    for layer in ("analysis", "cores"):
        modules = {p.stem for p in (ROOT / "passes" / layer).glob("*.py")} - {"__init__"}
        row = next(line for line in section.splitlines() if line.startswith(f"| `passes/{layer}/`"))
        assert all(f"`{m}`" in row for m in modules), sorted(m for m in modules
                                                           if f"`{m}`" not in row)
