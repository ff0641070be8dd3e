"""Erasing dead ops: the rewrite `dce` applies alone and `simplify` with its rules.

An op goes when none of its results is used and it has no effects
(`l0.passes.analysis.effects`: it may not fail or print).
"""

from __future__ import annotations

from functools import cached_property

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from l0.passes.analysis.effects import effectful_functions, is_dead


class EraseDeadOp(RewritePattern):
    """Erase an op none of whose results is used and that has no effects. The effectful
    functions of `module` are computed when first needed (most ops are used)."""

    def __init__(self, module: ModuleOp) -> None:
        self.module = module

    @cached_property
    def effectful(self) -> set[str]:
        return effectful_functions(self.module)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        for r in op.results:  # a loop, not `any`: asked of every op
            if r.first_use is not None:
                return
        if is_dead(op, self.effectful):
            rewriter.erase(op)
