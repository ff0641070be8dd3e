"""`fuse` (thesis 7): generated programs behave exactly as before, failures included.

The lit tests (`test/lit/passes/fuse*.mlir`) show each rule and each reason not to
fuse. Here hypothesis builds small L0 programs out of chains of SOACs (maps over one
or two arrays, maps computing two arrays, filters, reduces, scans, scans of maps,
scans with a non-commutative operator, reshapes of maps, which may fail, replicates,
sums of vectors, scans down columns with a map after them, scans of maps of maps
over cubes)
whose lambdas may divide by zero, index out of bounds or trace, and whose arrays are
used once, twice (siblings over one array, cheap producers shared by several
consumers), in branches or not at all; the interpreter must print the same result (and
the same trace), or report the same error at the same place, without `fuse`, with
`fuse` alone and with the default pipeline.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import pytest
from behaviour import behaviour
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error
from l0.dialects import soac
from l0.dialects.context import l0_context
from l0.frontend import load_program, to_module
from l0.passes.fuse import FusePass
from l0.passes.pipeline import default_pipeline, optimise

pytestmark = pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")

EXAMPLES = int(os.environ.get("L0_FUZZ_EXAMPLES", "60"))
"""Programs per run; set L0_FUZZ_EXAMPLES higher for a longer search."""

INPUTS = [
    "[3, 1, 4, 1, 5]\n[2, 7, 1, 8, 2]\n2\n",
    "[3, 1, 4, 1, 5]\n[2, 7, 1, 8, 2]\n0\n",
    "[5, -3, 0, 2]\n[1, 2, 3, 4]\n-1\n",
    "[1, 2, 3]\n[4, 5, 6, 7]\n3\n",
    "empty(int)\nempty(int)\n1\n",
]
"""Arguments of `main([int] a, [int] b, int k)`: k = 0 makes divisions fail, arrays of
different sizes make zips fail, an empty array makes indexing fail."""


@dataclass
class _Program:
    arrays: list[str] = field(default_factory=lambda: ["a", "b"])
    scalars: list[str] = field(default_factory=lambda: ["k"])
    lets: list[str] = field(default_factory=list)


@st.composite
def _element(draw: st.DrawFn, params: list[str], scalars: list[str]) -> str:
    """An int expression over the lambda's parameters and scalars in scope."""
    atoms = params + scalars + ["1", "2"]
    x, y = draw(st.sampled_from(atoms)), draw(st.sampled_from(atoms))
    form = draw(st.sampled_from(["+", "*", "-", "/", "if", "trace", "min"]))
    if form == "if":
        return f"(if {x} < {y} then {x} else {y} + 1)"
    if form == "trace":
        return f"trace({x} + {y})"
    if form == "min":
        return f"(if {x} < 3 then {y} else {x})"
    return f"({x} {form} {y})"


@st.composite
def _soac(draw: st.DrawFn, p: _Program) -> tuple[str, str]:
    """A new binding: (kind, expression), kind "array" or "int"."""
    v = draw(st.sampled_from(p.arrays))
    w = draw(st.sampled_from(p.arrays))
    kind = draw(st.sampled_from(["map1", "map2", "map2", "filter", "reduce", "reduce",
                                 "scan", "scan_map", "scan_affine", "reshape",
                                 "reshape_fail", "replicate", "index_map", "pair",
                                 "iota_index"]))
    if kind == "pair":  # two arrays from one map: siblings of one size, SOAC splitting
        first = draw(_element(["x"], p.scalars))
        second = draw(_element(["x"], p.scalars))
        return "pair", f"unzip(map(fn {{int, int}} (int x) => {{{first}, {second}}}, {v}))"
    if kind == "map1":
        body = draw(_element(["x"], p.scalars))
        return "array", f"map(fn int (int x) => {body}, {v})"
    if kind == "map2":
        body = draw(_element(["x", "y"], p.scalars))
        return "array", f"map(fn int (int x, int y) => {body}, zip({v}, {w}))"
    if kind == "filter":
        c = draw(st.sampled_from(["0", "2", *p.scalars]))
        return "array", f"filter(fn bool (int x) => {c} < x, {v})"
    if kind == "reduce":
        op = draw(st.sampled_from(["op +", "fn int (int s, int x) => if s < x then x else s"]))
        return "int", f"reduce({op}, 0, {v})"
    if kind == "scan":
        return "array", f"scan(op +, 0, {v})"
    if kind == "scan_map":  # a scan of a map (scanomap), with another operator
        body = draw(_element(["x"], p.scalars))
        return "array", (f"scan(fn int (int s, int x) => if s < x then x else s, 0, "
                         f"map(fn int (int x) => {body}, {v}))")
    if kind == "scan_affine":  # composing affine maps: not commutative, two accumulators
        return "array", (f"let {{sa, sb}} = unzip(scan(fn {{int, int}} ({{int, int}} f, "
                         f"{{int, int}} g) => let {{a1, b1}} = f in let {{a2, b2}} = g in "
                         f"{{a1 * a2 % 1009, (b1 * a2 + b2) % 1009}}, {{1, 0}}, "
                         f"zip({v}, {w}))) in map(op -, zip(sa, sb))")
    if kind in ("reshape", "reshape_fail"):  # a map, reshaped, summed per row
        body = draw(_element(["x"], p.scalars))
        shape = f"1, size(0, {v})" if kind == "reshape" else "2, k"  # the latter may fail
        return "array", (f"map(fn int ([int] r) => reduce(op +, 0, r), "
                         f"reshape(({shape}), map(fn int (int x) => {body}, {v})))")
    if kind == "iota_index":  # rows read by index over iota (may be out of bounds)
        body = draw(_element(["x", "i"], p.scalars))
        return "array", (f"map(fn int (int i) => let x = {v}[i] in {body}, "
                         f"iota(size(0, {w})))")
    if kind == "replicate":
        s = draw(st.sampled_from(p.scalars))
        return "array", (f"map(fn int (int x, int y) => x + y, "
                         f"zip(replicate(size(0, {v}), {s}), {v}))")
    body = draw(_element(["x"], p.scalars))
    return "array", f"map(fn int (int x) => {v}[0] + {body}, {w})"


@st.composite
def programs(draw: st.DrawFn) -> str:
    p = _Program()
    for i in range(draw(st.integers(2, 6))):
        kind, expr = draw(_soac(p))
        name = f"v{i}"
        if kind == "pair":
            p.lets.append(f"  let {{{name}, {name}b}} = {expr} in")
            p.arrays += [name, f"{name}b"]
            continue
        p.lets.append(f"  let {name} = {expr} in")
        (p.arrays if kind == "array" else p.scalars).append(name)
    last_array = p.arrays[-1]
    scalars = " + ".join(p.scalars[1:]) or "0"
    if draw(st.booleans()):
        other = draw(st.sampled_from(p.arrays[2:] or ["a"]))
        result = (f"  if k < 1 then {{map(fn int (int x) => x + 1, {last_array}), {scalars}}} "
                  f"else {{map(fn int (int x) => x - 1, {other}), {scalars}}}")
    else:
        result = f"  {{{last_array}, {scalars}}}"
    lets = "\n".join(p.lets)
    return f"fun {{[int], int}} main([int] a, [int] b, int k) =\n{lets}\n{result}\n"


_run = behaviour


def _soac_count(module) -> int:  # type: ignore[no-untyped-def]
    return sum(isinstance(op, soac.MapOp | soac.FilterOp | soac.ReduceOp | soac.RedomapOp |
                          soac.ScanOp | soac.ScanomapOp) for op in module.walk())


def _same_behaviour(src: str, inputs: list[str], check_count: bool = False) -> None:
    """`src` behaves the same on `inputs` without `fuse`, with `fuse` alone and with -O."""
    prog = load_program(src, "p.l0")
    plain = to_module(prog)
    fused = to_module(prog)
    FusePass().apply(l0_context(), fused)
    fused.verify()
    full = to_module(prog)
    optimise(full, verify=True)
    if check_count:
        assert _soac_count(fused) <= _soac_count(plain)
    for text in inputs:
        expected = _run(plain, src, text)
        assert _run(fused, src, text) == expected, (src, text)
        assert _run(full, src, text) == expected, (src, text)


def _same_compiled(src: str, inputs: list[str], backend: str = "cpu",
                   threads: int | None = None) -> None:
    """`src` compiled with -O for `backend` (`threads` for multicore) gives the result or
    error of the interpreter without `fuse` (traces go to the process's stderr there:
    not compared)."""
    from l0.api import CompiledProgram

    plain = to_module(load_program(src, "p.l0"))
    compiled = CompiledProgram(src, "p.l0", backend, threads=threads)
    for text in inputs:
        expected = _run(plain, src, text).split(" | ")[0]
        try:
            got = compiled.run_main(text)
        except L0Error as err:
            got = err.render()
        assert got == expected, (src, text, backend, threads)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_fusion_keeps_behaviour(src: str) -> None:
    call_with_big_stack(lambda: _same_behaviour(src, INPUTS, check_count=True))


def test_generated_programs_do_fuse() -> None:
    """The generator is not vacuous: a typical chain fuses into fewer SOACs."""
    src = ("fun {[int], int} main([int] a, [int] b, int k) =\n"
           "  let v0 = map(fn int (int x, int y) => (x * y), zip(a, b)) in\n"
           "  let v1 = map(fn int (int x) => (x + k), v0) in\n"
           "  let v2 = reduce(op +, 0, v1) in\n"
           "  {map(fn int (int x) => x - 1, v1), v2}\n")

    def check() -> None:
        prog = load_program(src, "p.l0")
        fused = to_module(prog)
        FusePass().apply(l0_context(), fused)
        assert _soac_count(fused) < _soac_count(to_module(prog))

    call_with_big_stack(check)


@pytest.mark.parametrize(("src", "count"), [
    # siblings: two folds of the two arrays of one map -> one redomap (figure 44)
    ("fun {[int], int} main([int] a, [int] b, int k) =\n"
     "  let {p, q} = unzip(map(fn {int, int} (int x) => {x * k, x + 2}, a)) in\n"
     "  {b, reduce(op +, 0, p) + reduce(fn int (int s, int x) => if s < x then x else s,"
     " 0, q)}\n", 1),
    # a cheap map read by a map and a fold: duplicated into both
    ("fun {[int], int} main([int] a, [int] b, int k) =\n"
     "  let v0 = map(fn int (int x) => x * k + 1, a) in\n"
     "  {map(fn int (int x) => x - 1, v0), reduce(op +, 0, v0)}\n", 2),
    # two scans of one cheap map: one scanomap on pairs, into which the map fuses
    ("fun {[int], int} main([int] a, [int] b, int k) =\n"
     "  let v0 = map(fn int (int x) => x * k + 1, a) in\n"
     "  let v1 = scan(op +, 0, v0) in\n"
     "  let v2 = scan(fn int (int s, int x) => if s < x then x else s, 0, v0) in\n"
     "  {map(fn int (int x, int y) => x - y, zip(v1, v2)), 0}\n", 2),
])
def test_generated_shapes_fuse_further(src: str, count: int) -> None:
    """The shapes the generator builds for horizontal fusion and duplication fuse (so
    the fuzz exercises those rules) and keep their behaviour."""

    def check() -> None:
        prog = load_program(src, "p.l0")
        fused = to_module(prog)
        FusePass().apply(l0_context(), fused)
        assert _soac_count(fused) == count
        _same_behaviour(src, INPUTS)

    call_with_big_stack(check)


def test_generated_reshapes_of_maps_do_fuse() -> None:
    """The generator's reshapes of maps fuse under -O (PULL-RESHAPE, then map into the
    per-row sums): no map producer is left outside."""
    src = ("fun {[int], int} main([int] a, [int] b, int k) =\n"
           "  let v0 = map(fn int ([int] r) => reduce(op +, 0, r), "
           "reshape((2, k), map(fn int (int x) => (x * k), a))) in\n"
           "  {v0, 0}\n")

    def check() -> None:
        full = to_module(load_program(src, "p.l0"))
        optimise(full, verify=True)
        kinds = [op.name for op in full.walk() if op.name.startswith("soac.")]
        assert kinds.count("soac.map") == 1 and kinds.count("soac.redomap") == 1, kinds

    call_with_big_stack(check)


@pytest.mark.parametrize("form", ["pull", "push"])
def test_generated_invariant_transposes_do_fuse(form: str) -> None:
    """The generator's nests with an input invariant to the outer map, under a
    transposition, fuse under -O (PULL- or PUSH-TRANSPOSE): one nest of two maps (and
    the scan per row) is left, and the same on rows without columns."""
    if form == "pull":
        expr = ("map(fn [int] ([int] c) => map(fn int (int x) => x + 1, c), "
                "transpose(map(fn [int] ([int] r) => map(fn int (int x, int y) => x * y, "
                "zip(r, [k, 1, 2])), transpose(a))))")
    else:
        expr = ("map(fn [int] ([int] c) => map(fn int (int x, int y) => x * y, "
                "zip(c, [k, 1, 2])), transpose(map(fn [int] ([int] r) => "
                "scan(op +, 0, r), a)))")
    src = f"fun {{[[int]], int}} main([[int]] a, [[int]] b, int k) =\n  {{{expr}, 0}}\n"

    def check() -> None:
        full = to_module(load_program(src, "p.l0"))
        optimise(full, verify=True)
        kinds = [op.name for op in full.walk() if op.name.startswith("soac.")]
        assert kinds.count("soac.map") == 2, kinds
        _same_behaviour(src, [*MATRIX_INPUTS, NO_COLUMNS])

    call_with_big_stack(check)


EMPTY_GRID = """fun [[real]] main(int n, int m, [real] c) =
  let v = map(fn [real] (int i) => map(fn real (int j) => toReal(i * 10 + j), iota(m)), iota(n)) in
  let u = map(fn [real] ([real] row) =>
                map(fn real (real x, real y) => 0.5 * x + y, zip(row, c)), v) in
  map(fn [real] ([real] col) =>
        loop (acc = copy(col)) = for i < size(0, col) - 1 do
          let acc[i + 1] = acc[i + 1] + 0.5 * acc[i] in acc
        in acc, transpose(u))
"""
MAPS_OF_EMPTY_GRID = 4
"""After -O: `v`'s nest of two maps, and the map over the columns with `u`'s inner map
inside it (5 with `u` left apart)."""


def test_invariant_input_of_an_empty_grid_compiled() -> None:
    """A grid with no rows and 3 columns, zipped row by row with a vector of 2: the
    zip is never checked, and after PULL-TRANSPOSE (the vector read by index, not
    zipped with the 3 columns: Note [Arrays that enter a nest below its top]) the
    compiled program still runs, as without -O; on a grid with rows the zip fails."""
    from l0.api import CompiledProgram

    def check() -> None:
        module = to_module(load_program(EMPTY_GRID, "p.l0"))
        optimise(module, verify=True)
        maps = [op for op in module.walk() if isinstance(op, soac.MapOp)]
        assert len(maps) == MAPS_OF_EMPTY_GRID, module
        fused = CompiledProgram(EMPTY_GRID, "p.l0", "cpu")
        plain = CompiledProgram(EMPTY_GRID, "p.l0", "cpu", optimise=False)
        for text in ("0 3 [1.0, 2.0]", "2 3 [1.0, 2.0, 3.0]", "2 3 [1.0]"):
            results = []
            for prog in (fused, plain):
                try:
                    results.append(prog.run_main(text))
                except L0Error as err:
                    results.append(err.render())
            assert results[0] == results[1], (text, results)

    call_with_big_stack(check)


def test_generated_iota_indexings_do_fuse() -> None:
    """The generator's maps over `iota` indexing a map's output of that size fuse under
    -O: `inline-map-index` recomputes the cheap element at its position (one indexing
    of `a` left); without it, the indexing becomes a row input
    (`l0.passes.fuse.iota_rows`, then map-map)."""
    src = ("fun {[int], int} main([int] a, [int] b, int k) =\n"
           "  let v0 = map(fn int (int x) => x * k + 1, a) in\n"
           "  let v1 = map(fn int (int i) => let x = v0[i] in x + i, iota(size(0, a))) in\n"
           "  {v1, 0}\n")

    def check() -> None:
        full = to_module(load_program(src, "p.l0"))
        optimise(full, verify=True)
        kinds = [op.name for op in full.walk() if op.name.startswith("soac.")]
        assert kinds.count("soac.map") == 1 and kinds.count("soac.index") <= 1, kinds
        without = to_module(load_program(src, "p.l0"))
        optimise(without, [p for p in default_pipeline() if p != "inline-map-index"],
                 verify=True)
        kinds = [op.name for op in without.walk() if op.name.startswith("soac.")]
        assert kinds.count("soac.map") == 1 and "soac.index" not in kinds, kinds

    call_with_big_stack(check)


def test_generated_scans_of_maps_do_fuse() -> None:
    """The generator's scans of maps (and of zips of maps) become scanomaps."""
    src = ("fun {[int], int} main([int] a, [int] b, int k) =\n"
           "  let v0 = map(fn int (int x, int y) => (x * y), zip(a, b)) in\n"
           "  let v1 = scan(fn int (int s, int x) => if s < x then x else s, 0, "
           "map(fn int (int x) => (x + k), v0)) in\n"
           "  {v1, 0}\n")

    def check() -> None:
        fused = to_module(load_program(src, "p.l0"))
        FusePass().apply(l0_context(), fused)
        kinds = [op.name for op in fused.walk() if op.name.startswith("soac.")
                 and op.name != "soac.yield"]
        assert kinds.count("soac.scanomap") == 1 and "soac.map" not in kinds, kinds

    call_with_big_stack(check)


@settings(max_examples=max(EXAMPLES // 6, 4), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_fused_programs_run_the_same_compiled(src: str) -> None:
    """The fused forms (redomaps whose inner lambda maps, filters under `scf.if`) through
    the CPU back end: the same result or error as the interpreter without `fuse` (the
    traces go to the process's stderr there, so only results are compared)."""
    call_with_big_stack(lambda: _same_compiled(src, INPUTS))


# ---------------------------------------------------------------------------------------
# Matrices: nested maps, rows, transposes, replicates, per-row folds
# ---------------------------------------------------------------------------------------

MATRIX_INPUTS = [
    "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]\n[[9, 8, 7], [6, 5, 4], [3, 2, 1]]\n2\n",
    "[[1, 2, 3], [4, 5, 6]]\n[[1, 0], [0, 1], [2, 2]]\n0\n",
    "[[0, -1], [3, 0]]\n[[2, 2], [1, 1]]\n-3\n",
    "empty([int])\nempty([int])\n1\n",
]

NO_COLUMNS = "[empty(int), empty(int)]\n[[1, 2], [3, 4]]\n1\n"
"""Rows without columns: transposed, no rows, so a zip inside the rows of the transpose
is never checked, and moving a transposition must not make it checked (Note [Arrays
that enter a nest below its top] in `l0.passes.fuse.transpose`). On the interpreter only:
the back ends disagree on the shape of an empty array built by a map."""


@st.composite
def _matrix_expr(draw: st.DrawFn, mats: list[str], vecs: list[str],
                 scalars: list[str]) -> tuple[str, str]:
    """A new binding over the matrices and vectors in scope: (kind, expression)."""
    m, n = draw(st.sampled_from(mats)), draw(st.sampled_from(mats))
    v = draw(st.sampled_from(vecs)) if vecs else None
    elem = draw(_element(["x"], scalars))
    pair = draw(_element(["x", "y"], scalars))
    forms = ["rows", "zip_rows", "transpose", "row_sums", "matmul", "scale_rows",
             "pull", "push", "scan_rows", "regroup", "column_scan", "vector_sums",
             "flatten", "column_scan_map", "cube_scan", "column_scan_parts",
             "pull_invariant", "push_invariant"]
    if v is not None:
        forms += ["outer", "replicate", "add_vec"]
    form = draw(st.sampled_from(forms))
    if form == "rows":
        return "mat", f"map(fn [int] ([int] r) => map(fn int (int x) => {elem}, r), {m})"
    if form == "zip_rows":
        return "mat", (f"map(fn [int] ([int] r, [int] s) => "
                       f"map(fn int (int x, int y) => {pair}, zip(r, s)), zip({m}, {n}))")
    if form == "transpose":
        return "mat", f"transpose({m})"
    if form == "pull":  # a perfect nest, transposed, then mapped over (PULL-TRANSPOSE)
        inner = draw(_element(["x"], scalars))
        return "mat", (f"map(fn [int] ([int] c) => map(fn int (int x) => {elem}, c), "
                       f"transpose(map(fn [int] ([int] r) => "
                       f"map(fn int (int x) => {inner}, r), {m})))")
    if form in ("pull_invariant", "push_invariant"):  # a nest whose inner map zips
        # the row with a vector invariant to the outer map, under a transposition
        inv = draw(st.sampled_from([*vecs, "[k, 1, 2]"]))
        if form == "pull_invariant":
            return "mat", (f"map(fn [int] ([int] c) => map(fn int (int x) => {elem}, c), "
                           f"transpose(map(fn [int] ([int] r) => map(fn int (int x, int y) => "
                           f"{pair}, zip(r, {inv})), transpose({m}))))")
        return "mat", (f"map(fn [int] ([int] c) => map(fn int (int x, int y) => {pair}, "
                       f"zip(c, {inv})), transpose(map(fn [int] ([int] r) => "
                       f"scan(op +, 0, r), {m})))")
    if form == "push":  # not a nest (a scan per row), transposed, into a nest (PUSH)
        return "mat", (f"map(fn [int] ([int] c, [int] s) => "
                       f"map(fn int (int x, int y) => {pair}, zip(c, s)), "
                       f"zip(transpose(map(fn [int] ([int] r) => scan(op +, 0, r), {m})), {n}))")
    if form == "scan_rows":  # a scan of row-wise sums over mapped rows (a scanomap)
        return "mat", (f"scan(fn [int] ([int] x, [int] y) => map(op +, zip(x, y)), "
                       f"replicate(size(1, {m}), 0), "
                       f"map(fn [int] ([int] r) => map(fn int (int x) => {elem}, r), {m}))")
    if form == "column_scan":  # scans down the columns, written with transposes (ISWIM)
        return "mat", (f"transpose(scan(fn [int] ([int] x, [int] y) => "
                       f"map(fn int (int x, int y) => {pair}, zip(x, y)), "
                       f"replicate(size(0, {m}), 0), transpose({m})))")
    if form == "column_scan_map":  # a map consuming the column scan (FUSE-ISWIM's
        # producer side: it moves into the interchanged form)
        zipped = draw(st.sampled_from(["zip(x, y)", "zip(y, x)"]))
        return "mat", (f"map(fn [int] ([int] r) => map(fn int (int x) => {elem}, r), "
                       f"transpose(scan(fn [int] ([int] x, [int] y) => "
                       f"map(fn int (int x, int y) => {pair}, {zipped}), "
                       f"replicate(size(0, {m}), 0), transpose({m}))))")
    if form == "column_scan_parts":  # a column scan of two matrices, each part with
        # its own map (Note [Independent parts of a scan])
        return "mat", (f"let {{s, t}} = scanT(fn {{[int], [int]}} ([int] x1, [int] x2, "
                       f"[int] y1, [int] y2) => {{map(op +, zip(x1, y1)), "
                       f"map(fn int (int x, int y) => {pair}, zip(y2, x2))}}, "
                       f"{{replicate(size(0, {m}), 0), replicate(size(0, {n}), 1)}}, "
                       f"transpose({m}), transpose({n})) in "
                       f"map(fn [int] ([int] r) => map(op + (1), r), transpose(t))")
    if form == "cube_scan":  # depth 2 (Figure 36): a scan of maps of maps over a cube
        # built from the rows, down its rows or (transposed) its innermost dimension,
        # summed back to a matrix
        cube = (f"map(fn [[int]] ([int] r) => map(fn [int] (int y) => "
                f"map(fn int (int x) => {pair}, r), r), {m})")
        lam = ("fn [[int]] ([[int]] x, [[int]] y) => map(fn [int] ([int] u, [int] v) => "
               "map(op +, zip(u, v)), zip(x, y))")
        if draw(st.booleans()):
            scanned = (f"let c = {cube} in transpose(0, 2, scan({lam}, replicate(size(0, c), "
                       f"replicate(size(1, c), 0)), transpose(2, -2, c)))")
        else:
            scanned = (f"let c = {cube} in scan({lam}, replicate(size(1, c), "
                       f"replicate(size(2, c), 0)), c)")
        return "mat", (f"map(fn [int] ([[int]] p) => map(fn int ([int] q) => "
                       f"reduce(op +, 0, q), p), {scanned})")
    if form == "regroup":  # flattened, mapped, reshaped back (PULL-RESHAPE), row sums
        return "vec", (f"map(fn int ([int] r) => reduce(op +, 0, r), "
                       f"reshape((size(0, {m}), size(1, {m})), map(fn int (int x) => {elem}, "
                       f"reshape((size(0, {m}) * size(1, {m})), {m}))))")
    if form == "flatten":  # an element-wise nest flattened (PULL-RESHAPE of a nest)
        return "vec", (f"reshape((size(0, {m}) * size(1, {m})), "
                       f"map(fn [int] ([int] r, [int] s) => "
                       f"map(fn int (int x, int y) => {pair}, zip(r, s)), zip({m}, {n})))")
    if form == "row_sums":
        return "vec", f"map(fn int ([int] r) => reduce(op +, 0, r), {m})"
    if form == "vector_sums":  # a sum of vectors of size k (R0's; Note [A check the
        # producer repeats]): each row indexes by a value read (may fail first), then
        # builds its vector with replicate(k, ...), as the neutral element is built
        return "vec", (f"reduce(fn [int] ([int] x, [int] y) => map(op +, zip(x, y)), "
                       f"replicate(k, 0), map(fn [int] ([int] r) => let e = r[r[0]] in "
                       f"map(fn int (int x) => {elem}, replicate(k, e)), {m}))")
    if form == "matmul":
        return "mat", (f"map(fn [int] ([int] r) => map(fn int ([int] c) => "
                       f"reduce(op +, 0, map(op *, zip(r, c))), transpose({n})), {m})")
    if form == "scale_rows":
        return "mat", (f"map(fn [int] ([int] r, int y) => map(fn int (int x) => {pair}, r), "
                       f"zip({m}, map(fn int ([int] q) => size(0, q), {m})))")
    if form == "outer":
        return "mat", f"map(fn [int] (int y) => map(fn int (int x) => {pair}, {v}), {v})"
    if form == "replicate":
        return "mat", f"replicate(size(0, {v}), {v})"
    return "mat", (f"map(fn [int] ([int] r) => map(fn int (int x, int y) => {pair}, "
                   f"zip(r, {v})), {m})")


@st.composite
def matrix_programs(draw: st.DrawFn) -> str:
    mats, vecs, scalars = ["a", "b"], [], ["k"]
    lets = []
    for i in range(draw(st.integers(2, 5))):
        kind, expr = draw(_matrix_expr(mats, vecs, scalars))
        lets.append(f"  let v{i} = {expr} in")
        (mats if kind == "mat" else vecs).append(f"v{i}")
    total = (f"reduce(op +, 0, {vecs[-1]})" if vecs else "0")
    body = "\n".join(lets)
    return (f"fun {{[[int]], int}} main([[int]] a, [[int]] b, int k) =\n{body}\n"
            f"  {{{mats[-1]}, {total}}}\n")


@settings(max_examples=max(EXAMPLES // 2, 10), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(matrix_programs())
def test_fusion_keeps_behaviour_on_matrices(src: str) -> None:
    call_with_big_stack(lambda: _same_behaviour(src, [*MATRIX_INPUTS, NO_COLUMNS]))


@settings(max_examples=max(EXAMPLES // 10, 3), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(matrix_programs())
def test_matrix_programs_run_the_same_compiled(src: str) -> None:
    call_with_big_stack(lambda: _same_compiled(src, MATRIX_INPUTS))
