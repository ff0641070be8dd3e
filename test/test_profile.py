"""The profile of parallel execution and the run-time parameters (docs/tools.md).

Structural tests that read the profile: what each region or kernel reports (launches,
threads, iterations) for maps, reductions and host loops of launches on `gpu-sim` and
`multicore`; the thresholds that keep tiny work on the calling thread, read at run
time (set without compiling again) and kept through the compile cache; and results
that do not depend on which way a region ran.
"""

from __future__ import annotations

import numpy as np
import pytest

import l0

SOURCE = """
fun [int] double([int] a) = map(fn int (int x) => x * 2, a)
fun int sum([int] a) = reduce(op +, 0, a)
fun real rsum([real] a) = reduce(op +, 0.0, a)
fun [int] steps([int] a, int k) = loop (a) = for i < k do map(fn int (int x) => x + i, a) in a
fun [int] rows([[int]] m) = map(fn int ([int] r) => reduce(op +, 0, r), m)
fun int main() = 0
"""


def _records(prog: l0.api.CompiledProgram, name: str, *args: object) -> list[dict]:
    prog.reset_profile()
    getattr(prog, name)(*args)
    return prog.profile_records()


def _by_kind(records: list[dict], kind: str) -> list[dict]:
    """The records of the sites of one kind (`...:map`, `...:reduce.final`) that ran."""
    return [r for r in records if r["launches"] and r["name"].split(":")[-1] == kind]


@pytest.fixture(scope="module")
def sim() -> l0.api.CompiledProgram:
    return l0.compile(SOURCE, backend="gpu-sim", optimise=False, profile=True, cache=False)


@pytest.fixture(scope="module")
def mc() -> l0.api.CompiledProgram:
    return l0.compile(SOURCE, backend="multicore", threads=2, optimise=False, profile=True,
                      cache=False)


def test_gpu_sim_map_reports_its_elements(sim: l0.api.CompiledProgram) -> None:
    (rec,) = _by_kind(_records(sim, "double", np.arange(1000)), "map")
    assert rec["name"] == "double:2:29:map"
    assert rec["launches"] == 1 and rec["iterations"] == 1000
    assert rec["threads"] == 4 * 256  # ceil(1000 / 256) blocks of 256
    assert rec["time_us"] > 0


def test_gpu_sim_reduce_reports_its_two_kernels(sim: l0.api.CompiledProgram) -> None:
    n = 3 * 4096
    recs = _records(sim, "sum", np.arange(n))
    (first,) = _by_kind(recs, "reduce")
    (final,) = _by_kind(recs, "reduce.final")
    assert first["iterations"] == n and first["threads"] == 48 * 256
    assert final["name"] == first["name"] + ".final"
    assert final["launches"] == 1 and final["iterations"] == 48  # a partial per block


def test_gpu_sim_host_loop_launches_once_per_trip(sim: l0.api.CompiledProgram) -> None:
    (rec,) = _by_kind(_records(sim, "steps", np.arange(10), 7), "map")
    assert rec["launches"] == 7 and rec["iterations"] == 70
    (rec,) = _by_kind(_records(sim, "steps", np.arange(10), 0), "map") or [{"launches": 0}]
    assert rec["launches"] == 0


def test_counters_accumulate_until_reset(sim: l0.api.CompiledProgram) -> None:
    sim.reset_profile()
    for _ in range(3):
        sim.double(np.arange(10))
    (rec,) = _by_kind(sim.profile_records(), "map")
    assert rec["launches"] == 3 and rec["iterations"] == 30
    sim.reset_profile()
    assert all(r["launches"] == r["iterations"] == r["time_us"] == 0
               for r in sim.profile_records())


def test_multicore_reduce_reports_its_chunks(mc: l0.api.CompiledProgram) -> None:
    (rec,) = _by_kind(_records(mc, "sum", np.arange(100_000)), "reduce")
    assert rec == {**rec, "launches": 1, "threads": 2, "iterations": 2}
    (rec,) = _by_kind(_records(mc, "sum", np.arange(100)), "reduce")
    assert rec["threads"] == 1 and rec["iterations"] == 1  # one chunk: no fork


def test_multicore_tiny_map_runs_on_the_calling_thread(mc: l0.api.CompiledProgram) -> None:
    (rec,) = _by_kind(_records(mc, "rows", np.ones((4, 3), dtype=np.int64)), "map")
    assert rec["threads"] == 1 and rec["iterations"] == 4
    (rec,) = _by_kind(_records(mc, "double", np.arange(100_000)), "map")
    assert rec["threads"] == 2 and rec["iterations"] == 100_000


def test_thresholds_are_read_at_run_time() -> None:
    prog = l0.compile(SOURCE, backend="multicore", threads=2, optimise=False, profile=True,
                      cache=False)
    values = prog.param_values()
    names = [n for n in values if n.endswith(".min_work")]
    # Besides the regions' thresholds, the map of reductions' choice of its segmented
    # form (test/test_segmented.py).
    assert names and all(n.endswith(".segmented_below") for n in values if n not in names)
    assert {values[n] for n in names} == {2 * 16384}  # threads * 2^14
    engine = prog._engine
    rows = next(n for n in names if n.startswith("rows:") and n.endswith(":map.min_work"))
    prog.set_params({rows: 0})
    (rec,) = _by_kind(_records(prog, "rows", np.ones((4, 3), dtype=np.int64)), "map")
    assert rec["threads"] == 2  # forced parallel, nothing compiled again
    assert prog._engine is engine and prog.param_values()[rows] == 0
    prog.set_params({rows: 10**12})
    (rec,) = _by_kind(_records(prog, "rows", np.ones((100_000, 3), dtype=np.int64)), "map")
    assert rec["threads"] == 1


def test_on_threads_runs_the_same_code_on_another_count(mc: l0.api.CompiledProgram) -> None:
    three = mc.on_threads(3)
    assert three._engine.compiled is mc._engine.compiled  # nothing compiled again
    # the defaults are multiples of the thread count (docs/tools.md): now of 3
    assert {k: 2 * v for k, v in three.param_defaults().items()} == {
        k: 3 * v for k, v in mc.param_defaults().items()}
    data = np.arange(100_000)
    (rec,) = _by_kind(_records(three, "double", data), "map")
    assert rec["threads"] == 3 and rec["iterations"] == 100_000
    (rec,) = _by_kind(_records(mc, "double", data), "map")
    assert rec["threads"] == 2  # the original keeps its count
    np.testing.assert_array_equal(three.double(data), data * 2)
    with pytest.raises(ValueError, match="cpu back end takes no thread count"):
        l0.compile(SOURCE, backend="cpu", optimise=False).on_threads(2)


def test_bad_parameters_are_value_errors(mc: l0.api.CompiledProgram) -> None:
    name = next(iter(mc.param_values()))
    known = r"unknown parameter 'nope' \(the program's parameters: .*min_work"
    with pytest.raises(ValueError, match=known):
        mc.set_params({"nope": 1})
    with pytest.raises(ValueError, match="integer >= 0"):
        mc.set_params({name: -1})
    with pytest.raises(ValueError, match="parameters: none"):
        l0.compile(SOURCE, backend="cpu", optimise=False, params={"x": 1})


def test_compile_takes_params(mc: l0.api.CompiledProgram) -> None:
    name = next(n for n in mc.param_values() if n.startswith("rows:"))
    prog = l0.compile(SOURCE, backend="multicore", threads=2, optimise=False, cache=False,
                      params={name: 7})
    assert prog.param_values()[name] == 7 and prog.profile_records() == []


@pytest.mark.parametrize("threads", [2, 3])
def test_results_do_not_depend_on_the_path(threads: int) -> None:
    """A real sum's chunks are fixed by the thread count before the region: run on
    the calling thread or forked, they fold and combine in the same order."""
    prog = l0.compile(SOURCE, backend="multicore", threads=threads, optimise=False,
                      profile=True, cache=False)
    name = next(n for n in prog.param_values() if n.startswith("rsum:"))
    data = np.random.default_rng(3).standard_normal(100_000)
    forked = prog.rsum(data)
    prog.set_params({name: 10**15})
    (rec,) = _by_kind(_records(prog, "rsum", data), "reduce")
    assert rec["threads"] == 1 and rec["iterations"] == threads
    assert prog.rsum(data).hex() == forked.hex()


def test_cache_keeps_params_and_sites(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("L0_NO_CACHE", raising=False)
    source = SOURCE + "\n// cached\n"
    first = l0.api.CompiledProgram(source, "p.l0", "multicore", threads=2, profile=True,
                                   cache=True, optimise=False)
    second = l0.api.CompiledProgram(source, "p.l0", "multicore", threads=2, profile=True,
                                    cache=True, optimise=False)
    assert second.from_cache and not first.from_cache
    assert second.param_values() == first.param_values()
    second.reset_profile()
    second.double(np.arange(10))
    assert [r["name"] for r in second.profile_records()] == \
        [r["name"] for r in first.profile_records()]
    assert sum(r["iterations"] for r in second.profile_records()) == 10
