"""`l0 autotune`'s search: the values of a program's thresholds that run its datasets fastest.

A threshold (`l0.lowering.loop_ir.run_params`) decides by comparing a size the code
computes with its value, `size >= value`: only the value's place among the sizes
compared matters. So, as `futhark autotune` does, the candidates for a parameter are
the sizes it was actually compared with on the datasets (noted by code compiled with
profiling: Note [Thresholds record what they compare] there), plus 0 ("always") and
NEVER ("never"); values between two sizes behave alike, and one value stands for each
behaviour (`candidates`). The parameters are tuned one at a time, in program order,
each with the ones before set to what they were tuned to (the sizes an inner region
compares may depend on how an outer one ran).

Each candidate runs `main` once on every dataset (a warm-up, whose output is checked),
then `runs` rounds are timed: in each round every candidate runs once on each dataset,
one after the other, so that a change of the machine's load during the search falls on
all of them alike (Note [Candidates take turns]). A candidate's time is the sum over
the datasets of its median run; the fastest wins, and the default stays unless a
candidate beats it by more than `margin` (timing noise: ties go to the default).

A threshold only chooses how the work runs, never what it computes, so every
candidate's output must equal the default's on every dataset: a difference is a
compiler bug (`ResultsDiffer`). A candidate one of whose runs is far slower than the
default's is given up (Note [Giving up on a candidate]).

Note [Giving up on a candidate]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Some candidates are hopeless, and slow: "always" for a small map inside a sequential
loop of 10^5 trips wakes the threads 10^5 times a run, minutes on a loaded machine.
As `futhark autotune` does, a candidate is given up as soon as one of its runs, the
first included, takes longer than `timeout` seconds or than SLOWER (1.2) times the
default's first run on that dataset plus GRACE_US (a second): it could not win. Runs
in this process cannot be interrupted, so that one run still finishes; no more are
made (its other datasets are not run either).

Note [Candidates take turns]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
On a shared machine the time of one configuration drifts by tens of percent over a
minute (measured: the same default of kmeans at 0.9 s and 1.5 s a run within one
search, load average 10-15). Timing candidate A's runs, then B's, would compare A's
minute with B's; taking turns run by run gives each the same mix of quiet and busy
moments, and the median drops the outliers.

The search (`tune`) sees the program through a `Runner`, so tests give it fake
timings; `ProgramRunner` is the real one (two compilations of the program, one with
profiling to learn the compared sizes, one without to time).
"""

from __future__ import annotations

import copy
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from l0.lowering.runtime.run_tables import NEVER, Compared

DEFAULT_RUNS = 10
DEFAULT_TIMEOUT = 60.0
MARGIN = 0.02
"""How much faster (a fraction of the default's time) a candidate must be to replace
the default: less is within the noise of timing."""
SLOWER = 1.2
GRACE_US = 1e6
"""A candidate is given up after a run slower than SLOWER times the default's first run
on that dataset plus GRACE_US (Note [Giving up on a candidate])."""


@dataclass(frozen=True)
class Dataset:
    """An input of `main`: its name (`l0 bench`'s) and its values as text or binary."""

    name: str
    input: bytes


class Runner(Protocol):
    """How the search runs the program (`ProgramRunner`; fakes in tests). `values` set
    some parameters; the others have their defaults."""

    def defaults(self) -> dict[str, int]:
        """The program's parameters and their defaults, in program order."""
        ...

    def compared(self, dataset: Dataset, values: Mapping[str, int]) -> dict[str, Compared]:
        """The sizes each parameter was compared with on one run of `dataset`; a
        parameter whose comparisons are not noted is absent."""
        ...

    def output(self, dataset: Dataset, values: Mapping[str, int]) -> tuple[str, float]:
        """What `main` prints for `dataset`, and the time of that run in microseconds
        (a run that also warms up)."""
        ...

    def time(self, dataset: Dataset, values: Mapping[str, int]) -> float:
        """The time of one run of `main` on `dataset`, in microseconds."""
        ...


class ResultsDiffer(Exception):
    """A threshold's value changed the output of `main`: a compiler bug."""


@dataclass
class Trial:
    """A candidate value of a parameter and its time over the datasets (None: given
    up, a run took longer than the timeout)."""

    value: int
    time_us: float | None


@dataclass
class Tuned:
    """The search's result for one parameter."""

    name: str
    default: int
    sizes: tuple[int, ...] | None  # None: its comparisons are not noted
    trials: list[Trial]
    value: int
    dropped: int = 0  # sizes compared that a full table did not keep

    @property
    def changed(self) -> bool:
        return self.value != self.default


@dataclass
class Tuning:
    """The search's result: per parameter, in program order."""

    params: list[Tuned] = field(default_factory=list)

    def values(self) -> dict[str, int]:
        """The parameters tuned away from their defaults, with their values (what the
        tuning file keeps: a default stays relative to the device it runs on)."""
        return {p.name: p.value for p in self.params if p.changed}


def candidates(sizes: Sequence[int], default: int) -> list[int]:
    """One value per way a threshold compared with `sizes` can behave, ascending: 0
    (every size reaches it), each size but the smallest (the sizes from it on reach
    it) and NEVER (none does); the default stands for its own behaviour."""
    ordered = sorted(set(sizes))
    values = [0, *ordered[1:], NEVER]
    below = sum(1 for s in ordered if s < default)  # the sizes that do not reach it
    values[below] = default
    return values


def tune(runner: Runner, datasets: Sequence[Dataset], *, runs: int = DEFAULT_RUNS,
         timeout: float = DEFAULT_TIMEOUT, margin: float = MARGIN,
         report: Callable[[Tuned], None] | None = None) -> Tuning:
    """Search each parameter of `runner`'s program over `datasets` (module docstring);
    `report` is told each parameter's result as it is found. `ResultsDiffer` when a
    value changes an output."""
    defaults = runner.defaults()
    reference = {d.name: runner.output(d, {}) for d in datasets}
    # Note [Giving up on a candidate]
    limits = {name: min(timeout * 1e6, SLOWER * t + GRACE_US)
              for name, (_, t) in reference.items()}
    chosen: dict[str, int] = {}
    result = Tuning()
    for name, default in defaults.items():
        seen: set[int] = set()
        noted, dropped = False, 0
        for d in datasets:
            found = runner.compared(d, chosen).get(name)
            if found is not None:
                noted = True
                seen.update(found.sizes)
                dropped += found.dropped
        tried = tuple(sorted(seen)) if noted else None
        if tried is None:
            values = sorted({0, default, NEVER})
        else:
            values = candidates(tried, default) if tried else []
        trials = _trials(runner, datasets, chosen, name, values, runs, limits,
                         {n: out for n, (out, _) in reference.items()})
        value = _best(trials, default, margin)
        chosen[name] = value
        tuned = Tuned(name, default, tried, trials, value, dropped)
        result.params.append(tuned)
        if report is not None:
            report(tuned)
    return result


def _trials(runner: Runner, datasets: Sequence[Dataset], chosen: Mapping[str, int],
            name: str, values: Sequence[int], runs: int, limits: Mapping[str, float],
            reference: Mapping[str, str]) -> list[Trial]:
    """The time of each of `values` of `name` over `datasets` (the sum of the medians;
    None when a run took longer than its dataset's limit, in microseconds), the
    candidates taking turns (Note [Candidates take turns]); `ResultsDiffer` when an
    output is not the reference."""
    settings = [{**chosen, name: v} for v in values]
    alive = [True] * len(values)
    for k, setting in enumerate(settings):
        for d in datasets:
            out, took = runner.output(d, setting)
            if out != reference[d.name]:
                raise ResultsDiffer(
                    f"{name}={values[k]} changes the result of main on dataset {d.name} "
                    f"(a compiler bug: a threshold may only change how the work runs): "
                    f"{_shorten(out)} instead of {_shorten(reference[d.name])}")
            if took > limits[d.name]:
                alive[k] = False
                break
    times: list[dict[str, list[float]]] = [{d.name: [] for d in datasets} for _ in values]
    for _ in range(runs):
        for k, setting in enumerate(settings):
            for d in datasets:
                if not alive[k]:
                    break
                t = runner.time(d, setting)
                times[k][d.name].append(t)
                alive[k] = t <= limits[d.name]
    return [Trial(v, sum(statistics.median(ts) for ts in times[k].values())
                  if alive[k] else None) for k, v in enumerate(values)]


def _best(trials: Sequence[Trial], default: int, margin: float) -> int:
    """The fastest trial's value, or `default` unless that is faster than the default's
    trial by more than `margin` (or the default was given up)."""
    timed = [t for t in trials if t.time_us is not None]
    if not timed:
        return default
    best = min(timed, key=lambda t: (t.time_us, t.value != default))
    base = next((t.time_us for t in timed if t.value == default), None)
    if base is None:
        return best.value
    assert best.time_us is not None
    return best.value if best.time_us < base * (1 - margin) else default


def _shorten(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[:most - 3] + "..."


# -- the real runner ---------------------------------------------------------------------


class ProgramRunner:
    """Runs a compiled program's `main` in this process: `timed` (compiled without
    profiling) for the times and outputs, `probe` (with profiling) for the compared
    sizes. Each dataset's values are read once and copied for each run (main may
    update its unique arguments in place); only `main` is timed, not the copy nor
    setting the parameters."""

    def __init__(self, timed: Any, probe: Any, datasets: Sequence[Dataset]) -> None:
        from l0.values import read_arguments, to_ir_arguments

        self.timed, self.probe = timed, probe
        self._defaults = timed.param_defaults()
        entry = timed.functions["main"]
        self._ret = entry.ret
        types = [p.type for p in entry.params]
        self._types = types
        # Copied once into buffers of numpy's (Note [Inputs of repeated runs]).
        self._inputs = {d.name: copy.deepcopy(to_ir_arguments(types, read_arguments(
            bytearray(d.input), types, f"<{d.name}>"))) for d in datasets}

    def defaults(self) -> dict[str, int]:
        return dict(self._defaults)

    def compared(self, dataset: Dataset, values: Mapping[str, int]) -> dict[str, Compared]:
        self.probe.set_params({**self._defaults, **values})
        self.probe.reset_profile()
        self.probe.call_flat("main", copy.deepcopy(self._inputs[dataset.name]))
        return dict(self.probe.compared_sizes())

    def output(self, dataset: Dataset, values: Mapping[str, int]) -> tuple[str, float]:
        from l0.values import format_result, from_ir_results
        from l0.values.arguments import fresh_arguments

        self.timed.set_params({**self._defaults, **values})
        fresh = fresh_arguments(self._types, self._inputs[dataset.name])
        start = time.perf_counter_ns()
        results = self.timed.call_flat("main", fresh)
        took = (time.perf_counter_ns() - start) / 1000
        return format_result(self._ret, from_ir_results(self._ret, results)), took

    def time(self, dataset: Dataset, values: Mapping[str, int]) -> float:
        from l0.values.arguments import fresh_arguments

        self.timed.set_params({**self._defaults, **values})
        fresh = fresh_arguments(self._types, self._inputs[dataset.name])
        start = time.perf_counter_ns()
        self.timed.call_flat("main", fresh)
        return (time.perf_counter_ns() - start) / 1000
