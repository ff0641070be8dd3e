"""The fusion corpus programs reach the structure their test blocks name after -O.

Each program of `test/programs/fusion` with a `// structure { ... }` line (horizontal
fusion, cheap duplication, SOAC splitting, figure 44 of the thesis) must leave exactly
that many SOACs of each kind in the optimised module; the corpus matrix checks their
outputs on every back end.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from l0.bigstack import call_with_big_stack
from l0.testing import spec_of, structure_of

FUSION = Path(__file__).resolve().parents[1] / "programs" / "fusion"
PROGRAMS = sorted(p for p in FUSION.glob("*.l0") if spec_of(p).structure is not None)


def test_there_are_structure_programs() -> None:
    assert len(PROGRAMS) >= 5


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_fused_structure(path: Path) -> None:
    expected = spec_of(path).structure
    assert expected is not None
    counts = call_with_big_stack(lambda: structure_of(path.read_text(encoding="utf-8"),
                                                      str(path)))
    assert {op: counts.get(op, 0) for op in expected} == expected
