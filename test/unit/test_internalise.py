"""Unit tests of the internaliser (`l0.internalise`, thesis chapter 4).

Two kinds of tests: hand-built typed ASTs (they test the internaliser alone, with the
type annotations written out), and source programs through the front end, checked for
the ops that matter, for `verify()`, and, where the interpreter exists, for what they
compute.
"""

from __future__ import annotations

import time

import pytest
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from l0.diagnostics import L0Error, Loc
from l0.dialects import soac
from l0.internalise import internalise
from l0.syntax import ast as A
from l0.types import BOOL, INT, REAL, ArrayType, TupleType, Type

L = Loc("t.l0", 1, 1, 1, 2)


def at(line: int, col: int) -> Loc:
    return Loc("t.l0", line, col, line, col + 1)


def ops_named(m: Operation, name: str) -> list[Operation]:
    return [op for op in m.walk() if op.name == name]


def fun(name: str, ret: Type, params: list[tuple[Type, str]], body: A.Exp) -> A.FunDef:
    return A.FunDef(name, ret, [A.Param(t, n, L) for t, n in params], body, L)


def var(name: str, t: Type) -> A.Var:
    return A.Var(L, name=name, type=t)


def lit(v: int) -> A.IntLit:
    return A.IntLit(L, value=v, type=INT)


def build(*fundefs: A.FunDef) -> ModuleOp:
    m = internalise(A.Program(list(fundefs), "t.l0"))
    m.verify()
    return m


INTS = ArrayType(INT, 1)
REALS = ArrayType(REAL, 1)
PAIR = TupleType((INT, REAL))
PAIRS = ArrayType(PAIR, 1)

# ----------------------------------------------------------------------------------
# Hand-built ASTs.


def test_every_expression_form_has_a_handler() -> None:
    import inspect

    from l0.internalise.core import _HANDLERS

    forms = [c for _, c in inspect.getmembers(A, inspect.isclass)
             if issubclass(c, A.Exp) and c is not A.Exp]
    assert [c.__name__ for c in forms if c not in _HANDLERS] == []


def test_tuple_params_and_results_are_flattened() -> None:
    # A tuple holding an array of tuples also gets a cert slot first (thesis 4.2.1).
    t = TupleType((INT, ArrayType(TupleType((REAL, BOOL)), 1, unique=True)))
    m = build(fun("f", t, [(t, "x")], var("x", t)))
    (f,) = ops_named(m, "func.func")
    assert isinstance(f, func.FuncOp)
    flat = ["!soac.cert", "i64", "tensor<?xf64>", "tensor<?xi1>"]
    assert [str(a) for a in f.function_type.inputs] == flat
    assert [str(a) for a in f.function_type.outputs] == flat
    assert f.arg_attrs is not None and f.res_attrs is not None
    flags = [soac.UNIQUE_ATTR in d.data for d in f.arg_attrs.data]
    assert flags == [False, False, True, True]
    assert [soac.UNIQUE_ATTR in d.data for d in f.res_attrs.data] == flags
    # The result's cert is the parameter's.
    (ret,) = ops_named(m, "func.return")
    assert ret.operands[0] is f.body.block.args[0]


def test_needs_cert() -> None:
    from l0.types import needs_cert

    pair = TupleType((INT, REAL))
    assert needs_cert(ArrayType(pair, 1)) and needs_cert(ArrayType(pair, 2))
    assert needs_cert(TupleType((INT, ArrayType(pair, 1))))
    assert not needs_cert(ArrayType(INT, 1)) and not needs_cert(pair)
    assert not needs_cert(ArrayType(TupleType((INT,)), 1))


def test_calls_pass_and_receive_certs() -> None:
    src = (
        "fun [int] f([{int,int}] input) = map(fn int ({int,int} p) =>"
        " let {a, b} = p in a + b, input)\n"
        "fun [{int,int}] g(int n) = zip(iota(n), iota(n))\n"
        "fun [int] main([int] xs, [int] ys) =\n"
        "  let r = f(zip(xs, ys)) in let s = g(size(0, r)) in\n"
        "  map(fn int ({int,int} p) => let {a, b} = p in a * b, s)"
    )
    m = compile_source(src)
    funcs = {f.sym_name.data: f for f in ops_named(m, "func.func")}
    f, g, main = funcs["f"], funcs["g"], funcs["main"]
    assert str(f.function_type.inputs.data[0]) == "!soac.cert"
    (fmap,) = ops_named(f, "soac.map")
    assert f.body.block.args[0] in list(fmap.operands)
    assert str(g.function_type.outputs.data[0]) == "!soac.cert"
    calls = {c.callee.string_value(): c for c in ops_named(main, "func.call")}
    assert isinstance(calls["f"].operands[0].owner, soac.AssertOp)
    mmap = [op for op in ops_named(main, "soac.map")][-1]
    assert calls["g"].results[0] in list(mmap.operands)


def test_let_tuple_pattern_and_wildcard() -> None:
    t = TupleType((INT, TupleType((REAL, INT))))
    pat = A.PTuple([A.PId("a", L), A.PTuple([A.PWild(L), A.PId("b", L)], L)], L)
    body = A.BinOp(L, op="+", lhs=var("a", INT), rhs=var("b", INT), type=INT)
    e = A.LetPat(L, pat=pat, value=var("x", t), body=body, type=INT)
    m = build(fun("f", INT, [(t, "x")], e))
    (add,) = ops_named(m, "arith.addi")
    f = next(iter(ops_named(m, "func.func")))
    assert isinstance(f, func.FuncOp)
    args = f.body.block.args
    assert list(add.operands) == [args[0], args[2]]


def test_long_let_chain_does_not_recurse() -> None:
    n = 5000
    body: A.Exp = var(f"x{n}", INT)
    for i in range(n, 0, -1):
        rhs = A.BinOp(L, op="+", lhs=var(f"x{i - 1}", INT), rhs=lit(1), type=INT)
        body = A.LetPat(L, pat=A.PId(f"x{i}", L), value=rhs, body=body, type=INT)
    m = build(fun("f", INT, [(INT, "x0")], body))
    assert len(ops_named(m, "arith.addi")) == n
    assert len(ops_named(m, "arith.constant")) == 1  # one pooled constant


def test_zip_cert_travels_to_index_and_map() -> None:
    z = A.Zip(L, arrays=[var("a", INTS), var("b", REALS)], type=PAIRS)
    idx = A.Index(at(2, 3), array=var("z", PAIRS), indices=[lit(0)], type=PAIR)
    lam = A.Lambda(L, ret=INT, params=[A.Param(INT, "x", L), A.Param(REAL, "y", L)],
                   body=var("x", INT))
    mapped = A.Map(L, fun=lam, array=var("z", PAIRS), type=INTS)
    body = A.LetPat(L, pat=A.PId("z", L), value=z, type=TupleType((PAIR, INTS)),
                    body=A.TupleLit(L, elems=[idx, mapped], type=TupleType((PAIR, INTS))))
    m = build(fun("f", TupleType((PAIR, INTS)), [(INTS, "a"), (REALS, "b")], body))
    asserts = ops_named(m, "soac.assert")
    zip_cert = asserts[0].results[0]
    assert "zip" in asserts[0].msg.data
    for op in ops_named(m, "soac.index"):
        assert isinstance(op, soac.IndexOp)
        assert zip_cert in op.certs
    (mp,) = ops_named(m, "soac.map")
    assert isinstance(mp, soac.MapOp)
    assert list(mp.certs) == [zip_cert]
    assert len(mp.inputs) == 2


def test_loop_is_scf_for_over_flattened_merge() -> None:
    # loop (m = {0, xs}) = for i < 10 do let {s, a} = m in {s + i, a} in m
    merge = TupleType((INT, INTS))
    pat = A.PTuple([A.PId("s", L), A.PId("a", L)], L)
    init = A.TupleLit(L, elems=[lit(0), var("xs", INTS)], type=merge)
    total = A.BinOp(L, op="+", lhs=var("s", INT), rhs=var("i", INT), type=INT)
    step = A.TupleLit(L, elems=[total, var("a", INTS)], type=merge)
    body = A.LetPat(L, pat=pat, value=var("m", merge), body=step, type=merge)
    e = A.DoLoop(L, pat=A.PId("m", L), init=init, var="i", bound=lit(10), body=body,
                 rest=var("m", merge), type=merge)
    m = build(fun("f", merge, [(INTS, "xs")], e))
    (loop,) = ops_named(m, "scf.for")
    assert isinstance(loop, scf.ForOp)
    assert len(loop.iter_args) == 2 and len(loop.results) == 2
    (ret,) = ops_named(m, "func.return")
    assert list(ret.operands) == list(loop.results)


def test_empty_tuple_array_is_a_user_error() -> None:
    t = ArrayType(TupleType(()), 1)
    e = A.Size(at(3, 4), dim=0, array=var("a", t), type=INT)
    with pytest.raises(L0Error) as info:
        build(fun("f", INT, [(t, "a")], e))
    assert info.value.loc == at(3, 4)


# ----------------------------------------------------------------------------------
# Source programs through the front end, run by the interpreter.

np = pytest.importorskip("numpy")


def compile_source(src: str) -> ModuleOp:
    from l0.frontend import l0_to_module  # verifies the module

    return l0_to_module(src, "t.l0")


def run(src: str, *args: object) -> list[object]:
    from l0.interp import Interpreter

    return Interpreter(compile_source(src)).call("main", list(args))


def arr(*xs: object) -> object:
    return np.array(xs)


def test_floor_division_and_modulo() -> None:
    src = "fun {int, int} main(int a, int b) = {a / b, a % b}"
    for a, b in [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3)]:
        assert run(src, a, b) == [a // b, a % b]  # Python floors like Haskell div/mod


def test_int_pow() -> None:
    src = "fun int main(int x, int k) = x pow k"
    cases = {(2, 10): 1024, (0, 0): 1, (2, -1): 0, (1, -5): 1, (-1, -3): -1, (-2, -3): -1,
             (2, 64): 0}
    for (x, k), want in cases.items():
        assert run(src, x, k) == [want]


@pytest.mark.parametrize(
    ("src", "args", "where", "phrase"),
    [
        ("fun int main(int a, int b) =\n  a / b", (1, 0), (2, 3), "division by zero"),
        ("fun int main(int a, int b) =\n  a % b", (1, 0), (2, 3), "modulo by zero"),
        ("fun int main(int a, int b) =\n  a pow b", (0, -2), (2, 3), "division by zero"),
        ("fun int main(int n, int i) =\n  let a = iota(n) in a[i]", (3, 3), (2, 22),
         "index 3 out of bounds for array of size 3"),
        ("fun [int] main(int n, int i) =\n  iota(n)", (-1, 0), (2, 3), "negative size -1"),
        ("fun [{int, int}] main(int n, int i) =\n  zip(iota(n), iota(i))", (2, 3), (2, 3),
         "different sizes: 2, 3"),
        ("fun [[int]] main(int n, int i) =\n  reshape((n, i), iota(6))", (4, 2), (2, 3),
         "cannot reshape an array of 6 elements to shape (4, 2)"),
        ("fun [int] main(int n, int i) =\n  let {a, b} = split(i, iota(n)) in b", (2, 3), (2, 16),
         "split point 3 out of bounds"),
        ("fun *[[int]] main(int n, int i) =\n"
         "  let a = replicate(2, iota(n)) in let a[0] = iota(i) in a",
         (2, 3), (2, 36), "does not fit slice"),
    ],
)
def test_runtime_checks_fail_at_their_source_location(
    src: str, args: tuple[int, ...], where: tuple[int, int], phrase: str
) -> None:
    with pytest.raises(L0Error) as info:
        run(src, *args)
    assert (info.value.loc.line, info.value.loc.col) == where
    assert phrase in info.value.message


def test_zip_shim_and_tuple_reduce() -> None:
    src = """
fun {int, real} addp({int, real} a, {int, real} b) =
  let {x, y} = a in let {u, v} = b in {x + u, y + v}
fun real wsum(real w, int i, real r) = w * toReal(i) + r
fun {int, real, [real], [int]} main([int] a, [real] b) =
  let z = zip(a, b) in
  let {s, t} = reduce(addp, {0, 0.0}, z) in
  let {si, sr} = unzip(scan(addp, {0, 0.0}, z)) in
  {s, t, map(wsum(2.0), z), si}
"""
    s, t, w, si = run(src, arr(1, 2, 3), arr(0.5, 1.5, 2.5))
    assert (s, t) == (6, 4.5)
    assert list(w) == [2.5, 5.5, 8.5]
    assert list(si) == [1, 3, 6]


def test_t_soacs_sections_and_redomap() -> None:
    src = """
fun [int] main([int] xs, [int] ys) =
  let {m1, m2} = mapT(fn {int, int} (int x, int y) => {x - y, x * y}, xs, ys) in
  let {f1, f2} = filterT(fn {bool} (int x, int y) => {x < y}, xs, ys) in
  let {r1, r2} = reduceT(fn {int, int} (int a, int b, int x, int y) => {a + x, b * y},
                         {0, 1}, xs, ys) in
  let {sc} = scanT(fn {int} (int a, int x) => {a * x}, {1}, xs) in
  let rm = redomap(op +, fn int (int acc, int x) => acc + x * x, 0, xs) in
  let neg = map(op ~, xs) in
  let sub = map(op - (10), xs) in
  concat(concat(concat(m1, m2), concat(f1, f2)), concat(concat([r1, r2, rm], sc), concat(neg, sub)))
"""
    got = run(src, arr(1, 2, 3), arr(4, 0, 6))[0]
    want = [-3, 2, -3, 4, 0, 18] + [1, 3, 4, 6] + [6, 0, 14] + [1, 2, 6] + [-1, -2, -3, 9, 8, 7]
    assert list(got) == want


def test_arrays_of_tuples_per_component() -> None:
    src = """
fun {[int], [real], [[int]], [int], [real], [int]} main(int n) =
  let z = copy(zip(iota(n), replicate(n, 1.5))) in
  let z[1] = {100, 2.5} in
  let {p, q} = split(1, z) in
  let c = concat(q, p) in
  let {ci, cr} = unzip(c) in
  let r = reshape((2, 2), zip(iota(4), iota(4))) in
  let t = transpose(r) in
  let row = t[1] in
  let {ri, rj} = unzip(row) in
  let e = empty({int, real}) in
  let {ei, er} = unzip(e) in
  {ci, cr, [ri, rj], ei, er, [size(0, z)]}
"""
    ci, cr, rows, ei, er, n = run(src, 3)
    assert list(ci) == [100, 2, 0] and list(cr) == [2.5, 1.5, 1.5]
    assert rows.tolist() == [[1, 3], [1, 3]]
    assert len(ei) == 0 and len(er) == 0 and list(n) == [3]


def test_loop_and_in_place_update() -> None:
    src = """
fun {int, [int]} main(int n) =
  loop ({s, a} = {0, iota(n)}) = for i < n do
    let a[i] = a[i] * 2 in {s + a[i], a}
  in {s, a}
"""
    s, a = run(src, 4)
    assert s == 12 and list(a) == [0, 2, 4, 6]


def test_output_passes_verify_uniqueness() -> None:
    from xdsl.context import Context

    from l0.passes import PASSES

    src = """
fun *[int] modify(*[int] a, int i, int x) = let a[i] = x in a
fun [int] main(int n) =
  let b = modify(iota(n), 1, 42) in
  loop (t = copy(b)) = for i < n do let t[i] = t[i] + i in t
  in let m = map(fn *[int] (*[int] r) => let r[0] = 9 in r, replicate(2, t)) in m[0]
"""
    module = compile_source(src)
    verify = PASSES["verify-uniqueness"]()
    verify().apply(Context(), module)  # raises on a use after consumption


def test_a_long_program_internalises_quickly() -> None:
    fn = """
fun real fK(real x, [real] xs) =
  let ys = map(fn real (real y) => y * x + 1.0, xs) in
  let zs = zip(ys, xs) in
  let s = reduce(op +, 0.0, map(op *, zs)) in
  let {a, b} = split(1, ys) in
  let c = copy(concat(b, a)) in
  let c[0] = s in
  if x < s then c[0] + x else toReal(size(0, c) / 2)
"""
    src = "".join(fn.replace("K", str(k)) for k in range(40)) + "fun real main(real x) = x\n"
    assert src.count("\n") >= 350
    from l0.frontend import load_program

    prog = load_program(src, "t.l0")
    start = time.process_time()
    internalise(prog).verify()
    assert time.process_time() - start < 1.5  # typically ~0.1 s
