"""The L0 parser: source text to `ast.Program` (docs/reference.md §§1 and 2).

    parse_program(text, filename) -> ast.Program
    parse_type(text, filename) -> types.Type

Pipeline: `lexer.tokenize` (hand-written, longest match) -> lark's LALR(1) parser
over `grammar.lark` -> `builder.AstBuilder` as lark's inline transformer, so the AST
is built during parsing with no parse tree and no recursion. Operator precedence is
resolved in `operators.py` (Note [Operator precedence]).

Errors are `L0Error`s: `lexical-error` from the lexer, `parse-error` from the parser,
located at the offending token (or just after the last token at end of file), as
`unexpected token 'x', expected ...` with the expected tokens summarised ("an
expression", "an operator", "a type") rather than listed one by one.

The lark parser is built once per process and shared (its tables are cached on
disk by lark, see `_Parser`); a lock makes `parse_program` safe to call from
several threads.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lark import Lark
from lark.exceptions import UnexpectedInput, UnexpectedToken
from lark.lexer import Lexer, PatternStr
from lark.parsers.lalr_analysis import Shift

from l0 import types as T
from l0.diagnostics import L0Error, Loc
from l0.syntax import ast as A
from l0.syntax.builder import AstBuilder, Spanned
from l0.syntax.lexer import KEYWORDS, LITERAL_KINDS, PUNCTUATION, L0Token, tokenize
from l0.syntax.operators import BINARY_PREC

_GRAMMAR = Path(__file__).with_name("grammar.lark")

# How expected terminals are named in messages.
_LITERAL_NAMES: dict[str, str] = {
    "ID": "an identifier",
    "INTLIT": "an integer literal",
    "REALLIT": "a real literal",
    "CHARLIT": "a character literal",
    "STRINGLIT": "a string literal",
    "$END": "end of file",
}

# Tokens that can start an expression; the lexer's spelling (kinds for literals).
_EXP_START: frozenset[str] = frozenset(
    LITERAL_KINDS
    + tuple(
        """( [ { - not < True False Checked empty iota replicate size reshape transpose
        split concat copy assert conjoin zip unzip map filter reduce scan redomap
        mapT filterT reduceT scanT redomapT if let loop""".split()
    )
)
_TYPE_START: frozenset[str] = frozenset("int real bool char cert { [ *".split())


class _TokenList(Lexer):
    """Lark's view of our lexer: the tokens are already there, `parse` gets the list.

    This is lark's original custom-lexer interface (`lex(data)`, where `data` is
    what `Lark.parse` was given), which lark 1.x wraps; hence the `override` and
    `arg-type` exemptions below."""

    def __init__(self, lexer_conf: Any) -> None:
        pass

    def lex(self, data: Any) -> Iterator[Any]:  # type: ignore[override]  # the one-argument interface
        return iter(data)


class _Parser:
    """The shared lark parser, the builder it calls, and the token-name tables."""

    def __init__(self) -> None:
        self.builder = AstBuilder()
        self.lark = Lark(
            _GRAMMAR.read_text(),
            parser="lalr",
            lexer=_TokenList,
            start=["start", "type", "prompt"],
            strict=True,  # a shift/reduce conflict in the grammar is a bug
            keep_all_tokens=True,
            maybe_placeholders=True,
            transformer=self.builder,
            # The grammar analysis (~0.4 s) is cached in the temp directory, keyed by
            # a hash of grammar, options and lark version; loading takes ~0.02 s.
            # Lark falls back to a fresh analysis if the cache is unreadable.
            cache=True,
        )
        # Lexer kind (keyword/punctuation text) -> lark terminal name, and back.
        self.terminal: dict[str, str] = {k: k for k in LITERAL_KINDS}
        for term in self.lark.terminals:
            if isinstance(term.pattern, PatternStr):
                self.terminal[term.pattern.value] = term.name
        missing = (KEYWORDS | set(PUNCTUATION)) - self.terminal.keys()
        assert not missing, f"tokens unknown to the grammar: {sorted(missing)}"
        self.spelling: dict[str, str] = {name: kind for kind, name in self.terminal.items()}
        self.lock = threading.Lock()

    def parse(self, text: str, filename: str, start: str) -> Any:
        tokens = tokenize(text, filename)
        for tok in tokens:
            tok.type = self.terminal[tok.type]
        with self.lock:
            self.builder.file = filename
            try:
                return self.lark.parse(tokens, start=start)
            except UnexpectedToken as e:
                raise self.unexpected(e, tokens, filename) from None
            except UnexpectedInput as e:  # not raised by LALR with our lexer; be safe
                line = e.line if isinstance(e.line, int) else 1
                col = e.column if isinstance(e.column, int) else 1
                loc = Loc(filename, line, col, line, col)
                raise L0Error(loc, "syntax error", "parse-error") from None

    def unexpected(self, e: UnexpectedToken, tokens: list[L0Token], filename: str) -> L0Error:
        expected = {self.spelling.get(name, name) for name in _accepted(e)}
        tok = e.token
        if tok.type == "$END":
            line, col = (tokens[-1].end_line, tokens[-1].end_column) if tokens else (1, 1)
            found = "end of file"
        else:
            line, col = tok.line, tok.column
            text = str(tok.value)
            text = text if len(text) <= 24 else text[:20] + "..."
            found = f"token '{text}'"
        loc = Loc(filename, line or 1, col or 1, line or 1, col or 1)
        message = f"unexpected {found}, expected {describe_expected(expected)}"
        index = next((i for i, t in enumerate(tokens) if t is tok), len(tokens))
        previous = tokens[index - 1].value if index > 0 else ""
        hint = _hint(str(tok.value) if tok.type != "$END" else "", previous, expected)
        return L0Error(loc, message + hint, "parse-error")


def _accepted(e: UnexpectedToken) -> set[str]:
    """The terminals that can really come next.

    LALR tables merge look-ahead sets, so the terminals with an action in the failing
    state (`e.expected`) include some that would fail after a few reductions. Run
    the automaton on a copy of the state stack for each candidate (reductions only,
    no callbacks, no values) and keep those that reach a shift or the end."""
    state = e.interactive_parser.parser_state if e.interactive_parser else None
    if state is None:
        return set(e.expected)
    conf = state.parse_conf
    states = conf.states
    accepted: set[str] = set()
    for name in states[state.state_stack[-1]]:
        if not name.isupper():  # a rule, not a terminal
            continue
        stack = list(state.state_stack)
        for _ in range(10 * len(states)):  # reductions are finite; the bound is insurance
            if name not in states[stack[-1]]:
                break
            action, arg = states[stack[-1]][name]
            if action is Shift:
                accepted.add(name)
                break
            if arg.expansion:
                del stack[-len(arg.expansion) :]
            stack.append(states[stack[-1]][arg.origin.name][1])
            if name == "$END" and stack[-1] == conf.end_state:
                accepted.add(name)
                break
    return accepted or set(e.expected)


def describe_expected(expected: set[str]) -> str:
    """A short English list of what the parser expected (lexer spellings in, text out)."""
    rest = set(expected)
    groups: list[str] = []
    if {"ID", "INTLIT", "if"} <= rest:
        groups.append("an expression")
        rest -= _EXP_START
    if {"+", "pow"} <= rest:
        groups.append("an operator")
        rest -= BINARY_PREC.keys()
    if {"int", "real"} <= rest:
        groups.append("a type")
        rest -= _TYPE_START
    at_end = "$END" in rest
    rest.discard("$END")
    words = [f"'{s}'" for s in sorted(s for s in rest if s not in _LITERAL_NAMES)]
    words += [_LITERAL_NAMES[s] for s in sorted(rest & _LITERAL_NAMES.keys())]
    if len(words) > 8:
        words = [*words[:7], "..."]
    words += groups
    if at_end:
        words.append(_LITERAL_NAMES["$END"])
    if not words:
        return "nothing more"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _hint(found: str, previous: str, expected: set[str]) -> str:
    """Extra advice for the classic mistakes (docs/reference.md §1.5, 2.3, 2.6)."""
    if expected == {"fn"} or (previous == "fn" and expected == {"{"}):
        return " (a T-SOAC takes a tuple lambda 'fn {T, ...} (params) => e')"
    if "+" not in expected:
        return ""
    if found == ">":
        return " (L0 has no '>' operator; write 'b < a' for 'a > b')"
    if found == "<-":
        return " ('<-' is one token; write 'x < -1' to compare with a negative number)"
    if found == "[" and "[" not in expected:
        return " (only variables can be indexed; bind the value with 'let' first)"
    return ""


_PARSER: _Parser | None = None
_PARSER_LOCK = threading.Lock()


def _parser() -> _Parser:
    global _PARSER
    with _PARSER_LOCK:
        if _PARSER is None:
            _PARSER = _Parser()
        return _PARSER


def parse_program(text: str, filename: str) -> A.Program:
    """Parse a whole L0 program. Raises `L0Error` (`lexical-error`/`parse-error`)."""
    fundefs: list[A.FunDef] = _parser().parse(text, filename, "start")
    return A.Program(fundefs, file=filename)


def parse_prompt(text: str, filename: str) -> list[A.FunDef] | A.LetPat | A.Exp:
    """Parse one entry of `l0 repl`: function definitions, a binding `let PAT = e` (a
    `LetPat` without body) or an expression."""
    result: list[A.FunDef] | A.LetPat | A.Exp = _parser().parse(text, filename, "prompt")
    return result


def parse_type(text: str, filename: str = "<type>") -> T.Type:
    """Parse an L0 type such as `*[[int]]` or `{int, [real]}`."""
    result: Spanned = _parser().parse(text, filename, "type")
    return result.value
