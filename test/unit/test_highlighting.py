"""Editor highlighting: the Pygments lexer (`l0.editor.pygments_lexer`, the entry point
behind `pygmentize -l l0`) on every corpus program, and the TextMate grammar of
editors/vscode held to the same tables as the compiler's lexer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Error, Keyword, Name, Number, Operator, Punctuation, String

from l0.diagnostics import L0Error
from l0.editor.pygments_lexer import L0Lexer
from l0.syntax.escapes import ESCAPE_PATTERN, STRING_ESCAPE_PATTERN
from l0.syntax.lexer import KEYWORD_ROLES, KEYWORDS, tokenize
from l0.typecheck.builtins import BUILTIN_NAMES

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted(
    [*ROOT.glob("test/programs/**/*.l0"), *ROOT.glob("benchmarks/programs/*.l0"),
     *ROOT.glob("examples/*.l0")]
)
VSCODE = ROOT / "editors" / "vscode"
GRAMMAR = VSCODE / "syntaxes" / "l0.tmLanguage.json"

ROLE_TOKENS = {
    "keyword": Keyword, "type": Keyword.Type, "constant": Keyword.Constant,
    "operator": Operator.Word, "builtin": Name.Builtin,
}
ROLE_OF = {w: role for role, ws in KEYWORD_ROLES.items() for w in ws}


def expected_token(kind: str, text: str) -> tuple:
    """The Pygments token types a token of the compiler's lexer may get."""
    if kind in KEYWORDS:
        return (ROLE_TOKENS[ROLE_OF[kind]],)
    if kind == "ID":
        return (Name.Builtin,) if text in BUILTIN_NAMES else (Name, Name.Function)
    if kind in ("INTLIT", "REALLIT"):
        return (Number.Integer if kind == "INTLIT" else Number.Float,)
    if kind in ("CHARLIT", "STRINGLIT"):
        return (String.Char if kind == "CHARLIT" else String.Double,)
    return (Keyword,) if kind == "_" else (Operator, Punctuation)


def test_pygments_finds_the_lexer_by_its_entry_point() -> None:
    assert isinstance(get_lexer_by_name("l0"), L0Lexer)
    assert isinstance(get_lexer_for_filename("prog.l0"), L0Lexer)


def test_every_corpus_program_highlights_as_the_compiler_lexes_it() -> None:
    """No Error token in any program the compiler's lexer accepts, and each of its
    tokens starts a Pygments token of the matching kind."""
    lexer = L0Lexer()
    checked = 0
    for path in CORPUS:
        text = path.read_text(encoding="utf-8")
        try:
            tokens = tokenize(text, str(path))
        except L0Error:
            continue
        found = {i: t for i, t, _ in lexer.get_tokens_unprocessed(text)}
        errors = [i for i, t in found.items() if t in Error]
        assert not errors, f"{path}: error tokens at offsets {errors[:5]}"
        for tok in tokens:
            assert found.get(tok.start_pos) in expected_token(tok.type, tok.value), (
                f"{path}:{tok.line}:{tok.column}: {tok.value!r} is {found.get(tok.start_pos)}"
            )
        checked += 1
    assert checked > 300


@pytest.mark.parametrize("text", ["fun int main() = 1 ! 2", "fun int main() = 1;", "'a\n", '"ab\n'])
def test_what_the_compiler_cannot_lex_gets_an_error_token(text: str) -> None:
    with pytest.raises(L0Error):
        tokenize(text, "t.l0")
    assert any(t in Error for _, t, _ in L0Lexer().get_tokens_unprocessed(text))


# -- the TextMate grammar and the VS Code extension ------------------------------------


def _alternatives(pattern: str) -> set[str]:
    m = re.fullmatch(r"\\b\(\?:([A-Za-z|]+)\)\\b", pattern)
    assert m, pattern
    return set(m.group(1).split("|"))


def test_the_textmate_grammar_has_the_compilers_words() -> None:
    repo = json.loads(GRAMMAR.read_text(encoding="utf-8"))["repository"]
    rules = {"keyword": "keyword", "type": "type", "constant": "constant",
             "operator-word": "operator", "builtin": "builtin"}
    assert set(rules.values()) == set(KEYWORD_ROLES)
    for rule, role in rules.items():
        assert _alternatives(repo[rule]["match"]) == KEYWORD_ROLES[role], rule
    assert _alternatives(repo["builtin-function"]["match"]) == BUILTIN_NAMES
    escapes = [p["match"] for p in repo["string"]["patterns"]]
    assert escapes == [ESCAPE_PATTERN, STRING_ESCAPE_PATTERN]
    assert [p["match"] for p in repo["char"]["patterns"]] == [ESCAPE_PATTERN]


def _regexes(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [v for k, v in node.items() if k in ("match", "begin", "end")]
        return own + [r for v in node.values() for r in _regexes(v)]
    if isinstance(node, list):
        return [r for v in node for r in _regexes(v)]
    return []


def test_the_textmate_grammar_is_well_formed() -> None:
    grammar = json.loads(GRAMMAR.read_text(encoding="utf-8"))
    assert grammar["scopeName"] == "source.l0"
    for include in grammar["patterns"]:
        assert include["include"].removeprefix("#") in grammar["repository"]
    for regex in _regexes(grammar):
        re.compile(regex)  # the grammar uses the subset Oniguruma and Python share


def test_the_vscode_extension_manifest() -> None:
    manifest = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    (language,) = manifest["contributes"]["languages"]
    assert language["id"] == "l0" and ".l0" in language["extensions"]
    json.loads((VSCODE / language["configuration"]).read_text(encoding="utf-8"))
    (grammar,) = manifest["contributes"]["grammars"]
    assert grammar["scopeName"] == "source.l0" and (VSCODE / grammar["path"]).is_file()
    assert (VSCODE / manifest["main"]).is_file()
    command = manifest["contributes"]["configuration"]["properties"]["l0.server.command"]
    assert command["default"] == ["l0", "lsp"]
