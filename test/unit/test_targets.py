"""The back-end registry (`l0.targets`): one record per back end, and no module
outside it that decides by a back end's name (docs/architecture.md §6)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from l0.lowering import LOWERINGS
from l0.passes.pipeline import FLATTENING, TARGET_OPTIONS
from l0.passes.pipeline import TARGETS as PIPELINE_TARGETS
from l0.targets import SHARED_LOWERINGS, TARGETS, TOOLS, Target, _resolve, at_own_level

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("l0", "passes", "lowering", "dialects")
"""The folders whose modules must ask the registry, not compare names."""
REGISTRY = ROOT / "l0" / "targets.py"

NAMES = frozenset(TARGETS) | frozenset(PIPELINE_TARGETS)
"""The back ends' names and the -O pipeline's targets: the words that, compared with,
mean a module decides by back end."""
CHOOSERS = frozenset({"backend", "back_end"})
"""Variables and attributes that hold a back end's name (`args.backend`, `self._backend`);
`target` is not one, a word too common for other things (a pass's `target` op)."""

TABLES_KEYED_BY_PIPELINE_TARGET = {("passes/pipeline.py", "TARGET_OPTIONS"),
                                   ("passes/pipeline.py", "FLATTENING")}
"""Tables keyed by the -O pipeline's targets, allowed outside the registry: the passes'
own cost model (Note [One pipeline per target]); `test_pipeline_tables_name_pipeline_targets`
checks their keys."""


def _chooser(node: ast.expr) -> bool:
    name = node.id if isinstance(node, ast.Name) else \
        node.attr if isinstance(node, ast.Attribute) else None
    return name is not None and name.lstrip("_") in CHOOSERS


def _names_in(node: ast.expr) -> list[str]:
    """The back-end names `node` is or holds (a string, or a tuple, list or set of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in NAMES else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [n for e in node.elts for n in _names_in(e)]
    return []


def decisions_by_name(source: str, where: str) -> list[str]:
    """`where:LINE: what` for each place in `source` that decides by a back end's name:
    a comparison (`==`, `!=`, `in`, `is`) with a back end's name or of a variable
    holding one (`backend == ...`), or a table keyed by back ends' names."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            named = [n for o in operands for n in _names_in(o)]
            if named or any(_chooser(o) for o in operands):
                bad.append(f"{where}:{node.lineno}: compares {ast.unparse(node)}")
        elif isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Dict):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            label = ", ".join(ast.unparse(t) for t in targets)
            if (where, label) in TABLES_KEYED_BY_PIPELINE_TARGET:
                continue
            keys = [n for k in node.value.keys if k is not None for n in _names_in(k)]
            if keys:
                bad.append(f"{where}:{node.lineno}: a table keyed by back ends: {label}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "get" and isinstance(node.func.value, ast.Dict) \
                and any(_names_in(k) for k in node.func.value.keys if k is not None):
            bad.append(f"{where}:{node.lineno}: looks a back end up in a table: "
                       f"{ast.unparse(node)}")
    return bad


def test_no_module_outside_the_registry_decides_by_a_back_ends_name() -> None:
    bad = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == REGISTRY:
                continue
            where = path.relative_to(ROOT).as_posix()
            bad += decisions_by_name(path.read_text(encoding="utf-8"), where)
    assert not bad, "ask the record in l0.targets instead:\n" + "\n".join(bad)


@pytest.mark.parametrize("source", [
    'if backend == "gpu": pass',
    'ok = self._backend in ("cpu", "multicore", "gpu")',
    'x = "multicore" if threads else "cpu"\nif x != "cpu": pass',
    'if args.backend is not None and args.backend != other: pass',
    'if target == "gpu": pass',
    'for b in bs:\n    if b.backend == chosen: pass',
    'PIPELINE = {"gpu-sim": "gpu", "interp": "cpu"}',
    'name = {"gpu-sim": "gpu"}.get(backend, backend)',
])
def test_the_scan_catches_a_decision_by_name(source: str) -> None:
    assert decisions_by_name(source, "m.py")


@pytest.mark.parametrize("source", [
    "if record.threads: pass",
    'if t.device and isinstance(x, Y): pass',
    'TARGETS["gpu"].make_engine(module)',
    'help = "cpu = compiled"',
    'if name == "main": pass',
])
def test_the_scan_lets_records_be_asked(source: str) -> None:
    assert decisions_by_name(source, "m.py") == []


def test_pipeline_tables_name_pipeline_targets() -> None:
    assert set(TARGET_OPTIONS) <= set(PIPELINE_TARGETS)
    assert set(FLATTENING) <= set(PIPELINE_TARGETS)


@pytest.mark.parametrize("record", TARGETS.values(), ids=list(TARGETS))
def test_every_record_is_whole(record: Target) -> None:
    assert record.pipeline in PIPELINE_TARGETS
    assert record.help and not record.help.endswith(".")
    order = list(LOWERINGS)
    assert all(name in LOWERINGS for name in record.lowerings)
    assert [order.index(n) for n in record.lowerings] == sorted(
        order.index(n) for n in record.lowerings)  # in the registry's order
    if record.lowerings:  # a native back end: memory planning first, its own passes last
        assert record.lowerings[:len(SHARED_LOWERINGS)] == SHARED_LOWERINGS
        own = record.own_lowerings
        assert record.lowerings[len(record.lowerings) - len(own):] == own
    for path in (record.engine, record.loader, record.cache_facts, record.unavailable_check):
        if path is not None:
            assert callable(_resolve(path)), path
    assert record.cache_facts is None or record.loader is not None
    assert record.dask_kernels.distributed


def test_every_tool_lists_back_ends_of_the_registry() -> None:
    from l0.api import BACKENDS
    from l0.cli import compile as compile_cli
    from l0.cli import opt, run

    assert BACKENDS == run.BACKENDS == tuple(TARGETS) == TOOLS["l0-run --backend"]
    assert opt.BACKEND_TARGETS == TOOLS["l0-opt --target"]
    assert compile_cli.BACKENDS == TOOLS["l0 compile --backend"]
    assert all(set(names) <= set(TARGETS) and names for names in TOOLS.values())


def test_docs_tools_lists_the_back_ends_of_every_tool() -> None:
    """docs/tools.md's table "Back ends by tool" is `TOOLS`, row for row."""
    text = (ROOT / "docs" / "tools.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([^`]+)` \| ([^|]+) \|$", text, re.MULTILINE))
    assert {tool: tuple(re.findall(r"`([^`]+)`", rows.get(tool, ""))) for tool in TOOLS} \
        == TOOLS


def test_docs_architecture_draws_every_back_ends_passes() -> None:
    """docs/architecture.md §3 draws each back end's pipeline: its flattening passes and
    its lowerings (by pass name or module name), `segment-reductions` where the record
    runs it."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawing = text[text.index("## 3."):text.index("## 4.")]
    drawn: set[str] = set()
    for record in TARGETS.values():
        drawn |= {*FLATTENING.get(record.pipeline, ()), *record.lowerings}
        if record.segmented is not None:
            drawn.add("segment-reductions")
        assert record.name in drawing
    missing = sorted(name for name in drawn
                     if name not in drawing and name.replace("-", "_") not in drawing)
    assert missing == []


def test_the_registry_imports_nothing_else() -> None:
    """`l0-run --help` and a compile-cache hit import `l0.targets`: it must stay light."""
    code = ("import sys, l0.targets; print(sorted(m for m in sys.modules "
            "if m.startswith(('l0', 'xdsl', 'llvmlite', 'numpy'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "['l0', 'l0.targets']"


def test_an_unknown_back_end_is_a_clear_error() -> None:
    from l0.targets import target

    with pytest.raises(ValueError, match="unknown back end 'tpu' \\(available: cpu, "):
        target("tpu")


def test_ir_at_a_back_ends_own_level_names_it() -> None:
    """`l0-opt` knows omp-level IR by the record's `own_ops`, not by a name of its own."""
    assert at_own_level(["func.func", "omp.parallel", "omp.wsloop"]) is TARGETS["multicore"]
    assert at_own_level(["func.func", "scf.parallel", "memref.alloc"]) is None
    assert [t.name for t in TARGETS.values() if t.own_ops is not None] == ["multicore"]


# -- a back end's lowering steps, and engines made from a module already lowered -------

ROWS = """
fun [int] main([int] xs) = map(fn int (int x) => reduce(op +, 0, iota(x)), xs)
"""


def _rows_module():  # noqa: ANN202 (xDSL's ModuleOp)
    from l0.bigstack import call_with_big_stack
    from l0.frontend import load_program, to_module

    return call_with_big_stack(lambda: to_module(load_program(ROWS, "rows.l0")))


def test_lower_runs_the_steps_of_the_back_end() -> None:
    """`steps` is what `lower` runs (its options and `segment-reductions` included):
    applied by hand they make the same module; gpu and gpu-sim agree up to gpu-sim's
    last step, cpu and multicore from `segment-reductions` on no longer."""
    from l0.dialects.context import l0_context
    from l0.lowering.pipeline import hide_all_but, lower, steps

    module = _rows_module()
    by_hand = module.clone()
    hide_all_but(by_hand, ["main"])
    for step in steps("gpu-sim"):
        step.apply(l0_context(), by_hand)
    assert str(by_hand) == str(lower(module, entries=["main"], target="gpu-sim"))
    assert steps("gpu-sim")[:-1] == steps("gpu")
    assert steps("gpu-sim")[-1].name == "convert-gpu-to-sim"
    cpu, multicore = steps("cpu"), steps("multicore")
    assert cpu[:2] == multicore[:2] and multicore[2].name == "segment-reductions"
    assert [s.name for s in steps("cpu", simd=False)] == [
        n for n in TARGETS["cpu"].lowerings if n != "simd-map"]


@pytest.mark.parametrize("backend", ["cpu", "multicore", "gpu-sim"])
def test_an_engine_from_a_lowered_module_lowers_nothing(
        backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`make_engine(module, lowered=...)` compiles the module given as it is (lowering
    again fails here) and runs as the interpreter does."""
    from l0.lowering import pipeline

    module = _rows_module()
    record = TARGETS[backend]
    done = pipeline.lower(module, entries=["main"], target=record)

    def no_lowering(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("lowered again")

    monkeypatch.setattr(pipeline, "lower", no_lowering)
    engine = record.make_engine(module, entries=["main"], lowered=done,
                                threads=2 if record.threads else None)
    xs = [0, 1, 4, 7]
    reference = TARGETS["interp"].make_engine(module, lowered=done)
    assert [int(v) for v in engine.call("main", [xs])[0]] == [
        int(v) for v in reference.call("main", [xs])[0]] == [0, 0, 6, 21]
