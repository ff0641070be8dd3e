"""The abstract syntax of source L0 (docs/reference.md §2, thesis chapter 2).

One dataclass per construct of the grammar in docs/reference.md §2.1. Every node carries
the `Loc` of its first token (and where it ends). The parser builds these; the type
checker fills in the `type` slot of every expression (and the `Fun*` annotations
documented below); the internaliser reads them. Nothing here knows about xDSL.

Nodes compare by identity (`eq=False`), so they can be dictionary keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from l0.diagnostics import Loc
from l0.types import Type

# ----------------------------------------------------------------------------------
# Patterns (2.5): used by `let` and `loop` only.


@dataclass(eq=False)
class PId:
    name: str
    loc: Loc
    type: Type | None = field(default=None, kw_only=True)


@dataclass(eq=False)
class PWild:
    """`_`: matches anything, binds nothing."""

    loc: Loc
    type: Type | None = field(default=None, kw_only=True)


@dataclass(eq=False)
class PTuple:
    elems: list[Pattern]
    loc: Loc
    type: Type | None = field(default=None, kw_only=True)


Pattern = PId | PWild | PTuple

# ----------------------------------------------------------------------------------
# Expressions.


@dataclass(eq=False)
class Exp:
    """Base class of expressions. `type` is set by the type checker."""

    loc: Loc
    type: Type | None = field(default=None, kw_only=True)


@dataclass(eq=False)
class IntLit(Exp):
    value: int = 0  # an int64 (the lexer rejects literals outside that range)


@dataclass(eq=False)
class RealLit(Exp):
    value: float = 0.0


@dataclass(eq=False)
class BoolLit(Exp):
    value: bool = False


@dataclass(eq=False)
class CharLit(Exp):
    value: str = ""  # exactly one character (one code point)


@dataclass(eq=False)
class StringLit(Exp):
    """`"..."`: an array of chars (escapes already decoded)."""

    value: str = ""


@dataclass(eq=False)
class CheckedLit(Exp):
    """`Checked`, the only value of type `cert`."""


@dataclass(eq=False)
class Var(Exp):
    name: str = ""


@dataclass(eq=False)
class Empty(Exp):
    """`empty(T)`: the empty array whose *row* type is `row`."""

    row: Type | None = None


@dataclass(eq=False)
class ArrayLit(Exp):
    elems: list[Exp] = field(default_factory=list)  # at least one


@dataclass(eq=False)
class TupleLit(Exp):
    elems: list[Exp] = field(default_factory=list)  # zero or more


@dataclass(eq=False)
class BinOp(Exp):
    """`lhs op rhs`; `op` is the token: + - * / % pow = < <= && || & | ^ << >>."""

    op: str = ""
    lhs: Exp | None = None
    rhs: Exp | None = None


@dataclass(eq=False)
class Negate(Exp):
    """Prefix `-e` (precedence of binary minus, docs/reference.md §2.2)."""

    operand: Exp | None = None


@dataclass(eq=False)
class Not(Exp):
    operand: Exp | None = None


@dataclass(eq=False)
class If(Exp):
    cond: Exp | None = None
    then: Exp | None = None
    else_: Exp | None = None


@dataclass(eq=False)
class Apply(Exp):
    """`f(args)`: a saturated call of a user function or builtin (`toReal`, `trace`, ...)."""

    fname: str = ""
    args: list[Exp] = field(default_factory=list)


@dataclass(eq=False)
class Index(Exp):
    """`<certs> a[<idx_certs> | i1, ..., ik]`: indexing, only of a variable (2.3)."""

    array: Var | None = None
    indices: list[Exp] = field(default_factory=list)
    certs: list[Var] = field(default_factory=list)
    idx_certs: list[Var] = field(default_factory=list)


@dataclass(eq=False)
class Iota(Exp):
    n: Exp | None = None


@dataclass(eq=False)
class Replicate(Exp):
    n: Exp | None = None
    value: Exp | None = None


@dataclass(eq=False)
class Size(Exp):
    """`size(dim, e)`; `dim` is an integer literal."""

    dim: int = 0
    array: Exp | None = None
    certs: list[Var] = field(default_factory=list)


@dataclass(eq=False)
class Reshape(Exp):
    shape: list[Exp] = field(default_factory=list)
    array: Exp | None = None
    certs: list[Var] = field(default_factory=list)


@dataclass(eq=False)
class Transpose(Exp):
    """`transpose(k, n, e)`: move dimension k to position k+n; `transpose(e)` is (0, 1)."""

    k: int = 0
    n: int = 1
    array: Exp | None = None
    certs: list[Var] = field(default_factory=list)


@dataclass(eq=False)
class Split(Exp):
    at: Exp | None = None
    array: Exp | None = None
    certs: list[Var] = field(default_factory=list)


@dataclass(eq=False)
class Concat(Exp):
    a: Exp | None = None
    b: Exp | None = None
    certs: list[Var] = field(default_factory=list)


@dataclass(eq=False)
class Copy(Exp):
    operand: Exp | None = None


@dataclass(eq=False)
class Assert(Exp):
    cond: Exp | None = None


@dataclass(eq=False)
class Conjoin(Exp):
    certs: list[Exp] = field(default_factory=list)


@dataclass(eq=False)
class Zip(Exp):
    arrays: list[Exp] = field(default_factory=list)  # at least two


@dataclass(eq=False)
class Unzip(Exp):
    operand: Exp | None = None


# ----------------------------------------------------------------------------------
# Functional arguments of SOACs (2.4). After type checking each carries:
#   param_types: the types of the parameters the SOAC supplies values for (after
#                currying), and ret_type: the result type of one application;
#   shim:        True when the SOAC supplies one tuple that is unpacked into the
#                function's parameters ("tuple shimming", 2.4).


@dataclass(eq=False)
class FunArg:
    loc: Loc
    param_types: list[Type] | None = field(default=None, kw_only=True)
    ret_type: Type | None = field(default=None, kw_only=True)
    shim: bool = field(default=False, kw_only=True)


@dataclass(eq=False)
class FunName(FunArg):
    """`f` or the curried `f(a1, ..., ak)`: user function or builtin with leading args fixed."""

    name: str = ""
    curried: list[Exp] = field(default_factory=list)


@dataclass(eq=False)
class OpSection(FunArg):
    """`op +`, `op - (10)`, `op not`, `op ~`: an operator as a function."""

    op: str = ""
    curried: list[Exp] = field(default_factory=list)


@dataclass(eq=False)
class Param:
    type: Type
    name: str
    loc: Loc


@dataclass(eq=False)
class Lambda(FunArg):
    """`fn T (params) => body`; for the T-SOACs `fn {T1, ...} (params) => body` (tuple_form)."""

    ret: Type | None = None
    params: list[Param] = field(default_factory=list)
    body: Exp | None = None
    tuple_form: bool = False


Fun = FunName | OpSection | Lambda


# ----------------------------------------------------------------------------------
# SOACs. The plain forms take one array (arrays of tuples come from `zip`); the T-forms
# (2.6) take several arrays and their lambdas return tuples.


@dataclass(eq=False)
class Map(Exp):
    fun: Fun | None = None
    array: Exp | None = None


@dataclass(eq=False)
class Filter(Exp):
    fun: Fun | None = None
    array: Exp | None = None


@dataclass(eq=False)
class Reduce(Exp):
    fun: Fun | None = None
    neutral: Exp | None = None
    array: Exp | None = None


@dataclass(eq=False)
class Scan(Exp):
    fun: Fun | None = None
    neutral: Exp | None = None
    array: Exp | None = None


@dataclass(eq=False)
class Redomap(Exp):
    outer: Fun | None = None
    inner: Fun | None = None
    neutral: Exp | None = None
    array: Exp | None = None


@dataclass(eq=False)
class MapT(Exp):
    fun: Fun | None = None
    arrays: list[Exp] = field(default_factory=list)
    certs: list[Var] = field(default_factory=list)


@dataclass(eq=False)
class FilterT(Exp):
    fun: Fun | None = None
    arrays: list[Exp] = field(default_factory=list)
    certs: list[Var] = field(default_factory=list)


@dataclass(eq=False)
class ReduceT(Exp):
    fun: Fun | None = None
    neutrals: list[Exp] = field(default_factory=list)
    arrays: list[Exp] = field(default_factory=list)
    certs: list[Var] = field(default_factory=list)


@dataclass(eq=False)
class ScanT(Exp):
    fun: Fun | None = None
    neutrals: list[Exp] = field(default_factory=list)
    arrays: list[Exp] = field(default_factory=list)
    certs: list[Var] = field(default_factory=list)


@dataclass(eq=False)
class RedomapT(Exp):
    outer: Fun | None = None
    inner: Fun | None = None
    neutrals: list[Exp] = field(default_factory=list)
    arrays: list[Exp] = field(default_factory=list)
    certs: list[Var] = field(default_factory=list)


# ----------------------------------------------------------------------------------
# Binding forms.


@dataclass(eq=False)
class LetPat(Exp):
    """`let p = e in body` (also `let _ = e` and `let {p, ...} = e`)."""

    pat: Pattern | None = None
    value: Exp | None = None
    body: Exp | None = None


@dataclass(eq=False)
class LetWith(Exp):
    """`let dest = src with [i, ...] <- v in body`.

    The shorthand `let a[i] = v in body` parses to dest = src = `a`; `let a[] = v`
    has no indices. `certs` precede the let-with, `idx_certs` are the `[<c> | ...]` ones.
    `dest_loc` is where the destination name is written.
    """

    dest: str = ""
    dest_loc: Loc | None = None
    src: Var | None = None
    indices: list[Exp] = field(default_factory=list)
    value: Exp | None = None
    body: Exp | None = None
    certs: list[Var] = field(default_factory=list)
    idx_certs: list[Var] = field(default_factory=list)


@dataclass(eq=False)
class DoLoop(Exp):
    """`loop (pat = init) = for var < bound do body in rest`.

    The shorthand `loop (pat) = ...` parses with `init` built from the pattern's
    variables (a `Var` or a `TupleLit` of them), as docs/reference.md §2.3 says.
    """

    pat: Pattern | None = None
    init: Exp | None = None
    var: str = ""
    var_loc: Loc | None = None
    bound: Exp | None = None
    body: Exp | None = None
    rest: Exp | None = None


# ----------------------------------------------------------------------------------
# Programs.


@dataclass(eq=False)
class FunDef:
    """`fun ret name(params) = body`; `loc` spans all of it, `name_loc` the name."""

    name: str
    ret: Type
    params: list[Param]
    body: Exp
    loc: Loc
    name_loc: Loc | None = field(default=None, kw_only=True)


@dataclass(eq=False)
class Program:
    fundefs: list[FunDef]
    file: str = "<input>"
