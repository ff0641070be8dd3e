"""The PTX of the gpu back end passes `ptxas`, NVIDIA's assembler, without a GPU.

`ptxas -arch=sm_80` checks what llvmlite's NVPTX back end cannot: that the PTX is
valid for a real GPU architecture (registers, instructions, the system calls). It comes
with the gpu extra (the `nvidia-cuda-nvcc-cu12` wheel, which also ships libdevice) or a
CUDA installation; without it these tests skip.

Two sets of modules: the hand-written gpu-level modules of the lit tests
(`test/lit/gpu/`: a map with math, workgroup memory and barriers, checks and the error
word, host code), and every corpus program through kernel extraction
(`l0.lowering.pipeline.lower(module, target="gpu")`).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from compiled import lowered, same_worker
from corpus import Program, runnable

from l0.bigstack import call_with_big_stack
from l0.dialects.context import LOWERING_LEVELS, SOAC_LEVEL, l0_context
from l0.lowering.llvm.nvptx import is_container
from l0.lowering.llvm.ptx import (
    DEFAULT_ARCH,
    GpuToolMissing,
    compile_ptx,
    find_libdevice,
    find_ptxas,
)

LIT = Path(__file__).parent / "lit" / "gpu"
HAND_WRITTEN = sorted(p for p in LIT.glob("*.mlir") if "builtin.module" in p.read_text())
PTXAS = find_ptxas()

pytestmark = pytest.mark.skipif(PTXAS is None, reason="ptxas not installed (the gpu extra)")


def _has_libdevice() -> bool:
    try:
        find_libdevice()
    except GpuToolMissing:
        return False
    return True


def ptxas(text: str, tmp_path: Path, arch: str = DEFAULT_ARCH, *,
          optimise: bool = True) -> None:
    """Assemble `text` for `arch`; fail with ptxas's message if it refuses. Without
    `optimise`, ptxas assembles at -O0: it reads and checks every instruction as at its
    default level, in half the time, and only its own optimiser, NVIDIA's, is left out."""
    src = tmp_path / "kernels.ptx"
    src.write_text(text)
    assert PTXAS is not None
    level = [] if optimise else ["-O0"]
    done = subprocess.run([str(PTXAS), f"-arch={arch}", *level, str(src), "-o",
                           str(tmp_path / "kernels.cubin")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr + "\n" + text[:4000]


def _parse(path: Path):  # noqa: ANN202 (xDSL's ModuleOp)
    from xdsl.parser import Parser

    module = Parser(l0_context(SOAC_LEVEL + LOWERING_LEVELS), path.read_text()).parse_module()
    module.verify()
    return module


@pytest.mark.parametrize("path", HAND_WRITTEN, ids=[p.name for p in HAND_WRITTEN])
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_hand_written_module_assembles(path: Path, arch: str, tmp_path: Path) -> None:
    module = _parse(path)
    uses_math = "math." in path.read_text()
    if uses_math and not _has_libdevice():
        pytest.skip("libdevice not installed")
    ptx = compile_ptx(module, arch=arch)
    assert f".target {arch}" in ptx.text
    for name in ptx.kernels.values():
        assert f".entry {name}(" in ptx.text
    ptxas(ptx.text, tmp_path, arch)


@pytest.mark.parametrize("prog", [pytest.param(p, id=p.name, marks=same_worker(p))
                                  for p in runnable()])
def test_corpus_program_assembles(prog: Program, tmp_path: Path) -> None:
    if not _has_libdevice():
        pytest.skip("libdevice not installed")
    # The gpu -O module lowered as `lower(module, entries=["main"], target="gpu")`
    # lowers it, which the matrix's gpu-sim cells' lowering starts with (`compiled.py`,
    # Note [Sharing lowered modules]).
    module = call_with_big_stack(lambda: lowered(prog, "O", "gpu"))
    if not is_container(module):
        return  # nothing runs on the device (a program of scalars)
    # traces in kernels: a log (lowering/gpu/trace.py); the hand-written modules above
    # go through ptxas's optimiser too
    ptxas(compile_ptx(module).text, tmp_path, optimise=False)
