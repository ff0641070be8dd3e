"""`l0 bench`: datasets, timing statistics, the JSON of `futhark bench`'s shape, and
`--compare` (in this process through `main`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from l0.cli.bench import summary
from l0.cli.tool import main

PROG = """\
// ==
// input { [1, 2, 3] }
// output { 17 }
// input { [4] } output { 25 }
// input { empty(int) } error: index
fun int main(*[int] a) =
  let a[0] = a[0] + 1 in     // in place: every run needs a fresh copy of the input
  reduce(op +, 0, map(fn int (int x) => x * x, a))
"""


def l0(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(args)
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    path = tmp_path / "sq.l0"
    path.write_text(PROG)
    return path


def test_datasets_of_the_test_block_and_the_in_file(prog: Path, capsys) -> None:
    prog.with_suffix(".in").write_text("[5, 5]")
    report = prog.parent / "r.json"
    status, out, _ = l0(["bench", "-r", "3", "--json", str(report), str(prog)], capsys)
    assert status == 0, out
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["#1 ([1, 2, 3])", "#2 ([4])", "sq.in"]
    doc = json.loads(report.read_text())
    sets = doc[str(prog)]["datasets"]
    assert list(sets) == ["#1 ([1, 2, 3])", "#2 ([4])", "sq.in"]
    for d in sets.values():
        assert len(d["runtimes"]) == 3 and all(isinstance(t, int) for t in d["runtimes"])
        assert d["min"] <= d["median"] <= d["max"]


def test_wrong_output_is_reported(prog: Path, capsys) -> None:
    prog.write_text(PROG.replace("output { 25 }", "output { 26 }"))
    status, out, _ = l0(["bench", "-r", "1", "--backend", "interp", str(prog)], capsys)
    assert status == 1
    assert "wrong output: expected 26, got 25" in out


def test_datasets_directory(prog: Path, tmp_path: Path, capsys) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "small.in").write_text("[2]")
    (data / "small.out").write_text("9")
    (data / "big.in").write_text(str(list(range(1000))))
    status, out, _ = l0(["bench", "-r", "2", "--datasets", str(data), str(prog)], capsys)
    assert status == 0, out
    assert [line.split(":")[0] for line in out.splitlines()] == ["big.in", "small.in"]


def test_summary_statistics() -> None:
    s = summary([30, 10, 20, 40])
    assert (s["min"], s["median"], s["max"], s["mean"]) == (10, 25, 40, 25)
    assert s["stddev"] == pytest.approx(11.1803, rel=1e-4)


def test_compare(tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"p.l0": {"datasets": {"x": {"runtimes": [100, 300]},
                                                   "y": {"runtimes": [5]}}}}))
    b.write_text(json.dumps({"p.l0": {"datasets": {"x": {"runtimes": [50, 50]},
                                                   "z": {"runtimes": [5]}}}}))
    status, out, _ = l0(["bench", "--compare", str(a), str(b)], capsys)
    assert status == 0
    assert out.splitlines() == ["p.l0 x: 200us -> 50us, x4.00", f"p.l0 y: only in {a}",
                                f"p.l0 z: only in {b}"]


def test_compare_rejects_what_is_not_a_result(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"p.l0": [1, 2]}')
    status, _, err = l0(["bench", "--compare", str(bad), str(bad)], capsys)
    assert status == 2 and "is not a benchmark result" in err
    status, _, err = l0(["bench", "--compare", str(tmp_path / "none.json"), str(bad)], capsys)
    assert status == 2 and "cannot read" in err


@pytest.mark.parametrize("args,message", [
    (["bench"], "a program to benchmark is needed"),
    (["bench", "-r", "0", "x.l0"], "-r needs a positive number"),
    (["bench", "x.l0", "--compare", "a", "b"], "not both"),
    (["bench", "--backend", "tpu", "x.l0"], "invalid choice"),
])
def test_bad_arguments(args: list[str], message: str, capsys) -> None:
    status, _, err = l0(args, capsys)
    assert status == 2 and message in err


def test_errors_in_the_program_or_its_data(tmp_path: Path, capsys) -> None:
    status, _, err = l0(["bench", str(tmp_path / "none.l0")], capsys)
    assert status == 2 and "cannot read program" in err
    p = tmp_path / "p.l0"
    p.write_text("fun int main(int x) = x")
    status, _, err = l0(["bench", str(p)], capsys)
    assert status == 2 and "no datasets" in err
    p.with_suffix(".in").write_text("1.5")
    status, _, err = l0(["bench", str(p)], capsys)
    assert status == 2 and "<p.in>:1:1: error: expected a value of type int" in err


def test_binary_datasets(prog: Path, tmp_path: Path, capsys) -> None:
    import numpy as np

    from l0.types import ArrayType, Basic, BasicType
    from l0.values.binary import write_binary

    data = tmp_path / "data"
    data.mkdir()
    (data / "ones.in").write_bytes(write_binary(ArrayType(BasicType(Basic.INT), 1),
                                                np.ones(1000, dtype=np.int64)))
    (data / "ones.out").write_text("1003")
    status, out = l0(["bench", "-r", "2", "--datasets", str(data), str(prog)], capsys)[:2]
    assert status == 0 and out.startswith("ones.in: "), out


def test_a_file_of_the_test_block_names_its_dataset(tmp_path: Path, capsys) -> None:
    (tmp_path / "big.in").write_text(str(list(range(100))))
    prog = tmp_path / "p.l0"
    prog.write_text("// ==\n// input @ big.in\n// output { 4950 }\n"
                    "fun int main([int] a) = reduce(op +, 0, a)\n")
    prog.with_suffix(".in").write_text("[1]")
    status, out, _ = l0(["bench", "-r", "1", str(prog)], capsys)
    assert status == 0, out
    assert [line.split(":")[0] for line in out.splitlines()] == ["big.in", "p.in"]


def test_random_datasets(tmp_path: Path, capsys) -> None:
    prog = tmp_path / "p.l0"
    prog.write_text("// ==\n// random input { [int]:1000 }\n"
                    "fun int main([int] a) = reduce(op +, 0, a)\n")
    status, out, _ = l0(["bench", "-r", "2", str(prog)], capsys)
    assert status == 0, out
    assert out.startswith("#1 (random [int]:1000): ")
