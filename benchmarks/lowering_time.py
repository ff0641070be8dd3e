"""Lowering benchmark: how long the lowering pipeline and the LLVM IR emitter take over
the test corpus, on each native back end.

    python -m benchmarks.lowering_time [--every N] [--targets cpu,multicore,gpu-sim]

For every runnable corpus program (`test/programs/**/X.l0` with an `X.in`; with
`--every N`, every Nth of them in sorted order) it runs the front end and the `-O`
pipeline of each back end's target (not timed), then times `l0.lowering.pipeline.lower`
and `emit_module` on the result, and prints their CPU times summed per back end and in
all. CPU time is less disturbed than the wall clock on a shared machine. Each program's
modules are dropped before the next is compiled, as in a process compiling one program;
the LLVM pipeline and machine code generation, which llvmlite runs, are not counted.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "test" / "programs"


def runnable(every: int = 1) -> list[Path]:
    """The corpus programs with an input, sorted; every `every`th of them."""
    return [p for p in sorted(CORPUS.rglob("*.l0")) if p.with_suffix(".in").exists()][::every]


def lowering_times(programs: list[Path], targets: list[str]) -> dict[str, tuple[float, float, int]]:
    """Per back end: CPU seconds of `lower` and of `emit_module` over `programs`, and how
    many programs it compiled (those its `-O` pipeline rejects are left out)."""
    from l0.dialects.context import l0_context
    from l0.frontend import load_program, to_module
    from l0.lowering.llvm.emit import emit_module
    from l0.lowering.pipeline import lower
    from l0.passes.pipeline import optimise
    from l0.targets import TARGETS

    totals = {name: (0.0, 0.0, 0) for name in targets}
    for path in programs:
        front = to_module(load_program(path.read_text(encoding="utf-8"), str(path)))
        for name in targets:
            backend = TARGETS[name]
            module = front.clone()
            try:
                optimise(module, ctx=l0_context(), target=backend.pipeline)
            except Exception:  # noqa: BLE001 - a program the corpus expects to fail
                continue
            start = time.process_time()
            lowered = lower(module, entries=["main"], target=backend)
            lowered_at = time.process_time()
            emit_module(lowered, entries=["main"], target=backend)
            done = time.process_time()
            low, emit, n = totals[name]
            totals[name] = (low + lowered_at - start, emit + done - lowered_at, n + 1)
    return totals


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=int, default=1, metavar="N",
                        help="time every Nth runnable corpus program (default: all)")
    parser.add_argument("--targets", default="cpu,multicore,gpu-sim",
                        help="the back ends, comma-separated (default: cpu,multicore,gpu-sim)")
    args = parser.parse_args(argv)
    from l0.bigstack import call_with_big_stack

    programs = runnable(args.every)
    targets = args.targets.split(",")
    totals = call_with_big_stack(lambda: lowering_times(programs, targets))
    print(f"{len(programs)} corpus programs, CPU time")
    for name, (low, emit, n) in totals.items():
        print(f"  {name:10s} {n:4d} compiled   lower {low:7.2f} s   emit {emit:6.2f} s"
              f"   both {low + emit:7.2f} s")
    low = sum(t[0] for t in totals.values())
    emit = sum(t[1] for t in totals.values())
    print(f"  {'all':10s} {sum(t[2] for t in totals.values()):4d} compiled   lower {low:7.2f} s"
          f"   emit {emit:6.2f} s   both {low + emit:7.2f} s")


if __name__ == "__main__":
    main()
