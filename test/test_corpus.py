"""The program corpus (`test/programs/`) in the l0c test protocol, run in-process.

`X.l0` + `X.in` + `X.out`: `main` on the input prints the expected output (whitespace ignored).
`X.l0` + `X.in` + `X.err`: running fails; `.err` is `LINE:COL: error: PHRASE`, the error's
location and a phrase its message contains.
`X.l0` + `X.in`: the program compiles.
`X.l0` alone: compilation fails; a first line `// error: KIND` names the expected error kind.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from l0.api import CompiledProgram
from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error

ROOT = Path(__file__).parent / "programs"
PROGRAMS = sorted(ROOT.rglob("*.l0"))


def _squash(s: str) -> str:
    return re.sub(r"\s+", "", s)


def _compile(path: Path) -> CompiledProgram:
    return call_with_big_stack(
        lambda: CompiledProgram(path.read_text(encoding="utf-8"), str(path), "interp")
    )


@pytest.mark.parametrize("path", PROGRAMS, ids=[str(p.relative_to(ROOT)) for p in PROGRAMS])
def test_program(path: Path) -> None:
    inp, out, err = (path.with_suffix(s) for s in (".in", ".out", ".err"))
    if not inp.exists():
        with pytest.raises(L0Error) as info:
            _compile(path)
        first = path.read_text(encoding="utf-8").splitlines()[0]
        m = re.match(r"//\s*error:\s*([a-z-]+)", first)
        if m:
            assert info.value.kind == m.group(1), info.value.render()
        return
    prog = _compile(path)
    if out.exists():
        actual = prog.run_main(inp.read_text(encoding="utf-8"))
        assert _squash(actual) == _squash(out.read_text(encoding="utf-8"))
    elif err.exists():
        with pytest.raises(L0Error) as info:
            prog.run_main(inp.read_text(encoding="utf-8"))
        # `.err` is `LINE:COL: error: PHRASE`: the location must match, the phrase occur.
        where, _, phrase = err.read_text(encoding="utf-8").strip().partition("error:")
        rendered = info.value.render()
        assert f":{where.strip()} error:" in rendered and phrase.strip() in rendered, rendered
