"""Settings for the whole test suite.

The compile cache (`l0.compile_cache`) is off (`L0_NO_CACHE=1`), for the tests and for
the programs they start, so that every test compiles what it tests; and its directory
is a temporary one, so that a test turning the cache on (`test/test_cache.py`) never
touches the user's own cache. `L0_TEST_COUNTS=FILE` counts the costly work of each test
file into FILE (`workcount.py`).

Note [LLVM's level in the tests]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Two thirds of compiling a small program was LLVM's: its O3 optimiser, then code
generation at opt level 3, for code that the tests run on a few rows. The suite
compiles at `L0_LLVM_OPT=0` (`l0.lowering.runtime.llvm_level`: no LLVM optimiser, code
generation at level 0, about twelve times faster), for the tests and the programs they
start (lit's tools too: `test/lit/lit.cfg` passes the variable on), unless the
environment of pytest names a level (`L0_LLVM_OPT=3 make test` runs
everything at O3). What is checked at O3, as `l0-run` and `l0.compile` ship it: the
matrix's cells that run what `l0-run` runs (the `O` cells of `cpu` and `multicore`,
Note [LLVM's level in the matrix] in `test_matrix.py`), the same configurations of the
differential fuzzer (`Config.shipped` in `test/fuzzing/differential.py`), the
multicore fuzzer, and the tests marked `llvm_o3`: those whose code must be optimised to
run at all (a sum over 2^62 rows that LLVM folds into a closed form) and the
benchmarks'. LLVM's
optimiser is where IR that promises too much (an `nsw`, a `noalias`, a loop marked
parallel) changes what a program prints; what the rest of the suite is about is
decided before LLVM.

Note [The fusion fuzzer's programs]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The hypothesis tests (the fusion fuzzer of `test_fuse.py` and its multicore and gpu-sim
runs) draw their programs from a fixed seed (the `suite` profile: `derandomize`), so a
run of `make test` is reproducible and its outcome does not depend on the draw, as the
differential fuzzer's fixed seeds do. Drawing new programs is exploration, asked for:
`L0_HYPOTHESIS=explore make test` (hypothesis's own settings), like `make fuzz` for the
differential fuzzer. A fresh draw once made `fuse` run for more than fifteen minutes on
a generated matrix program, which failed a CI run by its timeout.

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
from collections.abc import Iterator
from unittest.mock import patch

import pytest
from hypothesis import settings

from l0.lowering.runtime import llvm_level

SUITE_LLVM_LEVEL = 0
"""LLVM's level for the suite, unless its environment names one (Note [LLVM's level in
the tests])."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """A test marked `llvm_o3` (or in a module marked so) compiles at LLVM's O3, as
    `l0-run` does, from its setup to its teardown (Note [LLVM's level in the tests])."""
    if item.get_closest_marker("llvm_o3") is None:
        yield
        return
    with patch.dict(os.environ, {llvm_level.ENV: str(llvm_level.DEFAULT)}):
        yield


settings.register_profile("suite", derandomize=True)
settings.register_profile("explore")
settings.load_profile(os.environ.get("L0_HYPOTHESIS", "suite"))
"""Note [The fusion fuzzer's programs]: the suite draws the same programs on every run;
`L0_HYPOTHESIS=explore` draws new ones."""


def pytest_configure(config: pytest.Config) -> None:
    os.environ["L0_NO_CACHE"] = "1"
    os.environ.setdefault(llvm_level.ENV, str(SUITE_LLVM_LEVEL))  # Note [LLVM's level ...]
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
