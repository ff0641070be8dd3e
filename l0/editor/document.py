"""What `l0 lsp` knows about one open document, without the protocol: its errors,
and answers to hover, go-to-definition, completion and outline at a position.

`analyse(text, filename)` runs the front end (`l0.frontend.check_source`: the parse
error, or the first type error of each function) and indexes the program's names
(`l0.syntax.symbols`). Positions here are the AST's: 1-based lines and columns counted
in characters; `l0.editor.server` converts them to and from the protocol's.

Note [Completion in text that does not parse]
Completion is asked for while typing, when the text often does not parse (`let y = ma`
has no `in` yet). The server then answers from the last version of the document that
parsed (`Analysis.names_from`): its scopes are those of a slightly different text, but
the names in scope at a point change far less often than the text around it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from l0.diagnostics import L0Error, Loc
from l0.syntax import ast as A
from l0.syntax.lexer import KEYWORD_ROLES
from l0.syntax.symbols import Definition, DefKind, Reference, SymbolIndex
from l0.typecheck.builtins import BUILTIN_NAMES, TRACE, builtin_sigs
from l0.types import Type


@dataclass
class Analysis:
    text: str
    program: A.Program | None
    errors: list[L0Error]
    index: SymbolIndex | None
    names_from: Analysis | None = field(default=None, repr=False)
    """Where completion takes names when this text does not parse (Note [Completion in
    text that does not parse]): the last analysis that parsed, or None."""


def analyse(text: str, filename: str, previous: Analysis | None = None) -> Analysis:
    """Check `text`; `previous` is the document's last analysis, if any."""
    from l0.bigstack import call_with_big_stack
    from l0.frontend import check_source

    prog, errors = call_with_big_stack(lambda: check_source(text, filename))
    if prog is None:
        fallback = previous if previous is None or previous.index else previous.names_from
        return Analysis(text, None, errors, None, fallback)
    return Analysis(text, prog, errors, SymbolIndex.build(prog))


# -- hover ----------------------------------------------------------------------------


def signature(fd: A.FunDef) -> str:
    params = ", ".join(f"{p.type} {p.name}" for p in fd.params)
    return f"fun {fd.ret} {fd.name}({params})"


def _builtin_signature(name: str) -> str:
    if name == TRACE:
        return "trace(x): prints x and returns it (any type)"
    sig = builtin_sigs()[name]
    return f"fun {sig.ret} {name}({', '.join(str(t) for t in sig.params)})"


def _typed(name: str, t: Type | None) -> str:
    return f"{name} : {t}" if t is not None else name


def _describe_definition(d: Definition, seen_as: Type | None = None) -> str:
    """Markdown for a binding: a function's signature, or a variable's type (`seen_as`,
    the type of one mention of it, if given) and how it is bound."""
    if d.kind is DefKind.FUNCTION:
        assert d.fundef is not None
        return _code(signature(d.fundef))
    where = f"{d.kind.value}, bound at {d.loc.line}:{d.loc.col}"
    return _code(_typed(d.name, seen_as or d.type)) + "\n\n" + where


def _code(text: str) -> str:
    return f"```l0\n{text}\n```"


@dataclass
class Hover:
    markdown: str
    loc: Loc  # what it is about


def hover(a: Analysis, line: int, col: int) -> Hover | None:
    """The type of the name, or else of the innermost expression, at the position."""
    if a.index is None:
        return None
    found = a.index.name_at(line, col)
    if isinstance(found, Definition):
        return Hover(_describe_definition(found), found.loc)
    if isinstance(found, Reference):
        if found.target is not None:
            # A variable's type as the checker saw it here (uniqueness is stripped
            # inside lambdas and loop bodies: Note [Uniqueness floor] in typecheck/env.py).
            mention = a.index.expression_at(line, col)
            seen_as = mention.type if isinstance(mention, A.Var) else None
            return Hover(_describe_definition(found.target, seen_as), found.loc)
        if found.is_function and found.name in BUILTIN_NAMES:
            text = _code(_builtin_signature(found.name)) + "\n\nbuiltin function"
            return Hover(text, found.loc)
        return None
    e = a.index.expression_at(line, col)
    f = a.index.functional_arg_at(line, col)
    if f is not None and f.ret_type is not None and (e is None or _inside(e.loc, f.loc)):
        # `op +`, `f(x)` or a lambda given to a SOAC: what it takes and returns there.
        params = ", ".join(str(t) for t in f.param_types or [])
        return Hover(_code(f": ({params}) -> {f.ret_type}"), f.loc)
    if e is None or e.type is None:
        return None
    return Hover(_code(f": {e.type}"), e.loc)


def _inside(outer: Loc, inner: Loc) -> bool:
    return (outer.line, outer.col) <= (inner.line, inner.col) and (
        (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)
    )


# -- go to definition -----------------------------------------------------------------


def definition(a: Analysis, line: int, col: int) -> Loc | None:
    """Where the name at the position is bound (itself, at a binding site)."""
    if a.index is None:
        return None
    found = a.index.name_at(line, col)
    if isinstance(found, Reference):
        return found.target.loc if found.target is not None else None
    return found.loc if found is not None else None


# -- completion -----------------------------------------------------------------------


class CompletionKind(Enum):
    VARIABLE = "variable"
    FUNCTION = "function"
    BUILTIN = "builtin"
    KEYWORD = "keyword"


@dataclass(frozen=True)
class Completion:
    label: str
    kind: CompletionKind
    detail: str


def completions(a: Analysis, line: int, col: int) -> list[Completion]:
    """The variables in scope at the position, the functions, the builtins and the
    keywords (the editor filters them by what is typed)."""
    out: list[Completion] = []
    names = a if a.index is not None else a.names_from
    if names is not None and names.index is not None:
        for name, d in sorted(names.index.scope_at(line, col).items()):
            out.append(Completion(name, CompletionKind.VARIABLE, _typed(name, d.type)))
        for name, d in sorted(names.index.functions.items()):
            assert d.fundef is not None
            out.append(Completion(name, CompletionKind.FUNCTION, signature(d.fundef)))
    for name in sorted(BUILTIN_NAMES):
        out.append(Completion(name, CompletionKind.BUILTIN, _builtin_signature(name)))
    for role, words in sorted(KEYWORD_ROLES.items()):
        kind = CompletionKind.BUILTIN if role == "builtin" else CompletionKind.KEYWORD
        out.extend(Completion(w, kind, role) for w in sorted(words))
    return out


# -- outline --------------------------------------------------------------------------


@dataclass
class Symbol:
    name: str
    detail: str
    kind: DefKind
    loc: Loc  # the whole construct
    name_loc: Loc
    children: list[Symbol] = field(default_factory=list)


def outline(a: Analysis) -> list[Symbol]:
    """The functions, each with the names bound inside it, in program order."""
    if a.index is None:
        return []
    index = a.index
    out: list[Symbol] = []
    for d in index.definitions:
        if d.kind is not DefKind.FUNCTION:
            continue
        fd = d.fundef
        assert fd is not None
        inner = [
            Symbol(x.name, str(x.type or ""), x.kind, x.loc, x.loc)
            for x in index.definitions
            if x.kind is not DefKind.FUNCTION and _inside(fd.loc, x.loc)
        ]
        out.append(Symbol(d.name, signature(fd), d.kind, fd.loc, d.loc, inner))
    return out
