"""The gpu back end on a real GPU (marked `gpu`: skipped without a device, its driver or
the gpu extra).

* a hand-written gpu-level module (`test/lit/gpu/gpu-host.mlir`: copies, a map kernel,
  frees) against numpy;
* the corpus on `--backend=gpu` with the protocol of `test/corpus.py` (expected output,
  or the expected located error), once kernel extraction is part of the build.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest
from corpus import ROOT, runnable, squash

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error


def _device():  # noqa: ANN202
    from l0.lowering.gpu_runtime import GpuUnavailable, device
    from l0.lowering.ptx import GpuToolMissing, find_libdevice

    try:
        find_libdevice()
        return device()
    except (GpuUnavailable, GpuToolMissing) as err:
        pytest.skip(f"no GPU: {err}")


pytestmark = pytest.mark.gpu
HOST = Path(__file__).parent / "lit" / "gpu" / "gpu-host.mlir"


def test_hand_written_module_runs_on_the_gpu() -> None:
    from xdsl.parser import Parser

    from l0.dialects.context import LOWERING_LEVELS, SOAC_LEVEL, l0_context
    from l0.lowering.gpu_backend import compile_gpu_module

    dev = _device()
    module = Parser(l0_context(SOAC_LEVEL + LOWERING_LEVELS), HOST.read_text()).parse_module()
    main = compile_gpu_module(module, dev, entries=["main"]).function("main")
    for n in (0, 1, 255, 256, 257, 100_000):
        x = np.linspace(0.5, 3.0, n)
        dev.make_current()
        y = main(x)
        np.testing.assert_allclose(y, -(np.sqrt((x + x) * x) - x), rtol=1e-15, atol=0)


def _kernel_extraction() -> None:
    from l0.lowering import pipeline

    if "target" not in inspect.signature(pipeline.lower).parameters:
        pytest.skip("kernel extraction (lower(target='gpu')) is not part of this build")


PROGRAMS = [p.path for p in runnable()]


@pytest.mark.parametrize("path", PROGRAMS, ids=[str(p.relative_to(ROOT)) for p in PROGRAMS])
def test_corpus_program_on_gpu(path: Path) -> None:
    _device()
    _kernel_extraction()
    from l0.api import CompiledProgram

    inp, out, err = (path.with_suffix(s) for s in (".in", ".out", ".err"))
    text = path.read_text(encoding="utf-8")
    prog = call_with_big_stack(lambda: CompiledProgram(text, str(path), "gpu"))
    if out.exists():
        actual = prog.run_main(inp.read_text(encoding="utf-8"))
        assert squash(actual) == squash(out.read_text(encoding="utf-8"))
        return
    with pytest.raises(L0Error) as info:
        prog.run_main(inp.read_text(encoding="utf-8"))
    where, _, phrase = err.read_text(encoding="utf-8").strip().partition("error:")
    rendered = info.value.render()
    assert info.value.kind == "runtime-error", rendered
    assert f":{where.strip()} error:" in rendered and phrase.strip() in rendered, rendered
