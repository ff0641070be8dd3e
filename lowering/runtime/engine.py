"""Compiled functions called with the interpreter's interface, and saved for another process.

`NativeEngine(compiled, entries)` runs the entry points of JIT-compiled code
(`jit_call.CompiledModule`) on flattened arguments (`call(name, args) -> list`), as
`l0.interp.Interpreter` does; `l0.lowering.backends.cpu.CpuEngine` compiles a soac-level
module and is one. `EntryPoint` says what the soac-level signature adds to the slots:
which parameters are unique (compiled code updates them in place) and which
parameters and results are arrays of certificates (passed as booleans). With `isolate`
(the API's choice) the engine copies arrays passed to unique parameters and results
that may alias an argument, so callers see value semantics, as with the interpreter.

`save()` gives what another process needs to run the same code, as JSON-able data and
the object code, and `NativeEngine.load` loads it back (`l0.compile_cache` keeps it on
disk). Neither imports xDSL: a program loaded from the cache starts without the
compiler.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from l0.lowering.runtime import jit_call, openmp_runtime, trace_runtime
from l0.lowering.runtime.abi import ErrorSite, ErrorTable
from l0.lowering.runtime.jit_call import (
    CompiledModule,
    JitFunction,
    link_callbacks,
    slot_from_json,
    slot_to_json,
)
from l0.lowering.runtime.run_tables import (
    Device,
    Param,
    RunTables,
    Site,
    params_from_json,
    params_to_json,
    sites_from_json,
    sites_to_json,
)
from l0.types import Type, type_from_json, type_to_json

Calls = Callable[[CompiledModule, str], JitFunction]
"""How an engine calls an entry point of its compiled module: the callable for a name."""

SAVE_FORMAT = 2
"""The version of `save()`'s data; loading another gives None."""


@dataclass(frozen=True)
class EntryPoint:
    """An entry point's soac-level signature: per parameter (unique, array of certs),
    per result (array of certs)."""

    params: tuple[tuple[bool, bool], ...]
    results: tuple[bool, ...]


@dataclass(frozen=True)
class RuntimeLinks:
    """What compiled code calls besides itself: the checking heap, the allocation
    counter, the OpenMP runtime (`threads` not None)."""

    checked: bool = False
    counted: bool = False
    threads: int | None = None

    @property
    def openmp(self) -> bool:
        """Whether the code runs threads (links libgomp)."""
        return self.threads is not None


class NativeEngine:
    """Runs the entry points of compiled code (module docstring)."""

    def __init__(self, compiled: CompiledModule, entries: Mapping[str, EntryPoint], *,
                 isolate: bool = True, links: RuntimeLinks = RuntimeLinks(),
                 trace_sites: Mapping[int, tuple[str, Type]] | None = None,
                 params: Sequence[Param] = (), sites: Sequence[Site] = (),
                 calls: Calls | None = None, device: Device | None = None) -> None:
        """`calls`: how an entry point is called (default: `JitFunction`, on the links'
        threads); the gpu back end's host code calls through the device boundary.
        `device`: what parameter defaults follow from (default: the links' threads)."""
        self.compiled = compiled
        self.entries = dict(entries)
        self.links = links
        self.trace_sites = dict(trace_sites or {})
        self._isolate = isolate
        self._functions: dict[str, JitFunction] = {}
        self._calls = calls or (lambda compiled, name: JitFunction(
            compiled, name, threads=self.links.threads or 0))
        if device is None:
            device = (Device() if links.threads is None
                      else Device(threads=openmp_runtime.threads_of(links.threads)))
        self.tables = RunTables(compiled.engine, params, sites, device)
        """The run-time parameters and profile counters (`l0.lowering.runtime.run_tables`)."""

    def on_threads(self, threads: int) -> NativeEngine:
        """An engine running this one's code with calls that fork `threads` threads (0:
        libgomp's default). Nothing is compiled: the count is set when code is called,
        not compiled in (`openmp_runtime.thread_count`). ValueError for code that runs
        no threads."""
        if not self.links.openmp:
            raise ValueError("this code runs no threads: it takes no thread count")
        return NativeEngine(self.compiled, self.entries, isolate=self._isolate,
                            links=replace(self.links, threads=threads),
                            trace_sites=self.trace_sites, params=self.tables.param_specs,
                            sites=self.tables.sites)

    def function(self, name: str) -> JitFunction:
        fn = self._functions.get(name)
        if fn is None:
            if name not in self.compiled.addresses:
                raise KeyError(f"no compiled entry point named {name!r}")
            fn = self._functions[name] = self._calls(self.compiled, name)
        return fn

    def call(self, name: str, args: Sequence[Any]) -> list[Any]:
        """Run `@name` on flattened `args`; return its flattened results."""
        entry = self.entries[name]
        ins: list[Any] = []
        for (unique, cert), a in zip(entry.params, args, strict=True):
            if cert:
                a = np.ones(np.shape(a), dtype=np.bool_)
            elif unique and self._isolate and isinstance(a, np.ndarray):
                a = a.copy()
            ins.append(a)
        if self.tables.param_specs:
            self.tables.apply()
        out = self.function(name)(*ins)
        n = len(entry.results)
        results = [] if n == 0 else [out] if n == 1 else list(out)
        arrays = [a for a in ins if isinstance(a, np.ndarray)]
        for k, (cert, r) in enumerate(zip(entry.results, results, strict=True)):
            if not isinstance(r, np.ndarray):
                continue
            if cert:
                from l0.values import CHECKED

                results[k] = np.full(r.shape, CHECKED, dtype=object)
            elif self._isolate and any(np.may_share_memory(r, a) for a in arrays):
                results[k] = r.copy()
        return results

    def save(self) -> tuple[dict[str, Any], bytes]:
        """What `load` needs, as JSON-able data, and the object code."""
        c = self.compiled
        data = {
            "format": SAVE_FORMAT,
            "entries": {name: {"params": [list(p) for p in e.params],
                               "results": list(e.results),
                               "inputs": [slot_to_json(s) for s in c.signatures[name][0]],
                               "outputs": [slot_to_json(s) for s in c.signatures[name][1]]}
                        for name, e in self.entries.items()},
            "errors": {"sites": [[k, s.message, s.loc] for k, s in c.errors.sites.items()],
                       "max_values": c.errors.max_values},
            "links": {"checked": self.links.checked, "counted": self.links.counted,
                      "threads": self.links.threads},
            "traces": [[k, loc, type_to_json(t)] for k, (loc, t) in
                       sorted(self.trace_sites.items())],
            "params": params_to_json(self.tables.param_specs),
            "profile": sites_to_json(self.tables.sites),
        }
        return data, c.object_code

    @classmethod
    def load(cls, data: Mapping[str, Any], object_code: bytes, *,
             isolate: bool = True, calls: Calls | None = None,
             device: Device | None = None) -> NativeEngine | None:
        """The engine `save` described, its object code loaded into this process; None
        when it cannot run here (another format, trace sites numbered otherwise here);
        `calls` and `device` as for `NativeEngine`."""
        if data.get("format") != SAVE_FORMAT:
            return None
        sites = {int(k): (str(loc), type_from_json(t)) for k, loc, t in data["traces"]}
        if not trace_runtime.adopt(sites):  # type: ignore[arg-type]  # traced values are basic or arrays
            return None
        errors = ErrorTable(sites={int(k): ErrorSite(str(m), str(loc))
                                   for k, m, loc in data["errors"]["sites"]},
                            max_values=int(data["errors"]["max_values"]))
        entries = {name: EntryPoint(tuple((bool(u), bool(c)) for u, c in e["params"]),
                                    tuple(bool(c) for c in e["results"]))
                   for name, e in data["entries"].items()}
        signatures = {name: ([slot_from_json(s) for s in e["inputs"]],
                             [slot_from_json(s) for s in e["outputs"]])
                      for name, e in data["entries"].items()}
        raw = data["links"]
        links = RuntimeLinks(bool(raw["checked"]), bool(raw["counted"]), raw["threads"])
        link_callbacks(trace_runtime.CALLBACKS)
        compiled = jit_call.load_object(object_code, signatures, errors,
                                        checked=links.checked, counted=links.counted,
                                        openmp=links.openmp)
        return cls(compiled, entries, isolate=isolate, links=links, trace_sites=sites,
                   params=params_from_json(data["params"]),
                   sites=sites_from_json(data["profile"]), calls=calls, device=device)
