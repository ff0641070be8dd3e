"""`docs/passes.md` is generated from the registries; it must match the code."""

from __future__ import annotations

from pathlib import Path

from l0.passdocs import render

DOCS = Path(__file__).resolve().parents[2] / "docs" / "passes.md"


def test_pass_docs_are_up_to_date() -> None:
    assert DOCS.read_text(encoding="utf-8") == render(), (
        "docs/passes.md is stale: run `python -m l0.passdocs > docs/passes.md`"
    )


def test_every_pass_has_a_lit_test() -> None:
    from l0.lowering import LOWERINGS
    from l0.passes import PASSES

    lit = Path(__file__).resolve().parents[1] / "lit"
    names = {p.name for p in lit.rglob("*.mlir")} | {p.name for p in lit.rglob("*.l0")}
    missing = [
        n for n in (*PASSES, *LOWERINGS)
        if not any(f.startswith(n) for f in names)
    ]
    assert not missing, f"passes without test/lit/**/<name>*.mlir: {missing}"
