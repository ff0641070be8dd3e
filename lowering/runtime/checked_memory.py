"""A checking heap for compiled code: the memory checker of the CPU back end.

With `L0_CHECK_MEMORY=1` in the environment, code compiled from then on allocates and
frees through this module instead of libc (`aligned_alloc`/`free`), the way a debug
build of a runtime would:

* a new buffer is filled with `FRESH` bytes, so reading memory nothing wrote shows up
  as garbage instead of as a lucky zero;
* a freed buffer is filled with `FREED` bytes and kept (quarantined, not reused), so a
  read after the free sees garbage deterministically: the corpus tests, which compare
  every result with the interpreter's, then fail;
* every buffer is followed by `GUARD_BYTES` or more bytes of `GUARD`, checked when it is
  freed: a write past its end (a buffer sized one row short, say) is recorded in
  `problems()` instead of going unseen in memory that happens to be free;
* freeing a pointer that is not a live buffer of ours (a double free, a free of a
  view's interior) is recorded in `problems()` instead of corrupting the heap;
* `live()` counts the buffers not yet freed, for leak checks (buffers returned to
  Python are freed when their last numpy array dies);
* the slices `expand-allocs` gives a parallel loop's iterations in one buffer are
  reported as the iterations make them (`claim_slice`): one that overlaps another of
  its size in that buffer without being the same slice is recorded in `problems()`,
  deterministically, where the real race would show only now and then (Note
  [Checking the slices] in `l0.lowering.memory.expand_allocs`).

It is slow (every allocation calls into Python) and keeps freed memory: for tests,
never for production runs. `make memcheck` runs the program corpus with it.
"""

from __future__ import annotations

import bisect
import ctypes
import os
import threading
from collections import deque

ENV = "L0_CHECK_MEMORY"
ALLOC, FREE, SLICE = "l0_checked_alloc", "l0_checked_free", "l0_checked_slice"
FRESH, FREED, GUARD = 0xCB, 0xA5, 0xFD
GUARD_BYTES = 64
"""The fewest guard bytes after a buffer (more where its alignment rounds the size up)."""
QUARANTINE_BYTES = 256 << 20
"""Freed memory kept poisoned before it really goes back to libc (oldest first)."""

_libc = ctypes.CDLL(None)
_aligned_alloc = _libc.aligned_alloc
_aligned_alloc.argtypes = [ctypes.c_size_t, ctypes.c_size_t]
_aligned_alloc.restype = ctypes.c_void_p
_free = _libc.free
_free.argtypes = [ctypes.c_void_p]
_free.restype = None

_lock = threading.Lock()
_live: dict[int, tuple[int, int]] = {}
"""Each live buffer: its size and the size of its allocation, guard bytes included."""
_slices: dict[int, dict[int, list[int]]] = {}
"""The iteration slices seen in each live buffer, by slice size in bytes: their starts,
as byte offsets into the buffer, sorted."""
_claims = 0
"""How many slices were reported (`claim_slice`), for tests that check the reports come."""
_quarantine: deque[tuple[int, int]] = deque()
_quarantined = 0
_problems: list[str] = []


def enabled() -> bool:
    """Whether code compiled now should use the checking heap."""
    return os.environ.get(ENV, "") not in ("", "0")


def _alloc(align: int, nbytes: int) -> int:
    # aligned_alloc takes a size that is a multiple of the alignment
    total = -(-(nbytes + GUARD_BYTES) // align) * align
    ptr: int | None = _aligned_alloc(align, total)  # c_void_p: None for NULL
    if not ptr:
        return 0
    ctypes.memset(ptr, FRESH, nbytes)
    ctypes.memset(ptr + nbytes, GUARD, total - nbytes)
    with _lock:
        _live[ptr] = (nbytes, total)
    return ptr


def free(ptr: int | None) -> None:
    """Poison and quarantine a buffer of ours; record a free of anything else."""
    global _quarantined
    if not ptr:
        return
    with _lock:
        sizes = _live.pop(ptr, None)
        if sizes is None:
            _problems.append(f"free of 0x{ptr:x}, which is not a live buffer "
                             "(a double free, or a pointer into a buffer)")
            return
        _slices.pop(ptr, None)
        nbytes, total = sizes
        if ctypes.string_at(ptr + nbytes, total - nbytes) != bytes([GUARD]) * (total - nbytes):
            _problems.append(f"a write past the end of a buffer of {nbytes} bytes "
                             f"at 0x{ptr:x}")
        ctypes.memset(ptr, FREED, total)
        _quarantine.append((ptr, total))
        _quarantined += total
        while _quarantined > QUARANTINE_BYTES:
            old, size = _quarantine.popleft()
            _quarantined -= size
            _free(old)


def claim_slice(buffer: int | None, start: int | None, end: int | None) -> None:
    """Bytes [start, end) of the live buffer `buffer` are one parallel iteration's slice:
    record an overlap with another slice of the same size (the same slice again, in
    another run of the loop, is fine). Pointers outside our buffers are not checked."""
    global _claims
    if not buffer or start is None or end is None or end <= start:
        return
    with _lock:
        _claims += 1
        sizes = _live.get(buffer)
        if sizes is None or start < buffer or end - buffer > sizes[0]:
            return  # not a slice of a buffer of ours (guard bytes see one past its end)
        size = end - start
        starts = _slices.setdefault(buffer, {}).setdefault(size, [])
        offset = start - buffer
        k = bisect.bisect_left(starts, offset)
        if k < len(starts) and starts[k] == offset:
            return
        for other in starts[max(0, k - 1):k + 1]:
            if abs(other - offset) < size:
                _problems.append(
                    f"parallel iterations' slices of {size} bytes overlap in the buffer at "
                    f"0x{buffer:x}: at byte offsets {min(other, offset)} and "
                    f"{max(other, offset)}")
                return
        starts.insert(k, offset)


def live() -> int:
    """How many buffers are allocated and not freed."""
    with _lock:
        return len(_live)


def slice_claims() -> int:
    """How many iteration slices compiled code has reported so far (`claim_slice`)."""
    with _lock:
        return _claims


def problems() -> list[str]:
    """The bad frees seen so far (a copy)."""
    with _lock:
        return list(_problems)


def reset_problems() -> None:
    with _lock:
        _problems.clear()


_ALLOC_T = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)
_FREE_T = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_SLICE_T = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
CALLBACKS = {ALLOC: _ALLOC_T(_alloc), FREE: _FREE_T(free), SLICE: _SLICE_T(claim_slice)}
"""The checking heap's functions, by the names compiled code calls (`jit.link_callbacks`)."""
