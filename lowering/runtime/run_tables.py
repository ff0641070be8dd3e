"""The run-time tables of compiled code: its parameters and its profile counters.

Both are exported globals of the compiled module (`l0.lowering.loop_ir.run_params`,
`l0.lowering.loop_ir.profile`), found by their symbols in the finalised engine; this module
reads and writes them and imports no xDSL, so code loaded from the compile cache uses
it too. `RunTables` is what an engine holds:

* `params()`: every parameter's name and value; `set_params({NAME: V})` sets values
  (an unknown name or a negative value is a `ValueError` naming the known
  parameters), which `apply()` writes into the code before each call; the defaults
  (`default_value`) follow from the device: the thread count on multicore, the
  GPU's resident threads on gpu;
* `reset_profile()` zeroes the counters; `profile()` reads them as the records of
  `l0-run --profile` (`PROFILE_KEYS`), one per site in program order.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PROFILE_KEYS = ("name", "launches", "threads", "iterations", "time_us")


def global_symbol(name: str) -> str:
    """The symbol of `memref.global @name` in compiled code (`lowering/llvm/memref.py`)."""
    return f"l0.global.{name}"

GPU_THREADS = 132 * 2048
"""The resident threads of the GPU the defaults assume where none is asked (gpu-sim):
an H100's 132 multiprocessors of 2048 threads."""


@dataclass(frozen=True)
class Param:
    """A run-time parameter: its name, the symbol of its global, its default
    (`UNIT*FACTOR`, `default_value`) and the symbol of its table of compared sizes
    ("" when the code was compiled without profiling: Note [Thresholds record what they
    compare] in `l0.lowering.loop_ir.run_params`)."""

    name: str
    symbol: str
    default: str
    seen: str = ""


SEEN_CAPACITY = 64
"""How many distinct compared sizes a parameter's table keeps (Note [Thresholds record
what they compare] in `l0.lowering.loop_ir.run_params`)."""

NEVER = (1 << 63) - 1
"""The value of a threshold that no size reaches: the sizes compared with thresholds are
saturated below it (`run_params.saturated_product`)."""


@dataclass(frozen=True)
class Compared:
    """The distinct sizes compared with a parameter since the last reset, ascending,
    and how many more did not fit in its table."""

    sizes: tuple[int, ...]
    dropped: int


@dataclass(frozen=True)
class Site:
    """A profiled parallel site: its name and the symbol of its four counters."""

    name: str
    symbol: str


@dataclass(frozen=True)
class Device:
    """What parameter defaults follow from: the threads a multicore region forks, the
    threads a GPU keeps resident."""

    threads: int = 1
    gpu_threads: int = GPU_THREADS


def default_value(spec: str, device: Device) -> int:
    """The value of the default `spec`: `N`, `threads*N` or `gpu_threads*N`."""
    unit, _, factor = spec.rpartition("*")
    scale = {"": 1, "threads": device.threads, "gpu_threads": device.gpu_threads}[unit]
    return scale * int(factor)


def _address(engine: Any, symbol: str) -> int:
    address = int(engine.get_global_value_address(symbol))
    if not address:
        raise RuntimeError(f"compiled code has no global {symbol!r}")
    return address


class RunTables:
    """The parameters and profile counters of one compiled module (module docstring)."""

    def __init__(self, engine: Any, params: Sequence[Param], sites: Sequence[Site],
                 device: Device) -> None:
        self.param_specs = list(params)
        self.sites = list(sites)
        self.device = device
        self._params = {p.name: ctypes.c_int64.from_address(_address(engine, p.symbol))
                        for p in params}
        self._counters = [(s.name, (ctypes.c_int64 * 4).from_address(_address(engine, s.symbol)))
                          for s in sites]
        self._seen = {p.name: (ctypes.c_int64 * (2 + SEEN_CAPACITY)).from_address(
            _address(engine, p.seen)) for p in params if p.seen}
        self._defaults = {p.name: default_value(p.default, device) for p in params}
        self._values = dict(self._defaults)

    def apply(self) -> None:
        """Write this engine's values into the code, before a call: engines of one
        program in a process share its compiled code, and each has its own values."""
        for name, value in self._values.items():
            self._params[name].value = value

    def defaults(self) -> dict[str, int]:
        return dict(self._defaults)

    def params(self) -> dict[str, int]:
        """Every parameter's name and value, in program order."""
        return dict(self._values)

    def set_params(self, values: Mapping[str, int]) -> None:
        """Give parameters values (the others keep theirs)."""
        for name, value in values.items():
            if name not in self._params:
                raise ValueError(unknown_param_message(name, list(self._params)))
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"parameter {name!r} takes an integer >= 0, not {value!r}")
        self._values.update(values)

    def reset_profile(self) -> None:
        """Zero the profile's counters and the tables of compared sizes."""
        for cells in [c for _, c in self._counters] + list(self._seen.values()):
            ctypes.memset(cells, 0, ctypes.sizeof(cells))

    def compared(self) -> dict[str, Compared]:
        """The sizes each parameter was compared with since the last reset, for the
        parameters whose code notes them (compiled with profiling)."""
        found = {}
        for name, cells in self._seen.items():
            held = max(0, min(cells[0], SEEN_CAPACITY))
            found[name] = Compared(tuple(sorted(set(cells[2:2 + held]))), cells[1])
        return found

    def profile(self) -> list[dict[str, Any]]:
        """The counters since the last reset: launches, threads and iterations summed
        over the launches, and the time in microseconds."""
        return [dict(zip(PROFILE_KEYS, (name, cells[0], cells[1], cells[2],
                                        round(cells[3] / 1000, 3)), strict=True))
                for name, cells in self._counters]


def unknown_param_message(name: str, known: Sequence[str]) -> str:
    listed = ", ".join(known) if known else "none"
    return f"unknown parameter {name!r} (the program's parameters: {listed})"


def params_to_json(params: Sequence[Param]) -> list[list[str]]:
    return [[p.name, p.symbol, p.default, p.seen] for p in params]


def params_from_json(data: Sequence[Sequence[str]]) -> list[Param]:
    return [Param(*(str(field) for field in p)) for p in data]


def sites_to_json(sites: Sequence[Site]) -> list[list[str]]:
    return [[s.name, s.symbol] for s in sites]


def sites_from_json(data: Sequence[Sequence[str]]) -> list[Site]:
    return [Site(str(n), str(s)) for n, s in data]
