"""Progress lines on stderr for long runs of `l0 test` and `l0 bench`.

Nothing is printed for runs shorter than `QUIET_SECONDS`, so quick runs stay silent and
their output easy to read. After that a line `[done/total] what` is printed: rewritten in
place on a terminal, else at most one every `EVERY_SECONDS` (a log stays short).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

QUIET_SECONDS = 3.0
EVERY_SECONDS = 5.0


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.monotonic()
        self.last = 0.0
        self.tty = self.stream.isatty()
        self.shown = False

    def update(self, done: int, what: str) -> None:
        now = time.monotonic()
        if now - self.start < QUIET_SECONDS:
            return
        if not self.tty and now - self.last < EVERY_SECONDS:
            return
        self.last = now
        line = f"[{done}/{self.total}] {what} ({now - self.start:.0f} s)"
        if self.tty:
            self.stream.write("\r\033[K" + line[:120])
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
        self.shown = True

    def finish(self) -> None:
        """End the rewritten line, so what follows starts on a line of its own."""
        if self.tty and self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
