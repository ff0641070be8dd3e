"""The type checker: types, aliasing and uniqueness (docs/reference.md §3, 4, 8, 9).

Snippets are parsed with the real parser; `fails` pins an error's kind, its line and
column, and a fragment of its message. A snippet without `main` gets a trivial one
appended (after everything else, so locations are unaffected).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from l0.diagnostics import L0Error
from l0.syntax import ast as A
from l0.syntax.parser import parse_program
from l0.typecheck import check_program
from l0.typecheck.errors import KINDS

ROOT = Path(__file__).resolve().parents[2]

def _src(text: str) -> str:
    return text if re.search(r"\bmain\s*\(", text) else text + "\nfun int main() = 0"


def check(text: str, *, inhibit: bool = False) -> A.Program:
    prog = parse_program(_src(text), "t.l0")
    check_program(prog, inhibit_uniqueness=inhibit)
    return prog


def fails(
    text: str, kind: str, at: tuple[int, int] | None = None, msg: str | None = None,
    *, inhibit: bool = False,
) -> L0Error:
    prog = parse_program(_src(text), "t.l0")
    with pytest.raises(L0Error) as info:
        check_program(prog, inhibit_uniqueness=inhibit)
    err = info.value
    assert err.kind == kind, err.render()
    if at is not None:
        assert (err.loc.line, err.loc.col) == at, err.render()
    if msg is not None:
        assert msg in err.message, err.render()
    return err


def body_type(text: str) -> str:
    """The type the checker gives the body of the first function."""
    prog = check(text)
    t = prog.fundefs[0].body.type
    assert t is not None
    return str(t)


def fun_of(prog: A.Program, cls: type) -> A.Exp:
    """The first expression of class `cls` in the first function (pre-order)."""
    found = [e for e in _nodes(prog.fundefs[0].body) if isinstance(e, cls)]
    assert found, cls
    return found[0]


def _nodes(x: object) -> list[object]:
    out: list[object] = []
    work = [x]
    while work:
        y = work.pop()
        if isinstance(y, list):
            work.extend(reversed(y))
            continue
        if not dataclasses.is_dataclass(y) or isinstance(y, type):
            continue
        out.append(y)
        kids = [getattr(y, f.name) for f in dataclasses.fields(y)
                if f.name not in ("loc", "type", "ret", "row", "param_types", "ret_type")]
        work.extend(reversed(kids))
    return out


# ----------------------------------------------------------------------------------
# 4.3: result types, with uniqueness.

TYPES = [
    ("", "iota(3)", "*[int]"),
    ("", "[1, 2]", "[int]"),
    ("", "[iota(2), iota(3)]", "*[[int]]"),
    ("[int] a", "[a, a]", "[[int]]"),
    ("", "replicate(2, 1.0)", "*[real]"),
    ("[int] a", "replicate(2, a)", "[[int]]"),
    ("*[int] a", "replicate(2, a)", "*[[int]]"),
    ("[[int]] a", "a[0]", "[int]"),
    ("*[[int]] a", "a[0]", "*[int]"),
    ("*[[int]] a", "a[0, 1]", "int"),
    ("*[int] a, [int] b", "concat(a, b)", "[int]"),
    ("*[int] a, *[int] b", "concat(a, b)", "*[int]"),
    ("{[int], int} t", "copy(t)", "{*[int], int}"),
    ("[int] a, [real] b", "zip(a, b)", "[{int, real}]"),
    ("[{int, real}] a", "unzip(a)", "{[int], [real]}"),
    ("[int] a", "unzip(map(fn {int, int} (int x) => {x, x}, a))", "{*[int], *[int]}"),
    ("[int] a", "map(fn int (int x) => x, a)", "*[int]"),
    ("[[int]] a", "map(fn [int] ([int] x) => x, a)", "[[int]]"),
    ("[int] a", "filter(op < (0), a)", "[int]"),
    ("*[int] a", "filter(op < (0), a)", "*[int]"),
    ("[int] a", "scan(op +, 0, a)", "*[int]"),
    ("[int] a", "reduce(op +, 0, a)", "int"),
    ("[int] a", "redomap(op +, fn int (int s, int x) => s + x, 0, a)", "int"),
    ("*[int] a, [int] b, bool c", "if c then a else b", "[int]"),
    ("*[int] a, *[int] b, bool c", "if c then a else b", "*[int]"),
    ("[[int]] a", "transpose(a)", "[[int]]"),
    ("[[[int]]] a", "transpose(1, 1, a)", "[[[int]]]"),
    ("[int] a", "split(1, a)", "{[int], [int]}"),
    ("*[int] a", "reshape((2, 2), a)", "*[[int]]"),
    ("[[int]] a", "size(1, a)", "int"),
    ("", "empty([int])", "[[int]]"),
    ("", '"ab"', "[char]"),
    ("", "assert(True)", "cert"),
    ("", "conjoin(Checked, assert(True))", "cert"),
    ("[int] a, [int] b", "mapT(fn {int, bool} (int x, int y) => {x, x < y}, a, b)",
     "{*[int], *[bool]}"),
    ("[int] a, [real] b", "scanT(fn {int, real} (int x, real y, int z, real w) => {x + z, y + w}, "
     "{0, 0.0}, a, b)", "{*[int], *[real]}"),
    ("[int] a", "filterT(fn {bool} (int x) => {x < 1}, a)", "{[int]}"),
    ("int n", "toReal(n)", "real"),
    ("real x", "trunc(x)", "int"),
    ("[int] x", "trace(x)", "[int]"),
    ("", "2 pow 3", "int"),
    ("", "7 % 2 << 1", "int"),
    ("", "1.5 < 2.0", "bool"),
    ("", "-1.5", "real"),
    ("", "{}", "{}"),
    ("", "{1, 'c', Checked}", "{int, char, cert}"),
]


@pytest.mark.parametrize(("params", "exp", "expected"), TYPES)
def test_result_type(params: str, exp: str, expected: str) -> None:
    assert body_type(f"fun {expected} f({params}) = {exp}") == expected


def test_every_node_is_annotated() -> None:
    prog = check(
        """
fun {int, real} f(int k, int x, real y) = {k + x, y}
fun [real] main(*[int] a, [real] b, [[int]] m) =
  let c = assert(0 < size(0, a)) in
  let {s, t} = unzip(map(f(1), zip(a, b))) in
  let a[<c> | 0] = reduce(op +, 0, s) + m[0, 0] in
  loop ({a, acc} = {a, 0.0}) = for i < 3 do
    let a[i] = a[i + 1] in {a, acc + toReal(i)}
  in map(fn real (real x) => x + acc, scan(op +, 0.0, t))
"""
    )
    missing = [n for n in _nodes(prog.fundefs)
               if isinstance(n, A.Exp | A.PId | A.PWild | A.PTuple) and n.type is None]
    assert not missing
    funargs = [n for n in _nodes(prog.fundefs) if isinstance(n, A.FunArg)]
    assert funargs and all(f.param_types is not None and f.ret_type is not None for f in funargs)


# ----------------------------------------------------------------------------------
# Every error kind, pinned to its place.

ERRORS = [
    # type-error
    ("fun int f([int] v) = let v[0] = 1 in v[0]", "type-error", (1, 26),
     "source 'v' of in-place update is not unique (declare the parameter unique"),
    ("fun [int] f() = [1, 2.0]", "type-error", (1, 21), "element 2 of array literal has type real"),
    ("fun int f(int x) = size(0, x)", "type-error", (1, 28), "argument of size must be an array"),
    ("fun int f([int] a) = size(1, a)", "type-error", (1, 22), "dimension 1"),
    ("fun [[int]] f([[int]] a) = transpose(1, 1, a)", "type-error", (1, 28), "rank at least 3"),
    ("fun [int] f(int x) = map(op -, x)", "type-error", (1, 32), "array argument of map"),
    ("fun [int] f([int] a) = filter(fn int (int x) => x, a)", "type-error", (1, 31),
     "function of filter must return bool, but returns int"),
    ("fun int f([int] a) = reduce(op <, 0, a)", "type-error", (1, 35),
     "initial value of reduce has type int, but its function returns bool"),
    ("fun [int] f([int] a) = map(fn int (int x, int y) => x, a)", "type-error", (1, 28),
     "anonymous function defined with 2 parameter(s), but map supplies 1 argument(s)"),
    ("fun int f(int x) = trace(x, x)", "type-error", (1, 20), "trace takes exactly one argument"),
    ("fun [int] f([int] a) = map(trace, a)", "type-error", (1, 28), "trace cannot be"),
    ("fun [int] f([int] a) = unzip(a)", "type-error", (1, 30), "array of tuples"),
    ("fun [int] f([int] a) = map(op ~ (1), a)", "type-error", (1, 28), "cannot be curried"),
    ("fun [int] f([int] a) = map(op + (1, 2), a)", "type-error", (1, 28), "needs 2 operands"),
    # unify-error
    ("fun real f(bool c) = if c then 3 else 2.5", "unify-error", (1, 22),
     "branches of 'if' must have the same type, but have types int and real"),
    ("fun int f(int x, real y) = x + y", "unify-error", (1, 28),
     "operands of '+' must have the same type"),
    ("fun [int] f([int] a, [real] b) = map(op +, zip(a, b))", "unify-error", (1, 38),
     "operands of 'op +'"),
    # unexpected-type
    ("fun bool f(bool p) = p = True", "unexpected-type", (1, 22),
     "left operand of '=' must be of type int or real, but is of type bool"),
    ("fun bool f(int x) = not x", "unexpected-type", (1, 25),
     "operand of 'not' must be of type bool"),
    ("fun bool f(bool x) = -x", "unexpected-type", (1, 23), "operand of '-'"),
    ("fun int f([int] a) = a[1.0]", "unexpected-type", (1, 24), "array index must be of type int"),
    ("fun bool f(char c) = c < 'a'", "unexpected-type", (1, 22), "left operand of '<'"),
    ("fun int f(int x) = x & 1 = 0", "unexpected-type", (1, 24), "right operand of '&'"),
    ("fun [int] f(*[int] a) = let a[0] = 1.0 in a", "unexpected-type", (1, 36),
     "value written into 'a' must be of type int, but is of type real"),
    ("fun [bool] f([int] a) = map(op not, a)", "unexpected-type", (1, 29), "operand of 'op not'"),
    ("fun [int] f([int] a, [int] b) = concat(a, [b])", "unexpected-type", (1, 43),
     "second argument of concat"),
    # return-type-error
    ("fun int f() = 2.0", "return-type-error", (1, 15),
     "body of function 'f' has type real, but the declared return type is int"),
    ("fun *[int] f() = [1, 2]", "return-type-error", (1, 18),
     "a unique result needs a unique value"),
    ("fun [int] f([int] a) = map(fn int (int x) => 1.0, a)", "return-type-error", (1, 46),
     "body of the anonymous function has type real"),
    # dup-definition, dup-param, dup-pattern
    ("fun int f() = 1\nfun int f() = 2", "dup-definition", (2, 1), "already defined at 1:1"),
    ("fun real exp(real x) = x", "dup-definition", (1, 1), "already defined as a builtin"),
    ("fun int trace(int x) = x", "dup-definition", (1, 1), "builtin"),
    ("fun int f(int x, real x) = 1", "dup-param", (1, 18), "parameter 'x' of function 'f'"),
    ("fun [int] f([int] a) = map(fn int (int x, int x) => x, zip(a, a))", "dup-param", (1, 43),
     "of the anonymous function"),
    ("fun int f() = let {a, {b, a}} = {1, {2, 3}} in a", "dup-pattern", (1, 27), "first at 1:20"),
    # invalid-pattern
    ("fun int f() = let {a, b} = {1, 2, 3} in a", "invalid-pattern", (1, 19),
     "tuple pattern with 2 component(s) cannot match a value of type {int, int, int}"),
    ("fun int f([int] a) = loop ({x, y} = 0) = for i < 2 do x in 0", "invalid-pattern", (1, 28),
     None),
    # unknown-variable / unknown-function
    ("fun int f() = x", "unknown-variable", (1, 15), "unknown variable 'x'"),
    ("fun int f(int n) = loop (x = 0) = for i < n do x in i", "unknown-variable", (1, 53), "'i'"),
    ("fun int f() = g(1)", "unknown-function", (1, 15), "unknown function 'g'"),
    ("fun [int] f([int] a) = map(g, a)", "unknown-function", (1, 28), "'g'"),
    # parameter-mismatch
    ("fun int g(int a, int b) = a\nfun int f() = g(1, 2, 3)", "parameter-mismatch", (2, 15),
     "function 'g' takes 2 argument(s), but is given 3"),
    ("fun real f() = sqrt(2)", "parameter-mismatch", (1, 21),
     "argument 1 of function 'sqrt' must be of type real (parameter 1), but is of type int"),
    ("fun int g([[int]] a) = 0\nfun int f([int] a) = g(a)", "parameter-mismatch", (2, 24), None),
    ("fun int g(*[int] a) = 0\nfun int f([int] a) = g(a)", "parameter-mismatch", (2, 24),
     "a unique parameter needs a unique argument"),
    ("fun int g(int a, int b) = a\nfun [int] f([int] a) = map(g(1, 2, 3), a)", "parameter-mismatch",
     (2, 28), "takes 2 argument(s), but is given 3"),
    ("fun int g(int a, int b, int c) = a\nfun [int] f([int] a) = map(g(1), a)",
     "parameter-mismatch", (2, 28), "takes 2 argument(s) after currying, but map supplies 1"),
    ("fun [int] f([int] a) = map(fn int (*[int] x) => 0, a)", "parameter-mismatch", (1, 52),
     "must be of type *[int] (parameter 'x'), but is of type int"),
    # use-after-consume
    ("fun int f(int n) = let v = iota(n) in let v[v[0]] = 1 in 0", "use-after-consume", (1, 45),
     "variable 'v' used after being consumed at 1:43"),
    ("fun int g(*[int] a) = 0\nfun int f(*[int] a) = g(a) + a[0]", "use-after-consume", (2, 30),
     "variable 'a' used after being consumed at 2:25"),
    ("fun int f(*[int] a) = let b = a in let c = a with [0] <- 1 in b[0]", "use-after-consume",
     (1, 63), "variable 'b' used after 'a', which aliases it, was consumed at 1:44"),
    ("fun int g(*[int] a, int x) = 0\nfun int f(*[int] a) = g(a, a[0])", "use-after-consume",
     (2, 28),
     "variable 'a' used after being consumed at 2:25"),
    ("fun int g(int x, *[int] a) = 0\nfun int f(*[int] a) = g(a[0], a)", "use-after-consume",
     (2, 25),
     "variable 'a' is used here and consumed at 2:31 in the same sequence"),
    ("fun int g(*[int] a, *[int] b) = 0\nfun int f(*[int] a) = g(a, a)", "use-after-consume",
     (2, 28),
     "variable 'a' consumed after being consumed at 2:25"),
    # indexing-error
    ("fun int f([int] a) = a[0, 1]", "indexing-error", (1, 22),
     "'a' has 1 dimension(s), but is indexed with 2 indices"),
    ("fun [int] f(*[int] a) = let a[0, 0] = 1 in a", "indexing-error", (1, 29), None),
    ("fun int f(int x) = x[0]", "indexing-error", (1, 20), "0 dimension(s)"),
    # curried-consumption
    ("fun int upd(*[int] a, int i) = i\nfun [int] f(*[int] a, [int] b) = map(upd(a), b)",
     "curried-consumption", (2, 42), "unique parameter 'a' of 'upd'"),
    # bad-let-with-value
    ("fun [[int]] f(*[[int]] a) = let a[0] = a[1] in a", "bad-let-with-value", (1, 40),
     "the value written into 'a' aliases 'a' itself"),
    ("fun [[int]] f(*[[int]] a) = let b = a[1] in let a[0] = b in a", "bad-let-with-value", (1, 56),
     None),
    # return-aliased
    ("fun *[int] f([int] a) = a", "return-aliased", (1, 25),
     "unique result of function 'f' aliases non-unique parameter 'a'"),
    ("fun *[int] f([[int]] a, int i) = a[i]", "return-aliased", (1, 34), None),
    ("fun {int, *[int]} f({[int], int} t) = let {a, n} = t in {n, a}", "return-aliased", (1, 57),
     "parameter 't'"),
    # unique-return-aliased
    ("fun {*[int], *[int]} f(int n) = let a = iota(n) in {a, a}", "unique-return-aliased", (1, 52),
     "aliases another component"),
    ("fun {*[int], [int]} f(int n) = let a = iota(n) in {a, a}", "unique-return-aliased", (1, 51),
     None),
]


@pytest.mark.parametrize(("text", "kind", "at", "msg"), ERRORS)
def test_error(text: str, kind: str, at: tuple[int, int], msg: str | None) -> None:
    fails(text, kind, at, msg)


def test_missing_main() -> None:
    prog = parse_program("\n\nfun int f() = 0", "m.l0")
    with pytest.raises(L0Error) as info:
        check_program(prog)
    assert info.value.kind == "missing-main"
    assert info.value.render() == "m.l0:1:1: error: program has no function 'main'"


def test_type_errors_come_before_missing_main() -> None:
    with pytest.raises(L0Error) as info:
        check_program(parse_program("fun int f() = 1.0", "m.l0"))
    assert info.value.kind == "return-type-error"


def test_every_kind_is_tested_and_documented() -> None:
    tested = {k for _, k, _, _ in ERRORS} | {"missing-main"}
    assert tested == set(KINDS)
    documented = set(re.findall(r"^## `([a-z-]+)`", (ROOT / "docs/errors.md").read_text(), re.M))
    assert documented == set(KINDS)


def _doc_examples() -> list[tuple[str, str, str]]:
    text = (ROOT / "docs/errors.md").read_text()
    out = []
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        kind = re.match(r"`([a-z-]+)`", section)
        assert kind is not None
        blocks = re.findall(r"```l0\n(.*?)```", section, re.S)
        assert len(blocks) == 2, kind.group(1)
        out.append((kind.group(1), blocks[0], blocks[1]))
    return out


@pytest.mark.parametrize(("kind", "bad", "good"), _doc_examples())
def test_documented_examples(kind: str, bad: str, good: str) -> None:
    with pytest.raises(L0Error) as info:
        check_program(parse_program(bad, "doc.l0"))
    assert info.value.kind == kind, info.value.render()
    check_program(parse_program(good, "doc.l0"))


# ----------------------------------------------------------------------------------
# 4.4: aliasing, observed through consumption. Each `let x[0] = ...` consumes the
# update's source and everything it aliases; using an alias afterwards is an error,
# using something that does not alias it is fine.

ALIASES = [
    ("let b = a in", True),
    ("let b = copy(a) in", False),
    ("let b = transpose(a) in", True),
    ("let b = reshape((4), a) in", True),
    ("let {b, _} = split(1, a) in", True),
    ("let b = a[0] in", True),
    ("let b = filter(fn bool ([int] r) => True, a) in", True),
    ("let b = concat(a, a) in", True),
    ("let b = replicate(2, a) in", True),
    ("let b = zip(a, a) in", True),
    ("let b = if True then a else a in", True),
    ("let b = {a, 1} in", True),
    ("let b = nonunique(a) in", True),
    ("let b = fresh(a) in", False),
    ("let b = map(fn [int] ([int] r) => r, a) in", True),  # 4.7: non-unique results alias
    ("let b = map(fn int ([int] r) => r[0], a) in", False),  # basic results alias nothing
    ("let b = map(fn *[int] ([int] r) => copy(r), a) in", False),
    ("let b = reduce(fn [int] ([int] x, [int] y) => x, a[0], a) in", True),
    ("let b = scan(fn [int] ([int] x, [int] y) => x, a[0], a) in", False),  # fresh
    ("let b = iota(3) in", False),
    ("let b = [a[0], a[1]] in", True),
    ("let b = loop (x = a) = for i < 2 do x in x in", True),
]


@pytest.mark.parametrize(("binding", "aliased"), ALIASES)
def test_aliasing(binding: str, aliased: bool) -> None:
    text = f"""
fun [[int]] nonunique([[int]] x) = x
fun *[[int]] fresh([[int]] x) = copy(x)
fun int main(*[[int]] a) =
  {binding}
  let a[0] = iota(2) in
  let _ = b in 0
"""
    if aliased:
        fails(text, "use-after-consume", (7, 11))
    else:
        check(text)


def test_row_of_a_lambda_result_aliases_free_variable() -> None:
    # The lambda returns the free variable itself: the reduce's result is `m`.
    fails(
        """
fun int main(*[int] m, [[int]] a) =
  let r = reduce(fn [int] ([int] x, [int] y) => m, a[0], a) in
  let m[0] = 1 in r[0]""",
        "use-after-consume",
        (4, 19),
    )


def test_tuple_components_are_tracked_apart() -> None:
    # Consuming one component of a tuple variable leaves the other usable...
    check("fun int main(int n) = let t = {iota(n), iota(n)} in let {x, y} = t in "
          "let x[0] = 1 in y[0] + x[0]")
    # ... but not the tuple itself (the original lost track of it: env Note [Tuple variables]).
    fails("fun int g({*[int], [int]} t) = 0\nfun int main(int n) = let t = {iota(n), iota(n)} in "
          "let r = g(t) in let {x, y} = t in y[0]", "use-after-consume", (2, 82))


# ----------------------------------------------------------------------------------
# 4.5: consumption and the occurrence discipline.


def test_rule1_source_unique_and_consumed() -> None:
    check("fun *[int] main(int n) = let a = iota(n) in let a[0] = 1 in let a[1] = 2 in a")
    fails("fun int main() = let a = [1, 2] in let a[0] = 3 in a[0]", "type-error", (1, 40),
          "source 'a' of in-place update is not unique (only unique arrays")
    # The source itself is marked consumed: any later mention is an error, even with
    # occurrence checking off.
    fails("fun int main(*[int] a) = let b = a with [0] <- 1 in a[0]", "use-after-consume", (1, 53),
          inhibit=True)


def test_rule2_use_after_consume_through_call() -> None:
    fails("fun *[int] g(*[int] a) = a\nfun int main(*[int] a) = let b = g(a) in a[0]",
          "use-after-consume", (2, 42))
    check("fun *[int] g(*[int] a) = a\nfun int main(*[int] a) = let b = g(a) in b[0]")


def test_rule3_sequences() -> None:
    fails("fun int main(*[int] a) = (let a[0] = 1 in 0) + a[1]", "use-after-consume", (1, 48))
    check("fun int main(*[int] a) = let t = a[1] in (let a[0] = 1 in 0) + t")
    fails("fun int g(*[int] a) = 0\nfun {int, int} main(*[int] a) = {g(a), a[0]}",
          "use-after-consume", (2, 40))
    fails("fun int g(*[int] a) = 0\nfun [int] main(*[int] a) = [g(a), a[0]]", "use-after-consume",
          (2, 35))
    # Observing twice is fine.
    check("fun int main([int] a) = a[0] + a[1]")


def test_rule4_branches_are_alternatives_both_ways() -> None:
    lib = "fun int h(*[int] v) = 0\n"
    check(lib + "fun int main(*[int] v, bool c) = if c then h(v) else v[0]")
    check(lib + "fun int main(*[int] v, bool c) = if c then v[0] else h(v)")
    check(lib + "fun int main(*[int] v, bool c) = if c then h(v) else h(v)")
    # ... but what either branch consumes is consumed after the `if`.
    fails(lib + "fun int main(*[int] v, bool c) = let x = if c then h(v) else 0 in v[0]",
          "use-after-consume", (2, 67))
    # ... and the condition is a sibling of the branches.
    fails(lib + "fun int main(*[int] v) = if v[0] = 1 then h(v) else 0", "use-after-consume",
          (2, 29))


def test_rule4_if_result_forgets_what_a_branch_consumed() -> None:
    check("fun *[int] main(*[int] a, bool c) = let b = if c then let a[0] = 1 in a else a in b")


def test_rule5_unique_returns() -> None:
    check("fun {*[int], *[int]} main(int n) = {iota(n), iota(n)}")
    check("fun {*[int], [int]} main(*[int] a, [int] b) = {a, b}")
    fails("fun {*[int], *[int]} main(*[int] a, *[int] b, bool c) = if c then {a, b} else {b, a}",
          "unique-return-aliased", (1, 57))


def test_rule6_lambdas_cannot_consume_free_variables() -> None:
    fails("fun [[int]] main(*[int] a, [int] xs) = map(fn [int] (int x) => let a[0] = x in a, xs)",
          "type-error", (1, 68), "bound outside a lambda or loop body")
    fails("fun int g(*[int] a) = 0\n"
          "fun [int] main(*[int] a, [int] xs) = map(fn int (int x) => g(a), xs)",
          "parameter-mismatch", (2, 62), "not unique inside it")
    # Its own (unique) parameters it may consume.
    check("fun [[int]] main(int n) = map(fn *[int] (*[int] r) => let r[0] = 1 in r, "
          "replicate(n, iota(n)))")


def test_lambda_observations_count_where_the_soac_is() -> None:
    fails("fun *[int] g(*[int] a) = a\n"
          "fun int main(*[int] a, [int] xs) = reduce(fn int (int s, int x) => s + a[x], 0, g(a))",
          "use-after-consume", (2, 72))


def test_rule7_curried_consumption() -> None:
    fails("fun int upd(*[int] a, int i) = i\nfun [int] main(*[int] a, [int] b) = map(upd(a), b)",
          "curried-consumption", (2, 45))
    check("fun int upd([int] a, int i) = a[i]\nfun [int] main([int] a, [int] b) = map(upd(a), b)")


def test_rule8_letwith_indices_and_value() -> None:
    # The new value is sequenced before the update; the indices are not.
    check("fun *[int] main(*[int] a, int i) = let a[i] = a[i] + 1 in a")
    fails("fun int main(int n) = let a = iota(n) in let a[size(0, a) - 1] = 0 in 0",
          "use-after-consume", (1, 56))
    # Sub-quirk: for a parameter the indices may read the source (env Note [Self alias]).
    check("fun int main(*[int] v) = let v[v[0]] = 1 in 0")
    check("fun [[int]] main(int n) = map(fn *[int] (*[int] v) => let v[v[0]] = 1 in v, "
          "replicate(n, iota(n)))")
    # ... but only the indices: the update still consumes it (bindings Note [Parameter update]).
    fails("fun int main(*[int] a) = (let a[1] = 5 in 0) + a[1]", "use-after-consume", (1, 48))


def test_rule9_aliases_tracked_when_scopes_end() -> None:
    fails("fun int main(*[[int]] a) = let r = a[0] in let a[1] = iota(2) in r[0]",
          "use-after-consume", (1, 66))
    fails("fun int main(*[[int]] a) = let t = transpose(a) in let a[0] = iota(2) in t[0, 0]",
          "use-after-consume", (1, 74))


def test_shadowing() -> None:
    check("fun *[int] main(int n) = let a = iota(n) in let a = copy(a) in let a[0] = 1 in a")
    check("fun int main(*[int] a) = let a[0] = 1 in let a = 2 in a")


def test_wildcard_let_observes_in_sequence() -> None:
    check("fun *[int] main(int n) = let a = iota(n) in let _ = a[0] in let a[0] = 1 in a")


# ----------------------------------------------------------------------------------
# 4.6: loops.


def test_loop_updates_merge_variable_in_place() -> None:
    prog = check("fun *[int] main(*[int] a, int n) = loop (a) = for i < n do "
                 "let a[i] = a[i] + 1 in a in a")
    loop = fun_of(prog, A.DoLoop)
    assert isinstance(loop, A.DoLoop) and loop.pat is not None
    assert str(loop.pat.type) == "*[int]"


def test_loop_merge_type_unique_only_where_consumed() -> None:
    prog = check("fun [int] main(int n) = loop ({a, b} = {iota(n), iota(n)}) = for i < n do "
                 "let a[i] = b[i] in {a, b} in a")
    loop = fun_of(prog, A.DoLoop)
    assert isinstance(loop, A.DoLoop) and loop.pat is not None
    assert str(loop.pat.type) == "{*[int], [int]}"


def test_loop_a_body_cannot_consume_free_variables() -> None:
    fails("fun [int] main(*[int] a, int n) = loop (b = iota(n)) = for i < n do "
          "let a[i] = 0 in b in b", "type-error", (1, 73), "bound outside a lambda or loop body")


def test_loop_b_consumed_merge_needs_fresh_unique_value() -> None:
    fails("fun [int] main(int n, *[int] c) = loop (a = iota(n)) = for i < n do "
          "let a[i] = 0 in c in a", "parameter-mismatch", (1, 85),
          "must return a value of type *[int]")
    fails("fun [int] main(int n) = loop ({a, b} = {iota(n), iota(n)}) = for i < n do "
          "let a[0] = 1 in let b[0] = 1 in {a, a} in a", "unique-return-aliased", (1, 107))


def test_loop_c_initial_value_unique_and_consumed() -> None:
    fails("fun [int] main([int] xs, int n) = loop (a = xs) = for i < n do let a[i] = 0 in a in a",
          "type-error", (1, 68), "its initial value is not unique")
    fails("fun [int] main(int n) = let b = iota(n) in loop (a = b) = for i < n do "
          "let a[i] = i in a in b", "use-after-consume", (1, 93), "consumed at 1:54")
    check("fun [int] main(int n) = let b = iota(n) in loop (a = b) = for i < n do "
          "let a[i] = i in a in a")


def test_loop_reading_consumed_initial_value_in_body() -> None:
    fails("fun [int] main(int n) = let b = iota(n) in loop (a = b) = for i < n do "
          "let a[i] = b[i] in a in a", "use-after-consume", (1, 83))


def test_loop_bound_is_an_argument_of_the_loop() -> None:
    # The bound is evaluated with the initial value, which the loop consumes.
    fails("fun *[int] main(*[int] a) = loop (a) = for i < size(0, a) do let a[i] = 0 in a in a",
          "use-after-consume", (1, 56))
    check("fun *[int] main(*[int] a) = let n = size(0, a) in "
          "loop (a) = for i < n do let a[i] = 0 in a in a")


def test_loop_d_nonconsumed_merge_may_not_alias_unique_component() -> None:
    fails("fun [int] main(int n) = loop ({a, b} = {iota(n), iota(n)}) = for i < n do "
          "let a[0] = 1 in {a, a} in b", "unique-return-aliased", (1, 91))


def test_loop_result_aliases_free_variables() -> None:
    fails("fun int main(*[int] c, int n) = loop (x = c) = for i < n do c in let c[0] = 1 in x[0]",
          "use-after-consume", (1, 82))
    check("fun int main(*[int] c, int n) = loop (x = copy(c)) = for i < n do let x[0] = i in x in "
          "let c[0] = 1 in x[0]")


def test_nested_loops() -> None:
    check("""
fun *[[real]] main(*[[real]] a, int n) =
  loop (a) = for i < n do
    loop (a) = for j < n do
      let a[i, j] = a[i, j] * 2.0 in a
    in a
  in a""")
    check("""
fun {[[real]], [[real]]} main(*[[real]] a) =
  let n = size(0, a) in
  loop ({a, l, u} = {a, replicate(n, replicate(n, 0.0)), replicate(n, replicate(n, 0.0))}) =
    for k < n do
      let u[k, k] = a[k, k] in
      loop ({l, u}) = for i < n - k do
        let l[i + k, k] = a[i + k, k] / u[k, k] in
        let u[k, i + k] = a[k, i + k] in {l, u}
      in
      loop (a) = for i < n - k do
        loop (a) = for j < n - k do
          let a[i + k, j + k] = a[i + k, j + k] - l[i + k, k] * u[k, j + k] in a
        in a
      in {a, l, u}
  in {l, u}""")


# ----------------------------------------------------------------------------------
# 4.7: SOACs.


def test_reduce_consumes_neutral_of_unique_accumulator() -> None:
    body = ("let r = reduce(fn *[int] (*[int] acc, *[int] x) => acc, a, "
            "copy(replicate(2, iota(n)))) in")
    fails(f"fun *[int] main(int n) = let a = iota(n) in {body} a", "use-after-consume", (1, 136))
    check(f"fun *[int] main(int n) = let a = iota(n) in {body} r")


def test_scan_consumes_neutral_of_unique_accumulator() -> None:
    fails("fun *[[int]] main(int n) = let a = iota(n) in "
          "let r = scan(fn *[int] (*[int] acc, *[int] x) => acc, a, copy(replicate(2, iota(n)))) "
          "in let a[0] = 1 in r", "use-after-consume", (1, 140))


def test_tuple_accumulator_consumes_only_its_unique_component() -> None:
    text = """
fun {*[int], [int]} step({*[int], [int]} acc, {[int], [int]} x) =
  let {a, b} = acc in let {y, _} = x in let a[0] = y[0] in {a, b}
fun int main(int n, [int] xs) =
  let a = iota(n) in
  let b = iota(n) in
  let ys = map(fn {*[int], [int]} (int x) => {iota(x), iota(x)}, xs) in
  let {r, s} = reduce(step, {a, b}, ys) in
  USE"""
    fails(text.replace("USE", "a[0]"), "use-after-consume", (9, 3))
    check(text.replace("USE", "b[0] + r[0] + s[0]"))


def test_map_consuming_rows_consumes_the_array() -> None:
    fails("fun int main(*[[int]] a) = let b = map(fn *[int] (*[int] r) => r, a) in a[0, 0]",
          "use-after-consume", (1, 73))


def test_filter_cannot_consume() -> None:
    fails("fun [[int]] main(*[[int]] a) = filter(fn bool (*[int] r) => True, a)",
          "parameter-mismatch", (1, 67))


def test_reduce_with_unique_accumulator_takes_nonunique_rows() -> None:
    # *t <= t: the rows are only passed to `r`, they never become the result.
    check("fun *[int] main([[int]] a, int n) = "
          "reduce(fn *[int] (*[int] acc, [int] r) => acc, iota(n), a)")
    # They must still be similar to it.
    fails("fun *[int] main([[real]] a, int n) = "
          "reduce(fn *[int] (*[int] acc, [real] r) => acc, iota(n), a)", "type-error", (1, 95),
          "elements of the array given to reduce have type [real]")


def test_reduce_initial_value_must_be_unique_where_the_result_is() -> None:
    # Over an empty array the initial value is the result: it cannot be non-unique.
    fails("fun *[int] main([[int]] a) = "
          "reduce(fn *[int] ([int] acc, [int] r) => copy(acc), a[0], a)", "type-error", (1, 82),
          "initial value of reduce has type [int], but its function returns *[int]")


_TUPLE_ACC = """
fun {[int], [int]} main([[int]] a, [[int]] b) =
  let z = copy(a[0]) in
  let nb = b[0] in
  let r = SOAC(fn {*[int], [int]} ({*[int], [int]} acc, {[int], [int]} row) =>
                 let {x, y} = acc in
                 let {u, _} = row in
                 let x[0] = x[0] + u[0] in {x, y},
               {z, nb}, zip(a, b)) in
  USE"""


@pytest.mark.parametrize(("soac", "result"), [("reduce", "r"), ("scan", "r[0]")])
def test_tuple_accumulator_over_nonunique_rows(soac: str, result: str) -> None:
    # Rows {[int], [int]} fit the accumulator {*[int], [int]}; only the neutral
    # element's unique component is consumed, its other one stays usable.
    text = _TUPLE_ACC.replace("SOAC", soac)
    check(text.replace("USE", f"let {{s, t}} = {result} in {{s, concat(t, nb)}}"))
    fails(text.replace("USE", "{z, nb}"), "use-after-consume", (10, 4), "'z'")


@pytest.mark.parametrize("soac", ["reduceT", "scanT"])
def test_tuple_soac_unique_accumulator_over_nonunique_rows(soac: str) -> None:
    text = f"""
fun int main([[int]] a, [[int]] b) =
  let z = copy(a[0]) in
  let nb = b[0] in
  let r = {soac}(fn {{*[int], [int]}} (*[int] x, [int] y, [int] u, [int] v) =>
                   let x[0] = x[0] + u[0] in {{x, y}},
                 {{z, nb}}, a, b) in
  USE"""
    check(text.replace("USE", "nb[0]"))
    fails(text.replace("USE", "z[0]"), "use-after-consume", (8, 3), "'z'")


# ----------------------------------------------------------------------------------
# Functional arguments: what the internaliser reads (soacs Note [FunArg annotations]).


def _funarg(text: str, cls: type = A.FunArg) -> A.FunArg:
    prog = check(text)
    found = [n for n in _nodes(prog.fundefs) if isinstance(n, cls)]
    assert found and isinstance(found[0], A.FunArg)
    return found[0]


FUNARGS = [
    ("fun [int] f([int] a, [int] b) = map(op +, zip(a, b))", ["int", "int"], "int", True),
    ("fun [int] f([int] a) = map(op - (10), a)", ["int"], "int", False),
    ("fun [bool] f([int] a) = map(op < (0), a)", ["int"], "bool", False),
    ("fun [bool] f([bool] a) = map(op not, a)", ["bool"], "bool", False),
    ("fun [real] f([real] a) = map(op ~, a)", ["real"], "real", False),
    ("fun [real] f([int] a) = map(toReal, a)", ["int"], "real", False),
    ("fun int f([int] a) = reduce(op +, 0, a)", ["int", "int"], "int", False),
    ("fun [{int, int}] f([int] a, [int] b) = filter(op <, zip(a, b))", ["int", "int"], "bool",
     True),
    ("fun int g(int k, int x, real y) = k\nfun [int] f([int] a, [real] b) = map(g(1), zip(a, b))",
     ["int", "real"], "int", True),
    ("fun int g({int, int} p) = 0\nfun [int] f([int] a, [int] b) = map(g, zip(a, b))",
     ["{int, int}"], "int", False),
    ("fun [int] f([int] a, [int] b) = map(fn int (int x, int y) => x * y, zip(a, b))",
     ["int", "int"], "int", True),
    ("fun [int] f([int] a, [int] b) = map(fn int ({int, int} p) => 0, zip(a, b))",
     ["{int, int}"], "int", False),
    ("fun {int, int} f([int] a, [int] b) = reduce(fn {int, int} ({int, int} x, {int, int} y) => x, "
     "{0, 0}, zip(a, b))", ["{int, int}", "{int, int}"], "{int, int}", False),
    ("fun [[int]] f(int n) = map(fn *[int] (*[int] r) => r, replicate(n, iota(n)))",
     ["*[int]"], "*[int]", False),
    ("fun {int, real} f([int] a, [real] b) = reduceT(fn {int, real} (int x, real y, int z, real w) "
     "=> {x, y}, {0, 0.0}, a, b)", ["int", "real", "int", "real"], "{int, real}", False),
    ("fun {[int]} f([int] a, [int] b) = mapT(fn {int} (int x, int y) => {x}, a, b)",
     ["int", "int"], "{int}", False),
]


@pytest.mark.parametrize(("text", "params", "ret", "shim"), FUNARGS)
def test_funarg_annotations(text: str, params: list[str], ret: str, shim: bool) -> None:
    f = _funarg(text)
    assert f.param_types is not None
    assert [str(t) for t in f.param_types] == params
    assert str(f.ret_type) == ret
    assert f.shim is shim


def test_curried_arguments_are_typed() -> None:
    f = _funarg("fun int g(real k, int x) = x\nfun [int] f([int] a) = map(g(1.5), a)")
    assert isinstance(f, A.FunName) and str(f.curried[0].type) == "real"
    f = _funarg("fun [int] f([int] a) = map(op - (10), a)")
    assert isinstance(f, A.OpSection) and str(f.curried[0].type) == "int"


def test_redomap_annotations() -> None:
    prog = check("fun int f([int] a) = redomap(op +, fn int (int s, int x) => s + x, 0, a)")
    red = fun_of(prog, A.Redomap)
    assert isinstance(red, A.Redomap) and red.outer is not None and red.inner is not None
    assert [str(t) for t in red.outer.param_types or []] == ["int", "int"]
    assert [str(t) for t in red.inner.param_types or []] == ["int", "int"]


def test_named_function_shim_uses_remaining_parameters() -> None:
    # The original compared the tuple against all parameters and dropped curried ones.
    fails("fun int g(int x, int y) = x\nfun [int] f([int] a) = map(g(1), zip(a, a))",
          "parameter-mismatch", (2, 34),
          "must be of type int (parameter 'y'), but is of type {int, int}")


# ----------------------------------------------------------------------------------
# --inhibit-uniqueness-checking.


def test_inhibit_skips_only_occurrence_checks() -> None:
    lib = "fun int g(*[int] a) = 0\n"
    check(lib + "fun int main(*[int] a) = g(a) + a[0]", inhibit=True)
    check("fun int main(int n) = let v = iota(n) in let v[v[0]] = 1 in 0", inhibit=True)
    fails("fun int main([int] v) = let v[0] = 1 in v[0]", "type-error", inhibit=True)
    fails("fun *[int] main([int] a) = a", "return-aliased", inhibit=True)
    fails("fun int upd(*[int] a, int i) = i\nfun [int] main(*[int] a, [int] b) = map(upd(a), b)",
          "curried-consumption", inhibit=True)
    fails("fun [[int]] main(*[[int]] a) = let a[0] = a[1] in a", "bad-let-with-value", inhibit=True)
    fails("fun int main(*[int] a) = g(a)\nfun int g(*[int] a) = 0\nfun int h([int] a) = g(a)",
          "parameter-mismatch", inhibit=True)


# ----------------------------------------------------------------------------------
# docs/reference.md §8 and 9.


def test_reference_section8_program() -> None:
    check("""
// Sum of squares of the positive elements.
fun int sumsq([int] xs) =
  let ps = filter(op < (0), xs) in
  reduce(op +, 0, map(fn int (int x) => x * x, ps))

// In-place prefix sums; needs a unique input.
fun *[int] prefix(*[int] a) =
  let n = size(0, a) in
  loop (a) = for i < n - 1 do
    let a[i + 1] = a[i + 1] + a[i] in a
  in a

// Returning a tuple; the caller destructures it.
fun {int, real} stats([real] xs) =
  let n = size(0, xs) in
  {n, reduce(op +, 0.0, xs) / toReal(n)}

fun real main([real] xs, [int] ys) =
  let {n, mean} = stats(xs) in
  let zs = prefix(copy(ys)) in           // copy: ys is not unique
  mean + toReal(sumsq(zs) + n)
""")


SECTION8_REJECTED = [
    ("fun bool b(bool p) = p = True", "unexpected-type"),
    ("fun int c([int] v) = let v[0] = 1 in v[0]", "type-error"),
    ("fun int e(int n) = let v = iota(n) in let v[v[0]] = 1 in 0", "use-after-consume"),
    ("fun int h(*[int] v) = 0\nfun int g(*[int] v) = if v[0] = 1 then h(v) else 0",
     "use-after-consume"),
]


@pytest.mark.parametrize(("text", "kind"), SECTION8_REJECTED)
def test_reference_section8_rejected(text: str, kind: str) -> None:
    fails(text, kind)


def test_reference_section9_letwith_indices_observe_anything() -> None:
    lib = "fun int g(*[int] a) = 0\n"
    fails(lib + "fun int main(*[int] a, *[int] b) = let a[b[0]] = 1 in g(b)",
          "use-after-consume", (2, 42))
    check(lib + "fun int main(*[int] a, *[int] b) = let i = b[0] in let a[i] = 1 in g(b)")


def test_reference_section9_if_branch_types() -> None:
    fails("fun real main(bool c) = if c then 3 else 2.5", "unify-error", (1, 25))


def test_thesis_chapter3_examples() -> None:
    modify = "fun *[int] modify(*[int] a, int i, int x) = let b = a with [i] <- a[i] + x in b\n"
    check(modify + "fun [int] main(*[int] a) = modify(a, 0, 1)")
    # Figure 5: a used after being the source of a let-with.
    fails("fun int f([int] b, [int] a) = 0\n"
          "fun int main(*[int] a, int i) = let b = a with [i] <- 2 in f(b, a)",
          "use-after-consume", (2, 65))
    # Figure 6: the unique result aliases the non-unique parameter.
    fails("fun *[int] broken([[int]] a, int i) = a[i]", "return-aliased", (1, 39))
    # replace composes; replace2, returning a non-unique array, does not.
    replace = "fun *[int] replace(*[int] arr, int i, int x) = let arr[i] = x in arr\n"
    check(replace + "fun [int] main(int n) = replace(replace(iota(n), 0, 1), 1, 2)")
    replace2 = "fun [int] replace2(*[int] arr, int i, int x) = let arr[i] = x in arr\n"
    fails(replace2 + "fun [int] main(int n) = replace2(replace2(iota(n), 0, 1), 1, 2)",
          "parameter-mismatch", (2, 34))
    # Constant arrays are not unique; a copy is.
    fails("fun [int] fibs(int i, int x) = let a = [1, 1, 2, 3, 5, 8, 13] in let a[i] = x in a",
          "type-error", (1, 70))
    check("fun [int] fibs(int i, int x) = let a = copy([1, 1, 2, 3, 5, 8, 13]) in "
          "let a[i] = x in a")


# ----------------------------------------------------------------------------------
# The 2014 suite's expected failures (docs/reference.md §7), reconstructed from the
# descriptions there (the original files are not in this repository), with the
# kinds the original reported. `map2-error1` is a parse error (test_parser.py).

SUITE_FAILURES = {
    "funcall-error1": ("fun int f(int a, int b) = a + b\nfun int main() = f(1, 2, 3)",
                       "parameter-mismatch"),
    "returntype-error1": ("fun *[int] main([int] a) = a", "return-aliased"),
    "returntype-error2": ("fun int main() = 1.0 + 2.0", "return-type-error"),
    "returntype-error3": ("fun {*[int], *[int]} main(*[int] a, *[int] b, bool c) = "
                          "if c then {a, b} else {a, a}", "unique-return-aliased"),
    "uniqueness-error12": ("fun int f(*[int] a, int i) = i\n"
                           "fun [int] main(*[int] a, [int] b) = map(f(a), b)",
                           "curried-consumption"),
    "uniqueness-error14": ("fun [int] main(int n, [int] c) = loop (a = iota(n)) = for i < n do "
                           "let a[i] = 0 in c in a", "parameter-mismatch"),
    "uniqueness-error18": ("fun {*[int], *[int]} main(int n) = "
                           "let a = iota(n) in let b = a in {a, b}",
                           "unique-return-aliased"),
    "uniqueness-error19": ("fun [int] main(*[int] a, int n) = loop (s = 0) = for i < n do "
                           "let a[i] = i in s in a", "type-error"),
    "uniqueness-error20": ("fun [[int]] main(*[int] a, [int] xs) = "
                           "map(fn [int] (int x) => let a[0] = x in a, xs)", "type-error"),
    "uniqueness-error22": ("fun int f(*[int] a) = 0\n"
                           "fun [int] main(*[int] a, [int] xs) = map(fn int (int x) => f(a), xs)",
                           "parameter-mismatch"),
    "uniqueness-reduce-error0": ("fun [int] main(int n) = let a = iota(n) in let r = "
                                 "reduce(fn *[int] (*[int] x, *[int] y) => x, a, "
                                 "copy(replicate(n, iota(n)))) in a", "use-after-consume"),
    "uniqueness-scan-error0": ("fun [[int]] main(int n) = let a = iota(n) in let r = "
                               "scan(fn *[int] (*[int] x, *[int] y) => x, a, "
                               "copy(replicate(n, iota(n)))) in {r, a}", "use-after-consume"),
    "loop-error0": ("fun int main(int n) = let a = iota(n) in let b = loop (a) = for i < n do "
                    "let a[i] = i in a in a in a[0]", "use-after-consume"),
    # UseAfterConsume, over the features the uniqueness tests exercise.
    "alias via let": ("fun int main(*[int] a) = let b = a in let a[0] = 1 in b[0]",
                      "use-after-consume"),
    "alias via row": ("fun int main(*[[int]] a) = let r = a[0] in let a[0] = iota(3) in r[0]",
                      "use-after-consume"),
    "alias via transpose": ("fun int main(*[[int]] a) = let t = transpose(a) in "
                            "let a[0, 0] = 1 in t[0, 0]", "use-after-consume"),
    "alias via function result": ("fun [int] id([int] a) = a\nfun int main(*[int] a) = "
                                  "let b = id(a) in let a[0] = 1 in b[0]", "use-after-consume"),
    "alias via if": ("fun int main(*[int] a, [int] c, bool p) = let b = if p then a else c in "
                     "let a[0] = 1 in b[0]", "use-after-consume"),
    "alias via tuple": ("fun int main(*[int] a) = let {b, n} = {a, 1} in let a[0] = n in b[0]",
                        "use-after-consume"),
    "shadowed name": ("fun int main(*[int] a) = let b = a in let a = b in "
                      "let a[0] = 1 in b[0]", "use-after-consume"),
    "consumed in loop": ("fun [int] main(*[int] a, int n) = loop (b = a) = for i < n do "
                         "let b[i] = 0 in b in a", "use-after-consume"),
    "sequence rule": ("fun int f(*[int] a) = 0\nfun int main(*[int] a) = f(a) + a[0]",
                      "use-after-consume"),
    "two consuming arguments": ("fun int f(*[int] a, *[int] b) = 0\n"
                                "fun int main(*[int] a) = f(a, a)", "use-after-consume"),
    "unique parameter used after call": ("fun *[int] f(*[int] a) = a\n"
                                         "fun int main(*[int] a) = let b = f(a) in a[0]",
                                         "use-after-consume"),
    "consumed in lambda array": ("fun *[int] f(*[int] a) = a\nfun [int] main(*[int] a) = "
                                 "let b = map(op + (1), f(a)) in a", "use-after-consume"),
    "tuple element consumed": ("fun int f(*[int] a) = 0\nfun {int, [int]} main(*[int] a) = "
                               "{f(a), a}", "use-after-consume"),
    "wildcard does not hide use": ("fun int f(*[int] a) = 0\nfun int main(*[int] a) = "
                                   "let _ = f(a) in a[0]", "use-after-consume"),
}


@pytest.mark.parametrize("name", sorted(SUITE_FAILURES))
def test_suite_expected_failure(name: str) -> None:
    text, kind = SUITE_FAILURES[name]
    fails(text, kind)


# ----------------------------------------------------------------------------------
# Accepted programs with in-place updates, unique returns, shadowing.

ACCEPTED = [
    """fun *[int] fib(int n) =
  let arr = iota(n) in let arr[0] = 0 in let arr[1] = 1 in
  loop (arr) = for i < n - 2 do let arr[i + 2] = arr[i] + arr[i + 1] in arr in arr
fun [int] main(int n) = fib(n)""",
    """fun *[[int]] matmult([[int]] x, [[int]] y) =
  let n = size(0, x) in
  let res = copy(replicate(n, replicate(n, 0))) in
  loop (res) = for i < n do
    loop (res) = for j < n do
      let res[i, j] = reduce(op +, 0, map(op *, zip(x[i], transpose(y)[j]))) in res
    in res
  in res
fun [[int]] main([[int]] x, [[int]] y) = matmult(x, y)""".replace("transpose(y)[j]", "y[j]"),
    """fun *[int] replace(*[int] arr, int i, int x) = let arr[i] = x in arr
fun [int] main(int n) = replace(replace(iota(n), 0, 5), 1, 6)""",
    """fun {*[int], *[int]} two(int n) = let a = iota(n) in {a, copy(a)}
fun int main(int n) = let {a, b} = two(n) in let a[0] = 1 in let b[0] = 2 in a[0] + b[0]""",
    """fun [real] main([real] xs) =
  let sums = scan(op +, 0.0, xs) in
  let n = size(0, sums) in
  let out = copy(sums) in
  loop (out) = for i < n do let out[i] = out[i] / toReal(i + 1) in out in out""",
    """fun {[int], [int]} main(*[int] a, *[int] b, int n) =
  loop ({a, b}) = for i < n do
    let a[i] = b[i] in
    let b[i] = a[i] + 1 in {b, a}
  in {a, b}""",
    """fun int main(*[int] a, bool c) =
  let a = if c then let a[0] = 1 in a else let a[1] = 2 in a in
  let a[2] = 3 in a[0]""",
    """fun [int] main([int] xs) =
  let c = assert(0 < size(0, xs)) in
  let ys = copy(xs) in
  let <c> ys[<c> | 0] = <c> xs[0] + 1 in ys""".replace("<c> xs[0]", "xs[<c> | 0]"),
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_accepted(text: str) -> None:
    check(text)


# ----------------------------------------------------------------------------------
# Messages, size and speed.


def test_messages_are_lowercase_without_final_period() -> None:
    cases = [t for t, _, _, _ in ERRORS] + [t for t, _ in SUITE_FAILURES.values()]
    for text in cases:
        with pytest.raises(L0Error) as info:
            check(text)
        message = info.value.message
        assert message[0].islower() or message[0] == "'", message
        assert not message.endswith("."), message


def test_long_let_chains_do_not_recurse() -> None:
    text = "fun *[int] main(int n) =\n  let a = iota(n) in\n" + "".join(
        f"  let b{i} = a[{i}] in let a[{i}] = b{i} + 1 in\n" for i in range(5000)
    ) + "  a"
    check(text)


def _program(functions: int) -> str:
    out = []
    for f in range(functions):
        lines = [f"fun *[int] f{f}(*[int] a, [[int]] m, int n) ="]
        for i in range(10):
            lines.append(f"  let x{i} = map(fn int (int v) => v * {i} + m[0, v], a) in")
            lines.append(f"  let y{i} = reduce(op +, 0, x{i}) + size(0, m) in")
            lines.append(f"  let a[{i} % n] = y{i} + a[0] in")
        lines.append("  loop (a) = for i < n do let a[i] = a[i] + 1 in a in a")
        out.append("\n".join(lines))
    out.append("fun int main() = 0")
    return "\n".join(out)


def test_350_line_program_checks() -> None:
    # Speed is measured by `benchmarks/compile_time.py`, not asserted here.
    text = _program(11)
    assert text.count("\n") >= 350
    prog = parse_program(text, "big.l0")
    check_program(prog)
    assert prog.fundefs[-1].name == "main"
