"""The checking heap itself (`l0.lowering.runtime.checked_memory`), which the test matrix runs
the CPU back end on: a freed buffer reads as poison, a second free is reported."""

from __future__ import annotations

import ctypes

from l0.lowering.runtime import checked_memory


def test_checker_sees_use_after_free() -> None:
    checked_memory.reset_problems()
    ptr = checked_memory._alloc(64, 64)
    assert ctypes.string_at(ptr, 4) == bytes([checked_memory.FRESH]) * 4
    checked_memory.free(ptr)
    assert ctypes.string_at(ptr, 4) == bytes([checked_memory.FREED]) * 4
    checked_memory.free(ptr)
    assert len(checked_memory.problems()) == 1
    checked_memory.reset_problems()


def test_checker_sees_a_write_past_the_end() -> None:
    checked_memory.reset_problems()
    ok = checked_memory._alloc(8, 24)
    checked_memory.free(ok)  # its guard bytes untouched: no problem
    assert checked_memory.problems() == []
    ptr = checked_memory._alloc(8, 24)
    ctypes.memset(ptr + 24, 0, 1)  # one byte past the buffer
    checked_memory.free(ptr)
    assert checked_memory.problems() == [
        f"a write past the end of a buffer of 24 bytes at 0x{ptr:x}"]
    checked_memory.reset_problems()
