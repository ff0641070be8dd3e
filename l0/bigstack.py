"""Run a function in a thread with a large stack and a high recursion limit.

The front end, the passes and the interpreter recurse over the program (expression
trees, recursive L0 functions); Python's default 1000 frames and the main thread's
8 MiB stack are far too little for real programs. Work that recurses runs here.

Note [Ctrl-C while the work runs]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Python runs signal handlers in the main thread only, and only between bytecodes: a
main thread blocked in `join()` may not see Ctrl-C until the work is over (the
signal can land on the worker thread, which does not wake the main one), and in
CPython 3.11 a `join()` interrupted by it marks the thread finished while it still
runs. So the caller waits on an event in short slices, which lets `KeyboardInterrupt`
surface within a tenth of a second, and then raises it in the worker too (an
asynchronous exception: the work stops at its next Python instruction; compiled code
runs on until it returns) and waits for it to end, so that nothing keeps running
behind an interrupted caller (`l0 repl` goes on with the next entry).
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

    done = threading.Event()

    def body() -> None:
        try:
            result.append(work())
        except BaseException as err:  # re-raised in the calling thread
            error.append(err)
        finally:
            done.set()

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
    try:
        while not done.wait(0.1):  # Note [Ctrl-C while the work runs]
            pass
    except KeyboardInterrupt:
        _interrupt(worker)
        done.wait()
        worker.join()
        raise
    worker.join()
    if error:
        raise error[0]
    return result[0]


def _interrupt(worker: threading.Thread) -> None:
    """Raise `KeyboardInterrupt` in `worker` (CPython's asynchronous exceptions)."""
    import ctypes

    set_async_exc = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
        ("PyThreadState_SetAsyncExc", ctypes.pythonapi))
    if worker.ident is not None:
        set_async_exc(worker.ident, KeyboardInterrupt)
