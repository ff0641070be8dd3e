"""`%load_ext l0` and `%%l0` cells, in IPython's `InteractiveShell` in this process; and
the example notebook, its code cells run the same way."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from l0.api import backend_unavailable

pytest.importorskip("IPython")
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "l0_notebook.ipynb"

CELL = """\
fun [real] scale(real k, [real] v) = map(fn real (real x) => x * k, v)
fun {int, [bool]} count_over(int n, [int] a) =
  let big = map(fn bool (int x) => n < x, a) in
  {reduce(op +, 0, map(fn int (bool b) => if b then 1 else 0, big)), big}
"""


@pytest.fixture(scope="module")
def shell() -> InteractiveShell:
    ipython = InteractiveShell.instance()
    assert ipython.run_cell("%load_ext l0").success
    return ipython


def cell(shell: InteractiveShell, source: str):
    return shell.run_cell(source, store_history=True)


@pytest.mark.parametrize("backend", ["interp", "cpu", "multicore", "gpu-sim",
                                     pytest.param("gpu", marks=pytest.mark.gpu)])
def test_functions_of_a_cell_become_python_functions(shell: InteractiveShell,
                                                     backend: str) -> None:
    if (why := backend_unavailable(backend)) is not None:
        pytest.skip(why)
    assert cell(shell, f"%%l0 --backend={backend}\n{CELL}").success
    scale, count_over = shell.user_ns["scale"], shell.user_ns["count_over"]
    out = scale(2.0, np.array([1.0, 2.5]))
    assert isinstance(out, np.ndarray) and out.tolist() == [2.0, 5.0]
    n, big = count_over(2, [1, 5, 3])
    assert n == 2 and big.dtype == np.bool_ and big.tolist() == [False, True, True]
    assert "fun [real] scale(real k, [real] v)" in scale.__doc__


def test_options_and_redefinition(shell: InteractiveShell) -> None:
    assert cell(shell, "%%l0 -O0 --fast-math\nfun int twice(int x) = x * 2\n").success
    assert shell.user_ns["twice"](21) == 42
    assert cell(shell, "%%l0 --backend multicore --threads 2\n"
                       "fun int twice(int x) = x + x + 1\n").success
    assert shell.user_ns["twice"](21) == 43  # a later cell replaces the name


def test_a_wrong_cell_shows_the_error_as_the_tools_do(shell: InteractiveShell, capsys) -> None:
    shell.user_ns.pop("broken", None)
    result = cell(shell, "%%l0\nfun int ok(int x) = x\nfun int broken(int x) =\n  x + True\n")
    assert not result.success
    out = capsys.readouterr()
    text = out.out + out.err
    assert "Traceback" not in text
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if ":3:7: error: right operand of '+'" in line)
    assert lines[at].startswith("<l0 cell ")
    assert lines[at + 2:at + 4] == ["3 |   x + True", "  |       ^^^^"]
    assert "broken" not in shell.user_ns  # nothing of a wrong cell is bound


def test_a_failing_call_shows_the_run_time_error(shell: InteractiveShell, capsys) -> None:
    assert cell(shell, "%%l0 --backend=interp\nfun int third(int i) =\n"
                       "  let a = [1, 2, 3] in a[i]\n").success
    result = cell(shell, "third(5)")
    assert not result.success
    text = "".join(capsys.readouterr())
    assert "Traceback" not in text
    assert ":2:24: error: index 5 out of bounds for array of size 3" in text
    assert "2 |   let a = [1, 2, 3] in a[i]" in text


@pytest.mark.parametrize("options,message", [
    ("--backend=tpu", "argument --backend: invalid choice: 'tpu'"),
    ("--frobnicate", "bad options: --frobnicate"),
    ("--threads many", "argument --threads: invalid int value: 'many'"),
])
def test_bad_options(shell: InteractiveShell, capsys, options: str, message: str) -> None:
    result = cell(shell, f"%%l0 {options}\nfun int f(int x) = x\n")
    assert not result.success
    text = "".join(capsys.readouterr())
    assert f"%%l0: error: {message}" in text and "Traceback" not in text


def test_the_example_notebook_runs(monkeypatch) -> None:
    monkeypatch.setenv("MPLBACKEND", "Agg")  # no display: a plot is drawn, never shown
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    assert json.loads(NOTEBOOK.read_text())["nbformat"] == 4
    ipython = InteractiveShell.instance()
    for c in notebook.cells:
        if c.cell_type == "code":
            result = ipython.run_cell(c.source, store_history=True)
            assert result.success, c.source
    counts = ipython.user_ns["counts"]
    assert counts.shape == (360, 480) and counts.dtype == np.int64
    # the point c = 0 (row 180, column 330 of the extent) never escapes; c = 1 at once
    assert counts[180, 330] == 100 and counts[180, 480 - 1] <= 3
