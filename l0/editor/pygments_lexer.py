"""A Pygments lexer for L0, so that `pygmentize -l l0`, Sphinx and Jupyter highlight
`.l0` files (registered as the entry point `pygments.lexers: l0`; docs/tools.md).

The words come from the compiler's own tables, so highlighting follows the language:
the keywords by role from `l0.syntax.lexer.KEYWORD_ROLES`, the builtin functions from
`l0.typecheck.builtins`, the escapes of char and string literals from
`l0.syntax.escapes`. Tokens are those of `l0.syntax.lexer` (docs/reference.md §1): a
text that lexer accepts gets no Error token here (test/unit/test_highlighting.py).
Pygments is needed only when this module is imported (the extra `l0[lsp]`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pygments.lexer import RegexLexer, words
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from l0.syntax.escapes import ESCAPE_PATTERN, STRING_ESCAPE_PATTERN
from l0.syntax.lexer import KEYWORD_ROLES
from l0.typecheck.builtins import BUILTIN_NAMES

IDENTIFIER = r"[a-zA-Z][a-zA-Z0-9_]*"


def _role(role: str) -> words:
    return words(sorted(KEYWORD_ROLES[role]), suffix=r"\b")


class L0Lexer(RegexLexer):
    name = "L0"
    aliases: ClassVar[list[str]] = ["l0"]
    filenames: ClassVar[list[str]] = ["*.l0"]
    mimetypes: ClassVar[list[str]] = ["text/x-l0"]

    # Each rule: (regex, token type or action[, next state]), as RegexLexer reads them.
    tokens: ClassVar[dict[str, list[Any]]] = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*?$", Comment.Single),
            (_role("keyword"), Keyword),
            (_role("type"), Keyword.Type),
            (_role("constant"), Keyword.Constant),
            (_role("operator"), Operator.Word),
            (_role("builtin"), Name.Builtin),
            (words(sorted(BUILTIN_NAMES), suffix=r"\b"), Name.Builtin),
            (IDENTIFIER + r"(?=\s*\()", Name.Function),
            (IDENTIFIER, Name),
            # As the compiler's lexer: digits on both sides of a dot; an exponent
            # makes a real too.
            (r"[0-9]+(?:\.[0-9]+(?:[eE][+-]?[0-9]+)?|[eE][+-]?[0-9]+)", Number.Float),
            (r"[0-9]+", Number.Integer),
            (r"'", String.Char, "char"),
            (r'"', String.Double, "string"),
            (r"&&|\|\||>>|<<|=>|<-|<=|[-+~*/%=<>&|^]", Operator),
            (r"[()\[\]{},]", Punctuation),
            (r"_", Keyword),  # the wildcard pattern
        ],
        "char": [
            (ESCAPE_PATTERN, String.Escape),
            (r"'", String.Char, "#pop"),
            (r"[^'\\\n\r]", String.Char),
            (r"[\n\r]", Error, "#pop"),  # unterminated
        ],
        "string": [
            (ESCAPE_PATTERN, String.Escape),
            (STRING_ESCAPE_PATTERN, String.Escape),
            (r'"', String.Double, "#pop"),
            (r'[^"\\\n\r]+', String.Double),
            (r"[\n\r]", Error, "#pop"),  # unterminated
        ],
    }
