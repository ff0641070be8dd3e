"""`l0 autotune`'s search (`l0.autotune`, with fake timings: never real ones) and the
tuning file (`l0.tuning`): its format, round trip and located errors."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from l0.autotune import Dataset, ResultsDiffer, Tuned, candidates, tune
from l0.diagnostics import L0Error
from l0.lowering.runtime.run_tables import NEVER, Compared
from l0.tuning import checked, format_tuning, parse, tuned_values, tuning_path, write

# -- candidates -------------------------------------------------------------------------


def test_candidates_are_the_compared_sizes_always_and_never() -> None:
    # below 100 every size reaches the threshold: 0 stands for them all, so the
    # smallest size is not tried again
    assert candidates([100, 5000, 80000], default=5000) == [0, 5000, 80000, NEVER]


def test_the_default_stands_for_its_own_behaviour() -> None:
    # 32768 behaves as 80000 on these sizes (only 80000 reaches it): it is tried in its place
    assert candidates([80000, 100, 5000, 100], default=32768) == [0, 5000, 32768, NEVER]
    # above every size: it behaves as never
    assert candidates([100], default=1 << 20) == [0, 1 << 20]
    # at or below the smallest: as always
    assert candidates([100, 200], default=50) == [50, 200, NEVER]


# -- the search, with fake timings ------------------------------------------------------


class FakeRunner:
    """A program with parameters `defaults`, whose run on a dataset takes `cost(values,
    dataset)` microseconds (give or take a noise the median drops) and prints
    `output(values, dataset)`, and whose sizes compared are `sizes`; it logs its calls."""

    def __init__(self, defaults: dict[str, int], sizes: dict[str, tuple[int, ...]],
                 cost: Callable[[Mapping[str, int], str], float],
                 output: Callable[[Mapping[str, int], str], str] = lambda v, d: "42") -> None:
        self._defaults, self.sizes, self.cost, self._output = defaults, sizes, cost, output
        self.calls: list[tuple[str, str, dict[str, int]]] = []
        self.compared_with: list[dict[str, int]] = []
        self.dropped = 0

    def defaults(self) -> dict[str, int]:
        return dict(self._defaults)

    def compared(self, dataset: Dataset, values: Mapping[str, int]) -> dict[str, Compared]:
        self.compared_with.append(dict(values))
        return {name: Compared(sizes, self.dropped) for name, sizes in self.sizes.items()}

    def output(self, dataset: Dataset, values: Mapping[str, int]) -> tuple[str, float]:
        full = {**self._defaults, **values}
        self.calls.append(("output", dataset.name, full))
        return self._output(full, dataset.name), self.cost(full, dataset.name)

    def time(self, dataset: Dataset, values: Mapping[str, int]) -> float:
        full = {**self._defaults, **values}
        # the noise of the k-th timed run of this setting: 0, +5, -5, ... (median: none)
        k = sum(1 for c in self.calls if c == ("time", dataset.name, full))
        self.calls.append(("time", dataset.name, full))
        return self.cost(full, dataset.name) + (0, 5, -5)[k % 3]

    def timed(self) -> list[tuple[str, dict[str, int]]]:
        return [(d, v) for what, d, v in self.calls if what == "time"]


SETS = [Dataset("small", b"1"), Dataset("big", b"2")]


def test_the_fastest_value_wins_over_every_dataset() -> None:
    # forking pays from 5000 on: the threshold 5000 is best on the sum of both datasets
    def cost(values: Mapping[str, int], dataset: str) -> float:
        t = values["a.min_work"]
        return {0: 300.0, 5000: 100.0, 80000: 180.0, NEVER: 400.0}.get(t, 250.0)

    runner = FakeRunner({"a.min_work": 32768}, {"a.min_work": (100, 5000, 80000)}, cost)
    result = tune(runner, SETS, runs=3)
    (p,) = result.params
    assert p.value == 5000 and p.changed and result.values() == {"a.min_work": 5000}
    assert [t.value for t in p.trials] == [0, 5000, 32768, NEVER]
    assert [t.time_us for t in p.trials] == [600.0, 200.0, 500.0, 800.0]  # sums of medians
    assert p.sizes == (100, 5000, 80000)
    # a reference run per dataset, a checked run of every candidate on every dataset,
    # then 3 timed rounds of 4 candidates x 2 datasets
    assert [c[0] for c in runner.calls] == ["output"] * (2 + 8) + ["time"] * 24


def test_candidates_take_turns() -> None:
    runner = FakeRunner({"p": 7}, {"p": (3, 9)}, lambda v, d: 1.0)
    tune(runner, SETS, runs=2)
    # round after round, each candidate runs on each dataset once
    one_round = [(d.name, {"p": v}) for v in (0, 7, NEVER) for d in SETS]
    assert runner.timed() == one_round * 2


def test_ties_and_noise_go_to_the_default() -> None:
    # exactly as fast, and 1% faster (within the 2% margin): the default stays
    for faster in (0.0, 0.01):
        def cost(values: Mapping[str, int], dataset: str, faster: float = faster) -> float:
            return 1000.0 * (1 - faster) if values["p"] == 0 else 1000.0

        runner = FakeRunner({"p": 7}, {"p": (3, 9)}, cost)
        result = tune(runner, SETS[:1], runs=1)
        assert result.params[0].value == 7 and result.values() == {}
    # 5% faster: it wins
    runner = FakeRunner({"p": 7}, {"p": (3, 9)},
                        lambda v, d: 950.0 if v["p"] == 0 else 1000.0)
    assert tune(runner, SETS[:1], runs=1).values() == {"p": 0}


def test_parameters_are_tuned_in_order_each_with_the_ones_before_set() -> None:
    def cost(values: Mapping[str, int], dataset: str) -> float:
        return (10.0 if values["outer"] == NEVER else 50.0) + \
            (10.0 if values["inner"] == 0 else 50.0)

    runner = FakeRunner({"outer": 40, "inner": 40},
                        {"outer": (20, 60), "inner": (20, 60)}, cost)
    reports: list[Tuned] = []
    result = tune(runner, SETS[:1], runs=1, report=reports.append)
    assert result.values() == {"outer": NEVER, "inner": 0}
    assert [r.name for r in reports] == ["outer", "inner"]
    # the sizes the inner threshold compares are learnt with the outer one tuned
    assert runner.compared_with == [{}, {"outer": NEVER}]
    assert all(full["outer"] == NEVER for _, full in runner.timed()[-3:])


def test_sizes_a_full_table_dropped_are_counted() -> None:
    runner = FakeRunner({"p": 7}, {"p": (3, 9)}, lambda v, d: 1.0)
    runner.dropped = 4
    (p,) = tune(runner, SETS, runs=1).params
    assert p.sizes == (3, 9) and p.dropped == 8  # over both datasets


def test_a_parameter_never_compared_keeps_its_default_untried() -> None:
    runner = FakeRunner({"p": 7}, {"p": ()}, lambda v, d: 1.0)
    (p,) = tune(runner, SETS, runs=1).params
    assert p.value == 7 and p.trials == [] and p.sizes == ()
    assert [c[0] for c in runner.calls] == ["output"] * 2  # the reference runs only


def test_a_parameter_whose_comparisons_are_not_noted_tries_always_default_never() -> None:
    runner = FakeRunner({"p": 7}, {}, lambda v, d: 5.0 if v["p"] == NEVER else 9.0)
    (p,) = tune(runner, SETS[:1], runs=1).params
    assert p.sizes is None and [t.value for t in p.trials] == [0, 7, NEVER]
    assert p.value == NEVER


def test_a_candidate_over_the_timeout_is_given_up() -> None:
    # 0 would take 2 s a run: past a 1 s timeout it is given up, not chosen
    runner = FakeRunner({"p": 7}, {"p": (3, 9)},
                        lambda v, d: 2e6 if v["p"] == 0 else 100.0)
    (p,) = tune(runner, SETS[:1], runs=3, timeout=1.0).params
    assert p.trials[0].value == 0 and p.trials[0].time_us is None
    assert p.value == 7
    # its first run took too long: it is not run again
    assert [v["p"] for _, v in runner.timed()] == [7, NEVER] * 3


def test_a_candidate_far_slower_than_the_default_is_given_up() -> None:
    # the default's first run takes 1 s: a run over 1.2 s + 1 s gives a candidate up,
    # whatever the timeout; on its first dataset already, so the second is not run
    def cost(values: Mapping[str, int], dataset: str) -> float:
        return {0: 2.1e6, NEVER: 2.3e6}.get(values["p"], 1e6)

    runner = FakeRunner({"p": 7}, {"p": (3, 9)}, cost)
    (p,) = tune(runner, SETS, runs=3, timeout=600.0).params
    assert [(t.value, t.time_us) for t in p.trials] == [(0, 4.2e6), (7, 2e6), (NEVER, None)]
    assert ("output", "big", {"p": NEVER}) not in runner.calls
    assert all(v["p"] != NEVER for _, v in runner.timed())


def test_a_value_that_changes_the_result_is_an_error() -> None:
    runner = FakeRunner({"p": 7}, {"p": (3, 9)}, lambda v, d: 1.0,
                        output=lambda v, d: "1.5" if v["p"] == 0 and d == "big" else "1.0")
    with pytest.raises(ResultsDiffer, match=r"p=0 changes the result of main on dataset "
                       r"big \(a compiler bug.*1\.5 instead of 1\.0"):
        tune(runner, SETS, runs=1)


# -- the tuning file --------------------------------------------------------------------

TEXT = """\
# tuned
[multicore]
main:3:7:map.min_work=4096
  main:reduce.min_work = 9223372036854775807

[gpu-sim]
x=0
"""


def test_parse_by_back_end_with_locations() -> None:
    sections = parse(TEXT, "p.l0.tuning")
    assert list(sections) == ["multicore", "gpu-sim"]
    mc = sections["multicore"]
    assert {n: s.value for n, s in mc.items()} == {"main:3:7:map.min_work": 4096,
                                                    "main:reduce.min_work": NEVER}
    assert str(mc["main:reduce.min_work"].loc) == "p.l0.tuning:4:3"
    assert checked(mc, "multicore", {"main:3:7:map.min_work": 1,
                                     "main:reduce.min_work": 2}) == {
        "main:3:7:map.min_work": 4096, "main:reduce.min_work": NEVER}


def test_format_round_trips() -> None:
    sections = {"multicore": {"a.min_work": 12, "b.min_work": NEVER}, "cpu": {}}
    text = format_tuning("p.l0", sections)
    assert text.startswith("# l0 autotune")
    assert {b: {n: s.value for n, s in v.items()}
            for b, v in parse(text, "f").items()} == sections


def test_write_replaces_its_back_end_and_keeps_the_others(tmp_path: Path) -> None:
    prog = str(tmp_path / "p.l0")
    write(prog, "gpu-sim", {"g": 5})
    write(prog, "multicore", {"a": 1})
    write(prog, "multicore", {"b": 2})
    assert tuning_path(prog) == prog + ".tuning"
    sections = parse(Path(tuning_path(prog)).read_text(), "f")
    assert {b: {n: s.value for n, s in v.items()} for b, v in sections.items()} == {
        "gpu-sim": {"g": 5}, "multicore": {"b": 2}}
    assert tuned_values(prog, "multicore", {"b": 0}) == {"b": 2}
    assert tuned_values(prog, "cpu", {}) == {}  # no section: nothing
    assert tuned_values(str(tmp_path / "none.l0"), "multicore", {"b": 0}) == {}  # no file


@pytest.mark.parametrize(("text", "where", "message"), [
    ("[multicore]\nx\n", "2:1", "expected NAME=VALUE or [BACKEND]"),
    ("x=1\n", "1:1", "a setting before any [BACKEND] section"),
    ("[multicore]\nx=-1\n", "2:3", "expected an integer >= 0 as the value, not '-1'"),
    ("[multicore]\nx = 1e3\n", "2:5", "expected an integer >= 0 as the value, not '1e3'"),
    ("[multicore]\nx=\n", "2:3", "expected an integer >= 0 as the value, not ''"),
    ("[multicore]\nx=9223372036854775808\n", "2:3", "does not fit in 64 bits"),
    ("[multicore]\n=1\n", "2:1", "expected NAME=VALUE"),
    ("[multicore\n", "1:1", "expected ']'"),
    ("  [tpu]\n", "1:4", "unknown back end 'tpu' (available: cpu, multicore"),
    ("[cpu]\n[cpu]\n", "2:2", "a second [cpu] section"),
    ("[cpu]\nx=1\n# c\nx=2\n", "4:1", "'x' is set twice in this section"),
])
def test_malformed_files_are_located_errors(text: str, where: str, message: str) -> None:
    with pytest.raises(L0Error) as info:
        parse(text, "p.l0.tuning")
    assert str(info.value).startswith(f"p.l0.tuning:{where}: error: ")
    assert message in info.value.message and info.value.kind == "tuning-error"


def test_a_parameter_the_program_lacks_is_a_located_error() -> None:
    settings = parse("[multicore]\n\nold:1:1:map.min_work=5\n", "p.l0.tuning")["multicore"]
    with pytest.raises(L0Error, match=r"^p.l0.tuning:3:1: error: unknown parameter "
                       r"'old:1:1:map.min_work' for multicore \(the program's parameters: "
                       r"new.min_work\); run `l0 autotune` again, or ignore the file "
                       r"with --no-tuning"):
        checked(settings, "multicore", {"new.min_work": 1})
