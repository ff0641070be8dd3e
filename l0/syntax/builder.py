"""Building the L0 AST from the grammar's reductions (docs/reference.md §2).

`AstBuilder` is used as lark's *inline* transformer: the LALR parser calls one
method per reduction, named after the rule or its alias in `grammar.lark`, with the
rule's children. No parse tree is built, and no method recurses, so the depth of
the program (a chain of 5000 `let`s, deeply nested parentheses) never touches the
Python stack.

The grammar is built with `keep_all_tokens` and `maybe_placeholders`: children are
all tokens and sub-results in source order, with `None` for an absent `[...]`, so
the methods below index children by position (the comments give the layout) and
every node's `Loc` runs from its first token to its last one. End columns are
inclusive: a node ending with the token `abc` at column 5 has `end_col` 7.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from l0 import types as T
from l0.diagnostics import L0Error, Loc
from l0.syntax import ast as A
from l0.syntax.lexer import INT_LIMIT, L0Token
from l0.syntax.operators import resolve

Children = list[Any]


@dataclass
class Spanned:
    """A value without a location of its own (a type, an index) and where it was written."""

    value: Any
    loc: Loc


@dataclass
class Certs:
    """A certificate list `<c1, ..., cn>`."""

    vars: list[A.Var]
    loc: Loc


@dataclass
class IndexPart:
    """The `[<certs> | i1, ..., ik]` part of indexing and let-with."""

    certs: list[A.Var]
    indices: list[A.Exp]
    loc: Loc


@dataclass
class Paren:
    """`( e )`: kept only until the enclosing operator sequence is resolved, so that an
    operator node whose first operand is parenthesised starts at the `(`."""

    exp: A.Exp
    loc: Loc


def _start(x: Any) -> tuple[int, int]:
    if isinstance(x, L0Token):
        return x.line, x.column
    loc: Loc = x.loc
    return loc.line, loc.col


def _end(x: Any) -> tuple[int, int]:
    if isinstance(x, L0Token):
        return x.end_line, x.end_column - 1
    loc: Loc = x.loc
    return loc.end_line, loc.end_col


def _certs(x: Certs | None) -> list[A.Var]:
    return [] if x is None else x.vars


def _exps(x: list[A.Exp] | None) -> list[A.Exp]:
    return [] if x is None else x


class AstBuilder:
    """The reduction callbacks. Set `file` before each parse (locations carry it)."""

    def __init__(self) -> None:
        self.file = "<input>"

    # -- locations ---------------------------------------------------------------

    def loc(self, first: Any, last: Any) -> Loc:
        line, col = _start(first)
        end_line, end_col = _end(last)
        return Loc(self.file, line, col, end_line, end_col)

    def span(self, c: Children) -> Loc:
        """From the first to the last present child."""
        present = [x for x in c if x is not None]
        return self.loc(present[0], present[-1])

    def tok_loc(self, t: L0Token) -> Loc:
        return self.loc(t, t)

    def var(self, c: Children) -> A.Var:  # ID
        return A.Var(self.tok_loc(c[0]), name=str(c[0]))

    def error(self, at: Any, message: str) -> L0Error:
        return L0Error(self.loc(at, at), message, "parse-error")

    # -- programs ----------------------------------------------------------------

    def start(self, c: Children) -> list[A.FunDef]:
        return list(c)

    # -- an entry of `l0 repl` (l0/repl.py) ----------------------------------------

    def prompt_defs(self, c: Children) -> list[A.FunDef]:
        return list(c)

    def prompt_let_id(self, c: Children) -> A.LetPat:  # let x = e
        return A.LetPat(self.span(c), pat=A.PId(str(c[1]), self.tok_loc(c[1])), value=c[3])

    def prompt_let_wild(self, c: Children) -> A.LetPat:  # let _ = e
        return A.LetPat(self.span(c), pat=A.PWild(self.tok_loc(c[1])), value=c[3])

    def prompt_let_tuple(self, c: Children) -> A.LetPat:  # let { [pats] } = e
        pat = A.PTuple(c[2] or [], self.loc(c[1], c[3]))
        return A.LetPat(self.span(c), pat=pat, value=c[5])

    def prompt_exp(self, c: Children) -> A.Exp:
        exp: A.Exp = c[0]
        return exp

    def fundef(self, c: Children) -> A.FunDef:  # fun T f ( [params] ) = e
        return A.FunDef(
            name=str(c[2]),
            ret=c[1].value,
            params=c[4] or [],
            body=c[7],
            loc=self.span(c),
            name_loc=self.tok_loc(c[2]),
        )

    def params(self, c: Children) -> list[A.Param]:
        return [x for x in c if isinstance(x, A.Param)]

    def param(self, c: Children) -> A.Param:  # T x
        return A.Param(type=c[0].value, name=str(c[1]), loc=self.span(c))

    # -- types -------------------------------------------------------------------

    def array_type(self, c: Children) -> Spanned:  # [*] [ inner ]
        elem, depth = c[-2]
        unique = isinstance(c[0], L0Token) and c[0].value == "*"
        return Spanned(T.ArrayType(elem, depth + 1, unique), self.span(c))

    def inner_elem(self, c: Children) -> tuple[T.BasicType | T.TupleType, int]:
        return c[0].value, 0

    def inner_nest(self, c: Children) -> tuple[T.BasicType | T.TupleType, int]:
        elem, depth = c[1]
        return elem, depth + 1

    def _basic(self, c: Children, t: T.BasicType) -> Spanned:
        return Spanned(t, self.span(c))

    def t_int(self, c: Children) -> Spanned:
        return self._basic(c, T.INT)

    def t_real(self, c: Children) -> Spanned:
        return self._basic(c, T.REAL)

    def t_bool(self, c: Children) -> Spanned:
        return self._basic(c, T.BOOL)

    def t_char(self, c: Children) -> Spanned:
        return self._basic(c, T.CHAR)

    def t_cert(self, c: Children) -> Spanned:
        return self._basic(c, T.CERT)

    def t_tuple(self, c: Children) -> Spanned:  # { [typelist] }
        return Spanned(T.TupleType(tuple(c[1] or [])), self.span(c))

    def typelist(self, c: Children) -> list[T.Type]:
        return [x.value for x in c if isinstance(x, Spanned)]

    # -- operator sequences (Note [Operator precedence] in operators.py) -----------

    def exp(self, c: Children) -> A.Exp:
        if len(c) == 1:
            return _int64(c[0].exp if isinstance(c[0], Paren) else c[0])
        terms: list[tuple[list[L0Token], A.Exp | Paren]] = []
        binops: list[L0Token] = []
        prefixes: list[L0Token] = []
        for x in c:
            if isinstance(x, list):
                prefixes = x
            elif isinstance(x, L0Token):
                binops.append(x)
            else:
                terms.append((prefixes, x))
                prefixes = []
        result = resolve(terms, binops, str, self._binary, self._prefix)
        return _int64(result.exp if isinstance(result, Paren) else result)

    def _binary(self, op: L0Token, lhs: A.Exp | Paren, rhs: A.Exp | Paren) -> A.Exp:
        loc = self.loc(lhs, rhs)
        return A.BinOp(loc, op=str(op), lhs=_int64(_unparen(lhs)), rhs=_int64(_unparen(rhs)))

    def _prefix(self, op: L0Token, operand: A.Exp | Paren) -> A.Exp:
        loc = self.loc(op, operand)
        if op.value == "-":
            # The one place 2^63 may appear: `-9223372036854775808` is the int64 minimum.
            # We cannot tell what l0c meant here: its `read` wrapped every literal, so
            # 2^63 became -2^63, whose negation wraps to -2^63 again. We accept only this
            # spelling (a `-` right before the literal, with nothing binding tighter:
            # `-9223372036854775808 * 2` negates a product and is rejected) and reject
            # every other literal that cannot be an int64.
            if isinstance(operand, A.IntLit) and operand.value == INT_LIMIT:
                return A.IntLit(loc, value=-INT_LIMIT)
            return A.Negate(loc, operand=_int64(_unparen(operand)))
        return A.Not(loc, operand=_int64(_unparen(operand)))

    def prefixes(self, c: Children) -> list[L0Token]:
        return list(c)

    def binop(self, c: Children) -> L0Token:
        return c[0]

    def minus(self, c: Children) -> L0Token:
        return c[0]

    def exps(self, c: Children) -> list[A.Exp]:
        return [x for x in c if not isinstance(x, L0Token)]

    # -- operands ----------------------------------------------------------------

    def int_lit(self, c: Children) -> A.Exp:
        return A.IntLit(self.tok_loc(c[0]), value=_lit(c[0]))

    def real_lit(self, c: Children) -> A.Exp:
        return A.RealLit(self.tok_loc(c[0]), value=_lit(c[0]))

    def char_lit(self, c: Children) -> A.Exp:
        return A.CharLit(self.tok_loc(c[0]), value=_lit(c[0]))

    def string_lit(self, c: Children) -> A.Exp:
        return A.StringLit(self.tok_loc(c[0]), value=_lit(c[0]))

    def true_lit(self, c: Children) -> A.Exp:
        return A.BoolLit(self.tok_loc(c[0]), value=True)

    def false_lit(self, c: Children) -> A.Exp:
        return A.BoolLit(self.tok_loc(c[0]), value=False)

    def checked_lit(self, c: Children) -> A.Exp:
        return A.CheckedLit(self.tok_loc(c[0]))

    def empty(self, c: Children) -> A.Exp:  # empty ( T )
        return A.Empty(self.span(c), row=c[2].value)

    def array_lit(self, c: Children) -> A.Exp:  # [ exps ]
        return A.ArrayLit(self.span(c), elems=c[1])

    def tuple_lit(self, c: Children) -> A.Exp:  # { [exps] }
        return A.TupleLit(self.span(c), elems=_exps(c[1]))

    def call(self, c: Children) -> A.Exp:  # f ( [exps] )
        return A.Apply(self.span(c), fname=str(c[0]), args=_exps(c[2]))

    def index(self, c: Children) -> A.Exp:  # [certs] a index
        part: IndexPart = c[2]
        return A.Index(
            self.span(c),
            array=self.var([c[1]]),
            indices=part.indices,
            certs=_certs(c[0]),
            idx_certs=part.certs,
        )

    def iota(self, c: Children) -> A.Exp:  # iota ( e )
        return A.Iota(self.span(c), n=c[2])

    def replicate(self, c: Children) -> A.Exp:  # replicate ( n , v )
        return A.Replicate(self.span(c), n=c[2], value=c[4])

    def size(self, c: Children) -> A.Exp:  # [certs] size ( k , e )
        return A.Size(self.span(c), dim=self._small(c[3]), array=c[5], certs=_certs(c[0]))

    def reshape(self, c: Children) -> A.Exp:  # [certs] reshape ( ( exps ) , e )
        return A.Reshape(self.span(c), shape=c[4], array=c[7], certs=_certs(c[0]))

    def transpose(self, c: Children) -> A.Exp:  # [certs] transpose ( e )
        return A.Transpose(self.span(c), k=0, n=1, array=c[3], certs=_certs(c[0]))

    def transpose_kn(self, c: Children) -> A.Exp:  # [certs] transpose ( k , [-] n , e )
        n = self._small(c[6])
        return A.Transpose(
            self.span(c),
            k=self._small(c[3]),
            n=-n if c[5] is not None else n,
            array=c[8],
            certs=_certs(c[0]),
        )

    def split(self, c: Children) -> A.Exp:  # [certs] split ( i , e )
        return A.Split(self.span(c), at=c[3], array=c[5], certs=_certs(c[0]))

    def concat(self, c: Children) -> A.Exp:  # [certs] concat ( a , b )
        return A.Concat(self.span(c), a=c[3], b=c[5], certs=_certs(c[0]))

    def copy(self, c: Children) -> A.Exp:  # copy ( e )
        return A.Copy(self.span(c), operand=c[2])

    def assert_(self, c: Children) -> A.Exp:  # assert ( e )
        return A.Assert(self.span(c), cond=c[2])

    def conjoin(self, c: Children) -> A.Exp:  # conjoin ( [exps] )
        return A.Conjoin(self.span(c), certs=_exps(c[2]))

    def zip(self, c: Children) -> A.Exp:  # zip ( e , exps )
        return A.Zip(self.span(c), arrays=[c[2], *c[4]])

    def unzip(self, c: Children) -> A.Exp:  # unzip ( e )
        return A.Unzip(self.span(c), operand=c[2])

    def map(self, c: Children) -> A.Exp:  # map ( f , a )
        return A.Map(self.span(c), fun=c[2], array=c[4])

    def filter(self, c: Children) -> A.Exp:  # filter ( f , a )
        return A.Filter(self.span(c), fun=c[2], array=c[4])

    def reduce(self, c: Children) -> A.Exp:  # reduce ( f , x , a )
        return A.Reduce(self.span(c), fun=c[2], neutral=c[4], array=c[6])

    def scan(self, c: Children) -> A.Exp:  # scan ( f , x , a )
        return A.Scan(self.span(c), fun=c[2], neutral=c[4], array=c[6])

    def redomap(self, c: Children) -> A.Exp:  # redomap ( g , f , x , a )
        return A.Redomap(self.span(c), outer=c[2], inner=c[4], neutral=c[6], array=c[8])

    def map_t(self, c: Children) -> A.Exp:  # [certs] mapT ( tf , exps )
        return A.MapT(self.span(c), fun=c[3], arrays=c[5], certs=_certs(c[0]))

    def filter_t(self, c: Children) -> A.Exp:  # [certs] filterT ( tf , exps )
        return A.FilterT(self.span(c), fun=c[3], arrays=c[5], certs=_certs(c[0]))

    def _paired(self, c: Children, neutrals: list[A.Exp], arrays: list[A.Exp]) -> None:
        """reduceT and scanT pair each neutral element with an array (2.1)."""
        if len(neutrals) != len(arrays):
            raise self.error(
                c[1],
                f"{c[1]} pairs each neutral element with an array, but found "
                f"{len(neutrals)} neutral element(s) and {len(arrays)} array(s)",
            )

    def reduce_t(self, c: Children) -> A.Exp:  # [certs] reduceT ( tf , { exps } , exps )
        self._paired(c, c[6], c[9])
        return A.ReduceT(
            self.span(c), fun=c[3], neutrals=c[6], arrays=c[9], certs=_certs(c[0])
        )

    def scan_t(self, c: Children) -> A.Exp:  # [certs] scanT ( tf , { exps } , exps )
        self._paired(c, c[6], c[9])
        return A.ScanT(self.span(c), fun=c[3], neutrals=c[6], arrays=c[9], certs=_certs(c[0]))

    def redomap_t(self, c: Children) -> A.Exp:  # [certs] redomapT ( tf , tf , { exps } , exps )
        return A.RedomapT(
            self.span(c),
            outer=c[3],
            inner=c[5],
            neutrals=c[8],
            arrays=c[11],
            certs=_certs(c[0]),
        )

    def paren(self, c: Children) -> Paren:  # ( e )
        return Paren(c[1], self.span(c))

    # -- binding forms -----------------------------------------------------------

    def if_(self, c: Children) -> A.Exp:  # if c then a else b
        return A.If(self.span(c), cond=c[1], then=c[3], else_=c[5])

    def let_id(self, c: Children) -> A.Exp:  # let x = e in body
        pat = A.PId(str(c[1]), self.tok_loc(c[1]))
        return A.LetPat(self.span(c), pat=pat, value=c[3], body=c[5])

    def let_wild(self, c: Children) -> A.Exp:  # let _ = e in body
        pat = A.PWild(self.tok_loc(c[1]))
        return A.LetPat(self.span(c), pat=pat, value=c[3], body=c[5])

    def let_tuple(self, c: Children) -> A.Exp:  # let { [pats] } = e in body
        pat = A.PTuple(c[2] or [], self.loc(c[1], c[3]))
        return A.LetPat(self.span(c), pat=pat, value=c[5], body=c[7])

    def let_with(self, c: Children) -> A.Exp:  # let [certs] b = a with index <- v in body
        part: IndexPart = c[6]
        return A.LetWith(
            self.span(c),
            dest=str(c[2]),
            dest_loc=self.tok_loc(c[2]),
            src=self.var([c[4]]),
            indices=part.indices,
            value=c[8],
            body=c[10],
            certs=_certs(c[1]),
            idx_certs=part.certs,
        )

    def let_update(self, c: Children) -> A.Exp:  # let [certs] a index = v in body
        part: IndexPart = c[3]
        return A.LetWith(
            self.span(c),
            dest=str(c[2]),
            dest_loc=self.tok_loc(c[2]),
            src=self.var([c[2]]),
            indices=part.indices,
            value=c[5],
            body=c[7],
            certs=_certs(c[1]),
            idx_certs=part.certs,
        )

    def let_replace(self, c: Children) -> A.Exp:  # let [certs] a [ ] = v in body
        return A.LetWith(
            self.span(c),
            dest=str(c[2]),
            dest_loc=self.tok_loc(c[2]),
            src=self.var([c[2]]),
            indices=[],
            value=c[6],
            body=c[8],
            certs=_certs(c[1]),
        )

    def loop_short(self, c: Children) -> A.Exp:  # loop ( p ) = for i < n do body in rest
        pat = c[2]
        return A.DoLoop(
            self.span(c),
            pat=pat,
            init=self._pattern_exp(pat),
            var=str(c[6]),
            var_loc=self.tok_loc(c[6]),
            bound=c[8],
            body=c[10],
            rest=c[12],
        )

    def loop(self, c: Children) -> A.Exp:  # loop ( p = e ) = for i < n do body in rest
        return A.DoLoop(
            self.span(c),
            pat=c[2],
            init=c[4],
            var=str(c[8]),
            var_loc=self.tok_loc(c[8]),
            bound=c[10],
            body=c[12],
            rest=c[14],
        )

    def _pattern_exp(self, pat: A.Pattern) -> A.Exp:
        """The initial value of `loop (pat) = ...`: the pattern read as an expression.

        Iterative, since patterns nest as deeply as the user likes."""
        built: dict[int, A.Exp] = {}
        todo: list[tuple[A.Pattern, bool]] = [(pat, False)]
        while todo:
            p, children_done = todo.pop()
            if isinstance(p, A.PWild):
                raise L0Error(
                    p.loc,
                    "'_' cannot appear in the pattern of 'loop (pat) = ...', which also "
                    "serves as the initial value; write 'loop (pat = init) = ...'",
                    "parse-error",
                )
            if isinstance(p, A.PId):
                built[id(p)] = A.Var(p.loc, name=p.name)
            elif children_done:
                built[id(p)] = A.TupleLit(p.loc, elems=[built[id(e)] for e in p.elems])
            else:
                todo.append((p, True))
                todo.extend((e, False) for e in p.elems)
        return built[id(pat)]

    def index_part(self, c: Children) -> IndexPart:
        # [ exps ]  or  [ certs | exps ]
        if len(c) == 3:
            return IndexPart([], c[1], self.span(c))
        return IndexPart(c[1].vars, c[3], self.span(c))

    def certs(self, c: Children) -> Certs:  # < [x , ...] >
        names = [x for x in c if isinstance(x, L0Token) and x.type == "ID"]
        return Certs([self.var([x]) for x in names], self.span(c))

    # -- patterns ----------------------------------------------------------------

    def p_id(self, c: Children) -> A.Pattern:
        return A.PId(str(c[0]), self.tok_loc(c[0]))

    def p_wild(self, c: Children) -> A.Pattern:
        return A.PWild(self.tok_loc(c[0]))

    def p_tuple(self, c: Children) -> A.Pattern:  # { [pats] }
        return A.PTuple(c[1] or [], self.span(c))

    def pats(self, c: Children) -> list[A.Pattern]:
        return [x for x in c if not isinstance(x, L0Token)]

    # -- functional arguments ----------------------------------------------------

    def fun_name(self, c: Children) -> A.Fun:  # f
        return A.FunName(self.span(c), name=str(c[0]))

    def fun_curried(self, c: Children) -> A.Fun:  # f ( [exps] )
        return A.FunName(self.span(c), name=str(c[0]), curried=_exps(c[2]))

    def op_section(self, c: Children) -> A.Fun:  # op sym  or  op sym ( [exps] )
        curried = _exps(c[3]) if len(c) > 2 else []
        return A.OpSection(self.span(c), op=str(c[1]), curried=curried)

    def opsym(self, c: Children) -> L0Token:
        return c[0]

    def lambda_(self, c: Children) -> A.Fun:  # fn T ( params ) => e
        return A.Lambda(self.span(c), ret=c[1].value, params=c[3], body=c[6])

    def _small(self, t: L0Token) -> int:
        """An int literal that must be an int64 on its own (a dimension of `size` etc.)."""
        lit = A.IntLit(self.tok_loc(t), value=_lit(t))
        _int64(lit)
        return lit.value

    def tfun(self, c: Children) -> A.Fun:  # fn { [typelist] } ( params ) => e
        ret = T.TupleType(tuple(c[2] or []))
        return A.Lambda(self.span(c), ret=ret, params=c[5], body=c[8], tuple_form=True)


def _int64(e: A.Exp) -> A.Exp:
    """`e`, unless it is the literal 2^63 anywhere but right after a prefix `-`."""
    if isinstance(e, A.IntLit) and e.value == INT_LIMIT:
        raise L0Error(e.loc, f"integer literal '{e.value}' is out of the 64-bit range",
                      "lexical-error")
    return e


def _unparen(x: A.Exp | Paren) -> A.Exp:
    return x.exp if isinstance(x, Paren) else x


def _lit(t: L0Token) -> Any:
    return t.lit
