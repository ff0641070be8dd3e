"""Python's cycle collector while the compiler works: kept off the objects that exist
when a stage starts, and run less often (Note [The cycle collector and the compiler]).

    with sparing_the_input():
        ...  # a stage: the -O pipeline, the lowering pipeline, LLVM IR emission

The stages nest and may run on several threads at once: the first to enter freezes
and raises the threshold, the last to leave restores both. A caller that keeps its own
objects frozen across stages (a test process, a fork server) freezes them with `hold`
and gives them back with `release`; while it holds, the stages leave the collector as
it is (Note [Who froze the collector]).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_COLLECTION_EVERY = 10_000
"""The collector's first threshold during a stage: a collection of the youngest
objects after this many more allocations than deallocations (Python's default: 700)."""

_lock = threading.Lock()
_inside = 0
"""How many stages run now under the freeze this module made (on any thread)."""
_thresholds: tuple[int, ...] = ()
"""The collector's thresholds before the outermost stage, restored after it."""
_held = False
"""Whether the caller froze the collector itself (`hold`)."""


def hold() -> None:
    """Freeze every object that exists now for the caller, until `release`: the stages
    leave the freeze (and the thresholds) alone meanwhile. Holding again freezes what
    was made since."""
    global _held
    with _lock:
        gc.freeze()
        _held = True


def held() -> bool:
    """Whether the caller holds the collector frozen (`hold`)."""
    return _held


def release() -> None:
    """Give back to the collector what `hold` froze."""
    global _held
    with _lock:
        gc.unfreeze()
        _held = False


@contextmanager
def sparing_the_input() -> Iterator[None]:
    """Keep the cycle collector off the objects that exist now, and let it run less
    often, until the block (and every other stage running) ends."""
    global _inside, _thresholds
    with _lock:
        ours = not _held  # Note [Who froze the collector]
        if ours:
            if _inside == 0:
                gc.freeze()
                _thresholds = gc.get_threshold()
                gc.set_threshold(max(_thresholds[0], YOUNG_COLLECTION_EVERY),
                                 *_thresholds[1:])
            _inside += 1
    try:
        yield
    finally:
        if ours:
            with _lock:
                _inside -= 1
                if _inside == 0:
                    gc.set_threshold(*_thresholds)
                    gc.unfreeze()


# Note [The cycle collector and the compiler]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# IR objects form reference cycles (an op and its block, a value and its uses), so
# Python's cycle collector runs its full collections, each a scan of every object the
# process holds, as passes create ops; on a module of thousands of ops those scans
# took a tenth of `-O`. `gc.freeze()` moves the objects that exist when a stage starts
# (the input module, the compiler's own tables, every module a test process keeps)
# out of the collector's sight, and `gc.unfreeze()` gives them back when it ends:
# garbage made during the stage is still collected (the IR that passes erase is new,
# or freed by reference counts), and what the freeze holds back is collected at the
# next full collection after it.
#
# The new IR itself still made the collector run often: every 700 net allocations a
# young collection, every tenth of those an older one, every tenth of those a full
# one, each scanning the IR made so far; on a thousand sibling maps that was another
# tenth of `-O`. A stage raises the first threshold to 10,000
# (`YOUNG_COLLECTION_EVERY`), so every generation is collected 14 times less often,
# and restores it when it ends. Memory stays bounded: collections still run, on ten
# thousand young objects at most rather than 700.
#
# The lowering pipeline and the LLVM IR emitter build as much IR (and llvmlite
# objects) per op as `-O` does: over the corpus, on cpu, multicore and gpu-sim, the
# collector took about a quarter of their time before they spared their input too.


# Note [Who froze the collector]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A stage's `gc.unfreeze()` gives back everything frozen, not only what it froze, so
# where the caller keeps objects frozen (the test matrix freezes what survives a cell, so
# that the cell's collection walks only the cell's objects; the lit tool server freezes
# what its forked tools share) the stages must not freeze or unfreeze. CPython cannot
# tell cheaply whether anything is frozen: `gc.get_freeze_count()` walks the list of
# frozen objects, and asked at every stage of every compile in a test process holding
# every corpus program's modules, it made the matrix's compiled cells 1.7 times slower.
# So the caller says so: it freezes with `hold` and unfreezes with `release`, and a
# stage only asks the flag they set.
