"""`l0 autotune` end to end on multicore, in this process, and the tuning file as
`l0-run`, `l0 bench` and `l0.compile` read it. Timing decides what autotune chooses,
so these tests check what holds whatever it chose; the choice itself is tested with
fake timings in test/unit/test_autotune.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from in_process import run_tool

import l0
import l0.autotune
from l0.cli import run as l0_run
from l0.cli import tool
from l0.diagnostics import L0Error
from l0.lowering.runtime.run_tables import NEVER
from l0.tuning import parse

PROG = """\
// ==
// input { [1.0, 2.0, 3.0] }
// output { [2.0, 4.0, 6.0] }
// input { [0.5, 1.5, 2.5, 3.5] }
// output { [1.0, 3.0, 5.0, 7.0] }
fun [real] main([real] a) =
  map(fn real (real x) => x * 2.0, a)
"""


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    path = tmp_path / "twice.l0"
    path.write_text(PROG)
    return path


def autotune(args: list[str], cwd: Path) -> tuple[int, str, str]:
    ran = run_tool(tool.main, ["autotune", *args], cwd=cwd)
    return ran.returncode, ran.stdout, ran.stderr


def param_name(path: Path) -> str:
    (name,) = l0.compile(path, backend="multicore", threads=2, tuning=False).param_values()
    return name


def test_tunes_on_multicore_and_writes_what_the_tools_read(prog: Path) -> None:
    status, out, err = autotune(["twice.l0", "--backend", "multicore", "--threads", "2",
                                 "-r", "1"], prog.parent)
    assert status == 0, err
    name = param_name(prog)
    default = 2 * 16384
    assert f"1 run-time parameter on multicore, 2 datasets:\n  {name} (default {default})" in out
    # the map's region was compared with its trips times an iteration's work, one size
    # per dataset (3 and 4 elements)
    compared = next(line for line in out.splitlines() if "compared with" in line)
    sizes = [int(s) for s in compared.split("compared with ")[1].split(", ")]
    assert len(sizes) == 2 and sizes[0] * 4 == sizes[1] * 3
    # the default, above both sizes, stands for never
    assert "0 (always)" in out and f"{default} (default, never)" in out
    assert "wrote twice.l0.tuning" in out
    sections = parse((prog.parent / "twice.l0.tuning").read_text(), "f")
    assert list(sections) == ["multicore"]
    chosen = {n: s.value for n, s in sections["multicore"].items()}
    # whatever timing chose is one of the candidates, and is what l0.compile then sets
    assert set(chosen) <= {name} and set(chosen.values()) <= {0, sizes[1]}
    prog_ = l0.compile(prog, backend="multicore", threads=2)
    assert prog_.param_values()[name] == chosen.get(name, default)
    assert prog_.main(np.array([1.0, 2.0])).tolist() == [2.0, 4.0]


def test_the_tuning_file_is_read_and_explicit_values_win(prog: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    name = param_name(prog)
    (tmp_path / "twice.l0.tuning").write_text(f"[multicore]\n{name}=0\n[cpu]\n")
    assert l0.compile(prog, backend="multicore", threads=2).param_values() == {name: 0}
    assert l0.compile(str(prog), backend="multicore", threads=2,
                      params={name: 5}).param_values() == {name: 5}
    assert l0.compile(prog, backend="multicore", threads=2,
                      tuning=False).param_values() == {name: 2 * 16384}
    assert l0.compile(prog, backend="cpu").param_values() == {}  # an empty section
    # source text has no tuning file
    assert l0.compile(PROG, backend="multicore", threads=2).param_values() == {name: 32768}

    def printed(*extra: str) -> str:
        ran = run_tool(l0_run.main, ["--backend=multicore", "--threads", "2",
                                     "--print-params", *extra, "twice.l0"], cwd=tmp_path)
        assert ran.returncode == 0, ran.stderr
        return ran.stdout

    assert printed() == f"{name} 0\n"
    assert printed("--param", f"{name}=9") == f"{name} 9\n"
    assert printed("--no-tuning") == f"{name} 32768\n"
    # l0 bench: with the threshold 0 the region forks (2 threads), with never it does not
    # (`l0 bench` has no --threads: its default would be the machine's cores)
    monkeypatch.setenv("L0_NUM_THREADS", "2")
    for value, threads in ((0, 2), (NEVER, 1)):
        (tmp_path / "twice.l0.tuning").write_text(f"[multicore]\n{name}={value}\n")
        report = tmp_path / "r.json"
        ran = run_tool(tool.main, ["bench", "--backend", "multicore", "-r", "1", "--profile",
                                   "--json", str(report), "twice.l0"], cwd=tmp_path)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        doc = json.loads(report.read_text())["twice.l0"]["datasets"]
        records = [r for d in doc.values() for r in d["profile"]]
        assert [r["name"] for r in records] == [name.removesuffix(".min_work")] * 2
        assert all(r["threads"] == threads * r["launches"] for r in records)


def test_a_malformed_tuning_file_is_a_located_error(prog: Path, tmp_path: Path) -> None:
    name = param_name(prog)
    (tmp_path / "twice.l0.tuning").write_text(f"[multicore]\n{name}=lots\n")
    ran = run_tool(l0_run.main, ["--backend=multicore", "--print-params", "twice.l0"],
                   cwd=tmp_path)
    col = len(name) + 2
    assert ran.returncode == 2
    assert ran.stderr.startswith(f"twice.l0.tuning:2:{col}: error: expected an integer >= 0 "
                                 "as the value, not 'lots'")
    ran = run_tool(tool.main, ["bench", "--backend", "multicore", "-r", "1", "twice.l0"],
                   cwd=tmp_path)
    assert ran.returncode == 2 and ran.stderr.startswith(f"twice.l0.tuning:2:{col}: error:")
    with pytest.raises(L0Error, match=f"twice.l0.tuning:2:{col}: error: expected an integer"):
        l0.compile(prog, backend="multicore", threads=3)
    # ignored, it does no harm
    assert run_tool(l0_run.main, ["--backend=multicore", "--no-tuning", "--print-params",
                                  "twice.l0"], cwd=tmp_path).returncode == 0
    # a name the program does not have (it changed since it was tuned)
    (tmp_path / "twice.l0.tuning").write_text("[multicore]\nmain:9:9:map.min_work=1\n")
    ran = run_tool(l0_run.main, ["--backend=multicore", "--print-params", "twice.l0"],
                   cwd=tmp_path)
    assert ran.returncode == 2
    assert ran.stderr.startswith("twice.l0.tuning:2:1: error: unknown parameter "
                                 f"'main:9:9:map.min_work' for multicore (the program's "
                                 f"parameters: {name})")


def test_a_program_without_parameters_gets_no_file(prog: Path) -> None:
    status, out, _ = autotune(["twice.l0", "--backend", "cpu"], prog.parent)
    assert status == 0
    assert out == "twice.l0: no run-time parameters on cpu: nothing to tune, no tuning " \
        "file written\n"
    assert not (prog.parent / "twice.l0.tuning").exists()


def test_a_threshold_that_changes_the_result_is_reported(prog: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    real_output = l0.autotune.ProgramRunner.output

    def wrong_when_always(self, dataset, values):  # type: ignore[no-untyped-def]
        out, took = real_output(self, dataset, values)
        return (out + "1" if any(v == 0 for v in values.values()) else out), took

    monkeypatch.setattr(l0.autotune.ProgramRunner, "output", wrong_when_always)
    status, _, err = autotune(["twice.l0", "--backend", "multicore", "-r", "1",
                               "--dataset", "#2 ([0.5, 1.5, 2.5, 3.5])"], prog.parent)
    assert status == 3
    assert "=0 changes the result of main on dataset #2" in err and "a compiler bug" in err
    assert not (prog.parent / "twice.l0.tuning").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["-r", "0"], "-r needs a positive number of runs"),
    (["--timeout", "0"], "--timeout needs a positive number of seconds"),
    (["--backend", "cpu", "--threads", "2"], "applies to multicore only"),
    (["--dataset", "nope"], "no dataset 'nope' (the program's datasets: #1 ([1.0, 2.0, 3.0]), #2"),
    (["--datasets", "nowhere"], "nowhere:1:1: error: no such directory"),
])
def test_bad_arguments(prog: Path, args: list[str], message: str) -> None:
    status, _, err = autotune(["twice.l0", "--backend", "multicore", *args], prog.parent)
    assert status == 2
    assert err.startswith(("l0 autotune: error: ", "nowhere:")) and message in err


def test_a_missing_program_is_a_located_error(tmp_path: Path) -> None:
    status, _, err = autotune(["none.l0", "--backend", "multicore"], tmp_path)
    assert status == 2 and err.startswith("none.l0:1:1: error: cannot read program")


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        tool.main(["autotune", "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    flat = " ".join(out.split())
    for words in ("usage: l0 autotune", "--backend", "--dataset NAME", "--datasets DIR",
                  "-r N, --runs N", "timed rounds", "--timeout S", "compared with",
                  "PROG.l0.tuning", "--no-tuning", "3 when a threshold changed the result"):
        assert words in flat, words
    with pytest.raises(SystemExit):
        tool.main(["--help"])
    assert "autotune" in capsys.readouterr().out


def test_thresholds_note_each_distinct_size_they_compare() -> None:
    """What autotune learns its candidates from (Note [Thresholds record what they
    compare] in `l0.lowering.loop_ir.run_params`): compiled with profiling, each
    threshold's table keeps the distinct sizes compared, 64 at most, and counts the rest."""
    source = "fun [real] main([real] a) = map(fn real (real x) => x * 3.0, a)"
    prog = l0.compile(source, backend="multicore", threads=2, profile=True)
    (name,) = prog.param_values()
    for n in (10, 1000, 10, 10):
        prog.main(np.ones(n))
    (sizes,) = [c.sizes for c in prog.compared_sizes().values()]
    work = sizes[0] // 10
    assert sizes == (10 * work, 1000 * work)
    prog.reset_profile()
    assert prog.compared_sizes()[name].sizes == ()
    for n in range(2, 72):  # 70 distinct sizes: 64 kept, 6 dropped
        prog.main(np.ones(n))
    compared = prog.compared_sizes()[name]
    assert compared.sizes == tuple(n * work for n in range(2, 66))
    assert compared.dropped == 6
    # without profiling nothing is noted
    assert l0.compile(source, backend="multicore", threads=2).compared_sizes() == {}
