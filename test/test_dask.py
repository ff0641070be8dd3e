"""L0 programs over Dask arrays (`l0.distributed`, docs/distributed.md), against the
interpreter: the corpus with its array arguments chunked four ways, scans and filters
across chunk boundaries, errors in late chunks, a worker killed mid-run, and a
two-worker `distributed.LocalCluster` on 127.0.0.1 (processes, so kernels travel by
pickle and each worker gets them itself).

Note [Keeping the Dask tests fast]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
What costs is compiling: the programs and their kernels (LLVM), and starting
processes. The corpus share on threads compiles each program for the interpreter (the
front end and the optimiser: what the split reads) and its kernels to native code, all
that a Dask call of the cpu program compiles, but not the whole program to native code,
which no Dask call runs; the cluster's programs go through `l0.compile` and `prog.main`
as a user's do. The module runs in one xdist group (one cluster, started once), with
the compile cache on in a directory of its own: the corpus runs first on the client's
threads, compiling each kernel once and storing it, then four of its programs run on
the cluster, whose workers load their kernels from the cache instead of compiling them
(`test_workers_load_kernels_from_the_cache` checks that a worker loads what another
compiled). The cluster's client is not Dask's default scheduler: the other tests name
theirs.
"""

from __future__ import annotations

import logging
import os
import pickle
import re
import signal
import sys
import time
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from corpus import Program, runnable

import l0
from l0.api import _unflatten
from l0.diagnostics import L0Error
from l0.targets import TARGETS
from l0.types import ArrayType, TupleType, Type, flatten
from l0.values import format_result, read_arguments

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.xdist_group("dask")

CHUNKINGS = ("one", "three", "uneven", "ones")

NOT_ASSOCIATIVE = {
    # Their reduce/scan operators are not associative (a left fold that the sequential
    # back ends give, legal only as long as nothing splits the input): any split differs.
    "soacs/reduce_noncomm.l0",
    "soacs/cse_lambda_constants.l0",
    "uniqueness/reduce_tuple_acc.l0",
}


@pytest.fixture(scope="module", autouse=True)
def compile_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The compile cache on, in a directory of this module's, for the client and the
    cluster's workers (Note [Keeping the Dask tests fast])."""
    directory = str(tmp_path_factory.mktemp("dask-cache"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", directory)
        mp.setenv("L0_NO_CACHE", "0")
        yield directory


@pytest.fixture(scope="module")
def client(compile_cache: str) -> Iterator[Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None,
            env={"XDG_CACHE_HOME": compile_cache, "L0_NO_CACHE": "0"})
        c = distributed.Client(cluster, set_as_default=False)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


def _outer_chunks(n: int, how: str) -> tuple[int, ...]:
    match how:
        case "one":
            return (n,)
        case "three":
            return tuple(len(p) for p in np.array_split(np.arange(n), 3) if len(p))
        case "uneven":
            return tuple(s for s in (1, n // 2, n - 1 - n // 2) if s)
        case _:  # one-element chunks: all of them for short arrays, else at the start
            if n <= 40:
                return (1,) * n
            return (1,) * 5 + _outer_chunks(n - 5, "three")


def _chunked(value: Any, how: str) -> Any:
    if isinstance(value, np.ndarray) and value.ndim and value.shape[0] > 0:
        return da.from_array(value, chunks=(_outer_chunks(value.shape[0], how),) + value.shape[1:])
    return value


def _arguments(params: list[Type], text: str, how: str) -> list[Any]:
    flat = [_chunked(v, how) for v in read_arguments(text, params)]
    args, i = [], 0
    for t in params:
        v, i = _unflatten(t, flat, i)
        args.append(v)
    return args


def _flat(t: Type, v: Any) -> list[Any]:
    if isinstance(t, TupleType):
        return [x for e, ve in zip(t.elems, v, strict=True) for x in _flat(e, ve)]
    if isinstance(t, ArrayType) and len(flatten(t)) > 1:
        return list(v)
    return [v]


def _printed(t: Type, computed: list[Any]) -> str:
    values = [v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in computed]
    return format_result(t, values)


_REAL = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")
_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?|[^\d.-]+|-?\d+|.")


def assert_same_printed(got: str, want: str) -> None:
    """Ints and everything else exactly; reals to the printed precision (the order of a
    reduction changes the last bits)."""
    a, b = _NUMBER.findall(re.sub(r"\s+", "", got)), _NUMBER.findall(re.sub(r"\s+", "", want))
    assert len(a) == len(b), (got, want)
    for x, y in zip(a, b, strict=True):
        if _REAL.fullmatch(x) and _REAL.fullmatch(y):
            assert float(x) == pytest.approx(float(y), rel=1e-6, abs=2e-6), (got, want)
        else:
            assert x == y, (got, want)


def _array_programs() -> list[Program]:
    """The corpus programs with an expected output whose `main` takes arrays."""
    chosen = []
    for p in runnable():
        if p.expected_output is None or p.name in NOT_ASSOCIATIVE:
            continue
        head = re.search(r"\bmain\s*\(([^)]*)\)", p.source)
        if head and "[" in head.group(1) and "cert" not in head.group(1):
            chosen.append(p)
    return chosen


PROGRAMS = _array_programs()
QUICK = ("soacs/", "benchmarks/blackscholes.l0", "tuples/zip_unzip", "tuples/array_of_tuples",
         "fusion/scanomap_chain", "fusion/scanomap_rows", "fusion/filter_reduce",
         "arrays/split_zip", "arrays/concat.l0", "loops/loop_concat",
         "uniqueness/reduce_unique_acc", "split/")
"""The default run's share of the corpus: every kind of SOAC and what fusion makes of
them, tuples, arrays of rows, operators that do not commute (`split/`: partial results
or a scan's carries combined out of order print other values), the statements that
stay distributed and some that gather (under a minute on two cores for the module,
compiling included); `L0_DASK_CORPUS=1` runs every program whose `main` takes arrays."""
SAME_AS_OTHERS = ("soacs/op_binary.l0", "soacs/op_sections_int.l0")
"""Maps of operator sections, as `soacs/op_sections_cmp.l0` is, only slower to compile."""
if not os.environ.get("L0_DASK_CORPUS"):
    PROGRAMS = [p for p in PROGRAMS if p.name.startswith(QUICK) and p.name not in SAME_AS_OTHERS]
CLUSTER = ("benchmarks/blackscholes.l0", "soacs/filter_pairs.l0", "fusion/scanomap_rows.l0",
           "tuples/zip_unzip.l0")
"""The programs the cluster runs in every chunking: a redomap, a filter, a scan of
rows, tuples. Every task costs the scheduler some milliseconds: the rest of the
share runs on threads only."""


def over_dask(p: Program, how: str, *, api: bool = True) -> tuple[l0.CompiledProgram, list[Any]]:
    """`p`'s main applied to its input chunked `how`: the program and the lazy results
    (flattened). With `api=False`, the split runs on the program compiled for the
    interpreter, with native kernels: all that a Dask call of the cpu program does,
    without compiling the whole program to native code, which a Dask call never runs
    (Note [Keeping the Dask tests fast])."""
    from l0.distributed import arguments

    prog = l0.compile(p.source, filename=p.name, backend="cpu" if api else "interp")
    main = prog.functions["main"]
    params = [q.type for q in main.params]
    args = _arguments(params, p.input, how)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gathers, said by a warning; tested below
        if api:
            result = prog.main(*args)
        else:
            flat = [x for q, a in zip(main.params, args, strict=True)
                    for x in arguments.flatten_argument(q.type, a, q.name)]
            result = arguments.call(prog.module, main, flat,
                                    {"backend": "cpu", "fast_math": False, "threads": None})
    return prog, _flat(main.ret, result)


def printed(prog: l0.CompiledProgram, computed: Any) -> str:
    return _printed(prog.functions["main"].ret, list(computed))


# The expected outputs are the interpreter's (the corpus tests check that they are).
@pytest.mark.parametrize("p", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_corpus_over_dask(p: Program) -> None:
    for how in CHUNKINGS:
        prog, lazy = over_dask(p, how, api=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            computed = dask.compute(*lazy, scheduler="threads")
        assert_same_printed(printed(prog, computed), p.expected_output or "")


def test_corpus_on_cluster(client: Any) -> None:
    """Programs of the corpus in every chunking on the cluster, in one computation."""
    runs = [(p, *over_dask(p, how)) for p in runnable() if p.name in CLUSTER
            for how in CHUNKINGS]
    assert len(runs) == len(CLUSTER) * len(CHUNKINGS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        computed = dask.compute([lazy for _, _, lazy in runs], scheduler=client)[0]
    for (p, prog, _), results in zip(runs, computed, strict=True):
        assert_same_printed(printed(prog, results), p.expected_output or "")


def _counts(client: Any) -> dict[str, dict[str, int]]:
    from l0.distributed import kernels

    return client.run(lambda: dict(kernels.counts))


def test_workers_load_kernels_from_the_cache(client: Any) -> None:
    """Issue item 3: a worker process gets a kernel from the on-disk compile cache when
    it is there. New kernels run on one worker, which compiles (and stores) them, then
    on the other, which only loads them."""
    prog = l0.compile("fun {[int], real} main([int] a, [real] r) =\n"
                      "  {map(fn int (int x) => x * 5 - 2, a), reduce(op +, 0.0, r)}")
    a, r = np.arange(40), np.ones(40) / 4
    lazy = prog.main(da.from_array(a, chunks=5), da.from_array(r, chunks=5))
    first, second = sorted(_counts(client))
    for worker, how in ((first, "compiled"), (second, "loaded")):
        before = _counts(client)
        mapped, total = client.compute(lazy, workers=[worker], sync=True)
        np.testing.assert_array_equal(mapped, a * 5 - 2)
        assert float(total) == 10.0
        after = _counts(client)
        assert after[worker][how] > before[worker][how], (how, before, after)
        if how == "loaded":
            assert after[worker]["compiled"] == before[worker]["compiled"], (before, after)


SCANS = """
fun {[int], [int], int, [real], real} main([int] a, [real] r) =
  let s = scan(op +, 0, map(fn int (int x) => x % 7 - 3, a)) in
  let f = filter(fn bool (int x) => x % 3 = 0, s) in
  let m = scan(fn int (int x, int y) => if x < y then y else x, -1000000, f) in
  let rs = scan(op +, 0.0, r) in
  {f, m, size(0, f) + reduce(op +, 0, f), rs, reduce(op +, 0.0, rs)}
"""


@pytest.mark.parametrize("chunks", [(1,), (5,), (7, 1, 30, 2, 60), (33, 34, 33), (100,)])
def test_scans_and_filters_across_chunks(chunks: tuple[int, ...]) -> None:
    prog = l0.compile(SCANS)
    rng = np.random.default_rng(len(chunks))
    a, r = rng.integers(-50, 50, 100), rng.random(100)
    want = prog.main(a, r)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every scan, fused or not, stays distributed
        lazy = prog.main(da.from_array(a, chunks=chunks), da.from_array(r, chunks=chunks[::-1]))
    got = dask.compute(*lazy, scheduler="threads")
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_results_are_lazy_dask_collections() -> None:
    prog = l0.compile(SCANS)
    a = da.arange(10, chunks=3)
    f, m, n, rs, total = prog.main(a, da.ones(10, chunks=4))
    assert isinstance(f, da.Array) and np.isnan(f.shape[0])  # a filter's lengths are unknown
    assert isinstance(rs, da.Array) and rs.chunks == ((4, 4, 2),)  # a scan keeps chunks
    assert isinstance(n, da.Array) and n.shape == () and isinstance(total, da.Array)
    assert int(n.compute(scheduler="sync")) == prog.main(np.arange(10), np.ones(10))[2]


def test_numpy_arguments_broadcast_and_iota_gets_offsets() -> None:
    prog = l0.compile("fun [int] main([int] a, [int] t) =\n"
                      "  map(fn int (int i, int x) => i * 1000 + x + t[i % 3], "
                      "zip(iota(size(0, a)), a))")
    a, t = np.arange(20) * 7, np.array([5, 6, 7])
    result = prog.main(da.from_array(a, chunks=6), t)
    # iota is Dask's arange, chunked like `a`: made chunk by chunk, never whole.
    assert any(str(k[0]).startswith("arange-") for k in dict(result.dask) if isinstance(k, tuple))
    np.testing.assert_array_equal(result.compute(scheduler="sync"), prog.main(a, t))


def test_unequal_chunkings_are_rechunked() -> None:
    prog = l0.compile("fun [int] main([int] a, [int] b) = map(op +, zip(a, b))")
    a, b = np.arange(30), np.arange(30) * 3
    got = prog.main(da.from_array(a, chunks=7), da.from_array(b, chunks=(1, 20, 9)))
    np.testing.assert_array_equal(got.compute(scheduler="sync"), a + b)


def test_a_whole_array_statement_gathers_with_a_warning() -> None:
    prog = l0.compile("fun [[int]] main([[int]] m) = transpose(m)")
    m = np.arange(12).reshape(4, 3)
    with pytest.warns(UserWarning, match=r"a transpose \(soac\.transpose\) needs the whole"):
        r = prog.main(da.from_array(m, chunks=(2, 3)))
    np.testing.assert_array_equal(r.compute(scheduler="sync"), m.T)


BOUNDS = "fun [int] main([int] a, [int] idx) =\n  map(fn int (int i) => a[i] + 1, idx)\n"


def _bad_indices() -> np.ndarray:
    idx = np.arange(60) % 10
    idx[41], idx[57] = 17, -3  # two failing chunks; the first failure wins
    return idx


def _local_error() -> str:
    with pytest.raises(L0Error) as info:
        l0.compile(BOUNDS).main(np.arange(10), _bad_indices())
    return info.value.render()


def test_a_failure_in_a_late_chunk_is_the_local_error(client: Any) -> None:
    prog = l0.compile(BOUNDS)
    r = prog.main(np.arange(10), da.from_array(_bad_indices(), chunks=6))
    with pytest.raises(L0Error) as info:
        r.compute(scheduler=client)
    assert info.value.render() == _local_error()
    assert "index 17 out of bounds" in info.value.render()


@pytest.mark.parametrize("scheduler", ["sync", "threads"])
def test_the_first_failing_chunk_wins(scheduler: str) -> None:
    idx = _bad_indices()
    prog = l0.compile(BOUNDS)
    r = prog.main(np.arange(10), da.from_array(idx, chunks=(3,) * 20))
    for _ in range(3):
        with pytest.raises(L0Error) as info:
            r.compute(scheduler=scheduler)
        assert info.value.render() == _local_error()
    summed = l0.compile("fun int main([int] a, [int] idx) =\n"
                        "  reduce(op +, 0, map(fn int (int i) => a[i] + 1, idx))")
    with pytest.raises(L0Error, match="index 17 out of bounds"):
        summed.main(np.arange(10), da.from_array(idx, chunks=4)).compute(scheduler=scheduler)


SLOW = """
fun int main([int] a) =
  reduce(op +, 0, map(fn int (int x) =>
    loop (acc = x) = for i < 3000000 do (acc * 7 + i) % 1000003 in acc, a))
"""


def test_a_worker_killed_mid_run_leaves_the_result_unchanged(client: Any) -> None:
    prog = l0.compile(SLOW)
    a = np.arange(32)
    want = prog.main(a)
    future = client.compute(prog.main(da.from_array(a, chunks=4)))
    deadline = time.time() + 60
    while not any(client.processing().values()):
        assert time.time() < deadline
        time.sleep(0.02)
    assert not future.done()
    pids = client.run(os.getpid)
    os.kill(next(iter(pids.values())), signal.SIGKILL)
    assert int(future.result(timeout=180)) == want


def test_program_pickles_as_source_and_options() -> None:
    prog = l0.compile(SCANS)
    assert pickle.loads(pickle.dumps(prog)) is prog
    threads = l0.compile(SLOW, backend="multicore", threads=2)
    again = pickle.loads(pickle.dumps(threads))
    assert again is threads and again._threads == 2


def test_without_dask_a_dask_argument_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "l0.distributed" or m.startswith(
            ("l0.distributed.", "dask"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "dask", None)

    class FakeDaskArray:
        pass

    FakeDaskArray.__module__ = "dask.array.core"
    prog = l0.compile("fun int main([int] a) = reduce(op +, 0, a)")
    with pytest.raises(ImportError, match=r"l0\[dask\]"):
        prog.main(FakeDaskArray())


SOME_OF_EACH = """
fun {[int], [int], real} main([int] a, [real] r) =
  {scan(op +, 0, a), filter(fn bool (int x) => x % 3 = 0, a), reduce(op +, 0.0, r)}
"""


@pytest.mark.parametrize("backend", [t.name for t in TARGETS.values() if not t.device])
def test_every_back_end_runs_the_chunks(backend: str) -> None:
    """Each back end (the gpu's on a GPU only) runs the chunks: with its own kernels, or
    those of its record's `dask_kernels`."""
    prog = l0.compile(SOME_OF_EACH, backend=backend,
                      threads=2 if TARGETS[backend].threads else None)
    rng = np.random.default_rng(3)
    a, r = rng.integers(-50, 50, 40), rng.random(40)
    want = l0.compile(SOME_OF_EACH, backend="interp").main(a, r)
    got = dask.compute(*prog.main(da.from_array(a, chunks=9), da.from_array(r, chunks=13)),
                       scheduler="threads")
    assert len(got) == 3
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_the_same_call_twice_has_the_same_keys(client: Any) -> None:
    """Note [Task keys] in `l0/distributed/graphs.py`: a call made again gives the same
    tasks under the same keys, and a call on another back end other keys, so the
    scheduler, holding all of them at once, never sees a key come back with another
    task ("Detected different run_spec for key ...", which it logs as a warning)."""
    rng = np.random.default_rng(5)
    a, r = rng.integers(-50, 50, 40), rng.random(40)
    want = l0.compile(SOME_OF_EACH, backend="interp").main(a, r)
    logged: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = logged.append  # type: ignore[method-assign]
    scheduler_log = logging.getLogger("distributed.scheduler")
    scheduler_log.addHandler(handler)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            calls = [l0.compile(SOME_OF_EACH, backend=backend).main(
                         da.from_array(a, chunks=9), da.from_array(r, chunks=13))
                     for backend in ("cpu", "cpu", "interp")]
            futures = [client.compute(list(call)) for call in calls]  # all held at once
            results = client.gather(futures)
    finally:
        scheduler_log.removeHandler(handler)
    assert [record.getMessage()[:120] for record in logged] == []
    names = [[x.name for x in call] for call in calls]
    assert names[0] == names[1] and not set(names[0]) & set(names[2])
    from dask.base import tokenize

    from l0.distributed.kernels import Kernel

    variants = [Kernel("k"), Kernel("k", "multicore", threads=2),
                Kernel("k", "multicore", threads=3), Kernel("k", fast_math=True), Kernel("j")]
    assert len({tokenize(k) for k in variants}) == len(variants)
    for got in results:
        for w, g in zip(want, got, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-12)


def test_the_processes_scheduler() -> None:
    prog = l0.compile("fun [int] main([int] a) = map(fn int (int x) => x * x - 1, a)")
    a = np.arange(30)
    lazy = prog.main(da.from_array(a, chunks=11))
    lazy.compute(scheduler="sync")  # the kernel compiled here: the processes load it
    got = lazy.compute(scheduler="processes", num_workers=1)  # one process to start
    np.testing.assert_array_equal(got, a * a - 1)


def test_zip_of_two_filters_measures_their_chunks() -> None:
    # Both have unknown chunk lengths, and different ones: equal-looking `nan` chunks
    # must not be taken for equal chunks.
    prog = l0.compile("fun [int] main([int] a, [int] b) =\n"
                      "  let f = filter(fn bool (int x) => x % 2 = 0, a) in\n"
                      "  let g = filter(fn bool (int x) => x % 2 = 1, b) in\n"
                      "  map(op +, zip(f, g))")
    a = np.arange(10)
    got = prog.main(da.from_array(a, chunks=3), da.from_array(a, chunks=3))
    np.testing.assert_array_equal(got.compute(scheduler="sync"), prog.main(a, a))


def test_empty_dask_arrays() -> None:
    prog = l0.compile("fun {[int], int} main([int] a) =\n"
                      "  {map(fn int (int x) => x + 1, a), reduce(op +, 0, a)}")
    mapped, total = dask.compute(*prog.main(da.from_array(np.arange(0), chunks=3)),
                                 scheduler="sync")
    assert mapped.shape == (0,) and int(total) == 0


def test_concat_and_split_stay_distributed() -> None:
    prog = l0.compile("fun {[int], int} main([int] a, [int] b) =\n"
                      "  let {x, y} = split(4, concat(a, b)) in\n"
                      "  {map(fn int (int v) => v * 2, y), reduce(op +, 0, x)}")
    a, b = np.arange(10), np.arange(5) + 100
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no gathering
        got = dask.compute(*prog.main(da.from_array(a, chunks=3), da.from_array(b, chunks=2)),
                           scheduler="sync")
    want = prog.main(a, b)
    np.testing.assert_array_equal(got[0], want[0])
    assert int(got[1]) == want[1]


ARRAY_CONSTANTS = """builtin.module {
  func.func @main(%a: tensor<?xi64>) -> (tensor<?xi64>, tensor<2xi1>, i64) {
    %c = arith.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64>
    %b = arith.constant dense<[true, false]> : tensor<2xi1>
    %r = soac.map(%x = %a, %y = %c : tensor<?xi64>, tensor<6xi64>) -> tensor<?xi64> {
      %s = arith.muli %x, %y : i64
      soac.yield %s : i64
    }
    %z = arith.constant 0 : i64
    %t = soac.reduce(%acc = %z : i64) over(%v = %c : tensor<6xi64>) {
      %s = arith.addi %acc, %v : i64
      soac.yield %s : i64
    }
    func.return %r, %b, %t : tensor<?xi64>, tensor<2xi1>, i64
  }
}"""


def test_array_constants_are_client_values() -> None:
    # The front end makes array literals `soac.array`; a dense constant (as a pass may
    # fold one) is a NumPy array on the client, cut like the distributed array it is
    # zipped with.
    from xdsl.parser import Parser

    from l0.dialects.context import l0_context
    from l0.distributed.split import Split

    f = Parser(l0_context(), ARRAY_CONSTANTS).parse_module().body.block.first_op
    mapped, flags, total = Split(f.body.block, [da.arange(6, chunks=4)],  # type: ignore[union-attr]
                                 {"backend": "interp"}, 8).run()
    np.testing.assert_array_equal(mapped.compute(scheduler="sync"), np.arange(6) * np.arange(1, 7))
    np.testing.assert_array_equal(flags, [True, False])
    assert total == 21


ITERATIVE = """
fun [real] main([real] a, int n) =
  loop (x = a) = for i < n do
    let m = reduce(op +, 0.0, x) / toReal(size(0, x)) in
    map(fn real (real v) => (v - m) * 0.5 + toReal(i), x)
  in x
"""


def test_a_loop_over_a_distributed_array_splits_per_iteration() -> None:
    # Note [Loops over distributed arrays]: the loop runs on the client, each
    # iteration's reduce and map become Dask operations over the chunks (the mean a
    # lazy value between them), and nothing gathers.
    prog = l0.compile(ITERATIVE, backend="interp")
    a = np.arange(10.0) ** 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = prog.main(da.from_array(a, chunks=3), 4)
    assert r.chunks == ((3, 3, 3, 1),)
    chunks_mapped = [k for k in dict(r.dask) if isinstance(k, tuple)
                     and str(k[0]).startswith("l0-soac-map")]
    assert len(chunks_mapped) == 4 * 4  # every chunk, every iteration
    np.testing.assert_allclose(r.compute(scheduler="sync"), prog.main(a, 4), rtol=1e-12)


def test_an_if_with_a_known_condition_splits_its_branch() -> None:
    prog = l0.compile("fun int main([int] a, int k) =\n"
                      "  if k < 0 then reduce(op +, 0, a)\n"
                      "  else reduce(op +, 0, map(fn int (int x) => x * k, a))",
                      backend="interp")
    a = np.arange(12)
    for k in (-1, 3):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = prog.main(da.from_array(a, chunks=5), k)
        assert int(r.compute(scheduler="sync")) == prog.main(a, k)


@pytest.mark.parametrize("source, why", [
    ("fun int main([int] a) =\n"
     "  loop (s = 0) = for i < reduce(op +, 0, a) do s + a[i % 3] in s",
     r"its trip count is computed by tasks"),
    ("fun int main([int] a) =\n"
     "  loop (s = 0) = for i < 3 do\n"
     "    s + reduce(op +, 0, map(fn int (int x) => x * i, a)) + a[a[i]] in s",
     r"splitting it per iteration or branch would gather: .*an index at a position "
     r"computed by tasks"),
    ("fun int main([int] a) =\n"  # radix sort steps: the chunks double every iteration
     "  let x = loop (x = a) = for b < 6 do\n"
     "    concat(filter(fn bool (int v) => ((v >> b) & 1) = 0, x),\n"
     "           filter(fn bool (int v) => ((v >> b) & 1) = 1, x)) in x in x[0]",
     r"its carried arrays reach 16 chunks, more than 4 times those of its distributed inputs"),
    ("fun int main([int] a) =\n"  # one task per element read: worse than one gather
     "  loop (s = 0) = for i < 3 do s + a[i] in s",
     r"its body has no SOAC to run per chunk"),
])
def test_a_loop_that_cannot_split_gathers_and_says_why(source: str, why: str) -> None:
    # The loop's body (its SOACs, if any) runs in one task, every iteration.
    prog = l0.compile(source, backend="interp")
    a = np.array([2, 0, 1, 1])
    with pytest.warns(UserWarning, match=r"a loop \(scf\.for\) needs the whole "
                      r"of distributed array %a: .*, where its body runs.*" + why):
        r = prog.main(da.from_array(a, chunks=2))
    assert int(r.compute(scheduler="sync")) == prog.main(a)


def test_a_gathering_loop_is_named_at_its_own_location() -> None:
    """The warning names the loop (9:3), not the first located op inside it, here the
    inlined helper's division (3:11)."""
    source = ("fun int scale(int x, int w) =\n"
              "  let a = x + 1 in\n"
              "  a / w\n"
              "\n"
              "fun int main([int] a) =\n"
              "  let k = 1 in\n"
              "  let n = 3 in\n"
              "  let t = k + n in\n"
              "  loop (s = 0) = for i < n do\n"
              "    s + scale(reduce(op +, 0, map(fn int (int x) => x * i, a)), a[a[i]] + 1)\n"
              "  in s")
    prog = l0.compile(source, backend="interp")
    a = np.array([2, 0, 1, 1])
    with pytest.warns(UserWarning, match=r"^<string>:9:3: a loop \(scf\.for\) needs the whole"):
        r = prog.main(da.from_array(a, chunks=2))
    assert int(r.compute(scheduler="sync")) == prog.main(a)
