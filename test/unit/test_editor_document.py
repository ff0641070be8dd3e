"""`l0.editor.document`, the language server's answers without the protocol (the server
itself: test_lsp.py)."""

from __future__ import annotations

import random
from pathlib import Path

from l0.diagnostics import L0Error
from l0.editor.document import (
    CompletionKind,
    analyse,
    completions,
    definition,
    hover,
    outline,
)
from l0.syntax.lexer import tokenize

PROGRAM = """\
fun int main(*[int] a) =
  let b = map(fn int (int x) => a[x] + 1, iota(3)) in
  let a[0] = 7 in
  reduce(op +, 0, b) + a[0]
"""


def test_hover_shows_a_mention_as_the_checker_saw_it() -> None:
    a = analyse(PROGRAM, "t.l0")
    assert a.errors == []
    # Unique where bound, not inside the lambda (docs/reference.md §4.5).
    binding = hover(a, 1, 21)
    inside = hover(a, 2, 33)
    assert binding is not None and "a : *[int]" in binding.markdown
    assert inside is not None and "a : [int]" in inside.markdown
    assert "parameter, bound at 1:21" in inside.markdown
    # `let a[0] = 7` reads the parameter `a` and binds a new `a`, which the body sees.
    after, updated = definition(a, 4, 25), definition(a, 3, 7)
    assert after is not None and (after.line, after.col) == (3, 7)
    assert updated is not None and (updated.line, updated.col) == (1, 21)
    section = hover(a, 4, 11)
    assert section is not None and ": (int, int) -> int" in section.markdown


def test_completion_falls_back_to_the_last_text_that_parsed() -> None:
    first = analyse(PROGRAM, "t.l0")
    broken = analyse(PROGRAM.replace("+ a[0]", "+ a[0] +"), "t.l0", first)
    assert broken.index is None and [e.kind for e in broken.errors] == ["parse-error"]
    names = {c.label: c.kind for c in completions(broken, 4, 3)}
    assert names["b"] is CompletionKind.VARIABLE and names["a"] is CompletionKind.VARIABLE
    assert names["main"] is CompletionKind.FUNCTION and names["sqrt"] is CompletionKind.BUILTIN
    # Still broken after another edit: the same fallback.
    again = analyse(PROGRAM.replace("+ a[0]", "+ a[0] + +"), "t.l0", broken)
    assert again.names_from is first
    # With nothing that ever parsed: builtins and keywords only.
    alone = analyse("fun", "t.l0")
    assert {c.kind for c in completions(alone, 1, 4)} == {
        CompletionKind.BUILTIN, CompletionKind.KEYWORD,
    }


def test_every_query_answers_on_broken_programs() -> None:
    """Programs of the corpus with one token replaced (type errors leave parts of the
    AST without types): hover, definition, completion and the outline answer
    everywhere, and the errors are located inside the text."""
    rng = random.Random(31)
    root = Path(__file__).resolve().parents[2] / "test" / "programs"
    paths = sorted(root.glob("**/*.l0"))
    for path in rng.sample(paths, 40):
        text = path.read_text(encoding="utf-8")
        try:
            tokens = tokenize(text, "t.l0")
        except L0Error:  # the corpus's lexical errors
            tokens = []
        first = analyse(text, "t.l0")
        for tok in rng.sample(tokens, min(3, len(tokens))):
            new = rng.choice(["", "x", "1.0", "True", "(", "let", "map"])
            broken = text[: tok.start_pos] + new + text[tok.end_pos :]
            a = analyse(broken, "t.l0", first)
            lines = broken.split("\n")
            for err in a.errors:
                assert 1 <= err.loc.line <= len(lines), err.render()
            outline(a)
            for line, content in enumerate(lines, 1):
                for col in range(1, len(content) + 2):
                    hover(a, line, col)
                    definition(a, line, col)
            assert completions(a, len(lines), 1)
