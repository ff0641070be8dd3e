"""Settings for the whole test suite.

The compile cache (`l0.compile_cache`) is off (`L0_NO_CACHE=1`), for the tests and for
the programs they start, so that every test compiles what it tests; and its directory
is a temporary one, so that a test turning the cache on (`test/test_cache.py`) never
touches the user's own cache. `L0_TEST_COUNTS=FILE` counts the costly work of each test
file into FILE (`workcount.py`).
"""

from __future__ import annotations

import os
import tempfile

import pytest


def pytest_configure(config: pytest.Config) -> None:
    os.environ["L0_NO_CACHE"] = "1"
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="l0-test-cache-")
    counts = os.environ.get("L0_TEST_COUNTS")
    if counts:  # counting the work per test file (workcount.py)
        from workcount import WorkCounter

        counter = WorkCounter(counts)
        counter.install()
        config.pluginmanager.register(counter, "l0-work-counter")
