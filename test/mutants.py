"""Mutation testing of one module with the tests that cover it: `make mutants MODULE=passes/fuse`.

Cosmic Ray changes the module's source one small way at a time (a comparison negated,
`and` for `or`, `True` for `False`, a loop that never runs, ...), runs the module's tests
on each mutant, and records whether they failed (the mutant is *killed*) or passed (it
*survived*: no test would notice that bug). The survivors are listed at the end; each is
either a missing test or an equivalent mutant (one that changes no behaviour), which
`docs/testing.md` says how to handle.

    python test/mutants.py passes/fuse [--workdir DIR] [--timeout S] [--again]

`MODULES` names, per module, the fast tests that cover it: its lit tests, quick unit
tests, and cells of the test matrix for a subset of the corpus (the interpreter after
that pass alone, or the CPU back end at -O0 on the checking heap for a lowering step;
Note [Subsets of the corpus]). A pass that is a thin wrapper around a core in
`passes/cores/` is mutated with it. The test command stops at the first failure, so a
killed mutant costs little; a survivor costs the whole subset. Mutants are tested one
at a time, in place, in random order (a run stopped part-way has tested a random
sample): the module's files are saved first and put back at the end, also when the
run is interrupted. The session (`DIR/session.sqlite`) keeps the results, so a run
that is stopped goes on where it was when started again with the same `--workdir`;
`--again` tests the survivors again (after tests were added). Survivors inside type
annotations are counted as equivalent (`in_annotation`).

The operators are a subset of Cosmic Ray's (`EXCLUDED`): replacing `+` by each of nine
other operators, or a variable by another, makes many mutants that tell little more
than the ones kept.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Coverage:
    """The fast tests covering a module: lit files, unit tests, and cells of the matrix
    (`test/test_matrix.py`): each of `programs` in each of `columns`, in that order."""

    lit: tuple[str, ...]
    columns: tuple[str, ...]  # e.g. "interp-pass-fuse", "cpu-O0"
    programs: tuple[str, ...]  # corpus programs, the likeliest killers first
    unit: tuple[str, ...] = ()
    # Modules mutated with it: the core a pass is a thin wrapper around (`passes/cores`).
    cores: tuple[str, ...] = ()


def _names(text: str) -> tuple[str, ...]:
    return tuple(f"{name}.l0" for name in text.split())


# Note [Subsets of the corpus]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A survivor costs the whole test command, and mutants run one at a time: the matrix
# columns are cut down to the programs that can tell a mutant from the module.
#
# * A pass: the programs the pass alone changes (their IR after it differs from the
#   front end's), and for `fuse` every program of `fusion/`, whose must-not-fuse cases
#   (an in-place update between producer and consumer, an array used twice) a mutant
#   that fuses too much would break. A program the pass leaves alone can only catch a
#   mutant that makes the pass fire where it should not, which the must-not-fire lit
#   tests check directly.
# * A lowering step (`dealloc`, `bufferise`): the CPU back end at `-O0` on the checking
#   heap (a freed buffer reads as poison; double frees and leaks fail the cell), on the
#   programs whose memory is most involved: loops carrying arrays (the loop taking
#   ownership of its initial buffer, growing and copied arrays), in-place updates,
#   branches returning arrays, SOACs in loops and nested SOACs, tuples of arrays,
#   reshapes (of rank 3, of a transposition), splits and transpositions (views),
#   concatenations with an empty operand, filters (sizes known late), and runtime
#   errors raised with buffers live. One program of each shape, the cheapest.
_FUSE_PROGRAMS = _names("""
    fusion/map_map fusion/map_reduce fusion/map_scan fusion/redomap_chain fusion/figure44
    fusion/filter_reduce fusion/fuse_easy fusion/fuse_filter fusion/horizontal_folds
    fusion/horizontal_maps fusion/iswim_columns fusion/scanomap_affine fusion/scanomap_chain
    fusion/scanomap_matrix fusion/scanomap_rows fusion/split_kept fusion/trunc_chain
    fusion/unzip_wild fusion/zip3_maps fusion/cheap_duplicate fusion/curried
    fusion/inplace_between fusion/inplace_input_between fusion/used_twice fusion/iswim
    fusion/fuse_complex fusion/pull_reshape_error fusion/pull_reshape_regroup
    fusion/pull_reshape_rows fusion/reshape_transpose
    soacs/redomap soacs/scan soacs/tsoacs soacs/nested_maps soacs/map_forms soacs/shim
    soacs/reduce_noncomm soacs/compile_nested_tsoacs soacs/builtins_mapped soacs/op_binary
    soacs/op_sections_cmp soacs/op_sections_int soacs/cse_lambda_constants
    arrays/rows basics/bool_ops basics/ifchain basics/nan_compare basics/trace_strings
    basics/wildcards runtime/div_zero runtime/reshape_bad
    benchmarks/mssp benchmarks/matmult_fun benchmarks/matmult_imp benchmarks/blackscholes_gen
    benchmarks/floyd_fun benchmarks/life benchmarks/lu benchmarks/lu_pivot benchmarks/bottles
    benchmarks/montecarlo benchmarks/sort benchmarks/tridag
""")
_CSE_PROGRAMS = _names("""
    soacs/cse_lambda_constants arrays/certs_index arrays/certs_ops arrays/copy
    arrays/empty_arrays arrays/identity arrays/index_exprs arrays/iota_replicate_size
    arrays/letwith_forms arrays/literal_exprs arrays/literal_index arrays/reshape
    arrays/rows arrays/split arrays/split_zip arrays/transpose2d arrays/transpose3d
    basics/bitwise basics/bool_ops basics/floordiv basics/int_wrap basics/mutual_rec
    basics/nan_compare basics/pow_int basics/precedence basics/trace_strings
    basics/wildcards loops/compile_loops loops/growing_scratch loops/inplace_sort
    loops/loop_concat loops/loop_reads_init loops/nested_loops loops/sieve
    runtime/assert_fail runtime/index_loop runtime/index_read runtime/no_short_circuit
    runtime/no_short_circuit_or soacs/builtins_mapped soacs/map_forms
    soacs/map_index_closure soacs/op_binary soacs/scan_pairs soacs/shim soacs/tsoacs
    soacs/tsoacs_certs tuples/tuple_reduce tuples/tuple_with_tuple_array tuples/tupleindex
    tuples/zip3 tuples/zip_unzip uniqueness/branch_consume uniqueness/compile_inplace
    uniqueness/consume_chain uniqueness/loop_tuple_merge uniqueness/main_unique_param
    uniqueness/observe_then_consume uniqueness/param_alias_index uniqueness/reduce_tuple_acc
    uniqueness/reduce_unique_acc uniqueness/row_update uniqueness/shadow_consumed
    uniqueness/wildcard_consume fusion/fuse_complex fusion/inplace_input_between
    fusion/pull_reshape_regroup fusion/scanomap_affine fusion/scanomap_chain
    benchmarks/binomial benchmarks/bottles benchmarks/life benchmarks/lu benchmarks/lu_pivot
    benchmarks/matmult_imp benchmarks/montecarlo benchmarks/mssp benchmarks/raytrace
    benchmarks/sort benchmarks/tridag benchmarks/vm
""")
_HOIST_PROGRAMS = _names("""
    basics/ackermann basics/fib_rec basics/gcd basics/ifchain basics/mutual_rec
    basics/nan_compare basics/six_params basics/trace_strings loops/collatz
    loops/compile_loops loops/inplace_sort loops/loop_concat loops/loop_reads_init
    loops/nested_loops loops/sieve runtime/index_in_lambda runtime/index_loop
    soacs/compile_nested_tsoacs soacs/filter soacs/map_index_closure soacs/nested_maps
    soacs/redomap soacs/tsoacs tuples/map_to_pairs tuples/tuple_reduce
    tuples/tuple_with_tuple_array uniqueness/branch_consume uniqueness/reduce_tuple_acc
    uniqueness/reduce_unique_acc fusion/filter_reduce fusion/inplace_input_between
    fusion/scanomap_affine fusion/scanomap_chain benchmarks/binomial benchmarks/blackscholes
    benchmarks/blackscholes_gen benchmarks/life benchmarks/lu benchmarks/lu_pivot
    benchmarks/matmult_imp benchmarks/montecarlo benchmarks/mssp benchmarks/raytrace
    benchmarks/sort benchmarks/tridag benchmarks/vm
""")
_MEMORY_PROGRAMS = _names("""
    loops/loop_reads_init loops/loop_concat loops/inplace_sort loops/growing_scratch
    uniqueness/loop_tuple_merge uniqueness/branch_consume uniqueness/row_update
    uniqueness/reduce_unique_acc soacs/nested_maps soacs/filter_pairs
    tuples/array2d_of_tuples arrays/copy_tuple arrays/transpose3d arrays/split_zip
    arrays/concat_empty_rows arrays/reshape_views benchmarks/sort
""")

MODULES: dict[str, Coverage] = {
    "passes/fuse": Coverage(
        tuple(f"test/lit/passes/fuse{part}.mlir" for part in (
            "", "-not", "-horizontal", "-horizontal-not", "-duplicate", "-duplicate-not",
            "-scanomap", "-reshape", "-iswim")),
        ("interp-pass-fuse",), _FUSE_PROGRAMS,
        ("test/unit/test_fusion_structure.py", "test/unit/test_fused_programs.py")),
    "passes/hoist": Coverage(("test/lit/passes/hoist.mlir",), ("interp-pass-hoist",),
                             _HOIST_PROGRAMS, cores=("passes/cores/hoisting",)),
    "passes/cse": Coverage(("test/lit/passes/cse.mlir", "test/lit/passes/rebind.mlir"),
                           ("interp-pass-cse",), _CSE_PROGRAMS,
                           ("test/unit/test_rebinder.py",),
                           ("passes/cores/common_subexpressions",)),
    "lowering/memory/dealloc": Coverage(("test/lit/lowering/dealloc.mlir",
                                         "test/lit/lowering/l0-opt-pipeline.l0"), ("cpu-O0",),
                                        _MEMORY_PROGRAMS),
    "lowering/bufferise": Coverage(
        ("test/lit/lowering/bufferise.mlir", "test/lit/lowering/bufferise-soacs.mlir",
         "test/lit/lowering/bufferise-manifest.mlir", "test/lit/lowering/bufferise-row-shapes.l0",
         "test/lit/lowering/l0-opt-pipeline.l0"), ("cpu-O0",), _MEMORY_PROGRAMS),
}

EXCLUDED = [
    r"core/ReplaceBinaryOperator_(?!Add_Sub|Sub_Add|Mul_Add|FloorDiv_Mul|Mod_FloorDiv|"
    r"BitAnd_BitOr|BitOr_BitAnd).*",
    r"core/ReplaceComparisonOperator_(?!Eq_NotEq|NotEq_Eq|Lt_LtE|LtE_Lt|Gt_GtE|GtE_Gt|"
    r"Is_IsNot|IsNot_Is|In_NotIn|NotIn_In).*",
    r"core/ReplaceUnaryOperator_(?!Not_Delete|USub_Delete).*",
    r"core/VariableInserter",
    r"core/VariableReplacer",
    r"core/RemoveDecorator",
]


def roots_of(module: str, cov: Coverage) -> list[Path]:
    """The file or package of `module` and of each of its cores, in that order."""
    return [source_of(name) for name in (module, *cov.cores)]


def sources_of(module: str, cov: Coverage) -> list[Path]:
    """The files mutated for `module`: its own and those of its cores."""
    files: list[Path] = []
    for src in roots_of(module, cov):
        files += [src] if src.is_file() else sorted(src.rglob("*.py"))
    return files


def source_of(module: str) -> Path:
    """`passes/fuse` -> the package directory, `passes/hoist` -> `passes/hoist.py`."""
    path = REPO / module
    if path.is_dir():
        return path
    if path.with_suffix(".py").exists():
        return path.with_suffix(".py")
    raise SystemExit(f"no module {module} (expected {module}.py or a package directory)")


def test_command(module: str, cov: Coverage) -> str:
    # Note [No stale bytecode]: a mutant is compiled from its source, never taken from
    # a `.pyc` left by an earlier mutant or the original (Python trusts a `.pyc` whose
    # recorded mtime and size match; a mutant as long as the last one, written in the
    # same second, would match).
    caches = sorted({str(f.parent / "__pycache__") for f in sources_of(module, cov)})
    fresh = f"rm -rf {' '.join(caches)}"
    lit = f"{BIN / 'lit'} -q --max-failures 1 {' '.join(cov.lit)}"
    pytest = (f"{BIN / 'python'} -m pytest -x -q -p no:cacheprovider -p no:xdist "
              f"-W ignore::pytest.PytestUnknownMarkWarning")
    cells = " ".join(shlex.quote(f"test/test_matrix.py::test_cell[{prog}-{column}]")
                     for prog in cov.programs for column in cov.columns)
    steps = [fresh, lit, f"{pytest} {cells}"]
    if cov.unit:
        steps.insert(2, f"{pytest} {' '.join(cov.unit)}")
    # Cosmic Ray splits the command into words and runs it without a shell.
    return f"bash -c {shlex.quote(' && '.join(steps))}"


def config(module: str, cov: Coverage, timeout: float) -> str:
    excluded = ", ".join(json.dumps(e) for e in EXCLUDED)
    return f"""[cosmic-ray]
module-path = {json.dumps([str(root.relative_to(REPO)) for root in roots_of(module, cov)])}
timeout = {timeout}
excluded-modules = []
test-command = {json.dumps(test_command(module, cov))}

[cosmic-ray.distributor]
name = "local"

[cosmic-ray.filters.operators-filter]
exclude-operators = [{excluded}]
"""


_running: list[subprocess.Popen[bytes]] = []


def run(cmd: list[str]) -> None:
    with subprocess.Popen(cmd, cwd=REPO) as proc:
        _running.append(proc)
        code = proc.wait()
        _running.remove(proc)
    if code != 0:
        raise subprocess.CalledProcessError(code, cmd)


def in_annotation(path: Path, row: int, col: int) -> bool:
    """Whether (row, col) of `path` lies in a type annotation. The modules use `from
    __future__ import annotations`, so annotations are never evaluated and mutants there
    (`A | None` -> `A & None`) are equivalent."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    spans: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            spans.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
            spans.append(node.returns)
    return any((a.lineno, a.col_offset) <= (row, col) <= (a.end_lineno or a.lineno,
                                                        a.end_col_offset or 0)
               for a in spans)


def outcomes(session: Path) -> tuple[dict[str, int], list[str]]:
    """Counts of outcomes, and the surviving mutants as `file:line: operator`."""
    db = sqlite3.connect(session)
    rows = db.execute(
        "select m.module_path, m.start_pos_row, m.start_pos_col, m.operator_name, "
        "r.worker_outcome, r.test_outcome "
        "from mutation_specs m left join work_results r on m.job_id = r.job_id"
    ).fetchall()
    counts: dict[str, int] = {}
    alive = []
    for path, line, col, op, worker, outcome in rows:
        # SKIPPED: an operator left out (EXCLUDED); no result yet: still to be tested.
        key = (outcome or worker or "pending").lower()
        if key == "survived" and in_annotation(REPO / path, line, col):
            key = "equivalent (annotation)"
        counts[key] = counts.get(key, 0) + 1
        if key == "survived":
            alive.append(f"{path}:{line}: {op}")
    return counts, sorted(alive)


def forget_survivors(session: Path) -> None:
    """Mark the surviving mutants untested, to test them again with new tests."""
    db = sqlite3.connect(session)
    db.execute("delete from work_results where test_outcome = 'SURVIVED'")
    db.commit()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("module", choices=sorted(MODULES))
    ap.add_argument("--workdir", type=Path, default=None,
                    help="where the session is kept (default: build/mutants/MODULE)")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds a mutant's tests may take (a mutant that loops is killed)")
    ap.add_argument("--again", action="store_true",
                    help="test the survivors of the last run again (after adding tests)")
    args = ap.parse_args()
    cov = MODULES[args.module]
    workdir = args.workdir or REPO / "build" / "mutants" / args.module.replace("/", "-")
    workdir.mkdir(parents=True, exist_ok=True)
    cfg, session = workdir / "config.toml", workdir / "session.sqlite"
    cfg.write_text(config(args.module, cov, args.timeout), encoding="utf-8")
    cr = str(BIN / "cosmic-ray")
    # Cosmic Ray mutates the files in place: keep the originals to put back whatever happens.
    backup = Path(tempfile.mkdtemp(prefix="l0-mutants-"))
    files = sources_of(args.module, cov)
    originals = {f: backup / f"{k}.py" for k, f in enumerate(files)}
    for f, saved in originals.items():
        shutil.copy2(f, saved)

    def restore() -> None:
        for f, saved in originals.items():
            shutil.copy2(saved, f)

    def stop(*_: object) -> None:
        for proc in _running:  # cosmic-ray would go on mutating the files
            proc.terminate()
            with contextlib.suppress(ChildProcessError):
                os.waitpid(proc.pid, 0)  # not proc.wait(): the interrupted call holds its lock
        restore()
        os._exit(1)

    signal.signal(signal.SIGTERM, stop)
    try:
        if not session.exists():
            run([cr, "init", str(cfg), str(session)])
            run([str(BIN / "cr-filter-operators"), str(session), str(cfg)])
        elif args.again:
            forget_survivors(session)
        run([cr, "exec", str(cfg), str(session)])
    except (subprocess.CalledProcessError, KeyboardInterrupt):
        print("interrupted: the session keeps what was tested; run again to go on",
              file=sys.stderr)
    finally:
        restore()
        shutil.rmtree(backup, ignore_errors=True)
    counts, alive = outcomes(session)
    print(f"{args.module}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    for s in alive:
        print(f"survived: {s}")


if __name__ == "__main__":
    main()
