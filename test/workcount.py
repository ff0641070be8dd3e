"""Counting the suite's costly work per test file (opt-in: `L0_TEST_COUNTS=FILE`).

    L0_TEST_COUNTS=/tmp/counts.jsonl pytest -n 2 --dist loadgroup test/test_matrix.py
    python test/workcount.py /tmp/counts.jsonl

counts, per test file, the lowerings of a soac-level module to the loop level
(`l0.lowering.pipeline.lower`) and the lowering passes run, theirs and those the
tests run from a shared prefix (`l0.lowering.pipeline.apply_steps`,
`compiled.lowered`), the LLVM O3 runs (`l0.lowering.backends.jit._optimise`: every
native compilation, JIT or `l0 compile`, and `-t llvm-ir{optimize=true}`), the JIT
compilations among them (`l0.lowering.backends.jit.compile_module` missing its in-process
cache) with how many compiled a module text that another test file of the run had
compiled already, the processes started (`subprocess.Popen`, by program name) and the
tools that lit's RUN lines ran in the tool server (`toolserver.py`). Each test process
appends one JSON line per file to FILE when it ends (xdist workers too), and the
server one line per tool run (`toolserver.record_tool_run`); `python
test/workcount.py FILE` adds them up. The counters wrap the functions in place, so
they see calls from the compiler and the tests alike; without the variable nothing is
wrapped.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

ENV = "L0_TEST_COUNTS"


class WorkCounter:
    """A pytest plugin: the counts of the current process, per test file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.file = "(collection)"
        self.counts: dict[str, collections.Counter[str]] = collections.defaultdict(
            collections.Counter)
        self.jit_texts: dict[str, set[str]] = collections.defaultdict(set)

    def count(self, what: str) -> None:
        self.add(what, 1)

    def add(self, what: str, n: int) -> None:
        self.counts[self.file][what] += n

    def wrap(self, owner: Any, name: str, what: str,
             record: Callable[..., None] | None = None) -> None:
        original = getattr(owner, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.count(what)
            if record is not None:
                record(*args, **kwargs)
            return original(*args, **kwargs)

        setattr(owner, name, counted)

    def install(self) -> None:
        from l0.lowering import pipeline
        from l0.lowering.backends import jit

        self.wrap(pipeline, "lower", "lowerings")
        apply_steps = pipeline.apply_steps

        def steps_counted(module: Any, passes: Any, **options: Any) -> None:
            passes = tuple(passes)
            self.add("lowering passes", len(passes))
            apply_steps(module, passes, **options)

        pipeline.apply_steps = steps_counted
        self.wrap(jit, "_optimise", "LLVM O3 runs")
        compile_module, build = jit.compile_module, jit._build
        built: list[bool] = []

        def build_noted(*args: Any, **kwargs: Any) -> Any:
            built.append(True)
            return build(*args, **kwargs)

        def compile_counted(module: Any, **options: Any) -> Any:
            built.clear()
            compiled = compile_module(module, **options)
            if built:  # not from the in-process cache
                self.count("JIT compilations")
                key = repr((str(module), sorted(options.items())))
                self.jit_texts[self.file].add(hashlib.sha256(key.encode()).hexdigest())
            return compiled

        jit._build = build_noted
        jit.compile_module = compile_counted
        popen_init = subprocess.Popen.__init__

        def popen_counted(popen: subprocess.Popen[Any], args: Any, *rest: Any,
                          **kwargs: Any) -> None:
            program = args if isinstance(args, str | bytes | os.PathLike) else args[0]
            self.count(f"processes: {os.path.basename(os.fsdecode(program))}")
            popen_init(popen, args, *rest, **kwargs)

        subprocess.Popen.__init__ = popen_counted  # type: ignore[method-assign]

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        self.file = item.location[0]
        yield

    def pytest_sessionfinish(self) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            for file, counts in sorted(self.counts.items()):
                f.write(json.dumps({"file": file, "counts": dict(counts),
                                    "jit_texts": sorted(self.jit_texts[file])}) + "\n")


TOOLS = {"l0", "l0-run", "l0-opt", "filecheck", "lit"}
BUILD = {"cc", "gcc", "clang", "ld", "ldconfig", "ptxas", "git"}


def _kind(program: str) -> str:
    if program.startswith("python"):
        return "Python"
    return "tools" if program in TOOLS else "compiler, linker" if program in BUILD else "other"


def summarise(path: str) -> str:
    """The counts in `path`, per test file and in all, as a Markdown table."""
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    texts: dict[str, set[str]] = collections.defaultdict(set)
    with open(path, encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            counts[entry["file"]].update(entry["counts"])
            texts[entry["file"]].update(entry.get("jit_texts", ()))
    first_file: dict[str, str] = {}
    for file in sorted(texts):
        for t in texts[file]:
            first_file.setdefault(t, file)
    for file in texts:
        again = sum(1 for t in texts[file] if first_file[t] != file)
        if again:
            counts[file]["JIT compilations of another file's module"] += again
    for c in counts.values():  # processes by kind: the columns stay few
        for key in [k for k in c if k.startswith("processes: ")]:
            c[f"processes ({_kind(key.removeprefix('processes: '))})"] += c.pop(key)
    total: collections.Counter[str] = collections.Counter()
    for c in counts.values():
        total.update(c)
    columns = sorted(total)
    rows = ["| file | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for file in [*sorted(counts), "all"]:
        c = total if file == "all" else counts[file]
        rows.append(f"| {file} | " + " | ".join(str(c.get(k, 0)) for k in columns) + " |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(summarise(sys.argv[1]))
