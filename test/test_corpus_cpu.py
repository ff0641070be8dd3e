"""The program corpus (`test/programs/`) through the CPU back end (`--backend=cpu`).

Every program with an input and an expected output or error (the l0c test protocol of
`test_corpus.py`) is compiled to native code once and run: the printed result must be
the expected one, and a failing run must fail at the expected location with the
expected phrase, exactly as through the interpreter. The optimisation pipeline is not
run here (it has its own tests); what is tested is bufferisation, the SOAC lowering,
deallocation and code generation on the internaliser's IR.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from l0.api import CompiledProgram
from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error

ROOT = Path(__file__).parent / "programs"


def _runnable(path: Path) -> bool:
    inp, out, err = (path.with_suffix(s) for s in (".in", ".out", ".err"))
    return inp.exists() and (out.exists() or err.exists())


PROGRAMS = [p for p in sorted(ROOT.rglob("*.l0")) if _runnable(p)]


def squash(s: str) -> str:
    return re.sub(r"\s+", "", s)


def compile_cpu(path: Path, optimise: bool = False) -> CompiledProgram:
    text = path.read_text(encoding="utf-8")
    return call_with_big_stack(lambda: CompiledProgram(text, str(path), "cpu",
                                                       optimise=optimise))


@pytest.mark.parametrize("path", PROGRAMS, ids=[str(p.relative_to(ROOT)) for p in PROGRAMS])
def test_program_cpu(path: Path) -> None:
    inp, out, err = (path.with_suffix(s) for s in (".in", ".out", ".err"))
    prog = compile_cpu(path)
    if out.exists():
        actual = prog.run_main(inp.read_text(encoding="utf-8"))
        assert squash(actual) == squash(out.read_text(encoding="utf-8"))
        return
    with pytest.raises(L0Error) as info:
        prog.run_main(inp.read_text(encoding="utf-8"))
    where, _, phrase = err.read_text(encoding="utf-8").strip().partition("error:")
    rendered = info.value.render()
    assert info.value.kind == "runtime-error", rendered
    assert f":{where.strip()} error:" in rendered and phrase.strip() in rendered, rendered
