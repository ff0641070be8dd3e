"""The terminator that soac and msoac lambdas share: the values a lambda yields.

Both dialects' `yield` ops are this op under their own name, each with the ops it may
end the lambdas of (`HasParent`); the operands, syntax and builder are the same.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation, var_operand_def


class LambdaYield(IRDLOperation):
    """The results of a lambda region. Syntax: `yield %a, %b : f64, i64`."""

    values = var_operand_def()
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue | Operation) -> None:
        super().__init__(operands=[values])
