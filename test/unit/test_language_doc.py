"""Every example of docs/language.md runs as its test block says.

Each ```l0 block of the guide is a whole program with a `// ==` test block (inputs
with their outputs or errors, or an expected compile-time error; docs/tools.md). The
block is written to a file and checked by `l0.testing.check_program` on both back ends,
so the guide cannot drift from what the compiler does.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from l0.testing import check_program, spec_of

DOC = Path(__file__).resolve().parents[2] / "docs" / "language.md"
BLOCKS = re.findall(r"^```l0\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.M | re.S)


def test_the_guide_has_examples() -> None:
    assert len(BLOCKS) >= 20


@pytest.mark.parametrize("backend", ["cpu", "interp"])
@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example(index: int, backend: str, tmp_path: Path) -> None:
    prog = tmp_path / f"example{index + 1}.l0"
    prog.write_text(BLOCKS[index], encoding="utf-8")
    spec = spec_of(prog)
    assert spec.runs or spec.compile_error, "an example needs an input and output, or an error"
    verdict = check_program(prog, backend)
    assert verdict.passed, f"example {index + 1}: {verdict.message}"
