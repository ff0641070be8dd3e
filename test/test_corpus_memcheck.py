"""The program corpus through the CPU back end on the checking heap (the memory checker).

Every runnable program of `test/programs/` is compiled with the default pipeline (the
path `l0-run` takes) and with none, its code allocating through
`l0.lowering.checked_memory`: fresh buffers hold garbage, freed ones are poisoned and
never reused. The result must still be the expected one (a read of freed or
uninitialised memory shows up as a wrong result), no free may be of a buffer that is
not live (double frees), and every buffer must be freed once the result is printed
(leaks). `make memcheck` runs this file alone.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from l0.lowering import checked_memory
from test_corpus_cpu import PROGRAMS as RUNNABLE
from test_corpus_cpu import ROOT, compile_cpu, squash

from l0.diagnostics import L0Error

PROGRAMS = [p for p in RUNNABLE if p.with_suffix(".out").exists()]
FAULTS = [p for p in RUNNABLE if p.with_suffix(".err").exists()]


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(checked_memory.ENV, "1")
    checked_memory.reset_problems()


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in paths]


@pytest.mark.parametrize("optimise", [True, False], ids=["O", "O0"])
@pytest.mark.parametrize("path", PROGRAMS, ids=_ids(PROGRAMS))
def test_program_memcheck(path: Path, optimise: bool, checked: None) -> None:
    prog = compile_cpu(path, optimise)
    gc.collect()
    before = checked_memory.live()
    actual = prog.run_main(path.with_suffix(".in").read_text(encoding="utf-8"))
    gc.collect()
    assert squash(actual) == squash(path.with_suffix(".out").read_text(encoding="utf-8"))
    assert checked_memory.problems() == []
    assert checked_memory.live() == before, "buffers leaked"


@pytest.mark.parametrize("path", FAULTS, ids=_ids(FAULTS))
def test_fault_memcheck(path: Path, checked: None) -> None:
    """A run that fails must fail the same way, and free nothing twice on the way out."""
    prog = compile_cpu(path, True)
    with pytest.raises(L0Error) as info:
        prog.run_main(path.with_suffix(".in").read_text(encoding="utf-8"))
    assert info.value.kind == "runtime-error", info.value.render()
    assert checked_memory.problems() == []


def test_checker_sees_use_after_free(checked: None) -> None:
    """The checker itself: a freed buffer reads as poison, a second free is reported."""
    import ctypes

    ptr = checked_memory._alloc(64, 64)
    assert ctypes.string_at(ptr, 4) == bytes([checked_memory.FRESH]) * 4
    checked_memory.free(ptr)
    assert ctypes.string_at(ptr, 4) == bytes([checked_memory.FREED]) * 4
    checked_memory.free(ptr)
    assert len(checked_memory.problems()) == 1
    checked_memory.reset_problems()
