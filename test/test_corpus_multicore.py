"""The program corpus through the multicore back end with 1, 2 and 3 threads.

The protocol of the corpus (`test/corpus.py`):
every program's printed result must be the expected one, and a failing run must fail
at the expected location with the expected phrase. Three threads on a two-core machine
checks that more threads than cores are still right; one thread runs the chunked forms
with a single chunk, as the sequential back end does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import ROOT, runnable, squash

from l0.api import CompiledProgram
from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error

PROGRAMS = [p.path for p in runnable()]
THREADS = (1, 2, 3)


def compile_multicore(path: Path, threads: int) -> CompiledProgram:
    text = path.read_text(encoding="utf-8")
    return call_with_big_stack(lambda: CompiledProgram(text, str(path), "multicore",
                                                       optimise=False, threads=threads))


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("path", PROGRAMS, ids=[str(p.relative_to(ROOT)) for p in PROGRAMS])
def test_program_multicore(path: Path, threads: int) -> None:
    inp, out, err = (path.with_suffix(s) for s in (".in", ".out", ".err"))
    prog = compile_multicore(path, threads)
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
