"""`l0 check`: parse and type check only, errors located, exit status 0 or 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from l0.cli.tool import main

CORPUS = Path(__file__).resolve().parents[1] / "programs"


def l0_check(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(["check", *args])
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


def test_correct_programs_print_nothing(capsys) -> None:
    programs = [str(p) for p in sorted((CORPUS / "soacs").glob("*.l0"))[:5]]
    assert l0_check(programs, capsys) == (0, "", "")


def test_errors_are_located_and_every_program_is_checked(tmp_path: Path, capsys) -> None:
    (tmp_path / "bad.l0").write_text("fun int main(int x) =\n  x + True\n")
    (tmp_path / "parse.l0").write_text("fun int main(int x) = x +\n")
    ok = tmp_path / "ok.l0"
    ok.write_text("fun int main(int x) = x\n")
    status, out, err = l0_check([str(tmp_path / "bad.l0"), str(ok), str(tmp_path / "parse.l0"),
                                 str(tmp_path / "none.l0")], capsys)
    assert (status, out) == (2, "")
    lines = err.splitlines()
    assert lines[0] == (f"{tmp_path / 'bad.l0'}:2:7: error: right operand of '+' must be of "
                        "type int or real, but is of type bool")
    assert lines[2:4] == ["2 |   x + True", "  |       ^^^^"]
    parse_error = f"{tmp_path / 'parse.l0'}:1:26: error: unexpected end of file"
    assert any(line.startswith(parse_error) for line in lines)
    assert lines[-1] == f"{tmp_path / 'none.l0'}:1:1: error: cannot read program: " \
                        "No such file or directory"


def test_uniqueness_is_checked(capsys) -> None:
    program = CORPUS / "uniqueness" / "error_alias_let.l0"
    status, _, err = l0_check([str(program)], capsys)
    assert status == 2 and "error:" in err
    assert l0_check(["--inhibit-uniqueness-checking", str(program)], capsys)[0] == 0


def test_as_a_command(tmp_path: Path) -> None:
    (tmp_path / "p.l0").write_text("fun int main() = y\n")
    l0 = Path(sys.executable).with_name("l0")
    done = subprocess.run([str(l0), "check", str(tmp_path / "p.l0")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{tmp_path / 'p.l0'}:1:18: error: unknown variable 'y'" in done.stderr
