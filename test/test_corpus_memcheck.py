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
import re
from pathlib import Path

import pytest
from l0.lowering import checked_memory

from l0.api import CompiledProgram
from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error

ROOT = Path(__file__).parent / "programs"

PROGRAMS = [p for p in sorted(ROOT.rglob("*.l0"))
            if p.with_suffix(".in").exists() and p.with_suffix(".out").exists()]
FAULTS = [p for p in sorted(ROOT.rglob("*.l0"))
          if p.with_suffix(".in").exists() and p.with_suffix(".err").exists()]


def _squash(s: str) -> str:
    return re.sub(r"\s+", "", s)


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(checked_memory.ENV, "1")
    checked_memory.reset_problems()


def _compile(path: Path, optimise: bool) -> CompiledProgram:
    text = path.read_text(encoding="utf-8")
    return call_with_big_stack(lambda: CompiledProgram(text, str(path), "cpu",
                                                       optimise=optimise))


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in paths]


@pytest.mark.parametrize("optimise", [True, False], ids=["O", "O0"])
@pytest.mark.parametrize("path", PROGRAMS, ids=_ids(PROGRAMS))
def test_program_memcheck(path: Path, optimise: bool, checked: None) -> None:
    prog = _compile(path, optimise)
    gc.collect()
    before = checked_memory.live()
    actual = prog.run_main(path.with_suffix(".in").read_text(encoding="utf-8"))
    gc.collect()
    assert _squash(actual) == _squash(path.with_suffix(".out").read_text(encoding="utf-8"))
    assert checked_memory.problems() == []
    assert checked_memory.live() == before, "buffers leaked"


@pytest.mark.parametrize("path", FAULTS, ids=_ids(FAULTS))
def test_fault_memcheck(path: Path, checked: None) -> None:
    """A run that fails must fail the same way, and free nothing twice on the way out."""
    prog = _compile(path, True)
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
