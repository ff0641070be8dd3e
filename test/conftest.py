"""Settings for the whole test suite.

The compile cache (`l0.compile_cache`) is off (`L0_NO_CACHE=1`), for the tests and for
the programs they start, so that every test compiles what it tests; and its directory
is a temporary one, so that a test turning the cache on (`test/test_cache.py`) never
touches the user's own cache. `L0_TEST_COUNTS=FILE` counts the costly work of each test
file into FILE (`workcount.py`).

Note [Groups on pytest 9.2]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
`make test` runs `--dist loadgroup`: the tests marked `xdist_group(NAME)` (a corpus
program's, `compiled.same_worker`) go to one worker, which makes the program's modules
once. pytest-xdist (3.8) marks them by setting `item._nodeid` to `ID@NAME` in the
worker; from pytest 9.2 an item's id is computed from `item._id`, so that assignment
changed nothing, and a program's tests were spread over both workers, each making its
modules and compiling its code. The hook below sets the id so that pytest keeps it, when
xdist's did not.
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


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put each test of an xdist group in its group under `--dist loadgroup` (Note [Groups
    on pytest 9.2])."""
    if not getattr(config.option, "loadgroup", False):  # set in xdist's workers
        return
    for item in items:
        groups = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                         for m in item.iter_markers("xdist_group")})
        suffix = "@" + "_".join(groups)
        if groups and not item.nodeid.endswith(suffix):
            _rename(item, item.nodeid + suffix)


def _rename(item: pytest.Item, nodeid: str) -> None:
    if hasattr(item, "_id"):  # pytest 9.2: the id is a `NodeId`, the string derived from it
        from _pytest.nodeid import NodeId

        item._id = NodeId.parse(nodeid)
    else:
        item._nodeid = nodeid
