"""The front end's view for editors: `l0.syntax.symbols` (binding sites, references,
scopes) and `program_errors`/`check_source` (every function's first error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from l0.diagnostics import L0Error
from l0.frontend import check_source
from l0.syntax import ast as A
from l0.syntax.parser import parse_program
from l0.syntax.symbols import Definition, DefKind, Reference, SymbolIndex
from l0.typecheck import check_program
from l0.types import INT, similar

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted(
    [*ROOT.glob("test/programs/**/*.l0"), *ROOT.glob("benchmarks/programs/*.l0"),
     *ROOT.glob("examples/*.l0")]
)


def index_of(text: str) -> SymbolIndex:
    prog, errors = check_source(text, "t.l0")
    assert prog is not None and errors == []
    return SymbolIndex.build(prog)


def where(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based line and column of the `nth` occurrence of `needle`."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    return text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)


def test_scoping_agrees_with_the_type_checker_on_the_corpus() -> None:
    """Every variable mention in every program that checks resolves to a binding, and
    the checker gave the mention that binding's type: the index scopes as it does."""
    mentions = 0
    for path in CORPUS:
        prog, errors = check_source(path.read_text(encoding="utf-8"), str(path))
        if prog is None or errors:
            continue
        index = SymbolIndex.build(prog)
        var_at = {id(e.loc): e for e in index.expressions if isinstance(e, A.Var)}
        for r in index.references:
            if r.is_function:
                assert r.target is None or r.target.kind is DefKind.FUNCTION
                continue
            assert r.target is not None, f"{r.loc}: '{r.name}' unresolved"
            var = var_at.get(id(r.loc))
            if var is not None and var.type is not None and r.target.type is not None:
                mentions += 1
                assert similar(var.type, r.target.type), f"{r.loc}: '{r.name}'"
    assert mentions > 1000


def test_program_errors_starts_with_check_programs_error_on_the_corpus() -> None:
    for path in CORPUS:
        text = path.read_text(encoding="utf-8")
        try:
            prog = parse_program(text, str(path))
        except L0Error:
            continue
        try:
            check_program(prog)
            expected = None
        except L0Error as err:
            expected = err.render()
        _, errors = check_source(text, str(path))
        assert (errors[0].render() if errors else None) == expected, path


def test_every_function_reports_its_first_error() -> None:
    text = (
        "fun int f(int x) = x + 1.0\n"
        "fun int f(int x) = x\n"  # a duplicate: reported, its body checked too
        "fun int sqrt(real x) = y\n"  # a builtin's name
        "fun int g(int x) = f(x) + True\n"
    )
    prog, errors = check_source(text, "t.l0")
    assert prog is not None
    assert [(e.kind, e.loc.line) for e in errors] == [
        ("dup-definition", 2), ("dup-definition", 3),
        ("unify-error", 1), ("unknown-variable", 3), ("unexpected-type", 4), ("missing-main", 1),
    ]


def test_a_parse_error_is_the_only_error() -> None:
    prog, errors = check_source("fun int main() = let x = 1\n", "t.l0")
    assert prog is None
    assert [e.kind for e in errors] == ["parse-error"]


SHADOW = """\
fun [int] main(*[int] a, int n) =
  let n = n + 1 in
  let b = a with [0] <- n in
  loop (b) = for i < n do
    let b[i] = i in b
  in map(fn int (int n) => n * 2, b)
"""


def test_shadowing_and_binding_forms() -> None:
    ix = index_of(SHADOW)

    def target(needle: str, nth: int = 0) -> Definition:
        found = ix.name_at(*where(SHADOW, needle, nth))
        assert isinstance(found, Reference) and found.target is not None, needle
        return found.target

    # A let's value sees the outer `n`, its body the new one.
    assert target("n + 1").kind is DefKind.PARAM
    assert target("n in\n  loop").loc.line == 2
    # A let-with reads `a` and binds `b`; the shorthand loop reads that `b` as its
    # initial value where it binds the merge variable `b`.
    assert target("a with").kind is DefKind.PARAM
    assert target("b) = for").kind is DefKind.LET
    assert target("b[i]").kind is DefKind.MERGE
    assert target("i in b").kind is DefKind.LOOP_VAR
    assert target("i in b").type == INT
    # The lambda's parameter shadows the let-bound `n`; after the loop `b` is its result.
    assert target("n * 2").kind is DefKind.LAMBDA_PARAM
    after = target("b)\n")
    assert after.kind is DefKind.MERGE and after.loc.line == 4
    # Binding sites are found as definitions.
    found = ix.name_at(*where(SHADOW, "n) =>"))
    assert isinstance(found, Definition) and found.kind is DefKind.LAMBDA_PARAM


def test_scope_at_a_position() -> None:
    ix = index_of(SHADOW)
    assert sorted(ix.scope_at(*where(SHADOW, "n + 1"))) == ["a", "n"]
    assert sorted(ix.scope_at(*where(SHADOW, "i in b"))) == ["a", "b", "i", "n"]
    assert sorted(ix.scope_at(*where(SHADOW, "n * 2"))) == ["a", "b", "n"]
    assert ix.scope_at(*where(SHADOW, "n * 2"))["n"].kind is DefKind.LAMBDA_PARAM
    assert ix.scope_at(1, 1) == {}  # the function's header: no body yet


@pytest.mark.parametrize("needle, kind", [("n + 1", A.Var), ("+ 1", A.BinOp), ("1 in", A.IntLit)])
def test_innermost_expression(needle: str, kind: type) -> None:
    e = index_of(SHADOW).expression_at(*where(SHADOW, needle))
    assert isinstance(e, kind)
