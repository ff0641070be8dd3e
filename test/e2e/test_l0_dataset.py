"""`l0 dataset`: random values of L0 types and conversions between text and binary
(in this process through `main`; stdin and stdout as byte streams)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest

from l0.cli.tool import main
from l0.types import ArrayType, Basic, BasicType
from l0.values import read_values
from l0.values.binary import write_binary

INT, REAL, BOOL, CHAR = (BasicType(k) for k in (Basic.INT, Basic.REAL, Basic.BOOL, Basic.CHAR))


class Bytes(io.TextIOWrapper):
    """A text stream over bytes, with `.buffer`, as sys.stdin and sys.stdout have."""

    def __init__(self, data: bytes = b"") -> None:
        super().__init__(io.BytesIO(data), encoding="utf-8")

    def written(self) -> bytes:
        self.flush()
        return self.buffer.getvalue()  # type: ignore[attr-defined]


def dataset(args: list[str], stdin: bytes = b"", monkeypatch=None) -> tuple[int, bytes]:
    out = Bytes()
    monkeypatch.setattr(sys, "stdin", Bytes(stdin))
    monkeypatch.setattr(sys, "stdout", out)
    with pytest.raises(SystemExit) as info:
        main(["dataset", *args])
    return int(info.value.code or 0), out.written()


def test_generate_text(monkeypatch) -> None:
    status, out = dataset(["-g", "[[real]]:3x4", "-g", "int", "-g", "[bool]:5", "-g",
                           "[char]:6", "--int-bounds=-5:5"], monkeypatch=monkeypatch)
    assert status == 0
    m, k, b, c = read_values(out.decode(), [ArrayType(REAL, 2), INT, ArrayType(BOOL, 1),
                                            ArrayType(CHAR, 1)])
    assert m.shape == (3, 4) and ((0 <= m) & (m <= 1)).all()
    assert -5 <= k <= 5 and b.shape == (5,) and c.shape == (6,)
    assert ((32 <= c) & (c <= 126)).all()


def test_generate_binary_is_deterministic_per_seed(monkeypatch) -> None:
    args = ["-g", "[[real]]:100x10", "-b", "--real-bounds=-2.5:2.5"]
    _, first = dataset(args, monkeypatch=monkeypatch)
    _, again = dataset(args, monkeypatch=monkeypatch)
    _, other = dataset([*args, "-s", "7"], monkeypatch=monkeypatch)
    assert first == again != other
    (m,) = read_values(first, [ArrayType(REAL, 2)])
    assert m.shape == (100, 10) and m.min() >= -2.5 and m.max() <= 2.5 and m.std() > 0.5
    assert first[:7] == b"b\x02\x02 f64"


def test_convert_text_to_binary_and_back(monkeypatch) -> None:
    text = b"[[1, 2], [3, 4]] 2.5 // a comment\n\"hi\""
    status, binary = dataset(["-b", "-t", "[[int]]", "-t", "{real, [char]}"], text,
                             monkeypatch=monkeypatch)
    assert status == 0
    assert binary == (write_binary(ArrayType(INT, 2), np.array([[1, 2], [3, 4]]))
                      + write_binary(REAL, 2.5) + write_binary(ArrayType(CHAR, 1),
                                                               np.array([104, 105])))
    status, back = dataset(["-t", "[[int]]", "-t", "real", "-t", "[char]"], binary,
                           monkeypatch=monkeypatch)
    assert status == 0 and back == b"[[1, 2], [3, 4]]\n2.5\n\"hi\"\n"


def test_types_of_a_programs_main(tmp_path: Path, monkeypatch) -> None:
    prog = tmp_path / "p.l0"
    prog.write_text("fun int main([{int, bool}] a, real x) = 0")
    status, out = dataset(["--for", str(prog), "-b"], b"[1, 2] [True, False] 1.0",
                          monkeypatch=monkeypatch)
    assert status == 0
    got = read_values(out, [ArrayType(INT, 1), ArrayType(BOOL, 1), REAL])
    assert got[2] == 1.0 and list(got[1]) == [True, False]


@pytest.mark.parametrize("args,message", [
    ([], "give one of"),
    (["-g", "int", "-t", "int"], "give one of"),
    (["-g", "[[rea"], "-g [[rea: unexpected token"),
    (["-g", "[int]:3x4"], "needs 1 dimension(s), found 2"),
    (["-g", "[int]:-5"], "-g [int]:-5: a dimension cannot be negative, found -5"),
    (["-g", "[[int]]:2x-1"], "a dimension cannot be negative, found -1"),
    (["-g", "[int]:ax3"], "dimensions are written NxM"),
    (["-g", "{int, int}"], "only basic types and arrays of them"),
    (["-g", "cert"], "cert has only the value Checked"),
    (["-g", "int", "--int-bounds", "5:1"], "--int-bounds needs LO:HI with LO <= HI"),
    (["-g", "real", "--real-bounds", "x"], "--real-bounds needs LO:HI"),
])
def test_bad_arguments(args: list[str], message: str, capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", Bytes())
    with pytest.raises(SystemExit) as info:
        main(["dataset", *args])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_bad_input_values(capsys, monkeypatch) -> None:
    status, _ = dataset(["-t", "[int]"], b"[1, 2.5]", monkeypatch=monkeypatch)
    assert status == 2
    assert capsys.readouterr().err.startswith("<stdin>:1:5: error: expected a value of type int")
    status, _ = dataset(["-t", "cert", "-b"], b"Checked", monkeypatch=monkeypatch)
    assert status == 2 and "cert have no binary form" in capsys.readouterr().err
