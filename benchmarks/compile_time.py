"""Compile-time benchmark: how long each stage takes on a ~350-line program.

    python -m benchmarks.compile_time [FILE.l0 ...]

Without files it concatenates the larger programs of the test corpus (renaming their
functions apart) into one program of at least 350 lines, as the issues' compile-time
targets ask. Prints the median time of parse, type check, internalisation, the default
optimisation pipeline and the CPU back end, over 5 runs, each in this one process after
a warm-up run; then the cold compile time: `l0.compile` in a fresh process, imports
included (median of 3), which is what a user of `l0-run` or `l0.compile` waits for;
then the same with the compile cache holding the program (`l0.compile_cache`: a fresh
process loads the code instead of compiling it; median of 3), and the ratio of the two.
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
    args = ap.parse_args(argv)
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
