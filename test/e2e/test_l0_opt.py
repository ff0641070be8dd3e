"""`l0-opt` (`l0.cli.opt`) in-process: the `.l0` front-end hook, pass failures, exit statuses.

The lit tests in `test/lit/tools/` cover the command line on `.mlir` input; here the
front end is replaced by a stub, so these tests do not depend on it, and deliberately
broken passes show how failures inside a pipeline are reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntAttr, ModuleOp
from xdsl.passes import ModulePass

import l0.frontend
from l0.cli.opt import L0OptMain, main
from l0.diagnostics import L0Error, Loc
from l0.dialects import soac
from l0.dialects.context import DIALECTS, SOAC_LEVEL
from l0.lowering import LOWERINGS, OFF_PIPELINE
from l0.passes import PASSES, describe_passes
from l0.targets import TARGETS

MLIR = """\
func.func @f(%a: tensor<?xf64>) -> i64 {
  %r = soac.size(0) %a : tensor<?xf64>
  func.return %r : i64
}
"""


def run_opt(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def _module() -> ModuleOp:
    fn = func.FuncOp("main", ((), ()))
    fn.body.block.add_op(func.ReturnOp())
    return ModuleOp([fn])


def test_l0_input_goes_through_the_front_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[tuple[str, str]] = []

    def front_end(text: str, filename: str) -> ModuleOp:
        seen.append((text, filename))
        return _module()

    monkeypatch.setattr(l0.frontend, "l0_to_module", front_end)
    src = tmp_path / "p.l0"
    src.write_text("fun int main() = 1\n")
    status, out, err = run_opt([str(src)], capsys)
    assert (status, err) == (0, "")
    assert seen == [("fun int main() = 1\n", str(src))]
    assert "func.func @main()" in out


def test_l0_error_is_reported_at_its_location(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def front_end(text: str, filename: str) -> ModuleOp:
        raise L0Error(Loc(filename, 1, 18), "expected int, found bool", "type-error")

    monkeypatch.setattr(l0.frontend, "l0_to_module", front_end)
    src = tmp_path / "p.l0"
    src.write_text("fun int main() = True\n")
    status, out, err = run_opt([str(src)], capsys)
    assert status == 2
    assert err == (
        f"{src}:1:18: error: expected int, found bool\n"
        "  |\n1 | fun int main() = True\n  |                  ^\n"
    )
    assert "Traceback" not in out + err


def test_l0_errors_of_split_chunks_carry_whole_file_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def front_end(text: str, filename: str) -> ModuleOp:
        if "bad" in text:  # the error is on the chunk's second line
            raise L0Error(Loc(filename, 2, 5, 2, 8), "unknown variable bad", "type-error")
        return _module()

    monkeypatch.setattr(l0.frontend, "l0_to_module", front_end)
    src = tmp_path / "p.l0"
    src.write_text("fun int main() = 1\n// -----\n\n  bad\n")
    status, out, err = run_opt([str(src), "--split-input-file", "--parsing-diagnostics"],
                               capsys)
    assert (status, err) == (0, "")
    assert f"{src}:3:5: error: unknown variable bad" in out
    assert "func.func @main()" in out
    status, out, err = run_opt([str(src), "--split-input-file"], capsys)
    assert status == 2
    # The snippet is the whole file's line 3 (here empty: the front end is a stand-in).
    assert err == f"{src}:3:5: error: unknown variable bad\n  |\n3 | \n  |     ^^^^\n"


def test_undecodable_l0_input_is_a_user_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "p.l0"
    src.write_bytes(b"fun int main() = \xff\n")
    status, _, err = run_opt([str(src)], capsys)
    assert status == 2
    assert err.startswith(f"{src}:1:1: error: expected UTF-8 text, found byte 0xff")


@dataclass(frozen=True)
class BreakIrPass(ModulePass):
    """Make every soac.size ask for a dimension its array lacks (a deliberately wrong pass)."""

    name = "break-ir"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in op.walk():
            if isinstance(o, soac.SizeOp):
                o.properties["dim"] = IntAttr(5)


@dataclass(frozen=True)
class CrashPass(ModulePass):
    """Fail with a Python exception (a deliberately buggy pass)."""

    name = "crash"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise KeyError("oops")


def test_pass_that_breaks_the_ir_is_blamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(PASSES, "break-ir", lambda: BreakIrPass)
    src = tmp_path / "m.mlir"
    src.write_text(MLIR)
    status, _, err = run_opt([str(src), "-p", "cse,break-ir"], capsys)
    assert status == 2
    first = err.splitlines()[0]
    assert first.startswith("l0-opt: error: the IR does not verify after pass 'break-ir' "
                            "(a bug in that pass): ")
    assert first.endswith("expected dim in [0, 1) for an array of rank 1, found 5")
    assert '"soac.size"' in err  # the IR, with the culprit marked


def test_crashing_pass_is_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("L0_TRACEBACK", raising=False)
    monkeypatch.setitem(PASSES, "crash", lambda: CrashPass)
    src = tmp_path / "m.mlir"
    src.write_text(MLIR)
    status, _, err = run_opt([str(src), "-p", "crash"], capsys)
    assert status == 3
    assert "internal compiler error: KeyError" in err
    assert "Traceback" not in err


def test_verify_diagnostics_succeeds_on_invalid_ir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "m.mlir"
    src.write_text(MLIR.replace("size(0)", "size(1)"))
    status, out, _ = run_opt([str(src), "--verify-diagnostics"], capsys)
    assert status == 0
    assert out.startswith("expected dim in [0, 1) for an array of rank 1, found 1\n")


def test_help_lists_every_registered_pass_with_its_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run_opt(["--help"], capsys)
    assert status == 0
    listing = out.split("passes (-p / --pass-pipeline):\n", 1)[1]
    passes, lowerings = listing.split("\n\nlowering passes (", 1)
    rows = [line.split(None, 1) for line in passes.splitlines() if line.strip()]
    assert rows == [[name, summary] for name, summary in describe_passes()]
    rows = [line.split(None, 1) for line in lowerings.splitlines()[1:] if line.strip()]
    assert rows == [[name, summary] for name, summary in describe_passes(LOWERINGS)]
    assert [name for name, _ in rows] == ["bufferise", "chunk-parallel", "convert-gpu-to-sim",
                                          "convert-parallel-to-gpu", "convert-parallel-to-omp",
                                          "convert-soac-to-scf", "dealloc",
                                          "expand-allocs", "forward-iota", "hoist-allocs",
                                          "partition-filters", "presize-allocs", "reuse-freed",
                                          "segment-reductions", "simd-map",
                                          "size-facts", "tile-parallel"]


def test_help_drops_the_xdsl_opt_options_that_do_nothing_here(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run_opt(["--help"], capsys)
    assert status == 0
    for kept in ("--split-input-file", "--verify-diagnostics", "--print-op-generic",
                 "--print-between-passes", "--time-passes", "-o OUTPUT_FILE", "-p PASSES",
                 "-t TARGET", "--version"):
        assert kept in out
    for dropped in ("--shrink", "--print-debuginfo"):
        assert dropped not in out
        status, _, err = run_opt([dropped], capsys)
        assert status == 2 and f"unrecognized arguments: {dropped}" in err


def test_version_is_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    for flag in ("--version", "-V"):
        status, out, _ = run_opt([flag], capsys)
        assert status == 0
        assert out.startswith(f"l0-opt {version('l0')} ")


def test_v_is_verbose_as_in_l0_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`-v` reports the time of each pass (as `--time-passes`); alone, as it printed the
    version before, it still does, with a note."""
    prog = tmp_path / "p.l0"
    prog.write_text("fun int main(int x) = x + 1\n")
    status, out, err = run_opt(["-v", "-p", "cse", str(prog)], capsys)
    assert status == 0 and "func.func @main" in out
    assert err.startswith("Pass cse took ")
    status, out, err = run_opt(["-v"], capsys)
    assert status == 0 and out.startswith(f"l0-opt {version('l0')} ")
    assert "-V or --version prints the version" in err


MAP_MLIR = """\
func.func @main(%a: tensor<?xf64>) -> f64 {
  %z = arith.constant 0.0 : f64
  %b = soac.map(%x = %a : tensor<?xf64>) -> tensor<?xf64> {
    %y = arith.addf %x, %x : f64
    soac.yield %y : f64
  }
  %r = soac.reduce(%acc = %z : f64) over(%e = %b : tensor<?xf64>) {
    %s = arith.addf %acc, %e : f64
    soac.yield %s : f64
  }
  func.return %r : f64
}
"""


def _passes_run(err: str) -> list[str]:
    """The passes `--time-passes` reported, in order."""
    return [line.split()[1] for line in err.splitlines() if line.startswith("Pass ")]


PLANNING = ["presize-allocs", "chunk-parallel", "hoist-allocs", "expand-allocs", "reuse-freed",
            "tile-parallel", "simd-map"]
"""The memory planning lowerings after dealloc, and the CPU's loop tiling and SIMD lanes."""
LOOPS = ["forward-iota", "size-facts", "dealloc"]
"""The lowerings between convert-soac-to-scf and memory planning."""


@pytest.mark.parametrize(("args", "lowerings"), [
    ([], ["bufferise", "partition-filters", "convert-soac-to-scf", *LOOPS, *PLANNING]),
    (["-O"], ["bufferise", "partition-filters", "convert-soac-to-scf", *LOOPS, *PLANNING]),
    (["-p", "cse,bufferise"], ["partition-filters", "convert-soac-to-scf", *LOOPS, *PLANNING]),
    (["-p", "bufferise,partition-filters,convert-soac-to-scf"], [*LOOPS, *PLANNING]),
    (["-p", "bufferise,partition-filters,convert-soac-to-scf,forward-iota,size-facts,dealloc"],
     PLANNING),
    (["-p", "bufferise,partition-filters,convert-soac-to-scf,forward-iota,size-facts,dealloc,"
           "presize-allocs,chunk-parallel,hoist-allocs,expand-allocs,reuse-freed"],
     ["tile-parallel", "simd-map"]),
])
def test_llvm_ir_target_runs_the_lowerings_still_needed(
    args: list[str], lowerings: list[str], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    src = tmp_path / "m.mlir"
    src.write_text(MAP_MLIR)
    status, out, err = run_opt([str(src), *args, "-t", "llvm-ir", "--time-passes"], capsys)
    assert status == 0, err
    assert 'define i32 @"l0.entry.main"' in out
    ran = _passes_run(err)
    assert ran[len(ran) - len(lowerings):] == lowerings  # after the requested passes
    # each one once; the multicore back end's omp lowering and the off-pipeline ones
    # only when asked for
    in_pipeline = [n for n in TARGETS["cpu"].lowerings if n not in OFF_PIPELINE]
    assert [p for p in ran if p in LOWERINGS] == in_pipeline


def test_llvm_ir_target_lowers_bufferised_ir_from_where_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    src = tmp_path / "m.mlir"
    src.write_text(MAP_MLIR)
    status, out, _ = run_opt([str(src), "-p", "bufferise"], capsys)
    assert status == 0
    bufferised = tmp_path / "b.mlir"
    bufferised.write_text(out)
    status, out, err = run_opt([str(bufferised), "-t", "llvm-ir", "--time-passes"], capsys)
    assert status == 0, err
    assert _passes_run(err) == ["partition-filters", "convert-soac-to-scf", *LOOPS, *PLANNING]
    status, out, _ = run_opt([str(src), "-p", "bufferise,convert-soac-to-scf"], capsys)
    loops = tmp_path / "l.mlir"
    loops.write_text(out)
    # loop-level IR is emitted as it is (it may come without dealloc)
    status, out, err = run_opt([str(loops), "-t", "llvm-ir", "--time-passes"], capsys)
    assert (status, _passes_run(err)) == (0, [])
    assert 'define i32 @"l0.entry.main"' in out


def test_l0_opt_registers_the_one_list_of_dialects(tmp_path: Path) -> None:
    src = tmp_path / "m.mlir"
    src.write_text(MLIR)
    opt = L0OptMain(args=[str(src)])
    assert tuple(opt.ctx.registered_dialect_names) == DIALECTS
    # registered, not loaded: a run on soac IR never imports the lowering levels
    assert {d.name for d in opt.ctx.loaded_dialects} <= set(SOAC_LEVEL)


def test_every_target_works_or_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    src = tmp_path / "m.mlir"
    src.write_text(MAP_MLIR)
    targets = L0OptMain(args=[str(src)]).available_targets
    assert sorted(targets) == ["llvm-ir", "mlir", "ptx"]
    for target in ("llvm-ir", "mlir"):
        status, out, err = run_opt([str(src), "-t", target], capsys)
        assert (status, err) == (0, "")
        assert out.endswith("\n")
    # ptx is the gpu back end's: the kernels' PTX, or refused in one line where kernel
    # extraction is not part of the build
    status, out, err = run_opt([str(src), "-t", "ptx"], capsys)
    if status == 0:
        assert ".entry " in out and err == ""
    else:
        assert status == 2
        assert err.startswith("l0-opt: error: expected a gpu-level module")
        assert err.count("\n") == 1
    # xDSL's llvm target translates only the llvm dialect: not offered
    status, out, err = run_opt([str(src), "-t", "llvm"], capsys)
    assert status == 2
    assert "l0-opt: error: argument -t/--target: invalid choice: 'llvm'" in err
    assert "internal compiler error" not in err and "Traceback" not in err


@pytest.mark.parametrize(("target", "message"), [
    ("llvm-ir{x=1}", "l0-opt: error: bad options for target 'llvm-ir': "),
    ("mlir{x=1}", "l0-opt: error: bad options for target 'mlir': "),
    ("mlir{", "l0-opt: error: Error parsing pass pipeline specification"),
])
def test_bad_target_options_are_usage_errors(
    target: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    src = tmp_path / "m.mlir"
    src.write_text(MLIR)
    status, out, err = run_opt([str(src), "-t", target], capsys)
    assert (status, out) == (2, "")
    assert err.startswith(message)


def test_time_passes_reports_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    src = tmp_path / "m.mlir"
    src.write_text(MLIR)
    status, out, err = run_opt([str(src), "-p", "cse,dce", "--time-passes"], capsys)
    assert status == 0
    assert out.startswith("builtin.module {") and "took" not in out
    assert _passes_run(err) == ["cse", "dce"]


def test_omp_form_and_its_llvm_ir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The multicore stages: the parallel form, the omp form and its LLVM IR."""
    src = tmp_path / "m.mlir"
    src.write_text(MAP_MLIR)
    lowered = "bufferise,convert-soac-to-scf,dealloc"
    status, out, err = run_opt([str(src), "-p", lowered], capsys)
    assert status == 0, err
    assert '"scf.parallel"' in out and "omp." not in out
    status, out, err = run_opt([str(src), "-p", lowered + ",convert-parallel-to-omp"], capsys)
    assert status == 0, err
    assert '"omp.parallel"' in out and '"omp.wsloop"' in out and "scf.parallel" not in out
    status, out, err = run_opt([str(src), "-p", lowered + ",convert-parallel-to-omp", "-t",
                                "llvm-ir"], capsys)
    assert status == 0, err
    assert '@"GOMP_parallel"' in out and "omp_get_max_threads" in out
