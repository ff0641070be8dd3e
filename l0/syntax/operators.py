"""Operator precedence of L0 expressions (docs/reference.md §2.2).

The grammar hands each operator expression over as a flat sequence of prefix
operators, operands and binary operators; `resolve` turns it into a tree exactly
as the 2014 parser (happy, a yacc) did. See Note [Operator precedence].

Note [Operator precedence]
~~~~~~~~~~~~~~~~~~~~~~~~~~
The original grammar has the ambiguous rules `exp: exp OP exp`, `exp: '-' exp`
and `exp: 'not' exp`, disambiguated by yacc precedence declarations (lowest first):

    2 ||    3 &&    4 & ^ |    5 <= < =    6 << >>    7 + -    8 * / %
    9 pow   10 not            (all binary operators left-associative)

A yacc rule takes the precedence of its last terminal, so `'-' exp` sits at level
7, like binary minus, and `'not' exp` at level 10. When the parser has a complete
rule on top of its stack (`e1 OP e2`, or `- e`) and sees a binary operator OP2, it
reduces if the rule's level is higher than OP2's, or equal (left associativity),
and shifts otherwise. That is precisely the shunting-yard algorithm with prefix
operators pushed on the operator stack with their rule's level: an incoming binary
operator first pops (reduces) every stacked operator of higher or equal level.
Consequences, all checked by the unit tests:

    -x * y      = -(x * y)       (`*` outranks the prefix rule: shift)
    -x + y      = (-x) + y       (same level, left: reduce)
    3 + -9 / 3  = 3 + (-(9 / 3))
    -2 pow 2    = -(2 pow 2)     = -4
    a * -b * c  = a * (-(b * c)) (the prefix rule only sees the `*` after b)
    not a < b   = (not a) < b
    x & 1 = 0   = x & (1 = 0)
    2 pow 3 pow 2 = (2 pow 3) pow 2

`if`, `let` and `loop` have the lowest precedence of all, so they always shift:
their last sub-expression extends as far right as possible. The grammar expresses
that by allowing them only as the last operand of a sequence, so they never reach
this module as anything but an operand.

The algorithm is iterative: long operator chains (`1 + 1 + ... + 1`) and long
prefix chains (`- - - x`) cost no Python stack.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

# Levels of the binary operators; `pow` is left-associative like all others.
BINARY_PREC: dict[str, int] = {
    "||": 2,
    "&&": 3,
    "&": 4,
    "^": 4,
    "|": 4,
    "<=": 5,
    "<": 5,
    "=": 5,
    "<<": 6,
    ">>": 6,
    "+": 7,
    "-": 7,
    "*": 8,
    "/": 8,
    "%": 8,
    "pow": 9,
}

# Levels of the prefix rules: `-` is binary minus's level, `not` the highest.
PREFIX_PREC: dict[str, int] = {"-": 7, "not": 10}

N = TypeVar("N")  # an operand or an expression built from operands
Op = TypeVar("Op")  # an operator token


def resolve(
    terms: list[tuple[list[Op], N]],
    binops: list[Op],
    op_text: Callable[[Op], str],
    build_binary: Callable[[Op, N, N], N],
    build_prefix: Callable[[Op, N], N],
) -> N:
    """Build the tree of a flat operator sequence (Note [Operator precedence]).

    The sequence is `p0 t0 b0 p1 t1 b1 ... tn`: `terms[i]` pairs the prefix
    operators `pi` (outermost first) with the operand `ti`, and `binops[i]` is the
    binary operator between `ti` and `ti+1`. `op_text` gives an operator's spelling."""
    assert len(binops) == len(terms) - 1, "malformed operator sequence"
    operands: list[N] = []
    stack: list[tuple[bool, Op, int]] = []  # (is_prefix, operator, level)

    def reduce_top() -> None:
        is_prefix, op, _ = stack.pop()
        rhs = operands.pop()
        if is_prefix:
            operands.append(build_prefix(op, rhs))
        else:
            lhs = operands.pop()
            operands.append(build_binary(op, lhs, rhs))

    for i, (prefixes, operand) in enumerate(terms):
        if i > 0:
            op = binops[i - 1]
            level = BINARY_PREC[op_text(op)]
            while stack and stack[-1][2] >= level:
                reduce_top()
            stack.append((False, op, level))
        stack.extend((True, p, PREFIX_PREC[op_text(p)]) for p in prefixes)
        operands.append(operand)
    while stack:
        reduce_top()
    return operands[0]
