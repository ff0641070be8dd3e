"""Random well-typed L0 programs for differential testing, from a seed.

`module(seed, functions)` is the source of a program with `functions` random functions
`f0`, `f1`, ... of one signature, `fun T fI([int] a, [int] b, [[int]] m, int k, bool p)`
with one return type `T` per module, a helper `fun int h(int x, int y)` they call (and
curry in maps), and a `main(int which, ...)` that calls the one `which` names (Note
[Many programs in one module]). `INPUTS` are the arguments each
function is run on. The same seed always gives the same program.

The bodies are built by a typed generator: every expression is made for a type, out of
the variables in scope of that type and the constructs that yield it (SOACs: map,
filter, reduce, scan, redomap; loops, ifs, lets, tuples, in-place updates of fresh
copies, nested arrays, size, iota, replicate, concat, transpose, reshape, split, zip
and unzip). Some of them may fail at run time, on some inputs, as a program may:
indexing out of bounds, division by zero, zips of arrays of different sizes, negative
sizes to iota or replicate, reshapes and splits that do not fit, rows of different
lengths from a map. The generator keeps to what every back end must agree on: the
operators of reductions and scans are associative, with a neutral element (a parallel
back end may split them, docs/reference.md section 5); reals are never reduced; sizes
stay tiny (a size is a size of an input, a small literal or a value modulo 4).

Note [Many programs in one module]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Compiling a module natively costs far more than running it, and much of the cost is
per module, not per function (starting the lowering, LLVM and the JIT). So one module
holds many random functions, and `main` dispatches on `which` with a chain of ifs: one
compilation per back end covers all of them. Each function is still optimised as a
whole program would be: `-O` inlines every function into `main`, each into its own
branch, where the pipeline sees it with the parameters of `main`. A failure in one
function fires only when `which` selects it, so errors are compared per function too.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

SIGNATURE = "[int] a, [int] b, [[int]] m, int k, bool p"
PARAMS = {"a": "[int]", "b": "[int]", "m": "[[int]]", "k": "int", "p": "bool"}

INPUTS = [
    "[3, 1, 4, 1, 5]\n[2, 7, 1, 8, 2]\n[[1, 2, 3], [4, 5, 6]]\n2\nTrue\n",
    "[5, -3, 0, 2]\n[1, 2, 3, 4]\n[[0, -1], [3, 0], [2, 2]]\n0\nFalse\n",
    "[1, 2, 3]\n[4, 5]\n[[7]]\n-2\nTrue\n",
    "empty(int)\nempty(int)\nempty([int])\n3\nFalse\n",
]
"""The arguments of each function after `which`: arrays of equal and of different
sizes, k = 0 (divisions fail), negative k, empty arrays and matrices."""

RETURN_TYPES = ["int", "[int]", "[[int]]", "{int, [int]}", "{[int], bool}", "[bool]", "[real]",
                "{int, real}", "{[[int]], int}"]

Type = str
"""An L0 type as written: `int`, `[int]`, `{int, [int]}`, ..."""


def element(t: Type) -> Type:
    return t[1:-1]


def components(t: Type) -> list[Type]:
    """The component types of a tuple type (top-level commas only)."""
    inner, parts, depth, start = t[1:-1], [], 0, 0
    for i, c in enumerate(inner):
        depth += c in "[{"
        depth -= c in "]}"
        if c == "," and depth == 0:
            parts.append(inner[start:i].strip())
            start = i + 1
    parts.append(inner[start:].strip())
    return parts


@dataclass(frozen=True)
class _Scope:
    """The variables an expression may use, with their types."""

    vars: tuple[tuple[str, Type], ...]

    def of(self, t: Type) -> list[str]:
        return [n for n, vt in self.vars if vt == t]

    def arrays(self) -> list[tuple[str, Type]]:
        return [(n, t) for n, t in self.vars if t.startswith("[")]

    def bind(self, name: str, t: Type) -> _Scope:
        return _Scope((*self.vars, (name, t)))

    def without(self, name: str) -> _Scope:
        return _Scope(tuple(v for v in self.vars if v[0] != name))


# Associative operators with a neutral element, as (lambda on x and y, neutral element).
_INT_OPS = [
    ("x + y", "0"),
    ("x * y", "1"),
    ("if x < y then y else x", "0"),  # max(0, ...) is what a split computes too
    ("if x < y then x else y", "0"),
    ("x ^ y", "0"),
    ("x | y", "0"),
]


@dataclass
class _Gen:
    rng: random.Random
    calls_helper: bool = True  # False in the helper itself
    counter: int = 0

    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def pick(self, options: list[str]) -> str:
        return self.rng.choice(options)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # -- expressions by type ---------------------------------------------------------

    def expr(self, t: Type, s: _Scope, depth: int) -> str:
        if t == "int":
            return self.int_expr(s, depth)
        if t == "bool":
            return self.bool_expr(s, depth)
        if t == "real":
            return self.real_expr(s, depth)
        if t.startswith("{"):
            return self.tuple_expr(t, s, depth)
        if t in ("[int]", "[bool]", "[real]"):
            return self.vector(element(t), s, depth)
        if t == "[[int]]":
            return self.matrix(s, depth)
        raise ValueError(t)

    def small(self, s: _Scope, depth: int, may_be_negative: bool = False) -> str:
        """A size: 0..3 (or -1..2 with `may_be_negative`), a size of an array, a literal."""
        arrays = s.arrays()
        form = self.rng.randrange(4)
        if form == 0 and arrays:
            name, _ = self.rng.choice(arrays)
            return f"size(0, {name})"
        if form == 1:
            return str(self.rng.randrange(4))
        e = f"({self.int_expr(s, depth - 1)} % 4)"
        return f"({e} - 1)" if may_be_negative and self.chance(0.3) else e

    def index(self, array: str, s: _Scope, depth: int, size: str | None = None) -> str:
        """An index into `array`, mostly in bounds; `size`: a variable holding its size,
        for an update, whose index may not name the array."""
        s = s.without(array)
        ints = s.of("int")
        form = self.rng.randrange(7)
        if form == 0 and ints:
            return self.pick(ints)
        if form == 1:
            return str(self.rng.randrange(3))
        if form == 2:
            return f"({self.int_expr(s, depth - 1)} % 4)"
        # in bounds unless the array is empty (then: division by zero)
        return f"({self.int_expr(s, depth - 1)} % {size or f'size(0, {array})'})"

    def leaf_int(self, s: _Scope) -> str:
        names = s.of("int")
        form = self.rng.randrange(4)
        if form == 0 and names:
            return self.pick(names)
        arrays = s.arrays()
        if form == 1 and arrays:
            return f"size(0, {self.rng.choice(arrays)[0]})"
        if form == 2:
            vectors = s.of("[int]")
            if vectors:
                v = self.pick(vectors)
                return f"{v}[{self.index(v, s, 0)}]"
        n = self.rng.randrange(10)
        return f"(0 - {n})" if self.chance(0.2) else str(n)

    def int_expr(self, s: _Scope, depth: int) -> str:
        if depth <= 0 or self.chance(0.25):
            return self.leaf_int(s)
        d = depth - 1
        form = self.rng.randrange(16)
        if form <= 3:
            op = self.pick(["+", "-", "*", "/", "%", "&", "|", "^", "+", "*"])
            return f"({self.int_expr(s, d)} {op} {self.int_expr(s, d)})"
        if form == 4:
            x, y = self.fresh("x"), self.fresh("y")
            cmp = self.pick(["<", "<="])
            return (f"(let {x} = {self.int_expr(s, d)} in let {y} = {self.int_expr(s, d)} in "
                    f"if {x} {cmp} {y} then {x} else {y})")
        if form == 5:
            return self.if_expr("int", s, d)
        if form == 6:
            return self.reduce(s, d)
        if form == 7:
            return self.redomap(s, d)
        if form == 8:
            return self.let("int", s, d)
        if form == 9:
            return self.int_loop(s, d)
        if form == 10:
            return f"trunc({self.real_expr(s, d)})"
        if form == 11:
            mats = s.of("[[int]]")
            if mats:
                mat = self.pick(mats)
                return f"{mat}[{self.index(mat, s, d)}, {self.int_expr(s, d)} % 3]"
            return f"size(0, {self.vector('int', s, d)})"
        if form == 12:
            vectors = s.of("[int]")
            if vectors:
                v = self.pick(vectors)
                return f"{v}[{self.index(v, s, d)}]"
            return self.leaf_int(s)
        if form == 13:
            return self.tuple_let("int", s, d)
        if form == 14:
            if self.calls_helper and self.chance(0.5):
                return f"{HELPER}({self.int_expr(s, d)}, {self.int_expr(s, d)})"
            return f"({self.int_expr(s, d)} << ({self.int_expr(s, d)} & 7))"
        if form == 15 and self.chance(0.5):
            return self.tuple_reduce(s, d)
        return f"size({self.pick(['0', '0', '1'])}, {self.matrix(s, d)})"

    def bool_expr(self, s: _Scope, depth: int) -> str:
        if depth <= 0 or self.chance(0.2):
            names = s.of("bool")
            if names and self.chance(0.6):
                return self.pick(names)
            if self.chance(0.3):
                return self.pick(["True", "False"])
            return f"({self.leaf_int(s)} < {self.leaf_int(s)})"
        d = depth - 1
        form = self.rng.randrange(7)
        if form <= 1:
            op = self.pick(["<", "<=", "="])
            return f"({self.int_expr(s, d)} {op} {self.int_expr(s, d)})"
        if form == 2:
            op = self.pick(["&&", "||"])
            return f"({self.bool_expr(s, d)} {op} {self.bool_expr(s, d)})"
        if form == 3:
            return f"(not {self.bool_expr(s, d)})"
        if form == 4:
            vectors = s.of("[bool]")
            if vectors:
                v = self.pick(vectors)
                return f"{v}[{self.index(v, s, d)}]"
            return f"({self.real_expr(s, d)} < {self.real_expr(s, d)})"
        if form == 5:
            return (f"reduce(fn bool (bool x, bool y) => x {self.pick(['&&', '||'])} y, "
                    f"{self.pick(['True', 'False'])}, {self.vector('bool', s, d)})")
        return self.if_expr("bool", s, d)

    def real_expr(self, s: _Scope, depth: int) -> str:
        names = s.of("real")
        if depth <= 0 or self.chance(0.3):
            if names and self.chance(0.5):
                return self.pick(names)
            return self.pick(["0.5", "1.0", "2.5"]) if self.chance(0.3) else \
                f"toReal({self.leaf_int(s)})"
        d = depth - 1
        form = self.rng.randrange(5)
        if form <= 1:
            op = self.pick(["+", "-", "*"])
            return f"({self.real_expr(s, d)} {op} {self.real_expr(s, d)})"
        if form == 2:
            return f"toReal({self.int_expr(s, d)})"
        if form == 3:
            vectors = s.of("[real]")
            if vectors:
                v = self.pick(vectors)
                return f"{v}[{self.index(v, s, d)}]"
        return self.if_expr("real", s, d)

    def if_expr(self, t: Type, s: _Scope, depth: int) -> str:
        return f"(if {self.bool_expr(s, depth)} then {self.expr(t, s, depth)} else " \
               f"{self.expr(t, s, depth)})"

    def tuple_expr(self, t: Type, s: _Scope, depth: int) -> str:
        parts = components(t)
        if depth > 0 and self.chance(0.3):
            return self.let(t, s, depth - 1)
        return "{" + ", ".join(self.expr(c, s, depth - 1) for c in parts) + "}"

    # -- scalar-valued constructs ------------------------------------------------------

    def reduce(self, s: _Scope, depth: int) -> str:
        body, ne = self.rng.choice(_INT_OPS)
        return f"reduce(fn int (int x, int y) => {body}, {ne}, {self.vector('int', s, depth)})"

    def tuple_reduce(self, s: _Scope, depth: int) -> str:
        """A reduction of pairs (a sum and a maximum) over two zipped arrays, or over
        them with `reduceT`, or of the pairs a filter keeps."""
        a, b = self.vector("int", s, depth), self.vector("int", s, depth)
        x1, y1, x2, y2, u, v = (self.fresh(n) for n in ("x", "y", "x", "y", "u", "v"))
        op = f"{{{x1} + {x2}, if {y1} < {y2} then {y2} else {y1}}}"
        lam = (f"fn {{int, int}} ({{int, int}} {u}, {{int, int}} {v}) => let {{{x1}, {y1}}} = "
               f"{u} in let {{{x2}, {y2}}} = {v} in {op}")
        form = self.rng.randrange(3)
        if form == 0:
            call = f"reduce({lam}, {{0, 0}}, zip({a}, {b}))"
        elif form == 1:
            flat = f"fn {{int, int}} (int {x1}, int {y1}, int {x2}, int {y2}) => {op}"
            call = f"reduceT({flat}, {{0, 0}}, {a}, {b})"
        else:
            x, y = self.fresh("x"), self.fresh("y")
            keep = self.bool_expr(s.bind(x, "int").bind(y, "int"), depth)
            call = (f"reduce({lam}, {{0, 0}}, filter(fn bool (int {x}, int {y}) => {keep}, "
                    f"zip({a}, {b})))")
        return f"(let {{{u}, {v}}} = {call} in {self.pick([u, v, f'{u} - {v}'])})"

    def redomap(self, s: _Scope, depth: int) -> str:
        """A fold of a function of each element, combined by an associative operator."""
        body, ne = self.rng.choice(_INT_OPS)
        acc, x, v = self.fresh("acc"), self.fresh("x"), self.fresh("e")
        inner = s.bind(x, "int")
        fold = body.replace("x", acc).replace("y", v)
        return (f"redomap(fn int (int x, int y) => {body}, fn int (int {acc}, int {x}) => "
                f"let {v} = {self.int_expr(inner, depth)} in {fold}, {ne}, "
                f"{self.vector('int', s, depth)})")

    def int_loop(self, s: _Scope, depth: int) -> str:
        i, acc = self.fresh("i"), self.fresh("s")
        if self.chance(0.4):  # a tuple merge variable: an int and an array
            arr = self.fresh("r")
            inner = s.bind(i, "int").bind(acc, "int").bind(arr, "[int]")
            return (f"(loop ({{{acc}, {arr}}} = {{{self.int_expr(s, depth)}, "
                    f"{self.vector('int', s, depth)}}}) = for {i} < {self.small(s, depth)} do "
                    f"{{{self.int_expr(inner, depth)}, {self.vector('int', inner, depth)}}} "
                    f"in {acc} + size(0, {arr}))")
        inner = s.bind(i, "int").bind(acc, "int")
        return (f"(loop ({acc} = {self.int_expr(s, depth)}) = for {i} < {self.small(s, depth)} "
                f"do {self.int_expr(inner, depth)} in {acc})")

    def let(self, t: Type, s: _Scope, depth: int) -> str:
        bound_t = self.pick(["int", "int", "[int]", "[int]", "[[int]]", "bool", "real",
                             "[bool]"])
        name = self.fresh()
        return (f"(let {name} = {self.expr(bound_t, s, depth)} in "
                f"{self.expr(t, s.bind(name, bound_t), depth)})")

    def tuple_let(self, t: Type, s: _Scope, depth: int) -> str:
        """A tuple taken apart: from a literal, or from unzipping a map of pairs."""
        x, y = self.fresh(), self.fresh()
        if self.chance(0.5):
            tx, ty = self.pick(["int", "[int]"]), self.pick(["int", "bool", "[int]"])
            rhs = f"{{{self.expr(tx, s, depth)}, {self.expr(ty, s, depth)}}}"
        else:
            tx, ty = "[int]", "[int]"
            e = self.fresh("x")
            inner = s.bind(e, "int")
            rhs = (f"unzip(map(fn {{int, int}} (int {e}) => {{{self.int_expr(inner, depth)}, "
                   f"{self.int_expr(inner, depth)}}}, {self.vector('int', s, depth)}))")
        body_scope = s.bind(x, tx).bind(y, ty)
        return f"(let {{{x}, {y}}} = {rhs} in {self.expr(t, body_scope, depth)})"

    # -- arrays ------------------------------------------------------------------------

    def vector(self, elem: Type, s: _Scope, depth: int) -> str:
        """A one-dimensional array of `elem` (int, bool or real)."""
        t = f"[{elem}]"
        names = s.of(t)
        if depth <= 0 or self.chance(0.2):
            if names:
                return self.pick(names)
            if elem == "int":
                return f"iota({self.small(s, 0)})"
            return f"replicate({self.small(s, 0)}, {self.expr(elem, s, 0)})"
        d = depth - 1
        form = self.rng.randrange(17)
        if form <= 2:  # a map over one array, or two zipped (which may differ in size)
            x = self.fresh("x")
            if self.chance(0.35):
                y = self.fresh("y")
                inner = s.bind(x, "int").bind(y, "int")
                return (f"map(fn {elem} (int {x}, int {y}) => {self.expr(elem, inner, d)}, "
                        f"zip({self.vector('int', s, d)}, {self.vector('int', s, d)}))")
            body = self.expr(elem, s.bind(x, "int"), d)
            return f"map(fn {elem} (int {x}) => {body}, {self.vector('int', s, d)})"
        if form == 3:  # a map over the rows of a matrix
            r = self.fresh("row")
            inner = s.bind(r, "[int]")
            return f"map(fn {elem} ([int] {r}) => {self.expr(elem, inner, d)}, {self.matrix(s, d)})"
        if form == 4:
            x = self.fresh("x")
            return (f"filter(fn bool (int {x}) => {self.bool_expr(s.bind(x, 'int'), d)}, "
                    f"{self.vector('int', s, d)})") if elem == "int" else self.vector(elem, s, d)
        if form == 5 and elem == "int":
            body, ne = self.rng.choice(_INT_OPS)
            return f"scan(fn int (int x, int y) => {body}, {ne}, {self.vector('int', s, d)})"
        if form == 6:
            return f"concat({self.vector(elem, s, d)}, {self.vector(elem, s, d)})"
        if form == 7:
            return f"replicate({self.small(s, d, may_be_negative=True)}, {self.expr(elem, s, d)})"
        if form == 8 and elem == "int":
            return f"iota({self.small(s, d, may_be_negative=True)})"
        if form == 9:
            return self.updated_copy(elem, s, d)
        if form == 10:
            return self.update_loop(elem, s, d)
        if form == 11:
            return self.if_expr(t, s, d)
        if form == 12:
            return self.let(t, s, d)
        if form == 13 and elem == "int":
            mats = s.of("[[int]]")
            if mats:
                mat = self.pick(mats)
                return f"{mat}[{self.index(mat, s, d)}]"
            return f"reshape(({self.small(s, d)}), {self.vector('int', s, d)})"
        if form == 14:
            left, right = self.fresh(), self.fresh()
            return (f"(let {{{left}, {right}}} = split({self.small(s, d)}, "
                    f"{self.vector(elem, s, d)}) in {self.pick([left, right])})")
        if form == 15:
            return self.tuple_let(t, s, d)
        if elem == "int" and self.calls_helper and self.chance(0.5):  # the helper, curried
            return f"map({HELPER}({self.int_expr(s, d)}), {self.vector('int', s, d)})"
        if elem == "int":  # a scan of pairs (affine maps composed: not commutative)
            p, q = self.fresh("p"), self.fresh("q")
            return (f"(let {{{p}, {q}}} = unzip(scan(fn {{int, int}} ({{int, int}} f, "
                    f"{{int, int}} g) => let {{a1, b1}} = f in let {{a2, b2}} = g in "
                    f"{{a1 * a2, b1 * a2 + b2}}, {{1, 0}}, zip({self.vector('int', s, d)}, "
                    f"{self.vector('int', s, d)}))) in map(op -, zip({p}, {q})))")
        return self.pick(names) if names else self.vector(elem, s, 0)

    def updated_copy(self, elem: Type, s: _Scope, depth: int) -> str:
        """A fresh copy with one element replaced in place."""
        c, n = self.fresh("c"), self.fresh("n")
        inner = s.bind(c, f"[{elem}]")
        return (f"(let {c} = copy({self.vector(elem, s, depth)}) in let {n} = size(0, {c}) in "
                f"let {c}[{self.index(c, s, depth, n)}] = {self.expr(elem, inner, depth)} in {c})")

    def update_loop(self, elem: Type, s: _Scope, depth: int) -> str:
        """A loop updating a fresh copy in place, element by element."""
        c, n, i = self.fresh("c"), self.fresh("n"), self.fresh("i")
        init = self.vector(elem, s, depth)
        outer = s.bind(n, "int")
        inner = outer.bind(i, "int").bind(c, f"[{elem}]")
        idx = self.pick([i, f"{n} - 1 - {i}", f"({i} * 2) % {n}", f"{i} + 1"])
        return (f"(let {c} = copy({init}) in let {n} = size(0, {c}) in "
                f"loop ({c}) = for {i} < {n} do let {c}[{idx}] = {self.expr(elem, inner, depth)} "
                f"in {c} in {c})")

    def matrix(self, s: _Scope, depth: int) -> str:
        names = s.of("[[int]]")
        if depth <= 0 or self.chance(0.2):
            if names:
                return self.pick(names)
            return f"replicate({self.small(s, 0)}, iota({self.small(s, 0)}))"
        d = depth - 1
        form = self.rng.randrange(12)
        if form == 10:  # the sum of rows: a reduction with an array accumulator
            n, x, y = self.fresh("n"), self.fresh("x"), self.fresh("y")
            rows = self.matrix(s, d)
            return (f"(let {n} = {self.small(s, d)} in replicate(1, reduce(fn [int] ([int] {x}, "
                    f"[int] {y}) => map(op +, zip({x}, {y})), replicate({n}, 0), {rows})))")
        if form == 11:  # a loop replacing rows of a fresh copy by fresh rows
            c, n, i = self.fresh("c"), self.fresh("n"), self.fresh("i")
            inner = s.bind(n, "int").bind(i, "int")
            row = self.pick([f"map(fn int (int x) => x + {i}, {c}[{i}])",
                             f"copy({self.vector('int', inner, d)})"])
            return (f"(let {c} = copy({self.matrix(s, d)}) in let {n} = size(0, {c}) in "
                    f"loop ({c}) = for {i} < {n} do let {c}[{i}] = {row} in {c} in {c})")
        if form == 0:
            n = self.small(s, d, may_be_negative=True)
            return f"replicate({n}, {self.vector('int', s, d)})"
        if form <= 2:  # rows made from each element: of one length unless they differ
            x = self.fresh("x")
            inner = s.bind(x, "int")
            row = (f"iota({self.small(inner, d)})" if self.chance(0.2)
                   else self.vector("int", s, d) if self.chance(0.5)
                   else f"map(fn int (int y) => y + {x}, {self.vector('int', s, d)})")
            return f"map(fn [int] (int {x}) => {row}, {self.vector('int', s, d)})"
        if form == 3:  # each row transformed
            r = self.fresh("row")
            inner = s.bind(r, "[int]")
            x = self.fresh("x")
            row = self.pick([
                f"map(fn int (int {x}) => {self.int_expr(inner.bind(x, 'int'), d)}, {r})",
                f"scan(op +, 0, {r})",
                f"(let {x} = copy({r}) in let {x}[0] = {self.int_expr(inner, d)} in {x})",
            ])
            return f"map(fn [int] ([int] {r}) => {row}, {self.matrix(s, d)})"
        if form == 4:
            return f"transpose({self.matrix(s, d)})"
        if form == 5:
            return f"concat({self.matrix(s, d)}, {self.matrix(s, d)})"
        if form == 6:
            return f"reshape(({self.small(s, d)}, {self.small(s, d)}), {self.vector('int', s, d)})"
        if form == 7:  # one element replaced in a fresh copy
            c, n = self.fresh("c"), self.fresh("n")
            inner = s.bind(c, "[[int]]")
            return (f"(let {c} = copy({self.matrix(s, d)}) in let {n} = size(0, {c}) in "
                    f"let {c}[{self.index(c, s, d, n)}, {self.int_expr(s.without(c), d)} % 2] = "
                    f"{self.int_expr(inner, d)} in {c})")
        if form == 8:
            return self.if_expr("[[int]]", s, d)
        return self.let("[[int]]", s, d)


def function(rng: random.Random, name: str, ret: Type, depth: int = 4) -> str:
    """A random function `name` of the module's signature, returning `ret`."""
    gen = _Gen(rng)
    scope = _Scope(tuple(PARAMS.items()))
    return f"fun {ret} {name}({SIGNATURE}) =\n  {gen.expr(ret, scope, depth)}\n"


HELPER = "h"
"""Each module's helper `fun int h(int x, int y)`, which functions call and curry."""


def helper(rng: random.Random) -> str:
    gen = _Gen(rng, calls_helper=False)
    scope = _Scope((("x", "int"), ("y", "int")))
    return f"fun int {HELPER}(int x, int y) =\n  {gen.int_expr(scope, 2)}\n"


def _definitions(seed: int, functions: int) -> tuple[Type, list[str]]:
    rng = random.Random(seed)
    ret = rng.choice(RETURN_TYPES)
    return ret, [helper(rng), *(function(rng, f"f{i}", ret) for i in range(functions))]


def module(seed: int, functions: int) -> str:
    """A module of `functions` random functions and a `main` dispatching to them."""
    ret, defs = _definitions(seed, functions)
    args = ", ".join(PARAMS)
    chain = f"f{functions - 1}({args})"
    for i in reversed(range(functions - 1)):
        chain = f"if which = {i} then f{i}({args})\n  else {chain}"
    return "\n".join(defs) + f"\nfun {ret} main(int which, {SIGNATURE}) =\n  {chain}\n"


def function_source(seed: int, functions: int, index: int) -> str:
    """Function `index` of that module alone, called by a `main` without `which` (its
    inputs are those of `INPUTS`)."""
    ret, defs = _definitions(seed, functions)
    return (f"{defs[0]}\n{defs[index + 1]}\nfun {ret} main({SIGNATURE}) =\n"
            f"  f{index}({', '.join(PARAMS)})\n")
