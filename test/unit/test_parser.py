"""Unit tests of the L0 lexer and parser (docs/reference.md §§1 and 2).

Trees are compared through `sx`, a compact s-expression rendering of the AST:
operators as `(+ a b)`, prefix minus as `(neg x)`, every other node as
`(ClassName field ...)` with its fields in declaration order (locations, types and
type-checker annotations left out).
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from l0 import types as T
from l0.diagnostics import L0Error
from l0.syntax import ast as A
from l0.syntax.lexer import tokenize
from l0.syntax.operators import BINARY_PREC
from l0.syntax.parser import _parser, parse_program, parse_type

_SKIP = {"loc", "type", "param_types", "ret_type", "shim", "dest_loc", "var_loc"}


def sx(n: object) -> str:
    if isinstance(n, list):
        return "[" + " ".join(sx(x) for x in n) + "]"
    if isinstance(n, A.IntLit | A.RealLit):
        return str(n.value)
    if isinstance(n, A.CharLit | A.StringLit):
        return repr(n.value)
    if isinstance(n, A.BoolLit):
        return str(n.value)
    if isinstance(n, A.CheckedLit):
        return "Checked"
    if isinstance(n, A.Var):
        return n.name
    if isinstance(n, A.BinOp):
        return f"({n.op} {sx(n.lhs)} {sx(n.rhs)})"
    if isinstance(n, A.Negate):
        return f"(neg {sx(n.operand)})"
    if isinstance(n, A.Not):
        return f"(not {sx(n.operand)})"
    if isinstance(n, A.PId):
        return n.name
    if isinstance(n, A.PWild):
        return "_"
    if isinstance(n, A.PTuple):
        return "{" + " ".join(sx(p) for p in n.elems) + "}"
    if isinstance(n, T.BasicType | T.TupleType | T.ArrayType):
        return str(n)
    if isinstance(n, A.Param):
        return f"{n.type} {n.name}"
    if dataclasses.is_dataclass(n) and not isinstance(n, type):
        parts = [sx(getattr(n, f.name)) for f in dataclasses.fields(n) if f.name not in _SKIP]
        return "(" + " ".join([type(n).__name__, *parts]) + ")"
    if isinstance(n, str):
        return n
    return str(n)


def prog(body: str, header: str = "fun int f(int x) = ") -> A.Program:
    return parse_program(header + body, "t.l0")


def exp(body: str) -> A.Exp:
    """The body of a one-function program."""
    return prog(body).fundefs[0].body


def ex(body: str) -> str:
    return sx(exp(body))


def error(text: str) -> L0Error:
    with pytest.raises(L0Error) as info:
        parse_program(text, "t.l0")
    return info.value


def body_error(body: str) -> L0Error:
    return error("fun int f(int x) = " + body)


# ---------------------------------------------------------------------------------
# The grammar itself.


def test_grammar_is_complete_and_conflict_free() -> None:
    # Built with strict=True, so any shift/reduce conflict would raise here.
    p = _parser()
    for rule in p.lark.rules:
        name = rule.alias or rule.origin.name
        inlined = rule.options.expand1 and len(rule.expansion) == 1  # `?rule: x`
        if not name.startswith("_") and not inlined:
            assert hasattr(p.builder, name), f"no builder method for rule '{name}'"


# ---------------------------------------------------------------------------------
# Operator precedence (docs/reference.md §2.2; Note [Operator precedence]).


@pytest.mark.parametrize(
    ("source", "tree"),
    [
        # prefix minus has the precedence of binary minus
        ("-x * y", "(neg (* x y))"),
        ("-x pow 2", "(neg (pow x 2))"),
        ("-x + y", "(+ (neg x) y)"),
        ("-x - y", "(- (neg x) y)"),
        ("3 + -9 / 3", "(+ 3 (neg (/ 9 3)))"),
        ("-7 / 2", "(neg (/ 7 2))"),
        ("-2 pow 2", "(neg (pow 2 2))"),
        ("7 / -2", "(/ 7 (neg 2))"),
        ("a * -b * c", "(* a (neg (* b c)))"),
        ("a * -b + c", "(+ (* a (neg b)) c)"),
        ("- - x", "(neg (neg x))"),
        ("-x < y", "(< (neg x) y)"),
        ("-x << y", "(<< (neg x) y)"),
        # not binds tightest
        ("not a < b", "(< (not a) b)"),
        ("not a && b", "(&& (not a) b)"),
        ("not a pow b", "(pow (not a) b)"),
        ("not - a * b", "(not (neg (* a b)))"),
        ("not - a + b", "(+ (not (neg a)) b)"),
        ("- not a * b", "(neg (* (not a) b))"),
        # pow is left-associative
        ("2 pow 3 pow 2", "(pow (pow 2 3) 2)"),
        # comparisons are left-associative
        ("a < b < c", "(< (< a b) c)"),
        ("a = b <= c", "(<= (= a b) c)"),
        # & ^ | bind looser than comparisons
        ("x & 1 = 0", "(& x (= 1 0))"),
        ("x | y ^ z & w", "(& (^ (| x y) z) w)"),
        # the whole table at once
        (
            "a || b && c | d <= e << f + g * h pow i",
            "(|| a (&& b (| c (<= d (<< e (+ f (* g (pow h i))))))))",
        ),
        (
            "a pow b * c + d << e < f & g && h || i",
            "(|| (&& (& (< (<< (+ (* (pow a b) c) d) e) f) g) h) i)",
        ),
        ("(a + b) * c", "(* (+ a b) c)"),
        ("v[-1 + 1]", "(Index v [(+ (neg 1) 1)] [] [])"),
    ],
)
def test_precedence(source: str, tree: str) -> None:
    assert ex(source) == tree


@pytest.mark.parametrize(("op1", "op2"), list(itertools.product(BINARY_PREC, repeat=2)))
def test_binary_operator_pairs(op1: str, op2: str) -> None:
    # All binary operators are left-associative.
    if BINARY_PREC[op1] >= BINARY_PREC[op2]:
        expected = f"({op2} ({op1} a b) c)"
    else:
        expected = f"({op1} a ({op2} b c))"
    assert ex(f"a {op1} b {op2} c") == expected


@pytest.mark.parametrize("op", list(BINARY_PREC))
def test_prefix_operators_against_binary(op: str) -> None:
    if BINARY_PREC[op] > 7:
        assert ex(f"- a {op} b") == f"(neg ({op} a b))"
    else:
        assert ex(f"- a {op} b") == f"({op} (neg a) b)"
    assert ex(f"not a {op} b") == f"({op} (not a) b)"
    assert ex(f"a {op} - b") == f"({op} a (neg b))"


@pytest.mark.parametrize(
    ("source", "tree"),
    [
        ("let y = 1 in y + 2", "(LetPat y 1 (+ y 2))"),
        ("if c then a else b + 1", "(If c a (+ b 1))"),
        ("1 + if c then a else b + 1", "(+ 1 (If c a (+ b 1)))"),
        ("- if c then a else b * 2", "(neg (If c a (* b 2)))"),
        ("not let y = a in y && b", "(not (LetPat y a (&& y b)))"),
        ("(let a[i] = 0 in 1) + 2", "(+ (LetWith a a [i] 0 1 [] []) 2)"),
        (
            "loop (a) = for i < n do a + 1 in a * 2",
            "(DoLoop a a i n (+ a 1) (* a 2))",
        ),
        ("if a then if b then c else d else e", "(If a (If b c d) e)"),
        ("if a then let x = 1 in x else y", "(If a (LetPat x 1 x) y)"),
    ],
)
def test_bodies_extend_far_right(source: str, tree: str) -> None:
    assert ex(source) == tree


def test_lambda_body_ends_at_comma() -> None:
    assert ex("reduce(fn int (int a, int b) => a + b, 0, xs)") == (
        "(Reduce (Lambda int [int a int b] (+ a b) False) 0 xs)"
    )


# ---------------------------------------------------------------------------------
# Expression forms (2.1, 2.3).


@pytest.mark.parametrize(
    ("source", "tree"),
    [
        ("42", "42"),
        ("3.25", "3.25"),
        ("1e3", "1000.0"),
        ("1.5E-3", "0.0015"),
        ("2.5e+1", "25.0"),
        ("'c'", "'c'"),
        ('"hi"', "'hi'"),
        ('""', "''"),
        ("True", "True"),
        ("False", "False"),
        ("Checked", "Checked"),
        ("x", "x"),
        ("empty(int)", "(Empty int)"),
        ("empty([real])", "(Empty [real])"),
        ("empty({int, [bool]})", "(Empty {int, [bool]})"),
        ("[1]", "(ArrayLit [1])"),
        ("[1, -2, x]", "(ArrayLit [1 (neg 2) x])"),
        ("{}", "(TupleLit [])"),
        ("{1}", "(TupleLit [1])"),
        ("{1, 2.0, 'c'}", "(TupleLit [1 2.0 'c'])"),
        ("f(1, x)", "(Apply f [1 x])"),
        ("g (x)", "(Apply g [x])"),
        ("f()", "(Apply f [])"),
        ("trace(x + 1)", "(Apply trace [(+ x 1)])"),
        ("a[i]", "(Index a [i] [] [])"),
        ("a[i, j + 1]", "(Index a [i (+ j 1)] [] [])"),
        ("iota(n)", "(Iota n)"),
        ("replicate(n, 0.0)", "(Replicate n 0.0)"),
        ("size(1, a)", "(Size 1 a [])"),
        ("reshape((r, c), a)", "(Reshape [r c] a [])"),
        ("reshape((n), a)", "(Reshape [n] a [])"),
        ("transpose(a)", "(Transpose 0 1 a [])"),
        ("transpose(1, 2, a)", "(Transpose 1 2 a [])"),
        ("transpose(2, -1, a)", "(Transpose 2 -1 a [])"),
        ("transpose(3)", "(Transpose 0 1 3 [])"),
        ("split(i, a)", "(Split i a [])"),
        ("concat(a, b)", "(Concat a b [])"),
        ("copy(a)", "(Copy a)"),
        ("assert(x < 3)", "(Assert (< x 3))"),
        ("conjoin()", "(Conjoin [])"),
        ("conjoin(c1, c2)", "(Conjoin [c1 c2])"),
        ("zip(a, b)", "(Zip [a b])"),
        ("zip(a, b, c)", "(Zip [a b c])"),
        ("unzip(a)", "(Unzip a)"),
        ("map(f, a)", "(Map (FunName f []) a)"),
        ("filter(op <, zip(a, b))", "(Filter (OpSection < []) (Zip [a b]))"),
        ("reduce(op +, 0, a)", "(Reduce (OpSection + []) 0 a)"),
        ("scan(op *, 1, a)", "(Scan (OpSection * []) 1 a)"),
        (
            "redomap(op +, fn int (int acc, int y) => acc + y, 0, a)",
            "(Redomap (OpSection + []) (Lambda int [int acc int y] (+ acc y) False) 0 a)",
        ),
        ("(x)", "x"),
        ("((x + 1))", "(+ x 1)"),
        ("if a then b else c", "(If a b c)"),
    ],
)
def test_expression_forms(source: str, tree: str) -> None:
    assert ex(source) == tree


@pytest.mark.parametrize(
    ("source", "tree"),
    [
        ("let x = 1 in x", "(LetPat x 1 x)"),
        ("let _ = 1 in x", "(LetPat _ 1 x)"),
        ("let {a, b} = e in a", "(LetPat {a b} e a)"),
        ("let {a, _, {b, c},} = e in a", "(LetPat {a _ {b c}} e a)"),
        ("let {} = e in a", "(LetPat {} e a)"),
        ("let b = a with [i] <- v in b", "(LetWith b a [i] v b [] [])"),
        ("let b = a with [i, j] <- v in b", "(LetWith b a [i j] v b [] [])"),
        ("let a[i] = v in a", "(LetWith a a [i] v a [] [])"),
        ("let a[i, j] = v in a", "(LetWith a a [i j] v a [] [])"),
        ("let a[] = v in a", "(LetWith a a [] v a [] [])"),
        ("loop (a = x) = for i < n do a in a", "(DoLoop a x i n a a)"),
        (
            "loop ({a, b} = {1, 2}) = for i < n do {b, a} in a",
            "(DoLoop {a b} (TupleLit [1 2]) i n (TupleLit [b a]) a)",
        ),
        ("loop (a) = for i < n do a in a", "(DoLoop a a i n a a)"),
        (
            "loop ({a, {b, c}}) = for i < n do e in a",
            "(DoLoop {a {b c}} (TupleLit [a (TupleLit [b c])]) i n e a)",
        ),
    ],
)
def test_binding_forms(source: str, tree: str) -> None:
    assert ex(source) == tree


def test_loop_shorthand_init_is_fresh_nodes() -> None:
    e = exp("loop ({a, b}) = for i < n do e in a")
    assert isinstance(e, A.DoLoop) and isinstance(e.init, A.TupleLit)
    assert isinstance(e.pat, A.PTuple)
    init_a, pat_a = e.init.elems[0], e.pat.elems[0]
    assert isinstance(init_a, A.Var) and init_a.name == "a"
    assert init_a.loc == pat_a.loc
    assert e.var == "i" and e.var_loc is not None and e.var_loc.col == 40


def test_loop_shorthand_rejects_wildcard() -> None:
    e = body_error("loop ({a, _}) = for i < n do e in a")
    assert e.kind == "parse-error"
    assert (e.loc.line, e.loc.col) == (1, 30)
    assert "'_'" in e.message and "loop (pat = init)" in e.message


def test_let_with_details() -> None:
    e = exp("let <c> b = a with [<d, e> | i] <- v in b")
    assert isinstance(e, A.LetWith)
    assert e.dest == "b" and e.src is not None and e.src.name == "a"
    assert [c.name for c in e.certs] == ["c"]
    assert [c.name for c in e.idx_certs] == ["d", "e"]
    assert e.dest_loc is not None and e.dest_loc.col == 28
    assert e.src.loc.col == 32


# ---------------------------------------------------------------------------------
# Functional arguments (2.4) and T-SOACs (2.6).


@pytest.mark.parametrize(
    ("fun", "tree"),
    [
        ("f", "(FunName f [])"),
        ("f()", "(FunName f [])"),
        ("f(a, b)", "(FunName f [a b])"),
        ("op +", "(OpSection + [])"),
        ("op - (10)", "(OpSection - [10])"),
        ("op < (0)", "(OpSection < [0])"),
        ("op pow (a, b)", "(OpSection pow [a b])"),
        ("op not", "(OpSection not [])"),
        ("op ~", "(OpSection ~ [])"),
        ("op <=", "(OpSection <= [])"),
        ("op >>", "(OpSection >> [])"),
        ("op &&", "(OpSection && [])"),
        ("fn int (int x) => x * 2", "(Lambda int [int x] (* x 2) False)"),
        (
            "fn {int, real} (*[int] a, {int, bool} p) => {1, 2.0}",
            "(Lambda {int, real} [*[int] a {int, bool} p] (TupleLit [1 2.0]) False)",
        ),
    ],
)
def test_functional_arguments(fun: str, tree: str) -> None:
    e = exp(f"map({fun}, xs)")
    assert isinstance(e, A.Map)
    assert sx(e.fun) == tree


def test_lambda_needs_a_parameter() -> None:
    assert "expected a type" in body_error("map(fn int () => 1, a)").message


@pytest.mark.parametrize(
    ("source", "tree"),
    [
        (
            "mapT(fn {int} (int x, int y) => {x + y}, xs, zs)",
            "(MapT (Lambda {int} [int x int y] (TupleLit [(+ x y)]) True) [xs zs] [])",
        ),
        (
            "<c> filterT(fn {bool} (int x) => {x < 3}, xs)",
            "(FilterT (Lambda {bool} [int x] (TupleLit [(< x 3)]) True) [xs] [c])",
        ),
        (
            "reduceT(fn {int, real} (int a, real b, int x, real y) => {a + x, b + y},"
            " {0, 0.0}, xs, ys)",
            "(ReduceT (Lambda {int, real} [int a real b int x real y]"
            " (TupleLit [(+ a x) (+ b y)]) True) [0 0.0] [xs ys] [])",
        ),
        (
            "<c, d> scanT(fn {int} (int a, int x) => {a + x}, {0}, xs)",
            "(ScanT (Lambda {int} [int a int x] (TupleLit [(+ a x)]) True) [0] [xs] [c d])",
        ),
        (
            "redomapT(fn {int} (int a, int b) => {a + b},"
            " fn {int} (int a, int x) => {a + x}, {0}, xs)",
            "(RedomapT (Lambda {int} [int a int b] (TupleLit [(+ a b)]) True)"
            " (Lambda {int} [int a int x] (TupleLit [(+ a x)]) True) [0] [xs] [])",
        ),
        ("mapT(fn {} (int x) => {}, xs)", "(MapT (Lambda {} [int x] (TupleLit []) True) [xs] [])"),
    ],
)
def test_tuple_soacs(source: str, tree: str) -> None:
    assert ex(source) == tree


@pytest.mark.parametrize(
    "source",
    [
        "mapT(fn int (int x) => x, xs)",
        "mapT(f, xs)",
        "mapT(op +, xs)",
        "reduceT(fn {int} (int a, int x) => {a + x}, 0, xs)",
    ],
)
def test_tuple_soacs_need_tuple_lambdas(source: str) -> None:
    assert body_error(source).kind == "parse-error"


def test_reduce_t_pairs_neutrals_with_arrays() -> None:
    e = body_error("reduceT(fn {int} (int a, int x) => {a + x}, {0, 1}, xs)")
    assert e.kind == "parse-error" and "2 neutral element(s) and 1 array(s)" in e.message
    assert (e.loc.line, e.loc.col) == (1, 20)


# ---------------------------------------------------------------------------------
# Certificates (2.3).


@pytest.mark.parametrize(
    ("source", "tree"),
    [
        ("<c> a[i]", "(Index a [i] [c] [])"),
        ("<> a[i]", "(Index a [i] [] [])"),
        ("a[<c1, c2> | i, j]", "(Index a [i j] [] [c1 c2])"),
        ("<c> a[<d> | i]", "(Index a [i] [c] [d])"),
        ("a[<c> b[0]]", "(Index a [(Index b [0] [c] [])] [] [])"),
        ("<c> size(0, a)", "(Size 0 a [c])"),
        ("<c> reshape((n), a)", "(Reshape [n] a [c])"),
        ("<c> transpose(a)", "(Transpose 0 1 a [c])"),
        ("<c> transpose(0, 1, a)", "(Transpose 0 1 a [c])"),
        ("<c> split(1, a)", "(Split 1 a [c])"),
        ("<c, d> concat(a, b)", "(Concat a b [c d])"),
        ("let <c> a[i] = v in a", "(LetWith a a [i] v a [c] [])"),
        ("let a[<c> | i] = v in a", "(LetWith a a [i] v a [] [c])"),
        ("let <c> a[] = v in a", "(LetWith a a [] v a [c] [])"),
        ("x < <c> a[i]", "(< x (Index a [i] [c] []))"),
    ],
)
def test_certificates(source: str, tree: str) -> None:
    assert ex(source) == tree


def test_certificate_program() -> None:
    p = prog(
        "let c = assert(i < size(0, a)) in a[<c> | i]",
        header="fun int f([int] a, int i, cert k) = ",
    )
    body = p.fundefs[0].body
    assert sx(body) == "(LetPat c (Assert (< i (Size 0 a []))) (Index a [i] [] [c]))"
    assert p.fundefs[0].params[2].type == T.CERT


# ---------------------------------------------------------------------------------
# Types (2.1, 4.1).


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("int", T.INT),
        ("real", T.REAL),
        ("bool", T.BOOL),
        ("char", T.CHAR),
        ("cert", T.CERT),
        ("{}", T.TupleType(())),
        ("{int}", T.TupleType((T.INT,))),
        ("{int,}", T.TupleType((T.INT,))),
        ("{int, [real],}", T.TupleType((T.INT, T.ArrayType(T.REAL, 1)))),
        ("[int]", T.ArrayType(T.INT, 1)),
        ("*[int]", T.ArrayType(T.INT, 1, unique=True)),
        ("[[int]]", T.ArrayType(T.INT, 2)),
        ("*[[[bool]]]", T.ArrayType(T.BOOL, 3, unique=True)),
        ("[{int}]", T.ArrayType(T.TupleType((T.INT,)), 1)),
        (
            "[[{int, *[real]}]]",
            T.ArrayType(T.TupleType((T.INT, T.ArrayType(T.REAL, 1, unique=True))), 2),
        ),
    ],
)
def test_types(source: str, expected: T.Type) -> None:
    assert parse_type(source) == expected
    fundef = parse_program(f"fun {source} f({source} x) = x", "t.l0").fundefs[0]
    assert fundef.ret == expected and fundef.params[0].type == expected


@pytest.mark.parametrize("source", ["[*[int]]", "*int", "*{int}", "[]", "{,}", "{int,,}", "[int"])
def test_bad_types(source: str) -> None:
    with pytest.raises(L0Error) as info:
        parse_type(source)
    assert info.value.kind == "parse-error"


# ---------------------------------------------------------------------------------
# Lexical syntax (section 1).


@pytest.mark.parametrize(
    ("source", "value"),
    [
        (r"'\n'", "\n"),
        (r"'\t'", "\t"),
        (r"'\r'", "\r"),
        (r"'\\'", "\\"),
        (r"'\''", "'"),
        (r"'\"'", '"'),
        ("'\"'", '"'),
        (r"'\0'", "\0"),
        (r"'\65'", "A"),
        (r"'\a'", "\a"),
        (r"'\b'", "\b"),
        (r"'\f'", "\f"),
        (r"'\v'", "\v"),
        (r"'\x41'", "A"),
        (r"'\o101'", "A"),
        (r"'\^A'", "\x01"),
        (r"'\NUL'", "\0"),
        (r"'\DEL'", "\x7f"),
        ("'é'", "é"),
        (r'"a\nb"', "a\nb"),
        (r'"say \"hi\""', 'say "hi"'),
        (r'"it\'s"', "it's"),
        ('"it\'s"', "it's"),
        (r'"\SOH"', "\x01"),
        (r'"\SO\&H"', "\x0eH"),
        (r'"\1234\&5"', "\u04d25"),
        (r'"ab\    \cd"', "abcd"),
        (r'"\1114111"', "\U0010ffff"),
    ],
)
def test_literal_escapes(source: str, value: str) -> None:
    e = exp(source)
    assert isinstance(e, A.CharLit | A.StringLit)
    assert e.value == value
    assert isinstance(e, A.CharLit) == source.startswith("'")


@pytest.mark.parametrize(
    ("source", "col", "fragment"),
    [
        (r"'\q'", 21, r"invalid escape sequence '\q'"),
        (r"'\&'", 21, r"invalid escape sequence '\&'"),
        (r'"\1114112"', 21, "out of range"),
        (r'"\x"', 21, "missing digits"),
        (r'"\^a"', 21, "invalid control escape"),
        ("''", 20, "found no"),
        ("'ab'", 20, "found 2"),
        ("'a", 20, "unterminated character literal"),
        ('"abc', 20, "unterminated string literal"),
        ('"ab\ncd"', 20, "unterminated string literal"),
        ('"a\tb"', 22, "control character '\\t'"),
        ("'\t'", 21, "control character"),
        ("1.", 20, "invalid real literal '1.'"),
        (".5", 20, "invalid real literal '.5'"),
        ("1.e5", 20, "invalid real literal '1.e5'"),
        ("x !", 22, "unexpected character '!' (L0's negation is 'not': write 'not p')"),
        ("x != y", 22, "unexpected character '!' (L0 has no '!=' operator; write "
                       "'not (a = b)' for 'a != b')"),
        ("x $ y", 22, "unexpected character '$'"),
        ("a.b", 21, "unexpected character '.'"),
        ("x ; y", 22, "unexpected character ';'"),
        ("x \x00", 22, "unexpected character '\\x00'"),
        ("x ∀", 22, "unexpected character '∀'"),
    ],
)
def test_lexical_errors(source: str, col: int, fragment: str) -> None:
    e = body_error(source)
    assert e.kind == "lexical-error"
    assert (e.loc.line, e.loc.col) == (1, col), e.render()
    assert fragment in e.message, e.message


def test_int_literals_cover_exactly_the_64_bit_range() -> None:
    assert ex("9223372036854775807") == str(2**63 - 1)
    assert ex("-9223372036854775808") == str(-(2**63))
    assert ex("- 9223372036854775808") == str(-(2**63))
    assert ex("x - -9223372036854775808") == ex(f"x - {-(2**63)}".replace("--", "- -"))


@pytest.mark.parametrize(
    ("body", "col", "width"),
    [
        ("9223372036854775808", 20, 19),
        ("1 + 18446744073709551617", 24, 20),
        ("x - 9223372036854775808", 24, 19),  # binary minus: x + 2^63 is no int64
        ("-(9223372036854775808)", 22, 19),
        ("size(9223372036854775808, x)", 25, 19),
        ("7" * 5000, 20, 5000),  # past Python's limit for int(str)
    ],
)
def test_int_literals_outside_64_bits_are_errors(body: str, col: int, width: int) -> None:
    e = body_error(body)
    assert e.kind == "lexical-error"
    assert (e.loc.line, e.loc.col, e.loc.end_col) == (1, col, col + width - 1), e.render()
    assert "out of the 64-bit range" in e.message


def test_real_literals_overflowing_to_infinity_are_errors() -> None:
    assert ex("1e-999") == "0.0"
    e = body_error("1.5e309")
    assert (e.kind, e.loc.col) == ("lexical-error", 20)
    assert e.message == "real literal '1.5e309' is too large for a 64-bit real"


def test_lexing() -> None:
    kinds = [t.type for t in tokenize("x<-1 <= a_1 _y -- a//c\n=> >> &&& fn\tfnx 1e 2", "t")]
    assert kinds == [
        "ID", "<-", "INTLIT", "<=", "ID", "_", "ID", "-", "-", "ID",
        "=>", ">>", "&&", "&", "fn", "ID", "INTLIT", "ID", "INTLIT",
    ]  # fmt: skip
    toks = tokenize("let\n  xs = 1e5 // c\r\n\ty", "t")
    assert [(t.value, t.line, t.column) for t in toks] == [
        ("let", 1, 1),
        ("xs", 2, 3),
        ("=", 2, 6),
        ("1e5", 2, 8),
        ("y", 3, 2),
    ]


@pytest.mark.parametrize("word", ["size", "copy", "empty", "op", "fn", "pow", "cert", "mapT", "in"])
def test_keywords_are_not_identifiers(word: str) -> None:
    assert body_error(f"let {word} = 1 in 2").kind == "parse-error"


def test_whitespace_and_comments() -> None:
    p = parse_program("// c\n\f\vfun int f(int x) = // c\n  x\r\n// end", "t.l0")
    assert sx(p.fundefs[0].body) == "x"
    assert len(parse_program("fun int f() = 1 fun int g() = f()", "t").fundefs) == 2


# ---------------------------------------------------------------------------------
# Locations.


def test_locations() -> None:
    p = parse_program("fun int f(int x) =\n  let y = -x * 2 in\n  (y + 1) * trace(y)", "p.l0")
    f = p.fundefs[0]
    assert p.file == "p.l0"
    assert f.loc.span() == "p.l0:1:1-3:20"
    assert f.params[0].loc.span() == "p.l0:1:11-1:15"
    let = f.body
    assert isinstance(let, A.LetPat)
    assert let.loc.span() == "p.l0:2:3-3:20"
    assert let.value is not None and let.value.loc.span() == "p.l0:2:11-2:16"  # -x * 2
    body = let.body
    assert isinstance(body, A.BinOp) and body.loc.span() == "p.l0:3:3-3:20"  # from the '('
    assert body.lhs is not None and body.lhs.loc.span() == "p.l0:3:4-3:8"  # y + 1
    assert body.rhs is not None and body.rhs.loc.span() == "p.l0:3:13-3:20"  # trace(y)


def test_locations_of_operands_with_certs() -> None:
    e = exp("<c> a[i] + <d> size(0, a)")
    assert isinstance(e, A.BinOp) and e.lhs is not None and e.rhs is not None
    assert (e.lhs.loc.col, e.lhs.loc.end_col) == (20, 27)
    assert (e.rhs.loc.col, e.rhs.loc.end_col) == (31, 44)


# ---------------------------------------------------------------------------------
# Parse errors (2.7): located at the offending token, saying what was expected.


@pytest.mark.parametrize(
    ("text", "line", "col", "fragments"),
    [
        ("", 1, 1, ["unexpected end of file, expected 'fun'"]),
        ("fun int f(int x) = x +", 1, 23, ["unexpected end of file, expected an expression"]),
        ("fun int f(int x) =\n  x\nfun", 3, 4, ["end of file", "a type"]),
        (
            "fun int f(int x) = if x > 0 then 1 else 0",
            1,
            25,
            ["unexpected token '>'", "an operator", "'then'", "no '>' operator"],
        ),
        ("fun int f(int x) = x<-1", 1, 21, ["unexpected token '<-'", "x < -1"]),
        ("fun int f(int x) = let y = in y", 1, 28, ["token 'in', expected an expression"]),
        ("fun int f(int x) = a b", 1, 22, ["token 'b'", "an operator", "end of file"]),
        ("fun int f(int x) = f(x)[0]", 1, 24, ["token '['", "only variables can be indexed"]),
        ("fun int f(int x) = (x)[0]", 1, 23, ["only variables can be indexed"]),
        ("fun int f(int x) = a[i][j]", 1, 24, ["only variables can be indexed"]),
        ("fun int f(int x) = if a then b", 1, 31, ["end of file, expected 'else'"]),
        ("fun int f(int x) = zip(a)", 1, 25, ["token ')', expected ','"]),
        ("fun int f(int x) = [ ]", 1, 22, ["expected an expression"]),
        ("fun int f(int x) = {1, 2,}", 1, 26, ["expected an expression"]),
        ("fun int f(int x) = let {a,,} = x in a", 1, 27, ["token ','"]),
        ("fun int (int x) = x", 1, 9, ["expected an identifier"]),
        ("fun int f(int x) = mapT(fn int (int x) => x, a)", 1, 28, ["tuple lambda"]),
        ("fun int f(int x) = size(n, a)", 1, 25, ["expected an integer literal"]),
        ("fun int f(int x) = loop (a) = for i <= n do a in a", 1, 37, ["expected '<'"]),
        ("fun int f(int x) = x\n  x", 2, 3, ["token 'x'"]),
        (
            'fun int f(int x) = x "a very long string literal"',
            1,
            22,
            ["'\"a very long string ...'"],
        ),
    ],
)
def test_parse_errors(text: str, line: int, col: int, fragments: list[str]) -> None:
    e = error(text)
    assert e.kind == "parse-error"
    assert (e.loc.file, e.loc.line, e.loc.col) == ("t.l0", line, col), e.render()
    for fragment in fragments:
        assert fragment in e.message, e.message
    assert e.message[0].islower() and not e.message.endswith(".")


def test_expected_lists_stay_short() -> None:
    for text in ["fun int f(int x) = x x", "fun int f(int x) = let", "fun int f(", "fun"]:
        assert len(error(text).message) < 120, error(text).message


# ---------------------------------------------------------------------------------
# Scale: deep nesting costs no Python stack; parsing is fast.


def test_deep_nesting() -> None:
    lets = "".join(f"let x{i} = x + {i} in\n" for i in range(5000))
    body = prog(lets + "x").fundefs[0].body
    depth = 0
    while isinstance(body, A.LetPat):
        body, depth = body.body, depth + 1
    assert depth == 5000
    assert ex("(" * 3000 + "x" + ")" * 3000) == "x"
    neg, depth = exp("- " * 3000 + "x"), 0
    while isinstance(neg, A.Negate):
        neg, depth = neg.operand, depth + 1
    assert depth == 3000
    plus, depth = exp(" + ".join(["x"] * 5000)), 0
    while isinstance(plus, A.BinOp):
        plus, depth = plus.lhs, depth + 1
    assert depth == 4999
    assert isinstance(exp("if c then a else " * 2000 + "x"), A.If)
    deep_pattern = "{" * 2000 + "x" + "}" * 2000
    assert isinstance(exp(f"loop ({deep_pattern}) = for i < n do x in x"), A.DoLoop)


def test_parse_large_program() -> None:
    # Speed is measured by `benchmarks/compile_time.py`, not asserted here.
    fn = """fun [int] f{i}([int] xs, int n) =
  let ys = map(fn int (int x) => x * {i} + n - -3 pow 2, xs) in
  let {{a, b}} = split(n, ys) in
  loop (ys) = for j < n do
    let ys[j] = ys[j] + reduce(op +, 0, filter(fn bool (int y) => y < 10, ys)) in ys
  in if n < 0 then concat(a, b) else scan(op +, 0, ys)
"""
    text = "".join(fn.format(i=i) for i in range(60))  # 360 lines
    prog = parse_program(text, "big.l0")
    assert [f.name for f in prog.fundefs] == [f"f{i}" for i in range(60)]


# ---------------------------------------------------------------------------------
# Robustness: any mutation of a valid program gives an AST or an L0Error.

_VALID = """
// A valid program exercising most of the grammar.
fun {int, [real]} f(*[int] a, [{int, real}] ps, cert c) =
  let {xs, ys} = unzip(ps) in
  let s = reduce(op +, 0, map(fn int (int x) => x * -2 pow 3, xs)) in
  let <c> a[0] = s in
  let b = a with [<c> | 1] <- 'x' in
  loop ({s, t} = {s, 1.5e3}) = for i < size(0, a) do
    if not (i < 3) && True then {s + 1, t} else {s - 1, t / 2.0}
  in {s, mapT(fn {real} (real y) => {sqrt(y)}, ys)}
fun int main() = let {s, _} = f(iota(3), zip(empty(int), empty(real)), Checked) in s
"""


def test_mutation_seed_is_valid() -> None:
    assert len(parse_program(_VALID, "v.l0").fundefs) == 2

_ALPHABET = st.sampled_from(
    list("(){}[]<>,_=+-*/%&|^~!'\"\\.0123456789 \t\nxyz") + ["let", "in", "fn", "op", "<-"]
)


def _try_parse(text: str) -> None:
    try:
        parse_program(text, "m.l0")
    except L0Error as e:
        assert e.kind in ("lexical-error", "parse-error")
        assert e.loc.line >= 1 and e.loc.col >= 1


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(_VALID)), st.integers(0, 2), _ALPHABET), max_size=4))
def test_char_mutations_raise_only_l0_errors(edits: list[tuple[int, int, str]]) -> None:
    text = _VALID
    for pos, kind, s in edits:
        pos = min(pos, len(text))
        if kind == 0:
            text = text[:pos] + s + text[pos:]  # insert
        elif kind == 1:
            text = text[:pos] + text[pos + 1 :]  # delete
        else:
            text = text[:pos] + s + text[pos + 1 :]  # replace
    _try_parse(text)


_VALID_TOKENS = [t.value for t in tokenize(_VALID, "v")]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(_VALID_TOKENS) - 1),
            st.integers(0, 2),
            st.sampled_from(_VALID_TOKENS),
        ),
        max_size=3,
    )
)
def test_token_mutations_raise_only_l0_errors(edits: list[tuple[int, int, str]]) -> None:
    toks = list(_VALID_TOKENS)
    for pos, kind, s in edits:
        pos = min(pos, len(toks) - 1)
        if kind == 0:
            toks.insert(pos, s)
        elif kind == 1 and len(toks) > 1:
            del toks[pos]
        else:
            toks[pos] = s
    _try_parse(" ".join(toks))
