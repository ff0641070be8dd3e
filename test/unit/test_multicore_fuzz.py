"""The fusion fuzzer's generated programs through the multicore back end (1, 2, 3 threads).

The programs and inputs of `test_fuse.py` (vectors: fused maps, redomaps, filters,
scans; matrices: nested maps, per-row folds), compiled with -O for `multicore`, must
give the result or error of the interpreter without `fuse`. Matrix rows hold loops, so
their maps fork threads even on these small inputs (grain 2).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuse import EXAMPLES, INPUTS, MATRIX_INPUTS, _same_compiled, matrix_programs, programs

from l0.bigstack import call_with_big_stack

pytestmark = pytest.mark.llvm_o3  # Note [LLVM's level in the tests] (conftest.py)


@settings(max_examples=max(EXAMPLES // 6, 4), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.sampled_from([1, 2, 3]))
def test_generated_programs_on_multicore(src: str, threads: int) -> None:
    call_with_big_stack(lambda: _same_compiled(src, INPUTS, "multicore", threads))


@settings(max_examples=max(EXAMPLES // 6, 4), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(matrix_programs(), st.sampled_from([1, 2, 3]))
def test_matrix_programs_on_multicore(src: str, threads: int) -> None:
    call_with_big_stack(lambda: _same_compiled(src, MATRIX_INPUTS, "multicore", threads))
