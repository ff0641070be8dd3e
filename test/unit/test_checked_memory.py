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


def test_checker_sees_overlapping_iteration_slices() -> None:
    # Note [Checking the slices] in `l0.lowering.memory.expand_allocs`.
    checked_memory.reset_problems()
    buf = checked_memory._alloc(8, 96)
    claim = checked_memory.claim_slice
    claim(buf, buf, buf + 32)
    claim(buf, buf + 64, buf + 96)
    claim(buf, buf + 32, buf + 64)  # disjoint slices, in any order
    claim(buf, buf, buf + 32)  # the same slice again: another run of the loop
    claim(buf, buf + 8, buf + 16)  # a slice of a slice (nested loops): another size
    claim(buf, buf + 40, buf + 48)
    claim(0, 8, 16)  # not one of our buffers: not checked
    assert checked_memory.problems() == []
    claim(buf, buf + 8, buf + 40)
    assert checked_memory.problems() == [
        f"parallel iterations' slices of 32 bytes overlap in the buffer at 0x{buf:x}: "
        "at byte offsets 0 and 8"]
    checked_memory.reset_problems()
    checked_memory.free(buf)  # a freed buffer's slices are forgotten
    assert buf not in checked_memory._slices
    assert checked_memory.problems() == []
