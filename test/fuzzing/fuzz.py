"""`make fuzz N=2000`: the differential fuzzer at scale (docs/testing.md).

    python test/fuzzing/fuzz.py -n 2000 [--functions 16] [--seed 0] [--out build/fuzz]

Runs N random functions (`random_programs`), `--functions` to a module, on every
configuration of `differential.CONFIGS` against the interpreter. Each module runs in a
child process, so compiled code that kills its process (a signal) is a crash of that
module, and a module that takes longer than `TIMEOUT` a hang, not the end of the run.
For every finding it prints a report and writes the function alone as
`OUT/seed-S-fI.l0` (and the whole module as `OUT/seed-S.l0`); at the end one line of
figures. The exit status is 1 when anything was found.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

from differential import CONFIGS, Finding, check_module
from random_programs import module


def _child(seed: int, functions: int, conn: multiprocessing.connection.Connection) -> None:
    conn.send(check_module(seed, functions))
    conn.close()


TIMEOUT = 900
"""Seconds a module may take (a few on an idle machine): past them, it is a hang."""


def run_isolated(seed: int, functions: int,
                 timeout: float = TIMEOUT) -> tuple[list[Finding], int]:
    """`check_module` in a child process; a child killed by a signal is a crash, one
    that takes longer than `timeout` a hang."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(seed, functions, child))
    proc.start()
    child.close()
    result: tuple[list[Finding], int] = ([], 0)
    if not parent.poll(timeout):
        proc.kill()
        proc.join()
        return [Finding("hang", seed, functions, "some configuration",
                        got=f"no answer after {timeout:.0f} s")], 0
    try:
        result = parent.recv()
    except EOFError:
        pass
    proc.join()
    if proc.exitcode != 0:
        how = f"killed by signal {-proc.exitcode}" if (proc.exitcode or 0) < 0 \
            else f"exit status {proc.exitcode}"
        return [*result[0], Finding("crash", seed, functions, "some configuration",
                                    got=f"the process running the module ended: {how}")], 0
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=2000, help="random functions to run (N)")
    ap.add_argument("--functions", type=int, default=16, help="functions per module")
    ap.add_argument("--seed", type=int, default=0, help="the first module's seed")
    ap.add_argument("--out", default="build/fuzz", help="where reproductions go")
    args = ap.parse_args(argv)
    out = Path(args.out)
    modules = max(1, -(-args.n // args.functions))
    start = time.time()
    findings: list[Finding] = []
    runs = 0
    for seed in range(args.seed, args.seed + modules):
        found, compared = run_isolated(seed, args.functions)
        runs += compared
        for f in found:
            print(f.report(), flush=True)
            out.mkdir(parents=True, exist_ok=True)
            name = f"seed-{seed}" + (f"-f{f.function}" if f.function is not None else "")
            (out / f"{name}.l0").write_text(f.repro(), encoding="utf-8")
            (out / f"seed-{seed}.l0").write_text(module(seed, args.functions), encoding="utf-8")
        findings += found
        done = seed - args.seed + 1
        print(f"[{done}/{modules} modules, {time.time() - start:.0f} s] "
              f"{len(findings)} findings so far", file=sys.stderr, flush=True)
    kinds = {k: sum(f.kind == k for f in findings)
             for k in ("crash", "hang", "disagreement", "rejected", "generator")}
    programs = modules * args.functions
    print(f"fuzz: {programs} programs (seeds {args.seed}-{args.seed + modules - 1}, "
          f"{args.functions} functions each), {len(CONFIGS)} configurations, {runs} runs "
          f"compared: {kinds['crash']} crashes, {kinds['hang']} hangs, "
          f"{kinds['disagreement']} disagreements, "
          f"{kinds['rejected']} rejected, {kinds['generator']} generator errors "
          f"({time.time() - start:.0f} s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
