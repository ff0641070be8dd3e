"""`l0 test`: the verdicts of the project's corpus, test blocks in programs, and the
command's summary, JSON and exit statuses (run in this process through `main`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from l0.cli.testcmd import run_tests
from l0.cli.tool import main
from l0.testing import (
    ErrorSpec,
    SpecError,
    Tolerance,
    _error_words,
    check_program,
    protocol_of,
    spec_of,
)

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "test" / "programs"


def l0(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(args)
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


# -- the corpus: the same verdicts as its own tests, which all pass --------------------


@pytest.mark.parametrize("directory,backend", [
    ("errors", "interp"), ("runtime", "interp"), ("tuples", "interp"), ("runtime", "cpu"),
    ("uniqueness", "cpu"),
])
def test_corpus_directories_pass(directory: str, backend: str) -> None:
    programs = sorted((CORPUS / directory).rglob("*.l0"))
    verdicts = run_tests([(p, backend) for p in programs], optimise=True, workers=1)
    assert [v.message for v in verdicts if not v.passed] == []
    assert len(verdicts) == len(programs) > 5


def _copy(name: str, tmp_path: Path) -> Path:
    """A corpus program with its sibling files, copied into `tmp_path`."""
    src = CORPUS / name
    for sibling in src.parent.glob(src.stem + ".*"):
        shutil.copy(sibling, tmp_path / sibling.name)
    return tmp_path / src.name


def test_wrong_output_fails(tmp_path: Path) -> None:
    prog = _copy("soacs/reduce_noncomm.l0", tmp_path)
    out = prog.with_suffix(".out")
    out.write_text(out.read_text().replace("1", "2", 1))
    v = check_program(prog, "interp")
    assert not v.passed and v.message.startswith("reduce_noncomm.in: expected ")


def test_wrong_runtime_error_location_fails(tmp_path: Path) -> None:
    prog = _copy("runtime/div_zero.l0", tmp_path)
    err = prog.with_suffix(".err")
    line, col, rest = err.read_text().split(":", 2)
    err.write_text(f"{int(line) + 1}:{col}:{rest}")
    v = check_program(prog, "cpu")
    assert not v.passed and "expected an error at" in v.message


def test_wrong_compile_error_kind_fails(tmp_path: Path) -> None:
    prog = _copy("errors/unknown_variable.l0", tmp_path)
    text = prog.read_text().splitlines()
    assert text[0].startswith("// error: ")
    prog.write_text("\n".join(["// error: parse-error", *text[1:]]) + "\n")
    v = check_program(prog, "interp", protocol="2014")  # the copy has no marker file
    assert not v.passed and "expected an error of kind parse-error" in v.message


def test_compile_only_program_that_fails_to_compile(tmp_path: Path) -> None:
    (tmp_path / "p.l0").write_text("fun int main() = x")
    (tmp_path / "p.in").write_text("")
    v = check_program(tmp_path / "p.l0", "interp")
    assert not v.passed and v.message.startswith("compilation failed: ")


# -- test blocks ----------------------------------------------------------------------

BLOCK = """\
// ==
// input { [1, 2, 3] }
// output { 14 }
// input {
//   [4]
// }
// output { 16 }
// input { empty(int) } output { 0 }
// structure { map 0 redomap 1 }
fun int main([int] a) = reduce(op +, 0, map(fn int (int x) => x * x, a))
"""


def test_block_inputs_outputs_and_structure(tmp_path: Path) -> None:
    prog = tmp_path / "sq.l0"
    prog.write_text(BLOCK)
    spec = spec_of(prog)
    assert [(c.input.strip(), c.output) for c in spec.runs] == [
        (b"[1, 2, 3]", " 14 "), (b"[4]", " 16 "), (b"empty(int)", " 0 ")]
    assert spec.structure == {"map": 0, "redomap": 1}
    for backend in ("cpu", "interp"):
        assert check_program(prog, backend).passed


def test_block_structure_mismatch(tmp_path: Path) -> None:
    prog = tmp_path / "sq.l0"
    prog.write_text(BLOCK.replace("map 0 redomap 1", "map 1 redomap 1"))
    v = check_program(prog, "interp")
    assert v.message == "structure: map 0 (expected 1)"
    prog.write_text(BLOCK.replace("map 0 redomap 1", "map 0 redomap 0"))  # more than said
    assert check_program(prog, "interp").message == "structure: redomap 1 (expected 0)"


EXP_BLOCK = """\
// ==
// input { [1.0, 2.0] [0.5] } output { {[[2.000000], [4.000000]], [[2.000000, 3.000000]]} }
// structure { map 6 }
// structure gpu { map 4 }
fun {[[real]], [[real]]} main([real] xs, [real] ys) =
  let v = map(fn [real] (real x) => map(fn real (real y) => exp(log(x) + 0.0 * y), ys), xs) in
  let a = map(fn [real] (int i) =>
                map(fn real (int j) => v[i, j] * 2.0, iota(size(0, ys))),
              iota(size(0, xs))) in
  let b = map(fn [real] (int j) =>
                map(fn real (int i) => v[i, j] + 1.0, iota(size(0, xs))),
              iota(size(0, ys))) in
  {a, b}
"""
"""A map of maps costing a log and an exp per element, read at their positions by two
consumers of different shapes (so never merged into one reader): the gpu target's -O
recomputes it in both, the cpu's keeps it (Note [One pipeline per
target])."""


def test_block_structure_per_target(tmp_path: Path) -> None:
    prog = tmp_path / "exp.l0"
    prog.write_text(EXP_BLOCK)
    spec = spec_of(prog)
    assert spec.structure_for("cpu") == spec.structure_for("multicore") == {"map": 6}
    assert spec.structure_for("gpu") == {"map": 4}
    for backend in ("interp", "gpu-sim"):  # optimised as cpu, as gpu
        assert check_program(prog, backend).passed, check_program(prog, backend).message
    prog.write_text(EXP_BLOCK.replace("gpu { map 4 }", "gpu { map 6 }"))
    assert check_program(prog, "interp").passed
    assert check_program(prog, "gpu-sim").message == "structure: map 4 (expected 6)"


def test_block_runtime_error_and_file_input(tmp_path: Path) -> None:
    (tmp_path / "big.in").write_text("[5, 6]\n3\n")
    prog = tmp_path / "idx.l0"
    prog.write_text("// ==\n// input @ big.in\n// error: runtime-error 5:3 index 3\n"
                    "fun int main([int] a, int i) =\n  a[i]\n")
    assert check_program(prog, "cpu").passed
    prog.write_text(prog.read_text().replace("5:3", "5:4"))
    assert "expected an error at 5:4" in check_program(prog, "cpu").message


def test_block_compile_error_with_location(tmp_path: Path) -> None:
    prog = tmp_path / "bad.l0"
    prog.write_text("// ==\n// error: unexpected-type 3:12\nfun bool main(bool p) =\n"
                    "  let q = p < True in q\n")
    v = check_program(prog, "interp")
    assert not v.passed and "expected an error at 3:12" in v.message
    prog.write_text(prog.read_text().replace("3:12", "4:11"))
    assert check_program(prog, "interp").passed


def test_error_words() -> None:
    assert _error_words(" type-error 3:4 bad thing") == ErrorSpec("type-error", 3, 4, "bad thing")
    assert _error_words(" index") == ErrorSpec(phrase="index")
    assert _error_words(" 7:1") == ErrorSpec(line=7, col=1)


@pytest.mark.parametrize("block,message", [
    ("// random { 1 }\n", "expected `input` after `random`"),
    ("// random input { [int]:2x3 }\n", "needs 1 dimension"),
    ("// output { 1 }\n", "output without an input"),
    ("// input { 1 } output { 1\n", "unbalanced"),
    ("// frobnicate { 1 }\n", "unknown entry"),
    ("// structure { map }\n", "pairs"),
    ("// structure tpu { map 1 }\n", "unknown target `tpu` after structure"),
    ("// input @ nowhere.in output { 1 }\n", "cannot read nowhere.in"),
])
def test_malformed_blocks_fail_the_program(tmp_path: Path, block: str, message: str) -> None:
    prog = tmp_path / "p.l0"
    prog.write_text("// ==\n" + block + "fun int main(int x) = x\n")
    with pytest.raises(SpecError, match=message):
        spec_of(prog)
    v = check_program(prog, "interp")
    assert not v.passed and message in v.message


@pytest.mark.parametrize("block,message", [
    ("// input { [1, 2, 3]\n//  output { 6 }\n", "test block: 2:10: unbalanced `{`"),
    ("// input { 1 }\n//    output { 6\n", "test block: 3:14: unbalanced `{`"),
    ("// input { 1 }\n//   output 1\n", "test block: 3:13: expected `{`"),
    ("// input { 1 }\n//   frob { 1 }\n", "test block: 3:6: unknown entry 'frob'"),
])
def test_malformed_blocks_are_located(tmp_path: Path, block: str, message: str) -> None:
    """Errors in a test block give the line and column in the program's file."""
    prog = tmp_path / "p.l0"
    prog.write_text("// ==\n" + block + "fun int main(int x) = x\n")
    with pytest.raises(SpecError) as info:
        spec_of(prog)
    assert str(info.value).startswith(message)


# -- the command ----------------------------------------------------------------------


def test_command_summary_json_and_status(tmp_path: Path, capsys) -> None:
    (tmp_path / "good.l0").write_text(BLOCK)
    (tmp_path / "bad.l0").write_text("// ==\n// input { 1 } output { 2 }\n"
                                     "fun int main(int x) = x\n")
    report = tmp_path / "r.json"
    status, out, _ = l0(["test", "-j", "1", "--backend", "cpu", "--backend", "interp",
                         "--json", str(report), str(tmp_path)], capsys)
    assert status == 1
    assert out.splitlines()[-1] == "2 passed, 2 failed"
    assert f"FAIL {tmp_path / 'bad.l0'} (cpu): input 1: expected 2, got 1" in out
    doc = json.loads(report.read_text())
    assert (doc["passed"], doc["failed"]) == (2, 2)
    assert {(Path(t["program"]).name, t["backend"], t["passed"]) for t in doc["tests"]} == {
        ("bad.l0", "cpu", False), ("bad.l0", "interp", False),
        ("good.l0", "cpu", True), ("good.l0", "interp", True)}


def test_command_in_parallel(capsys) -> None:
    status, out, _ = l0(["test", "-j", "2", "--backend", "interp", str(CORPUS / "loops")],
                        capsys)
    assert status == 0, out
    assert out.splitlines()[-1].endswith(" passed, 0 failed")


@pytest.mark.parametrize("args", [["test"], ["test", "--backend", "tpu", "x.l0"],
                                  ["test", "nowhere"], ["test", "-j", "0", "."], []])
def test_bad_arguments(args: list[str], capsys) -> None:
    status, _, err = l0(args, capsys)
    assert status == 2 and "error" in err


def test_help(capsys) -> None:
    status, out, _ = l0(["test", "--help"], capsys)
    assert status == 0 and "--backend" in out and "test block" in out


def test_binary_inputs(tmp_path: Path) -> None:
    import numpy as np

    from l0.types import ArrayType, Basic, BasicType
    from l0.values.binary import write_binary

    data = write_binary(ArrayType(BasicType(Basic.REAL), 1), np.arange(4.0))
    (tmp_path / "v.in").write_bytes(b"2.0 " + data)
    prog = tmp_path / "scale.l0"
    prog.write_text("// ==\n// input @ v.in\n"
                    "// output { [0.000000, 2.000000, 4.000000, 6.000000] }\n"
                    "fun [real] main(real k, [real] v) = map(op * (k), v)\n")
    assert check_program(prog, "cpu").passed
    assert check_program(prog, "interp").passed


def test_a_crashing_test_fails_alone(tmp_path: Path, monkeypatch) -> None:
    import l0.cli.testcmd as testcmd

    for name in ("a", "crash", "b"):
        (tmp_path / f"{name}.l0").write_text("// ==\n// input { 1 } output { 1 }\n"
                                             "fun int main(int x) = x\n")
    jobs = [(tmp_path / f"{name}.l0", "interp") for name in ("a", "crash", "b")]
    monkeypatch.setattr(testcmd, "_quiet_check", _crash_on_crash)
    verdicts = run_tests(jobs, optimise=True, workers=2)
    assert [(Path(v.program).stem, v.passed) for v in verdicts] == [
        ("a", True), ("crash", False), ("b", True)]
    assert "crashed" in verdicts[1].message


def _crash_on_crash(path: Path, backend: str, options):
    import os

    if path.stem == "crash":
        os._exit(70)  # as a signal in compiled code would end the worker
    return check_program(path, backend, optimise=options.optimise)


def test_unreadable_files_fail_the_program(tmp_path: Path) -> None:
    prog = tmp_path / "p.l0"
    prog.write_bytes(b"fun int main() = 1 // \xff\n")
    v = check_program(prog, "interp")
    assert not v.passed and v.message.startswith("cannot read the program or its files: ")


def test_random_inputs_and_inputs_that_only_need_to_run(tmp_path: Path) -> None:
    prog = tmp_path / "r.l0"
    prog.write_text("// ==\n// random input { [real]:1000 int }\n// input { [0.5] 0 }\n"
                    "// random input { [real]:3 int } output { 0.000000 }\n"
                    "fun real main([real] a, int k) = reduce(op +, 0.0, a) * toReal(k / 1000)\n")
    spec = spec_of(prog)
    assert [(c.random, c.output) for c in spec.runs] == [
        ("[real]:1000 int", None), (None, None), ("[real]:3 int", " 0.000000 ")]
    assert spec_of(prog).runs[0].input == spec.runs[0].input  # seeded: the same every time
    assert len(spec.runs[0].input) == (7 + 8 + 8000) + (7 + 8)  # binary: headers, data
    assert check_program(prog, "cpu").passed
    prog.write_text(prog.read_text().replace("k / 1000", "1000 / k"))
    v = check_program(prog, "interp")
    assert not v.passed and "input 2: failed: " in v.message and "division by zero" in v.message


# -- programs without expectations: the two protocols --------------------------------


def test_a_plain_program_must_compile(tmp_path: Path) -> None:
    (tmp_path / "ok.l0").write_text("fun int main(int x) = x + 1\n")
    (tmp_path / "bad.l0").write_text("fun int main(int x) = x + True\n")
    assert check_program(tmp_path / "ok.l0", "interp").passed
    v = check_program(tmp_path / "bad.l0", "interp")
    assert not v.passed and v.message.startswith("compilation failed: ")
    assert "bad.l0:1:27: error:" in v.message


def test_the_2014_protocol_by_switch_and_by_marker(tmp_path: Path, capsys) -> None:
    nested = tmp_path / "suite" / "deeper"
    nested.mkdir(parents=True)
    (nested / "bad.l0").write_text("// error: unify-error\nfun int main(int x) = x + 1.0\n")
    (nested / "ok.l0").write_text("fun int main(int x) = x\n")
    assert protocol_of(nested) == "futhark"
    assert not check_program(nested / "bad.l0", "interp").passed
    assert check_program(nested / "bad.l0", "interp", protocol="2014").passed
    (tmp_path / "suite" / "l0test.toml").write_text('protocol = "2014"\n')
    assert protocol_of(nested) == "2014"  # the nearest marker above applies
    assert check_program(nested / "bad.l0", "interp").passed
    v = check_program(nested / "ok.l0", "interp")
    assert not v.passed and v.message.startswith("compiled, but expected a compile-time error")
    status, out, _ = l0(["test", "-j", "1", "--backend", "interp", str(nested)], capsys)
    assert status == 1 and out.splitlines()[-1] == "1 passed, 1 failed"
    status, out, _ = l0(["test", "-j", "1", "--backend", "interp", "--protocol", "futhark",
                         str(nested)], capsys)  # the switch overrides the marker
    assert status == 1 and f"FAIL {nested / 'bad.l0'} (interp): compilation failed" in out
    assert out.splitlines()[-1] == "1 passed, 1 failed"


def test_the_corpus_carries_the_2014_marker() -> None:
    assert protocol_of(CORPUS / "errors") == protocol_of(CORPUS / "soacs") == "2014"


@pytest.mark.parametrize("marker", ['protocol = "1999"\n', "protocol = \n", 'tolerance = 1\n'])
def test_a_bad_marker_fails_its_programs(tmp_path: Path, marker: str) -> None:
    (tmp_path / "l0test.toml").write_text(marker)
    (tmp_path / "p.l0").write_text("fun int main(int x) = x\n")
    (tmp_path / "q.l0").write_text("// ==\n// input { 1 } output { 1 }\nfun int main(int x) = x\n")
    for program in ("p.l0", "q.l0"):
        v = check_program(tmp_path / program, "interp")
        assert not v.passed and "l0test.toml" in v.message


# -- outputs compared as values, reals within a tolerance ----------------------------

REALS = "fun [real] main(real k) = map(fn real (real x) => x * k, [0.6, 0.8])\n"


@pytest.mark.parametrize("output,tolerance,verdict", [
    ("[0.6, 0.8]", Tolerance(), ""),
    ("[0.600000, 0.800000]", Tolerance(), ""),
    ("[0.6000001, 0.8]", Tolerance(), ""),
    ("[0.6000001, 0.8]", Tolerance(rtol=0, atol=1e-8),
     "at [0]: 0.6 is not within the tolerance of 0.6000001 (rtol 0, atol 1e-08)"),
    ("[0.6, 0.9]", Tolerance(), "at [1]: 0.8 is not within the tolerance of 0.9"),
    ("[[0.6, 0.8]]", Tolerance(), "the expected output is not a value of type [real]"),
    ("[0.6]", Tolerance(), "shape 2 where 1 was expected"),
    ("[1, 2]", Tolerance(), "(an int; write `1.0` for a real)"),
])
def test_reals_within_a_tolerance(tmp_path: Path, output: str, tolerance: Tolerance,
                                  verdict: str) -> None:
    prog = tmp_path / "r.l0"
    prog.write_text(f"// ==\n// input {{ 1.0 }} output {{ {output} }}\n" + REALS)
    for backend in ("interp", "cpu"):
        v = check_program(prog, backend, tolerance=tolerance)
        assert v.passed == (verdict == ""), v.message
        assert verdict in v.message
        if verdict:
            assert v.message.startswith(f"input 1: expected {output}, got [0.600000, 0.800000]")


def test_tiny_reals_are_compared_as_values_not_as_printed(tmp_path: Path) -> None:
    prog = tmp_path / "tiny.l0"
    prog.write_text("// ==\n// input { 1.0e-7 } output { 2.0e-7 }\n"
                    "fun real main(real x) = x\n")  # both print 0.000000
    assert check_program(prog, "interp").passed  # within the default atol
    v = check_program(prog, "interp", tolerance=Tolerance(atol=0.0))
    assert not v.passed and "1e-07 is not within the tolerance of 2e-07" in v.message


def test_ints_bools_and_tuples_exactly(tmp_path: Path) -> None:
    prog = tmp_path / "t.l0"
    prog.write_text("// ==\n// input { 2 } output { {[1, 2], True, 0.5} }\n"
                    "// input { 2 } output { [1, 2] True 0.5000001 }\n"
                    "// input { 3 } output { {[1, 2, 4], True, 0.5} }\n"
                    "fun {[int], bool, real} main(int n) =\n"
                    "  {map(fn int (int i) => i + 1, iota(n)), True, 0.5}\n")
    v = check_program(prog, "interp")
    assert v.message == ("input 3: expected {[1, 2, 4], True, 0.5}, got {[1, 2, 3], True, "
                         "0.500000} (component 1: at [2]: 3 where 4 was expected)")


def test_string_results_compare_as_printed(tmp_path: Path) -> None:
    prog = tmp_path / "s.l0"
    prog.write_text('// ==\n// input { 1 } output { {hi, 1.0} }\n'
                    '// input { 2 } output { {hi, 2.5} }\n'
                    'fun {[char], real} main(int n) = {"hi", toReal(n)}\n')
    v = check_program(prog, "interp")
    assert v.message.startswith("input 2: expected {hi, 2.5}, got {hi, 2.000000}")


@pytest.mark.parametrize("args,message", [
    (["--rtol", "-1"], "expected a number >= 0"), (["--atol", "nan"], "expected a number >= 0"),
    (["--protocol", "1999"], "invalid choice"),
])
def test_bad_tolerances_and_protocols(tmp_path: Path, capsys, args: list[str],
                                      message: str) -> None:
    (tmp_path / "p.l0").write_text("fun int main() = 1\n")
    status, _, err = l0(["test", *args, str(tmp_path)], capsys)
    assert status == 2 and message in err


def test_nothing_to_test_is_an_error(tmp_path: Path, capsys) -> None:
    status, out, err = l0(["test", str(tmp_path)], capsys)
    assert (status, out) == (2, "")
    assert err == f"l0 test: error: no .l0 program found in {tmp_path}\n"
    (tmp_path / "notes.txt").write_text("no programs here")
    assert l0(["test", str(tmp_path)], capsys)[0] == 2


def test_a_directory_of_plain_programs_passes(tmp_path: Path, capsys) -> None:
    (tmp_path / "inc.l0").write_text("fun int main(int x) = x + 1\n")
    (tmp_path / "sum.l0").write_text("fun real main([real] a) = reduce(op +, 0.0, a)\n")
    status, out, _ = l0(["test", "-j", "1", str(tmp_path)], capsys)
    assert (status, out) == (0, "2 passed, 0 failed\n")
