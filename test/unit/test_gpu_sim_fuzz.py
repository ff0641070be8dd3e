"""The fusion fuzzer's generated programs through the GPU back end's kernels, run on the
CPU (`gpu-sim`).

The programs and inputs of `test_fuse.py` (vectors: fused maps, redomaps, filters,
scans; matrices: nested maps, per-row folds), compiled with -O for `gpu-sim`, must give
the result or error of the interpreter without `fuse`: every one goes through kernel
extraction (map and reduction kernels, serial kernels, the error word).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from test_fuse import EXAMPLES, INPUTS, MATRIX_INPUTS, _same_compiled, matrix_programs, programs

from l0.bigstack import call_with_big_stack


@settings(max_examples=max(EXAMPLES // 6, 4), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_generated_programs_on_gpu_sim(src: str) -> None:
    call_with_big_stack(lambda: _same_compiled(src, INPUTS, "gpu-sim"))


@settings(max_examples=max(EXAMPLES // 6, 4), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(matrix_programs())
def test_matrix_programs_on_gpu_sim(src: str) -> None:
    call_with_big_stack(lambda: _same_compiled(src, MATRIX_INPUTS, "gpu-sim"))
