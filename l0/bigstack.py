"""Run a function in a thread with a large stack and a high recursion limit.

The front end, the passes and the interpreter recurse over the program (expression
trees, recursive L0 functions); Python's default 1000 frames and the main thread's
8 MiB stack are far too little for real programs. Work that recurses runs here.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

R = TypeVar("R")

STACK_BYTES = 1 << 29  # 512 MiB of virtual stack; only touched pages cost memory
RECURSION_LIMIT = 200_000

_lock = threading.Lock()


def call_with_big_stack(work: Callable[[], R]) -> R:
    """Return `work()`, run in a big-stack thread; exceptions propagate to the caller."""
    if threading.current_thread().name == "l0-bigstack":
        return work()  # already on a big stack
    result: list[R] = []
    error: list[BaseException] = []

    def body() -> None:
        try:
            result.append(work())
        except BaseException as err:  # re-raised in the calling thread
            error.append(err)

    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)  # before the thread starts: it reads the limit
    with _lock:  # threading.stack_size is process-global
        old_stack = threading.stack_size()
        threading.stack_size(STACK_BYTES)
        try:
            worker = threading.Thread(target=body, name="l0-bigstack")
            worker.start()
        finally:
            threading.stack_size(old_stack)
    worker.join()
    if error:
        raise error[0]
    return result[0]
