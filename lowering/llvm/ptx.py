"""PTX from the kernels of a gpu-level module: NVPTX LLVM IR + libdevice -> O3 -> PTX.

    emit_kernels (lowering/llvm/nvptx.py) -> link libdevice.10.bc -> internalise
        -> O3 (the unused part of libdevice disappears) -> llvmlite's NVPTX target
        machine -> PTX text

Everything runs in llvmlite's LLVM: no CUDA toolkit is needed to make PTX, only
libdevice (the bitcode of the CUDA math library), which the `nvidia-cuda-nvcc-cu12`
wheel ships (`pip install l0[gpu]`) as does any CUDA installation. `ptxas` (same wheel)
assembles PTX for a GPU architecture without a GPU: the tests check PTX with it.

`sm_XX` comes from the device (`l0.lowering.runtime.gpu_runtime`) when there is one, else
`DEFAULT_ARCH`.
"""

from __future__ import annotations

import os
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

import llvmlite.binding as llvm
from xdsl.dialects.builtin import ModuleOp

from l0.lowering.llvm.nvptx import TRIPLE, emit_kernels
from l0.lowering.runtime import abi, llvm_level

DEFAULT_ARCH = "sm_80"
"""The architecture PTX is made for without a device (Ampere; PTX for sm_80 runs on
every later GPU, the driver compiling it for the one it has)."""

_lock = threading.Lock()
_libdevice: bytes | None = None


class GpuToolMissing(Exception):
    """A file of the CUDA toolchain (libdevice, ptxas) is not installed."""


@dataclass
class Ptx:
    """PTX of a module's kernels: `kernels` maps each kernel's symbol to its PTX name."""

    text: str
    arch: str
    kernels: dict[str, str]
    errors: abi.ErrorTable


def _cuda_roots() -> list[Path]:
    """Where CUDA files may be: the nvidia-cuda-nvcc wheel, then a CUDA installation."""
    roots: list[Path] = []
    try:
        import nvidia.cuda_nvcc as wheel

        roots += [Path(p) for p in getattr(wheel, "__path__", [])]
    except ImportError:
        pass
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            roots.append(Path(os.environ[var]))
    roots.append(Path("/usr/local/cuda"))
    return roots


def find_libdevice() -> Path:
    """libdevice.10.bc: `L0_LIBDEVICE`, else in the wheel or a CUDA installation."""
    if os.environ.get("L0_LIBDEVICE"):
        path = Path(os.environ["L0_LIBDEVICE"])
        if not path.is_file():
            raise GpuToolMissing(f"L0_LIBDEVICE names no file: {path}")
        return path
    for root in _cuda_roots():
        path = root / "nvvm" / "libdevice" / "libdevice.10.bc"
        if path.is_file():
            return path
    raise GpuToolMissing("the gpu back end needs libdevice (CUDA's math library): "
                         "install the gpu extra (pip install 'l0[gpu]') or set L0_LIBDEVICE")


def find_ptxas() -> Path | None:
    """The ptxas of the wheel, of PATH or of a CUDA installation; None if none."""
    for root in _cuda_roots()[:1]:
        path = root / "bin" / "ptxas"
        if path.is_file():
            return path
    found = shutil.which("ptxas")
    if found:
        return Path(found)
    for root in _cuda_roots()[1:]:
        path = root / "bin" / "ptxas"
        if path.is_file():
            return path
    return None


def _libdevice_bitcode() -> bytes:
    global _libdevice
    if _libdevice is None:
        _libdevice = find_libdevice().read_bytes()
    return _libdevice


def target_machine(arch: str = DEFAULT_ARCH,
                   level: int = llvm_level.DEFAULT) -> llvm.TargetMachine:
    """llvmlite's NVPTX target machine for `arch` (`sm_80`, `sm_90`, ...), at opt
    `level` (3 unless the test-only `L0_LLVM_OPT` says otherwise)."""
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=arch, opt=level)


def nvptx_module(module: ModuleOp, *, arch: str = DEFAULT_ARCH, fast_math: bool = False,
                 optimize: bool = True) -> tuple[llvm.ModuleRef, dict[str, str],
                                                 abi.ErrorTable]:
    """The kernels of `module` as an LLVM module, with libdevice linked in and,
    with `optimize`, after O3 (only the kernels stay external). At the test-only
    level 0 (`l0.lowering.runtime.llvm_level`), only the unused functions go (those of
    libdevice above all), as the O3 pipeline would drop them."""
    emitted = emit_kernels(module, fast_math=fast_math)
    level = llvm_level.llvm_level()
    with _lock:
        tm = target_machine(arch, level)
        mod = llvm.parse_assembly(str(emitted.llvm))
        mod.verify()
        if optimize:
            used = {f.name for f in mod.functions if f.is_declaration}
            if any(name.startswith("__nv_") for name in used):
                lib = llvm.parse_bitcode(_libdevice_bitcode())
                lib.triple = TRIPLE
                lib.data_layout = str(mod.data_layout)
                mod.link_in(lib)
            kernels = set(emitted.kernels.values())
            for f in mod.functions:
                if not f.is_declaration and f.name not in kernels:
                    f.linkage = llvm.Linkage.internal
            for g in mod.global_variables:
                if not g.is_declaration:
                    g.linkage = llvm.Linkage.internal
            pto = llvm.create_pipeline_tuning_options(speed_level=level)
            pb = llvm.create_pass_builder(tm, pto)
            if level == 0:
                unused = llvm.create_new_module_pass_manager()
                unused.add_global_dead_code_eliminate_pass()
                unused.run(mod, pb)
            else:
                pb.getModulePassManager().run(mod, pb)
        return mod, emitted.kernels, emitted.errors


def compile_ptx(module: ModuleOp, *, arch: str = DEFAULT_ARCH,
                fast_math: bool = False) -> Ptx:
    """PTX for the kernels of the gpu-level `module`."""
    mod, kernels, errors = nvptx_module(module, arch=arch, fast_math=fast_math)
    with _lock:
        text = target_machine(arch, llvm_level.llvm_level()).emit_assembly(mod)
    return Ptx(text, arch, kernels, errors)
