"""The names of a program: where each is bound, what each mention refers to, and
which names are in scope where (what an editor asks of the source).

    index = SymbolIndex.build(prog)
    index.name_at(line, col)        -> the Definition or Reference written there
    index.expression_at(line, col)  -> the innermost expression there
    index.functional_arg_at(line, col) -> the innermost function argument of a SOAC there
    index.scope_at(line, col)       -> the variables visible there, by name

Built from the AST, after type checking when there is one: a definition's `type` is
the one the checker gave the binding (declared, for parameters), None where checking
stopped before reaching it. Scoping follows docs/reference.md §2.5 and the checker
(`l0/typecheck/bindings.py`): a let's pattern is visible in its body only, a loop's
pattern and variable in its body and its pattern again after it, a lambda's
parameters in its body; functions are visible everywhere. A function reference that
names no user function (a builtin, or a typo) has no `target`.

Positions are the `Loc`s of the AST: 1-based lines and columns, end columns inclusive.
The walk keeps its own stack: a chain of thousands of lets does not recurse.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum

from l0.diagnostics import Loc
from l0.syntax import ast as A
from l0.types import INT, Type


class DefKind(Enum):
    FUNCTION = "function"
    PARAM = "parameter"
    LAMBDA_PARAM = "lambda parameter"
    LET = "let-bound variable"
    LOOP_VAR = "loop variable"
    MERGE = "merge variable"  # a loop's pattern: in its body, and its result after it


@dataclass(eq=False)
class Definition:
    """A name as bound: `loc` is the name as written there."""

    name: str
    kind: DefKind
    loc: Loc
    type: Type | None = None
    fundef: A.FunDef | None = None  # for functions


@dataclass(eq=False)
class Reference:
    """A mention of a name; `target` is None for builtins and unknown names."""

    name: str
    loc: Loc
    target: Definition | None
    is_function: bool


@dataclass(eq=False)
class Scope:
    """The names one binding form binds, inside those of the enclosing forms.

    A scope's names are all bound before anything inside it is looked up, and never
    change after, so a lookup may remember what it found on the way (`_found`): a
    chain of n lets each reading a parameter costs n steps, not n^2."""

    names: dict[str, Definition] = field(default_factory=dict)
    parent: Scope | None = None
    _found: dict[str, Definition | None] = field(default_factory=dict, repr=False)

    def lookup(self, name: str) -> Definition | None:
        path: list[Scope] = []
        scope: Scope | None = self
        found: Definition | None = None
        while scope is not None:
            if name in scope.names:
                found = scope.names[name]
                break
            if name in scope._found:
                found = scope._found[name]
                break
            path.append(scope)
            scope = scope.parent
        for s in path:
            s._found[name] = found
        return found

    def visible(self) -> dict[str, Definition]:
        """Every variable visible here, the innermost binding of each name."""
        out: dict[str, Definition] = {}
        scope: Scope | None = self
        while scope is not None:
            for name, d in scope.names.items():
                out.setdefault(name, d)
            scope = scope.parent
        return out


def contains(loc: Loc, line: int, col: int) -> bool:
    """Whether the position is inside `loc` or just after its last character (where a
    cursor stands after typing a name)."""
    return (loc.line, loc.col) <= (line, col) <= (loc.end_line, loc.end_col + 1)


def name_loc(name: str, start: Loc) -> Loc:
    """The span of `name` written where `start` starts (a name is one token)."""
    return Loc(start.file, start.line, start.col, start.line, start.col + len(name) - 1)


def _innermost(loc: Loc) -> tuple[int, int, int, int]:
    """A sort key: of two nested spans containing a position, the inner one is larger."""
    return (loc.line, loc.col, -loc.end_line, -loc.end_col)


def _param_name_loc(p: A.Param) -> Loc:
    # `T x`: the name is the last token of the parameter.
    return Loc(p.loc.file, p.loc.end_line, p.loc.end_col - len(p.name) + 1,
               p.loc.end_line, p.loc.end_col)


def _pattern_ids(p: A.Pattern) -> Iterator[A.PId]:
    stack = [p]
    while stack:
        q = stack.pop()
        if isinstance(q, A.PId):
            yield q
        elif isinstance(q, A.PTuple):
            stack.extend(reversed(q.elems))


def _children(node: A.Exp | A.FunArg) -> Iterator[A.Exp | A.FunArg]:
    """The sub-expressions and functional arguments of `node`, in source order."""
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if isinstance(value, A.Exp | A.FunArg):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, A.Exp | A.FunArg))


@dataclass
class SymbolIndex:
    functions: dict[str, Definition] = field(default_factory=dict)
    definitions: list[Definition] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    expressions: list[A.Exp] = field(default_factory=list)
    functional_args: list[A.FunArg] = field(default_factory=list)  # of SOACs
    regions: list[tuple[Loc, Scope]] = field(default_factory=list)
    """Where each scope holds: a let's body, a loop's body and rest, a function's and a
    lambda's body. Regions nest, as the constructs do."""
    fundefs: list[A.FunDef] = field(default_factory=list)

    # -- queries ---------------------------------------------------------------------

    def name_at(self, line: int, col: int) -> Definition | Reference | None:
        """The name written at the position (a reference first: the shorthand
        `loop (x) = ...` reads the outer `x` where it binds the merge variable `x`)."""
        for r in self.references:
            if contains(r.loc, line, col):
                return r
        for d in self.definitions:
            if contains(d.loc, line, col):
                return d
        return None

    def expression_at(self, line: int, col: int) -> A.Exp | None:
        """The innermost expression containing the position."""
        best: A.Exp | None = None
        for e in self.expressions:
            if contains(e.loc, line, col) and (
                best is None or _innermost(e.loc) > _innermost(best.loc)
            ):
                best = e
        return best

    def functional_arg_at(self, line: int, col: int) -> A.FunArg | None:
        """The innermost functional argument of a SOAC containing the position."""
        best: A.FunArg | None = None
        for f in self.functional_args:
            if contains(f.loc, line, col) and (
                best is None or _innermost(f.loc) > _innermost(best.loc)
            ):
                best = f
        return best

    def scope_at(self, line: int, col: int) -> dict[str, Definition]:
        """The variables visible at the position, by name (none outside every function)."""
        best: tuple[Loc, Scope] | None = None
        for loc, scope in self.regions:
            if contains(loc, line, col) and (
                best is None or _innermost(loc) > _innermost(best[0])
            ):
                best = (loc, scope)
        return best[1].visible() if best is not None else {}

    def references_to(self, d: Definition) -> list[Reference]:
        return [r for r in self.references if r.target is d]

    # -- building --------------------------------------------------------------------

    @classmethod
    def build(cls, prog: A.Program) -> SymbolIndex:
        index = cls(fundefs=list(prog.fundefs))
        for fd in prog.fundefs:
            where = fd.name_loc or name_loc(fd.name, fd.loc)
            d = Definition(fd.name, DefKind.FUNCTION, where, fd.ret, fd)
            index.definitions.append(d)
            index.functions.setdefault(fd.name, d)  # a duplicate is not the one called
        for fd in prog.fundefs:
            scope = index._bind_params(fd.params, DefKind.PARAM, Scope())
            index._walk(fd.body, scope)
        return index

    def _define(self, scope: Scope, d: Definition) -> None:
        self.definitions.append(d)
        scope.names[d.name] = d

    def _bind_params(self, params: list[A.Param], kind: DefKind, parent: Scope) -> Scope:
        scope = Scope(parent=parent)
        for p in params:
            self._define(scope, Definition(p.name, kind, _param_name_loc(p), p.type))
        return scope

    def _bind_pattern(self, pat: A.Pattern | None, kind: DefKind, parent: Scope) -> Scope:
        scope = Scope(parent=parent)
        if pat is not None:
            for p in _pattern_ids(pat):
                self._define(scope, Definition(p.name, kind, p.loc, p.type))
        return scope

    def _refer(self, name: str, loc: Loc, scope: Scope) -> None:
        self.references.append(Reference(name, loc, scope.lookup(name), is_function=False))

    def _refer_function(self, name: str, start: Loc) -> None:
        target = self.functions.get(name)
        self.references.append(Reference(name, name_loc(name, start), target, True))

    def _walk(self, root: A.Exp, root_scope: Scope) -> None:
        self.regions.append((root.loc, root_scope))
        stack: list[tuple[A.Exp | A.FunArg, Scope]] = [(root, root_scope)]
        while stack:
            node, scope = stack.pop()
            later: list[tuple[A.Exp | A.FunArg, Scope]] = []
            if isinstance(node, A.Exp):
                self.expressions.append(node)
            else:
                self.functional_args.append(node)
            if isinstance(node, A.Var):
                self._refer(node.name, node.loc, scope)
            elif isinstance(node, A.LetPat):
                assert node.value is not None and node.body is not None
                inner = self._bind_pattern(node.pat, DefKind.LET, scope)
                later = [(node.value, scope), (node.body, inner)]
                self.regions.append((node.body.loc, inner))
            elif isinstance(node, A.LetWith):
                assert node.src is not None and node.body is not None
                inner = Scope(parent=scope)
                dest_loc = node.dest_loc or node.loc
                self._define(inner, Definition(node.dest, DefKind.LET, dest_loc, node.src.type))
                later = [(x, scope) for x in _children(node) if x is not node.body]
                later.append((node.body, inner))
                self.regions.append((node.body.loc, inner))
            elif isinstance(node, A.DoLoop):
                assert node.body is not None and node.rest is not None
                assert node.init is not None and node.bound is not None
                merge = self._bind_pattern(node.pat, DefKind.MERGE, scope)
                body_scope = Scope(parent=merge)
                var_loc = node.var_loc or node.loc
                self._define(body_scope, Definition(node.var, DefKind.LOOP_VAR, var_loc, INT))
                # After the loop its pattern binds the same names, written at the same place.
                rest_scope = Scope(merge.names, scope)
                later = [(node.init, scope), (node.bound, scope),
                         (node.body, body_scope), (node.rest, rest_scope)]
                self.regions += [(node.body.loc, body_scope), (node.rest.loc, rest_scope)]
            elif isinstance(node, A.Lambda):
                assert node.body is not None
                inner = self._bind_params(node.params, DefKind.LAMBDA_PARAM, scope)
                later = [(node.body, inner)]
                self.regions.append((node.body.loc, inner))
            else:
                if isinstance(node, A.Apply):
                    self._refer_function(node.fname, node.loc)
                elif isinstance(node, A.FunName):
                    self._refer_function(node.name, node.loc)
                later = [(x, scope) for x in _children(node)]
            stack.extend(reversed(later))
