"""Compile-time benchmark: how long each stage takes on a ~350-line program.

    python -m benchmarks.compile_time [FILE.l0 ...]
    python -m benchmarks.compile_time --fusion-scaling [N ...]

Without files it concatenates the larger programs of the test corpus (renaming their
functions apart) into one program of at least 350 lines, as the issues' compile-time
targets ask. Prints the median time of parse, type check, internalisation, the default
optimisation pipeline and the CPU back end, over 5 runs, each in this one process after
a warm-up run; then the cold compile time: `l0.compile` in a fresh process, imports
included (median of 3), which is what a user of `l0-run` or `l0.compile` waits for;
then the same with the compile cache holding the program (`l0.compile_cache`: a fresh
process loads the code instead of compiling it; median of 3), and the ratio of the two.

`--fusion-scaling` instead times fusion on two generated programs of N SOACs each
(default 250 and 1000): a chain of N maps, each over the last one's result
(`chain_program`), and N sibling maps over one array, each summed (`siblings_program`).
For each it prints the time of `-O` (the default pipeline on the front end's module,
the front end not counted) and of the `fuse` pass alone on the module the other passes
of one round leave, each with its CPU time (less disturbed than the wall clock on a
loaded machine), one run each (these take seconds), and the ratios of the CPU times
to the smallest N's, which grow about linearly when the passes do.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ["raytrace", "montecarlo", "lu_pivot", "vm", "blackscholes", "tridag", "lu"]


def corpus_program(min_lines: int = 350) -> str:
    """Several corpus programs in one, their functions renamed apart, `main` from the first."""
    parts: list[str] = []
    for k, name in enumerate(CORPUS):
        path = ROOT / "test" / "programs" / "benchmarks" / f"{name}.l0"
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        names = re.findall(r"\bfun\s+[^(=]*?\b([A-Za-z][A-Za-z0-9_]*)\s*\(", text)
        for fname in sorted(set(names), key=len, reverse=True):
            if k == 0 and fname == "main":
                continue
            text = re.sub(rf"\b{fname}\b(?=\s*[(,)])", f"{fname}_{k}", text)
        parts.append(text)
        if sum(p.count("\n") for p in parts) >= min_lines:
            break
    return "\n".join(parts)


def chain_program(n: int) -> str:
    """n maps in a chain: `a{i+1} = map(fn x => x + i, a{i})`; fully fused, one map."""
    lines = ["fun [int] main([int] a0) ="]
    lines += [f"  let a{i + 1} = map(fn int (int x) => x + {i}, a{i}) in" for i in range(n)]
    return "\n".join([*lines, f"  a{n}", ""])


def siblings_program(n: int) -> str:
    """n sibling maps over one array, each summed, the sums added: fused, one redomap."""
    lines = ["fun int main([int] a) ="]
    lines += [f"  let b{i} = reduce(op +, 0, map(fn int (int x) => x * {i}, a)) in"
              for i in range(n)]
    return "\n".join([*lines, "  " + " + ".join(f"b{i}" for i in range(n)), ""])


def fusion_scaling(sizes: list[int]) -> None:
    """Print the -O and `fuse` times of `chain_program` and `siblings_program`."""
    from l0.bigstack import call_with_big_stack
    from l0.dialects.context import l0_context
    from l0.frontend import load_program, to_module
    from l0.passes.fuse import FusePass
    from l0.passes.pipeline import DEFAULT, optimise

    def times(text: str) -> tuple[float, float, float, float]:
        program = load_program(text, "generated.l0")
        module = to_module(program)
        start, cpu = time.perf_counter(), time.process_time()
        optimise(module)
        whole, whole_cpu = time.perf_counter() - start, time.process_time() - cpu
        module = to_module(program)
        optimise(module, [p for p in DEFAULT if p != "fuse"], max_rounds=1)
        start, cpu = time.perf_counter(), time.process_time()
        FusePass().apply(l0_context(), module)
        return whole, whole_cpu, time.perf_counter() - start, time.process_time() - cpu

    for label, make in (("chain", chain_program), ("siblings", siblings_program)):
        first: tuple[int, float, float] | None = None
        for n in sorted(sizes):
            whole, whole_cpu, fuse, cpu = call_with_big_stack(
                lambda make=make, n=n: times(make(n)))
            if first is None:
                first = (n, whole_cpu, cpu)
            m, w0, c0 = first
            print(f"{label} of {n:5d} maps: -O {whole:7.2f} s, its CPU time {whole_cpu:6.2f} s "
                  f"({whole_cpu / w0:5.1f}x); fuse {fuse:6.2f} s, its CPU time {cpu:6.2f} s "
                  f"({cpu / c0:5.1f}x); for {n / m:.1f}x the maps")
            sys.stdout.flush()


def median_time(work: Callable[[], object], runs: int = 5) -> float:
    work()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="L0 programs (default: a 350-line corpus program)")
    ap.add_argument("--fusion-scaling", nargs="*", type=int, metavar="N",
                    help="time fusion on chains and siblings of N maps (default 250 1000)")
    args = ap.parse_args(argv)
    if args.fusion_scaling is not None:
        fusion_scaling(args.fusion_scaling or [250, 1000])
        return
    sources = [(f, Path(f).read_text(encoding="utf-8")) for f in args.files] or [
        ("corpus-350.l0", corpus_program())
    ]

    from l0.bigstack import call_with_big_stack
    from l0.internalise import internalise
    from l0.syntax.parser import parse_program
    from l0.typecheck import check_program

    for name, text in sources:
        print(f"{name}: {text.count(chr(10)) + 1} lines")

        def parse(text: str = text, name: str = name) -> object:
            return parse_program(text, name)

        def check(text: str = text, name: str = name) -> object:
            prog = parse_program(text, name)
            check_program(prog)
            return prog

        def front_end(text: str = text, name: str = name) -> object:
            return internalise(check(text, name))

        stages: list[tuple[str, Callable[[], object]]] = [
            ("parse", parse),
            ("parse + check", check),
            ("parse + check + internalise", front_end),
        ]
        try:
            from l0.passes.pipeline import optimise

            stages.append(("front end + default pipeline", lambda: optimise(front_end())))
        except ImportError:
            pass
        try:
            from l0.api import CompiledProgram

            def cpu(text: str = text, name: str = name) -> object:
                return CompiledProgram(text, name, "cpu")

            stages.append(("front end + cpu back end", cpu))
        except ImportError:
            pass
        for label, work in stages:
            try:
                seconds = call_with_big_stack(lambda work=work: median_time(work))
            except Exception as err:  # a stage that is not available yet
                print(f"  {label:32s} unavailable ({type(err).__name__}: {err})")
                continue
            print(f"  {label:32s} {seconds * 1000:8.1f} ms")
        cold, cached = cold_compile(name, text)
        print(f"  {'cold, in a fresh process':32s} {cold * 1000:8.1f} ms")
        print(f"  {'cached, in a fresh process':32s} {cached * 1000:8.1f} ms"
              f"  ({cached / cold:.1%} of cold)")
    sys.stdout.flush()


def cold_compile(name: str, text: str, runs: int = 3) -> tuple[float, float]:
    """The median of `runs` cold compiles of `text`, and of `runs` loads of it from the
    compile cache, each in a fresh process (`benchmarks.run.cold_compile_seconds`)."""
    import tempfile

    from benchmarks.run import cold_compile_seconds

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / Path(name).name
        path.write_text(text, encoding="utf-8")
        cold = statistics.median(cold_compile_seconds(path, "cpu", 600.0) for _ in range(runs))
        cache = Path(tmp) / "cache"
        cold_compile_seconds(path, "cpu", 600.0, cache)  # fills the cache
        cached = statistics.median(cold_compile_seconds(path, "cpu", 600.0, cache)
                                   for _ in range(runs))
        return cold, cached


if __name__ == "__main__":
    main()
