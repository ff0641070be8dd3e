"""The gpu back end without a GPU: its host code on a stand-in driver, and its errors.

The host code (`lowering/llvm/cuda_host.py`) runs against the fake driver of
`gpu_fake_driver.py` in a subprocess: copies, launches with the exploded arguments,
frees, and every failing driver call a located run-time error. L0 programs run there
through the back end's own numba.cuda calls, on a stand-in `numba.cuda` (loading the
PTX, arrays in and out). Without a driver, a device or the gpu extra, `--backend=gpu`
says so in one line and exits with 2; other back ends never import numba.
"""

from __future__ import annotations

import ctypes.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from l0.api import BACKENDS, BackendUnavailable, CompiledProgram
from l0.lowering.backends import gpu as gpu_backend

HERE = Path(__file__).parent
L0_RUN = Path(sys.executable).parent / "l0-run"
PROGRAM = "fun [real] main([real] xs) = map(fn real (real x) => x * 2.0, xs)\n"


def fake_driver(scenario: str, *args: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, str(HERE / "gpu_fake_driver.py"), scenario, *args],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_host_code_copies_launches_and_frees() -> None:
    out = fake_driver("scale")
    assert out["same"] is True
    # 1000 doubles in and out, one launch of ceil(1000/256) blocks of 256 threads
    assert out["log"] == [["alloc", 8000], ["alloc", 8000], ["copy", 8000],
                          ["launch", True, 4, 1, 1, 256, 1, 1, 0], ["copy", 8000],
                          ["free", True], ["free", True]]


def test_empty_arrays_launch_and_copy_nothing() -> None:
    out = fake_driver("empty")
    assert out["same"] is True
    assert out["log"] == [["alloc", 1], ["alloc", 1], ["free", True], ["free", True]]


@pytest.mark.parametrize(("scenario", "message"), [
    ("oom", "out of memory: cannot allocate 8000 bytes"),
    ("alloc-fails", "GPU: cuMemAlloc_v2 failed with CUDA error 1"),
    ("launch-fails", "GPU: cuLaunchKernel failed with CUDA error 700"),
])
def test_failing_driver_calls_are_runtime_errors(scenario: str, message: str) -> None:
    out = fake_driver(scenario)
    assert out["error"] == message


def test_the_compile_cache_keeps_ptx_and_host_code(tmp_path: Path) -> None:
    # Note [The compile cache on the GPU]: the second compile is a hit, loads the
    # cached PTX on the (stand-in) device and fills the kernel's slot in the cached host
    # code, so it launches the same kernel handle with the same geometry and copies.
    out = fake_driver("cache", str(tmp_path))
    assert out["from_cache"] == [False, True]
    assert out["entries"] == 1
    assert out["loaded"] == [["main_impl_map_0"], ["main_impl_map_0"]]
    first, second = out["logs"]  # type: ignore[misc]
    assert first == second and ["launch", 0x1000, 4, 256] in first


def test_arrays_cross_main_boundary_through_numba_cuda() -> None:
    # Note [Arrays at main's boundary]: the argument goes in with numba.cuda's
    # to_device, the compiled code works on device memory only (a fresh result array,
    # written by a kernel launched with the handle numba.cuda's module gave), the
    # result comes back through a numba.cuda array over it and is freed on the device.
    out = fake_driver("boundary")
    assert out["same"] is True
    assert out["log"] == [["to_device", 8000], ["alloc", 8000], ["launch", 0x1000, 4, 256],
                          ["copy_to_host", 8000], ["free", True]]


def test_profiled_launches_are_timed_by_cuda_events() -> None:
    # docs/tools.md, l0-run --profile: on the gpu a launch's time is the time between
    # two CUDA events recorded on the default stream around it, the second waited for;
    # the fake clock puts them 0.25 ms apart. Both events are destroyed.
    out = fake_driver("profile")
    assert out["same"] is True
    assert out["log"] == [["record", 0xE0, 0], ["launch", 0x1000, 4, 256],
                          ["record", 0xE1, 0], ["sync", 0xE1]]
    assert out["profile"] == [{"name": "main:1:30:map", "launches": 1, "threads": 1024,
                               "iterations": 1000, "time_us": 250.0}]
    assert out["events_left"] == 0


def test_numba_missing_says_install_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from l0.lowering.runtime import gpu_runtime

    monkeypatch.setitem(sys.modules, "numba", None)  # an import of it fails
    monkeypatch.delitem(sys.modules, "numba.cuda", raising=False)
    with pytest.raises(gpu_runtime.GpuUnavailable) as info:
        gpu_runtime.numba_cuda()
    assert str(info.value) == ("--backend=gpu needs numba.cuda: install the gpu extra "
                               "(pip install 'l0[gpu]')")


def test_handles_from_numba_cuda_become_addresses() -> None:
    from l0.lowering.runtime.gpu_runtime import handle_address

    class Bound:  # a cuda.bindings handle
        def __int__(self) -> int:
            return 0x7F00

    assert handle_address(Bound()) == 0x7F00
    assert handle_address(ctypes.c_void_p(0x7F08)) == 0x7F08


def test_other_back_ends_never_import_numba() -> None:
    # l0-run's start-up stays short: only --backend=gpu imports numba.cuda.
    code = ("import sys\n"
            "import l0\n"
            "from l0.cli import run\n"
            "l0.compile('fun int main(int n) = n + 1', backend='cpu').main(1)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numba', 'cuda')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def _real_driver() -> bool:
    return ctypes.util.find_library("cuda") is not None or os.path.exists("/dev/nvidiactl")


def _l0_run(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    src = tmp_path / "double.l0"
    src.write_text(PROGRAM)
    return subprocess.run([str(L0_RUN), "--backend=gpu", str(src)], input="[1.0, 2.0]",
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_gpu_is_a_backend() -> None:
    assert "gpu" in BACKENDS


@pytest.mark.skipif(_real_driver(), reason="this machine has a CUDA driver")
def test_without_a_driver_one_line_exit_2(tmp_path: Path) -> None:
    done = _l0_run(tmp_path, {"L0_LIBCUDA": str(tmp_path / "libcuda.so.1")})
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == ("l0-run: error: --backend=gpu needs an NVIDIA GPU and its driver: "
                           f"no CUDA driver library ({tmp_path / 'libcuda.so.1'}) on this "
                           "machine\n")


NO_DEVICE_DRIVER = r"""
int cuInit(unsigned flags) { return 100; }
int cuGetErrorName(int error, const char **name) {
    *name = error == 100 ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN";
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc for the stand-in driver")
def test_without_a_device_one_line_exit_2(tmp_path: Path) -> None:
    """A driver that sees no GPU (as libcuda does on a machine without one)."""
    (tmp_path / "nodevice.c").write_text(NO_DEVICE_DRIVER)
    lib = tmp_path / "libcuda.so.1"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(lib), str(tmp_path / "nodevice.c")],
                   check=True, timeout=60)
    done = _l0_run(tmp_path, {"L0_LIBCUDA": str(lib)})
    assert done.returncode == 2
    assert done.stderr == ("l0-run: error: --backend=gpu needs an NVIDIA GPU: cuInit failed "
                           "(CUDA_ERROR_NO_DEVICE (100))\n")


class _FakeDevice:
    arch = "sm_80"

    def make_current(self) -> None:
        pass


def test_without_the_extra_one_clear_error(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A GPU, but no libdevice (the gpu extra is not installed)."""
    monkeypatch.setattr(gpu_backend, "device", lambda: _FakeDevice())
    monkeypatch.setenv("L0_LIBDEVICE", str(tmp_path / "libdevice.10.bc"))
    with pytest.raises(BackendUnavailable) as info:
        CompiledProgram(PROGRAM, "double.l0", "gpu")
    assert str(info.value) == f"L0_LIBDEVICE names no file: {tmp_path / 'libdevice.10.bc'}"


def test_libdevice_missing_says_install_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from l0.lowering.llvm import ptx

    monkeypatch.delenv("L0_LIBDEVICE", raising=False)
    monkeypatch.setattr(ptx, "_cuda_roots", lambda: [])
    with pytest.raises(ptx.GpuToolMissing) as info:
        ptx.find_libdevice()
    assert "pip install 'l0[gpu]'" in str(info.value)


class _NamingDriver:
    def cuGetErrorName(self, result: int, out: object) -> int:  # noqa: N802 (the driver's name)
        ctypes.cast(out, ctypes.POINTER(ctypes.c_char_p))[0] = b"CUDA_ERROR_ILLEGAL_ADDRESS"
        return 0


def test_driver_errors_are_named() -> None:
    from l0.diagnostics import L0Error, Loc
    from l0.lowering.backends.gpu import _named

    class Dev:
        lib = _NamingDriver()

    err = L0Error(Loc("p.l0", 1, 1), "GPU: cuMemcpy failed with CUDA error 700",
                  "runtime-error")
    named = _named(err, Dev())  # type: ignore[arg-type]
    assert named.message == "GPU: cuMemcpy failed with CUDA_ERROR_ILLEGAL_ADDRESS (700)"
    assert (named.loc, named.kind) == (err.loc, "runtime-error")


@pytest.mark.skipif(_real_driver(), reason="this machine has a CUDA driver")
@pytest.mark.parametrize("command", [["test", "--backend", "gpu"], ["bench", "--backend", "gpu"]])
def test_l0_test_and_bench_refuse_gpu_in_one_line(command: list[str], tmp_path: Path) -> None:
    src = tmp_path / "double.l0"
    src.write_text(PROGRAM)
    l0 = Path(sys.executable).parent / "l0"
    done = subprocess.run([str(l0), *command, str(src)], capture_output=True, text=True,
                          timeout=120, env={**os.environ,
                                            "L0_LIBCUDA": str(tmp_path / "libcuda.so.1")})
    assert done.returncode == 2
    assert done.stderr.startswith(f"l0 {command[0]}: error: --backend=gpu needs an NVIDIA GPU")
    assert done.stderr.count("\n") == 1


def test_the_engine_holds_its_host_codes_engine_and_loads_from_its_parts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`GpuEngine` is composed: it calls its host code's `NativeEngine`, saves that
    engine's data with the device code, and `load` builds it from loaded parts (an
    entry of another architecture is not used). Without a GPU: host code compiled for
    the CPU, a device that loads PTX into nothing."""
    import numpy as np

    from l0.frontend import load_program, to_module
    from l0.lowering.backends.cpu import CpuEngine, entry_points
    from l0.lowering.runtime.engine import NativeEngine
    from l0.lowering.runtime.gpu_runtime import LoadedPtx

    module = to_module(load_program(PROGRAM, "double.l0"))
    cpu = CpuEngine(module)
    loads: list[str] = []

    class Device(_FakeDevice):
        def load_ptx(self, text: str, names: object) -> LoadedPtx:
            loads.append(text)
            return LoadedPtx(None, {})

    dev = Device()
    host = NativeEngine(cpu.compiled, entry_points(module, None), isolate=False)
    jit = gpu_backend.GpuJitModule(cpu.compiled, LoadedPtx(None, {}), "// the ptx", {})
    engine = gpu_backend.GpuEngine(dev, jit, host)  # type: ignore[arg-type]
    xs = np.arange(4.0)
    np.testing.assert_array_equal(engine.call("main", [xs])[0], xs * 2.0)
    data, code = engine.save()
    data = json.loads(json.dumps(data))  # as the compile cache keeps it
    assert data["gpu"] == {"arch": "sm_80", "ptx": "// the ptx", "kernels": {}}
    monkeypatch.setattr(gpu_backend, "device", lambda: dev)
    loaded = gpu_backend.GpuEngine.load(data, code)
    assert isinstance(loaded, gpu_backend.GpuEngine) and loads == ["// the ptx"]
    assert loaded.compiled.addresses.keys() == engine.compiled.addresses.keys()
    other = Device()
    other.arch = "sm_90"
    monkeypatch.setattr(gpu_backend, "device", lambda: other)
    assert gpu_backend.GpuEngine.load(data, code) is None
