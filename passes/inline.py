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
`functions` and `recursive_functions` are reused by `simplify` (constant calls).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

# ---------------------------------------------------------------------------------------
# The call graph
# ---------------------------------------------------------------------------------------


def functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    """The functions defined at the top level of `module`, by name."""
    return {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}


def call_graph(module: ModuleOp) -> dict[str, list[str]]:
    """Function name -> the names of the functions it calls (each once, in order of
    first call), for every function of `module`."""
    graph: dict[str, list[str]] = {}
    for name, f in functions(module).items():
        callees: dict[str, None] = {}
        for op in f.walk():
            if isinstance(op, func.CallOp):
                callees[op.callee.string_value()] = None
        graph[name] = list(callees)
    return graph


def _sccs(graph: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components of `graph` (Tarjan's algorithm, iteratively, so
    deep call chains cannot overflow the stack), callees' components first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(node: str) -> Iterator[str]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        return iter([s for s in graph[node] if s in graph])

    for root in graph:
        if root in index:
            continue
        work = [(root, visit(root))]
        while work:
            node, succs = work[-1]
            for s in succs:
                if s not in index:
                    work.append((s, visit(s)))
                    break
                if s in on_stack:
                    low[node] = min(low[node], index[s])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == node:
                            break
                    out.append(component)
    return out


def recursive_functions(module: ModuleOp) -> set[str]:
    """The functions of `module` that can call themselves, directly or through others."""
    graph = call_graph(module)
    out: set[str] = set()
    for component in _sccs(graph):
        if len(component) > 1 or component[0] in graph[component[0]]:
            out.update(component)
    return out


def root_functions(module: ModuleOp) -> set[str]:
    """`main`, or every public function when the module has no `main`."""
    funcs = functions(module)
    if "main" in funcs:
        return {"main"}
    return {n for n, f in funcs.items()
            if f.sym_visibility is None or f.sym_visibility.data == "public"}


def reachable_functions(module: ModuleOp) -> set[str]:
    """The functions reachable by calls from `main`, or from every public function
    when the module has no `main`."""
    graph = call_graph(module)
    roots = root_functions(module)
    seen = set(roots)
    work = list(roots)
    while work:
        for callee in graph.get(work.pop(), ()):
            if callee not in seen:
                seen.add(callee)
                work.append(callee)
    return seen


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
    params = {arg: value for arg, value in zip(block.args, call.arguments, strict=True)}
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
        recursive = recursive_functions(op)
        reachable = reachable_functions(op)
        roots = root_functions(op)
        # Only the functions that survive are worth inlining into (Note [Moving the
        # last copy]); the others are copied or moved into them and then erased.
        keep = [name for name in funcs if name in reachable
                and (name in roots or name in recursive)]
        pattern = InlineCall(funcs, recursive, set(keep), _count_calls(op))
        walker = PatternRewriteWalker(pattern)
        for name in keep:
            walker.rewrite_region(funcs[name].body)
        live = reachable_functions(op)
        for name, f in funcs.items():
            if name not in live:
                f.detach()
                f.erase()
