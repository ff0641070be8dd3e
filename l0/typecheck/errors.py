"""The type checker's error kinds and message builders (docs/reference.md §4.8).

Every error the checker reports is built here, so that one kind always reads the
same way wherever it is raised (the idea of mypy's `message_registry`). `KINDS` maps
each kebab-case kind to a one-line description; `docs/errors.md` has one entry per
kind with a failing example and its fix, and a unit test keeps the two in step.

Messages start lower-case, end without a period, and say what was expected and what
was found. Types print in source syntax (`*[int]`, `{int, real}`).
"""

from __future__ import annotations

from collections.abc import Sequence

from l0.diagnostics import L0Error, Loc
from l0.types import Type, similar

KINDS: dict[str, str] = {
    "type-error": "a construct is used with a value of the wrong shape (general type error)",
    "unify-error": "two expressions that must have the same type have different types",
    "unexpected-type": "an operand has a type the operator or construct does not accept",
    "return-type-error": "a function body does not have the declared return type",
    "dup-definition": "two functions (or a function and a builtin) share a name",
    "dup-param": "a parameter name occurs twice in one parameter list",
    "dup-pattern": "a name is bound twice in one pattern",
    "invalid-pattern": "a tuple pattern does not match the shape of the value",
    "unknown-variable": "a variable is not in scope",
    "unknown-function": "a function name is neither defined nor a builtin",
    "parameter-mismatch": "a call passes the wrong number or types of arguments",
    "use-after-consume": "a consumed array (or an alias of it) is used again",
    "indexing-error": "an array is indexed with more indices than it has dimensions",
    "curried-consumption": "a curried argument lands on a unique (consumed) parameter",
    "bad-let-with-value": "the value of an in-place update aliases the updated array",
    "return-aliased": "a unique result aliases a non-unique parameter",
    "unique-return-aliased": "a unique result component aliases another result component",
    "missing-main": "the program defines no function `main`",
}


def _err(kind: str, loc: Loc, message: str) -> L0Error:
    assert kind in KINDS, kind
    return L0Error(loc, message, kind)


def pos(loc: Loc) -> str:
    """`LINE:COL` of a location, as messages cite other places in the same file."""
    return f"{loc.line}:{loc.col}"


def types_str(ts: Sequence[Type]) -> str:
    return "(" + ", ".join(str(t) for t in ts) + ")"


# ----------------------------------------------------------------------------------
# Plain type errors.


def type_error(loc: Loc, message: str) -> L0Error:
    return _err("type-error", loc, message)


def unify_error(loc: Loc, what: str, t1: Type, t2: Type) -> L0Error:
    return _err("unify-error", loc, f"{what} must have the same type, but have types {t1} and {t2}")


def unexpected_type(loc: Loc, what: str, expected: Sequence[Type], found: Type) -> L0Error:
    if len(expected) == 1:
        exp = str(expected[0])
    else:
        exp = ", ".join(str(t) for t in expected[:-1]) + f" or {expected[-1]}"
    return _err("unexpected-type", loc, f"{what} must be of type {exp}, but is of type {found}")


def _mismatch(kind: str, loc: Loc, message: str, expected: Type, found: Type,
              uniqueness_hint: str) -> L0Error:
    """A `found` type where `expected` was needed. When the two differ only in uniqueness
    they print alike, so `uniqueness_hint` is added to say what is wrong."""
    hint = f" ({uniqueness_hint})" if similar(expected, found) else ""
    return _err(kind, loc, message + hint)


def return_type_error(loc: Loc, fname: str, declared: Type, found: Type) -> L0Error:
    return _mismatch(
        "return-type-error", loc,
        f"body of {fname} has type {found}, but the declared return type is {declared}",
        declared, found, "a unique result needs a unique value")


# ----------------------------------------------------------------------------------
# Names and definitions.


def dup_definition(loc: Loc, name: str, previous: Loc | None) -> L0Error:
    where = f"at {pos(previous)}" if previous is not None else "as a builtin"
    return _err("dup-definition", loc, f"function '{name}' is already defined {where}")


def dup_param(loc: Loc, fname: str, pname: str) -> L0Error:
    return _err("dup-param", loc, f"parameter '{pname}' of {fname} is declared twice")


def dup_pattern(loc: Loc, name: str, previous: Loc) -> L0Error:
    return _err(
        "dup-pattern",
        loc,
        f"variable '{name}' is bound twice in one pattern (first at {pos(previous)})",
    )


def invalid_pattern(loc: Loc, arity: int, found: Type) -> L0Error:
    return _err(
        "invalid-pattern",
        loc,
        f"tuple pattern with {arity} component(s) cannot match a value of type {found}",
    )


def unknown_variable(loc: Loc, name: str) -> L0Error:
    return _err("unknown-variable", loc, f"unknown variable '{name}'")


def unknown_function(loc: Loc, name: str) -> L0Error:
    return _err("unknown-function", loc, f"unknown function '{name}'")


def missing_main(loc: Loc) -> L0Error:
    return _err("missing-main", loc, "program has no function 'main'")


# ----------------------------------------------------------------------------------
# Calls.


def arity_mismatch(loc: Loc, fname: str, expected: int, found: int) -> L0Error:
    return _err(
        "parameter-mismatch", loc, f"{fname} takes {expected} argument(s), but is given {found}"
    )


def argument_mismatch(
    loc: Loc, fname: str, index: int, pname: str | None, expected: Type, found: Type, hint: str
) -> L0Error:
    param = f"parameter '{pname}'" if pname else f"parameter {index + 1}"
    return _err(
        "parameter-mismatch",
        loc,
        f"argument {index + 1} of {fname} must be of type {expected} ({param}), "
        f"but is of type {found}{hint}",
    )


def soac_arity(loc: Loc, fname: str, expected: int, found: int, soac: str) -> L0Error:
    return _err(
        "parameter-mismatch",
        loc,
        f"{fname} takes {expected} argument(s) after currying, but {soac} supplies {found}",
    )


def loop_body_mismatch(loc: Loc, expected: Type, found: Type) -> L0Error:
    return _mismatch(
        "parameter-mismatch", loc,
        f"loop body must return a value of type {expected}, but returns type {found}",
        expected, found, "a merge variable the body consumes must be given a new unique value")


def loop_init_mismatch(loc: Loc, expected: Type, found: Type) -> L0Error:
    return _mismatch(
        "parameter-mismatch", loc,
        f"initial value of the loop must be of type {expected}, but has type {found}",
        expected, found, "the body consumes a merge variable, so its initial value must be unique")


def curried_consumption(loc: Loc, fname: str, pname: str | None) -> L0Error:
    param = f"'{pname}'" if pname else "parameter"
    return _err(
        "curried-consumption",
        loc,
        f"argument for unique parameter {param} of '{fname}' cannot be curried: "
        "it would be consumed by every application",
    )


# ----------------------------------------------------------------------------------
# Uniqueness.


def _alias(name: str, via: str | None) -> str:
    return f"'{via}', which aliases it, was" if via is not None and via != name else "being"


def use_after_consume(loc: Loc, name: str, consumed: Loc, via: str | None = None) -> L0Error:
    """`name` is used at `loc` after `via` (itself, or an alias) was consumed."""
    return _err(
        "use-after-consume",
        loc,
        f"variable '{name}' used after {_alias(name, via)} consumed at {pos(consumed)}",
    )


def consumed_in_same_sequence(loc: Loc, name: str, consumed: Loc, via: str | None) -> L0Error:
    alias = f" (as its alias '{via}')" if via is not None and via != name else ""
    return _err(
        "use-after-consume",
        loc,
        f"variable '{name}' is used here and consumed at {pos(consumed)}{alias} in the same "
        "sequence; bind the use with an earlier let",
    )


def consumed_twice(loc: Loc, name: str, first: Loc, via: str | None) -> L0Error:
    return _err(
        "use-after-consume",
        loc,
        f"variable '{name}' consumed after {_alias(name, via)} consumed at {pos(first)}",
    )


def not_unique_source(loc: Loc, name: str, hint: str) -> L0Error:
    return _err("type-error", loc, f"source '{name}' of in-place update is not unique{hint}")


def indexing_error(loc: Loc, name: str, rank: int, count: int) -> L0Error:
    return _err(
        "indexing-error",
        loc,
        f"'{name}' has {rank} dimension(s), but is indexed with {count} indices",
    )


def bad_let_with_value(loc: Loc, src: str) -> L0Error:
    return _err(
        "bad-let-with-value",
        loc,
        f"the value written into '{src}' aliases '{src}' itself; copy it first",
    )


def return_aliased(loc: Loc, fname: str, what: str) -> L0Error:
    """`what` describes the aliased variable, e.g. "non-unique parameter 'a'"."""
    return _err("return-aliased", loc, f"unique result of {fname} aliases {what}")


def unique_return_aliased(loc: Loc, fname: str) -> L0Error:
    return _err(
        "unique-return-aliased",
        loc,
        f"a unique component of the result of {fname} aliases another component of the result",
    )
