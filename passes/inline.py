"""`inline`: inline every non-recursive call, then remove dead functions (thesis 5.1).

All of l0's optimisations are intraprocedural, so, as in the thesis, aggressive
inlining comes first: every call of a function that is not (mutually) recursive is
replaced by a copy of the callee's body, its parameters bound to the call's
arguments. A certificate passed as an argument keeps guarding the inlined code it
guarded in the callee (thesis 4.2.1), since parameters are plain SSA values.
Afterwards most functions are dead: every function not reachable by calls from
`main` (from every public function, when there is no `main`) is removed.

Uniqueness is preserved: the inlined body consumes only what the callee consumed,
which are the arguments the call passed to its unique parameters, and the call
consumed those already (`verify-uniqueness`).

Only the functions that survive (`main`, or the public functions when there is no
`main`, and recursive ones) are inlined into; the others are copied into them, and
the last copy of a body is moved rather than copied (Note [Moving the last copy]).
The call graph (which functions are recursive, which reachable) is
`l0.passes.analysis.calls`.
"""

from __future__ import annotations

from collections import Counter

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from l0.passes.analysis.calls import (
    call_graph,
    closure,
    functions,
    reachable_functions,
    recursive_functions,
    root_functions,
)
from l0.passes.cores.rewrite_walker import RewriteWalker

# ---------------------------------------------------------------------------------------
# Pattern and pass
# ---------------------------------------------------------------------------------------


def inline_call(call: func.CallOp, callee: func.FuncOp, rewriter: PatternRewriter,
                move: bool = False) -> list[func.CallOp]:
    """Replace `call` by `callee`'s body, its parameters bound to the call's arguments
    and the call's results to the returned values. The body is copied, or moved out of
    `callee` (leaving it empty) when `move` is set. Returns the calls it contained."""
    if move:
        body = rewriter.move_region_contents_to_new_regions(callee.body)
    else:
        body = callee.body.clone()
    block = body.block
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    # A returned parameter is the argument itself (inline_block rebinds only uses).
    params: dict[SSAValue, SSAValue] = dict(zip(block.args, call.arguments, strict=True))
    results = [params.get(v, v) for v in ret.arguments]
    rewriter.erase(ret, safe_erase=False)
    nested = [op for inlined in block.ops for op in inlined.walk()
              if isinstance(op, func.CallOp)]
    rewriter.inline_block(block, InsertPoint.before(call), call.arguments)
    for op in nested:  # let the walker look at them (recursive callees stay)
        rewriter.handle_operation_insertion(op)
    rewriter.replace(call, [], results)
    return nested


class InlineCall(RewritePattern):
    """Inline a call of a function that is not recursive.

    Note [Moving the last copy]: copying bodies is what makes inlining slow, so the
    body of a function that is not kept (not a root, not recursive) is moved instead
    of copied into its last remaining call site. `calls` counts the call sites of
    every function in the module, those inside copied bodies included, so a body is
    moved only when no other call (not even one in a body still to be copied) can
    need it.
    """

    def __init__(self, funcs: dict[str, func.FuncOp], recursive: set[str],
                 keep: set[str], calls: Counter[str]) -> None:
        self.funcs = funcs
        self.recursive = recursive
        self.keep = keep
        self.calls = calls

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        name = op.callee.string_value()
        callee = self.funcs.get(name)
        if callee is None or name in self.recursive or len(callee.body.blocks) != 1:
            return  # unknown, recursive, a declaration, or control flow l0 never makes
        if not isinstance(callee.body.block.last_op, func.ReturnOp):
            return
        move = name not in self.keep and self.calls[name] == 1
        self.calls[name] -= 1
        nested = inline_call(op, callee, rewriter, move=move)
        if not move:
            self.calls.update(c.callee.string_value() for c in nested)


def _count_calls(module: ModuleOp) -> Counter[str]:
    return Counter(op.callee.string_value() for op in module.walk()
                   if isinstance(op, func.CallOp))


class InlinePass(ModulePass):
    """Inline every call of a non-recursive function, then remove dead functions.

    Thesis 5.1: the optimisations are intraprocedural, so every call of a function
    that is not (mutually) recursive is replaced by a copy of the callee's body, with
    its parameters bound to the call's arguments (certificate parameters too, so the
    checks they stand for keep guarding the inlined code, thesis 4.2.1). Calls of
    recursive functions stay. Then functions not reachable from `main` (from any
    public function when there is no `main`) are erased.

    Before:
        func.func @sq(%x: i64) -> i64 {
          %y = arith.muli %x, %x : i64
          func.return %y : i64
        }
        func.func @main(%a: i64) -> i64 {
          %r = func.call @sq(%a) : (i64) -> i64
          func.return %r : i64
        }
    After:
        func.func @main(%a: i64) -> i64 {
          %y = arith.muli %a, %a : i64
          func.return %y : i64
        }
    """

    name = "inline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        funcs = functions(op)
        graph = call_graph(op)
        recursive = recursive_functions(op, graph)
        roots = root_functions(op)
        reachable = closure(roots, graph)
        # Only the functions that survive are worth inlining into (Note [Moving the
        # last copy]); the others are copied or moved into them and then erased.
        keep = [name for name in funcs if name in reachable
                and (name in roots or name in recursive)]
        live = reachable
        # Walk the survivors only when one calls a function that may be inlined: on a
        # module with nothing to inline (as after the first round of `-O`), a walk of
        # every op per round for nothing.
        if any(c in funcs and c not in recursive for name in keep for c in graph[name]):
            pattern = InlineCall(funcs, recursive, set(keep), _count_calls(op))
            walker = RewriteWalker(pattern)
            for name in keep:
                walker.rewrite_region(funcs[name].body)
            live = reachable_functions(op)
        for name, f in funcs.items():
            if name not in live:
                f.detach()
                f.erase()
