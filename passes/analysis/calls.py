"""The call graph of a module: its functions, which are recursive, which are reachable.

`inline` inlines the calls of non-recursive functions and removes the functions no
root reaches; `simplify` evaluates calls of non-recursive functions with constant
arguments. Both ask here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from l0.passes.analysis.walk import walk_ops


def functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    """The functions defined at the top level of `module`, by name."""
    return {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}


_CALL = func.CallOp.name

CallGraph = dict[str, list[str]]
"""Function name -> the names of the functions it calls (`call_graph`)."""


def call_graph(module: ModuleOp) -> dict[str, list[str]]:
    """Function name -> the names of the functions it calls (each once, in order of
    first call), for every function of `module`."""
    graph: dict[str, list[str]] = {}
    for name, f in functions(module).items():
        callees: dict[str, None] = {}
        for op in walk_ops(f):
            if op.name == _CALL:  # not isinstance: op classes are ABCs, slow to test
                assert isinstance(op, func.CallOp)
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


def recursive_functions(module: ModuleOp, graph: CallGraph | None = None) -> set[str]:
    """The functions of `module` that can call themselves, directly or through others
    (`graph`: its call graph, if known)."""
    graph = call_graph(module) if graph is None else graph
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


def closure(start: Iterable[str], edges: Mapping[str, Iterable[str]]) -> set[str]:
    """`start` and every name reachable from it along `edges`."""
    seen = set(start)
    work = list(seen)
    while work:
        for n in edges.get(work.pop(), ()):
            if n not in seen:
                seen.add(n)
                work.append(n)
    return seen


def reachable_functions(module: ModuleOp) -> set[str]:
    """The functions reachable by calls from `main`, or from every public function
    when the module has no `main`."""
    return closure(root_functions(module), call_graph(module))


def functions_calling(module: ModuleOp, holds: Callable[[func.FuncOp], bool],
                      graph: CallGraph | None = None) -> set[str]:
    """The functions of `module` for which `holds` is true, or about which nothing is
    known (declarations, and callers of functions the module does not define), and
    every function that calls one of them, directly or through others.

    Only called functions are asked `holds`: the answer is read at calls (whether a
    call prints, may fail...), and asking costs a walk of the function, which for an
    uncalled `main` is the whole program, pass after pass. `graph`: the module's call
    graph, if known."""
    funcs = functions(module)
    graph = call_graph(module) if graph is None else graph
    callers: dict[str, list[str]] = {}
    for name, callees in graph.items():
        for callee in callees:
            callers.setdefault(callee, []).append(name)
    seeds = [name for name, f in funcs.items()
             if not f.body.blocks or any(c not in funcs for c in graph[name])
             or (name in callers and holds(f))]
    return closure(seeds, callers)
