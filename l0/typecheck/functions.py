"""Function definitions and whole programs (docs/reference.md §3, 4.3, 4.5 rule 5, 6.1).

`check_program` builds the function table (builtins first: a user function named
like a builtin is a duplicate definition), checks every function, and requires a
`main` (the 2014 test protocol ran every program through a pass that needs one).

A function body is checked with the parameters bound (no self alias, env Note
[Self alias]); when their scope ends their occurrences are validated. Then the
result: first the aliasing of unique result components (4.5 rule 5), then the
subtype check against the declared return type, in the original's order.

`program_errors` is the same check going on after an error (the language server
shows every function's first error).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from l0.diagnostics import L0Error, Loc
from l0.syntax import ast as A
from l0.typecheck import errors
from l0.typecheck.bindings import tail_of
from l0.typecheck.builtins import BUILTIN_NAMES, builtin_sigs
from l0.typecheck.calls import check_body, check_return_alias
from l0.typecheck.checker import Checker
from l0.typecheck.env import FunSig
from l0.types import Type, subtype

# Nested expressions recurse (let chains do not, see checker.py); deep nesting of
# other forms needs a deep Python stack, which the drivers provide with a big thread stack.
_RECURSION_LIMIT = 100_000


def check_program(
    prog: A.Program, *, inhibit_uniqueness: bool = False, require_main: bool = True
) -> None:
    """Type-check `prog` and annotate it in place; raise `L0Error` on the first error.

    `inhibit_uniqueness` (`--inhibit-uniqueness-checking`) skips only the occurrence
    validation (4.5): sources must still be unique, consumed variables stay consumed,
    and return-aliasing, curried consumption and subtyping are still checked. Without
    `require_main` a program need not have a `main` (`l0 repl`, notebook cells)."""
    for err in program_errors(
        prog, inhibit_uniqueness=inhibit_uniqueness, require_main=require_main
    ):
        raise err


def program_errors(
    prog: A.Program, *, inhibit_uniqueness: bool = False, require_main: bool = True
) -> Iterator[L0Error]:
    """Check `prog` as `check_program` does, yielding each error and going on after it:
    the first error of every function, in program order (an editor shows them all).

    A function's callers see its declared signature, so an error in its body does not
    spread to them; a duplicate definition is reported and its body checked all the
    same. `check_program` stops at the first error yielded."""
    if sys.getrecursionlimit() < _RECURSION_LIMIT:
        sys.setrecursionlimit(_RECURSION_LIMIT)
    funs, duplicates = _signatures(prog)
    yield from duplicates
    ck = Checker(funs, check_occurrences=not inhibit_uniqueness)
    for fd in prog.fundefs:
        try:
            check_fundef(ck, fd)
        except L0Error as err:
            yield err
            # The environment is left mid-scope: the next function starts afresh.
            ck = Checker(funs, check_occurrences=not inhibit_uniqueness)
    if require_main and "main" not in funs:
        yield errors.missing_main(Loc(prog.file, 1, 1))


def check_expression(prog: A.Program, params: list[A.Param], exp: A.Exp) -> Type:
    """Type-check the functions of `prog` (no `main` needed) and then `exp` as the body
    of a function of `params` in their scope (an entry of `l0 repl`, whose bindings
    are the parameters); annotate both in place and return the type of `exp`."""
    check_program(prog, require_main=False)
    ck = Checker(_signatures(prog)[0], check_occurrences=True)
    body, _, _ = check_body(ck, "the expression", params, exp, barrier=False)
    return body.type


def _signatures(prog: A.Program) -> tuple[dict[str, FunSig], list[L0Error]]:
    """The function table (builtins, then each function defined once) and the errors
    of the definitions left out of it (duplicates, or named like a builtin)."""
    funs = builtin_sigs()
    duplicates: list[L0Error] = []
    for fd in prog.fundefs:
        if fd.name in BUILTIN_NAMES:
            duplicates.append(errors.dup_definition(fd.loc, fd.name, None))
            continue
        prev = funs.get(fd.name)
        if prev is not None:
            duplicates.append(errors.dup_definition(fd.loc, fd.name, prev.loc))
            continue
        funs[fd.name] = FunSig(
            fd.name, [p.type for p in fd.params], [p.name for p in fd.params], fd.ret, fd.loc
        )
    return funs, duplicates


def check_fundef(ck: Checker, fd: A.FunDef) -> None:
    fname = f"function '{fd.name}'"
    body, nonunique, _ = check_body(ck, fname, fd.params, fd.body, barrier=False)
    tail = tail_of(fd.body)
    check_return_alias(
        fd.ret,
        body.als,
        lambda k: f"non-unique parameter '{nonunique[k]}'" if k in nonunique else None,
        fname,
        tail.loc,
    )
    if not subtype(body.type, fd.ret):
        raise errors.return_type_error(tail.loc, fname, fd.ret, body.type)
