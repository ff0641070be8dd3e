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
    # Folding shares the interpreter's scalar semantics through `l0.scalars`, never the
    # interpreter itself.
    "passes": ["l0.lowering", "l0.syntax", "l0.typecheck", "l0.internalise", "l0.cli",
               "l0.interp"],
    "interp": ["l0.passes", "l0.lowering", "l0.syntax", "l0.typecheck", "l0.internalise"],
    # The language server answers from the front end alone: it never compiles.
    "editor": ["xdsl", "l0.internalise", "l0.interp", "l0.dialects", "l0.passes", "l0.lowering"],
}
WHERE = {"syntax": ROOT / "l0/syntax", "typecheck": ROOT / "l0/typecheck",
         "dialects": ROOT / "dialects", "passes": ROOT / "passes", "interp": ROOT / "l0/interp",
         "editor": ROOT / "l0/editor"}


def test_scalar_semantics_are_at_the_bottom() -> None:
    """`l0.scalars`, which the interpreter and `simplify` share, imports no other part of
    l0 and no xDSL."""
    imported = _imports(ROOT / "l0/scalars.py")
    assert not {m for m in imported if m.split(".")[0] in ("l0", "xdsl")}


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


# lowering/ by stage (docs/architecture.md §5): a folder per stage, each importing only
# from the stages below it (and itself); runtime/, at the bottom, runs compiled code and
# imports no xDSL, so that code loaded from the compile cache starts without the compiler.
LOWERING_STAGES = ("runtime", "loop_ir", "bufferise", "scf", "memory", "cpu", "gpu", "llvm",
                   "pipeline", "backends")
"""The stages of `l0.lowering`, bottom first: each a folder, but `pipeline` (one module)."""
LOWERING_TOP = {"__init__.py", "pipeline.py"}
"""The only modules directly under lowering/: the registry and the pipeline."""
RUNTIME_MAY_NOT_REACH = ("xdsl",)


def _module_file(name: str, package_dirs: dict[str, Path]) -> Path | None:
    """The file of module `name` (a package's `__init__.py`), if it is one of ours."""
    for prefix in sorted(package_dirs, key=len, reverse=True):
        if name == prefix or name.startswith(prefix + "."):
            base = package_dirs[prefix].joinpath(*name[len(prefix):].split(".")[1:])
            if (base / "__init__.py").is_file():
                return base / "__init__.py"
            return base.with_suffix(".py") if base.with_suffix(".py").is_file() else None
    return None


def _resolved_imports(path: Path, package_dirs: dict[str, Path], *,
                      import_time: bool = False) -> set[str]:
    """The modules `path` imports, `from l0.lowering import pipeline` as the module
    `l0.lowering.pipeline`; with `import_time`, only those imported when it is (not in
    functions, not for the type checker)."""
    out = set()

    def visit(node: ast.AST) -> None:
        if import_time and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return
        if import_time and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                out.add(sub if _module_file(sub, package_dirs) else node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return out


def _stage_of(module: str) -> str | None:
    """The stage of `l0.lowering` that `module` is in ("" for the registry), or None."""
    if module == "l0.lowering":
        return ""
    return module.split(".")[2] if module.startswith("l0.lowering.") else None


def lowering_layout_violations(root: Path) -> list[str]:
    """What breaks the stage rules in `root` (a lowering/ directory): a module directly
    under it but `LOWERING_TOP`, a folder that is no stage, an import of a stage above."""
    dirs = {**{k: ROOT / v for k, v in PACKAGE_DIRS.items()}, "l0.lowering": root}
    bad = [f"lowering/{p.name} is directly under lowering/ (put it in its stage's folder)"
           for p in sorted(root.glob("*.py")) if p.name not in LOWERING_TOP]
    bad += [f"lowering/{d.name}/ is not a stage of LOWERING_STAGES"
            for d in sorted(root.iterdir())
            if (d / "__init__.py").is_file() and d.name not in LOWERING_STAGES]
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        stage = rel.parts[0].removesuffix(".py")
        if stage not in LOWERING_STAGES and rel.parts != ("__init__.py",):
            continue
        level = LOWERING_STAGES.index(stage) if stage in LOWERING_STAGES else -1
        for imported in sorted(_resolved_imports(path, dirs)):
            target = _stage_of(imported)
            if target is None or target == stage:
                continue
            if target == "" and level >= LOWERING_STAGES.index("pipeline"):
                continue  # the registry: by name, the passes of every stage below
            if target not in LOWERING_STAGES or LOWERING_STAGES.index(target) > level:
                bad.append(f"lowering/{rel.as_posix()} imports {imported}")
    return bad


def runtime_reaches(root: Path, forbidden: tuple[str, ...] = RUNTIME_MAY_NOT_REACH) -> list[str]:
    """The chains by which the modules of `root`/runtime/ import a `forbidden` package:
    through any of their own imports, then through what the modules they import import
    when imported."""
    dirs = {**{k: ROOT / v for k, v in PACKAGE_DIRS.items()}, "l0.lowering": root}
    start = sorted((root / "runtime").rglob("*.py"))
    todo = [(p, f"lowering/{p.relative_to(root).as_posix()}", False) for p in start]
    seen: set[Path] = set()
    bad = []
    while todo:
        path, chain, import_time = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for imported in sorted(_resolved_imports(path, dirs, import_time=import_time)):
            if imported.split(".")[0] in forbidden:
                bad.append(f"{chain} -> {imported}")
            parts = imported.split(".")
            for n in range(1, len(parts) + 1):  # importing a.b.c runs a and a.b first
                found = _module_file(".".join(parts[:n]), dirs)
                if found is not None:
                    todo.append((found, f"{chain} -> {'.'.join(parts[:n])}", True))
    return bad


def test_lowering_is_by_stage_and_imports_only_downward() -> None:
    assert all((ROOT / "lowering" / s).is_dir() or (ROOT / "lowering" / f"{s}.py").is_file()
               for s in LOWERING_STAGES)
    bad = lowering_layout_violations(ROOT / "lowering")
    assert not bad, "\n".join(bad)


def test_runtime_imports_no_xdsl() -> None:
    bad = runtime_reaches(ROOT / "lowering")
    assert not bad, "\n".join(bad)


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_stage_rules_catch_what_they_forbid(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "__init__.py": "from l0.lowering import pipeline\n",
        "pipeline.py": "from l0.lowering.memory.dealloc import DeallocPass\n",
        "stray.py": "",
        "attic/__init__.py": "",
        "runtime/__init__.py": "",
        "runtime/call.py": "def f():\n    from l0.lowering.llvm import emit\n",
        "memory/__init__.py": "",
        "memory/dealloc/__init__.py": "from l0.lowering.loop_ir import builder\n",
        "memory/plan.py": "from l0.lowering.gpu.kernels import Kernel\n",
        "gpu/__init__.py": "",
        "gpu/entry.py": "from l0.lowering.memory.dealloc import flags\n",
        "llvm/__init__.py": "", "loop_ir/__init__.py": ""})
    assert lowering_layout_violations(root) == [
        "lowering/stray.py is directly under lowering/ (put it in its stage's folder)",
        "lowering/attic/ is not a stage of LOWERING_STAGES",
        "lowering/__init__.py imports l0.lowering.pipeline",
        "lowering/memory/plan.py imports l0.lowering.gpu.kernels",
        "lowering/runtime/call.py imports l0.lowering.llvm",
    ]


def test_the_runtime_rule_follows_imports_to_xdsl(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "__init__.py": "", "loop_ir/__init__.py": "", "runtime/__init__.py": "",
        "runtime/call.py": "def f():\n    import xdsl.ir\n",
        "runtime/abi.py": "from l0.lowering.runtime import call\n"
                          "from l0.lowering.loop_ir import builder\n",
        "runtime/lazy.py": "def f():\n    from l0.lowering.loop_ir import helper, typed\n",
        "loop_ir/builder.py": "from xdsl.ir import Operation\n",
        "loop_ir/helper.py": "def g():\n    import xdsl.ir\n",
        "loop_ir/typed.py": "from typing import TYPE_CHECKING\n"
                            "if TYPE_CHECKING:\n    import xdsl.ir\n"})
    assert sorted(runtime_reaches(root)) == [
        "lowering/runtime/abi.py -> l0.lowering.loop_ir.builder -> xdsl.ir",
        "lowering/runtime/call.py -> xdsl.ir",
    ]


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
