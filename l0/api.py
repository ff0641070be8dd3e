"""The Python API: compile L0 code once, call its functions with numpy arrays and Python scalars.

    import l0
    prog = l0.compile("fun int main([int] a) = reduce(op +, 0, a)")
    prog.main(numpy.arange(10))          # -> 45
    prog.run_main("[1, 2, 3]")            # -> "6", as l0-run prints it

Arguments and results follow the source types: scalars are Python values (chars are
one-character strings), arrays numpy arrays (arrays of chars too: of code points),
tuples Python tuples, and an array of tuples a tuple of arrays (thesis 4.1).
Compiling the same source twice in one process reuses the first compilation.

Back ends: "cpu" (the default) compiles to native code (`l0.lowering.pipeline`);
"interp" runs the reference interpreter. Both give callers value semantics: arrays
passed in are never changed, results never alias them. `fast_math=True` (cpu) lets
LLVM reassociate real arithmetic (vectorised reductions; results may differ in the
last bits).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error, Loc
from l0.syntax import ast
from l0.types import CHAR, ArrayType, BasicType, TupleType, Type, flatten

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

_cache: dict[tuple[str, str, str, bool, bool], CompiledProgram] = {}

BACKENDS = ("cpu", "interp")


def compile(  # noqa: A001 - the API's name, like re.compile
    source_or_path: str | os.PathLike[str],
    *,
    filename: str | None = None,
    backend: str = "cpu",
    optimise: bool = True,
    fast_math: bool = False,
) -> CompiledProgram:
    """Compile an L0 program given as source text or as the path of a `.l0` file.

    `optimise` runs the default pipeline (`l0.passes.pipeline`), as `l0-run -O` does.
    Raises `L0Error` for errors in the program.
    """
    text, name = _source_of(source_or_path, filename)
    key = (text, name, backend, optimise, fast_math)
    if key not in _cache:
        _cache[key] = call_with_big_stack(
            lambda: CompiledProgram(text, name, backend, optimise=optimise,
                                    fast_math=fast_math)
        )
    return _cache[key]


def _source_of(source_or_path: str | os.PathLike[str], filename: str | None) -> tuple[str, str]:
    looks_like_path = isinstance(source_or_path, os.PathLike) or (
        "\n" not in str(source_or_path) and str(source_or_path).endswith(".l0")
    )
    if not looks_like_path:
        return str(source_or_path), filename or "<string>"
    path = os.fspath(source_or_path)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), filename or path
    except (OSError, UnicodeDecodeError) as err:
        raise L0Error(Loc(path, 1, 1), f"cannot read program: {err}", "io-error") from None


class CompiledProgram:
    """An L0 program compiled for one back end; its functions are attributes.
    With `optimise` (the default) the module goes through the default pipeline."""

    def __init__(self, text: str, filename: str, backend: str, *, optimise: bool = True,
                 fast_math: bool = False, inhibit_uniqueness: bool = False,
                 main_only: bool = False, isolate: bool = True) -> None:
        """`main_only`: only `main` will be called (l0-run), so nothing else is kept or
        compiled; `isolate=False`: the caller's arrays may be updated in place (l0-run
        reads fresh ones for every run). With `inhibit_uniqueness` the occurrence checks
        are skipped, so an update may hit an array used later: the program then runs
        unoptimised in the interpreter, which copies on every update."""
        from l0.frontend import load_program, to_module

        if backend not in BACKENDS:
            raise ValueError(f"unknown back end {backend!r} (available: {', '.join(BACKENDS)})")
        self.filename = filename
        self.ast = load_program(text, filename, inhibit_uniqueness=inhibit_uniqueness)
        self.module = to_module(self.ast, verify=False)
        self._unchecked = inhibit_uniqueness
        optimise = optimise and not inhibit_uniqueness
        # The optimiser keeps only what `main` reaches (it inlines everything else into
        # it): the other functions are run from the module as the front end makes it,
        # internalised again when one of them is first called.
        self._separate_plain = optimise and not main_only
        if optimise:
            from l0.passes.pipeline import optimise as run_pipeline

            run_pipeline(self.module)
        self.functions: dict[str, ast.FunDef] = {f.name: f for f in self.ast.fundefs}
        self._backend, self._fast_math = backend, fast_math
        self._entries = ["main"] if main_only else None
        self._isolate = isolate
        self._engine = self._make_engine(self.module)
        self._plain_engine: Any = None

    def _make_engine(self, module: ModuleOp) -> Any:
        from l0.interp import Interpreter

        if self._unchecked:
            return Interpreter(module, in_place=False)
        if self._backend == "cpu":
            from l0.lowering.pipeline import CpuEngine

            return CpuEngine(module, fast_math=self._fast_math, entries=self._entries,
                             isolate=self._isolate)
        return Interpreter(module)

    def _engine_for(self, name: str) -> Any:
        if _defines(self.module, name) or not self._separate_plain:
            return self._engine
        if self._plain_engine is None:
            from l0.frontend import to_module

            self._plain_engine = self._make_engine(to_module(self.ast, verify=False))
        return self._plain_engine

    def call_flat(self, name: str, args: Sequence[Any]) -> list[Any]:
        """Call `name` with its IR arguments (the flattened values, with `Checked` in the
        cert slots: `l0.values.to_ir_arguments`); return its IR results."""
        engine = self._engine_for(name)
        return call_with_big_stack(lambda: engine.call(name, list(args)))

    def run_main(self, input_text: str) -> str:
        """Read `main`'s arguments from `input_text` and return its printed result (no newline)."""
        from l0.values import format_result, from_ir_results, read_arguments, to_ir_arguments

        entry = self.functions["main"]
        params = [p.type for p in entry.params]
        inputs = to_ir_arguments(params, read_arguments(input_text, params, "<stdin>"))
        results = from_ir_results(entry.ret, self.call_flat("main", inputs))
        return format_result(entry.ret, results)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        functions = self.__dict__.get("functions", {})
        if name not in functions:
            raise AttributeError(f"the program has no function {name!r}")
        fundef = functions[name]

        def call(*args: Any) -> Any:
            if len(args) != len(fundef.params):
                raise TypeError(
                    f"{name} takes {len(fundef.params)} arguments, {len(args)} given"
                )
            from l0.values import check_arguments, from_ir_results, to_ir_arguments

            flat: list[Any] = []
            for p, a in zip(fundef.params, args, strict=True):
                flat.extend(_flatten_value(p.type, a))
            params = [p.type for p in fundef.params]
            check_arguments(params, flat, Loc(f"<{name}>", 1, 1))
            ir_results = self.call_flat(name, to_ir_arguments(params, flat))
            results = from_ir_results(fundef.ret, ir_results)
            value, _ = _unflatten(fundef.ret, results, 0)
            return value

        call.__name__ = name
        return call


def _defines(module: ModuleOp, name: str) -> bool:
    from xdsl.dialects import func

    return any(isinstance(f, func.FuncOp) and f.sym_name.data == name for f in module.ops)


def _flatten_value(t: Type, v: Any) -> list[Any]:
    """Python value of source type `t` -> the flattened run-time values."""
    import numpy as np

    if isinstance(t, TupleType):
        return [x for e, ve in zip(t.elems, v, strict=True) for x in _flatten_value(e, ve)]
    if isinstance(t, ArrayType):
        if isinstance(t.elem, TupleType):
            comps = flatten(t)
            return [np.asarray(x) for x in v] if len(comps) > 1 else [np.asarray(v)]
        return [_to_array(t, v)]
    if t == CHAR and isinstance(v, str):
        return [ord(v)]
    return [v]


def _to_array(t: ArrayType, v: Any) -> Any:
    import numpy as np

    dtypes = {"int": np.int64, "real": np.float64, "bool": np.bool_, "char": np.int32}
    assert isinstance(t.elem, BasicType)
    if t.elem == CHAR and isinstance(v, str):
        return np.array([ord(c) for c in v], dtype=np.int32)
    dtype = dtypes.get(t.elem.kind.value, object)
    array = np.asarray(v, dtype=dtype)
    if array.ndim != t.rank:
        raise TypeError(f"expected an array of rank {t.rank} for type {t}, got rank {array.ndim}")
    return array


def _unflatten(t: Type, vals: Sequence[Any], i: int) -> tuple[Any, int]:
    """Rebuild a Python value of source type `t` from flattened values starting at `i`."""
    if isinstance(t, TupleType):
        out = []
        for e in t.elems:
            x, i = _unflatten(e, vals, i)
            out.append(x)
        return tuple(out), i
    if isinstance(t, ArrayType) and isinstance(t.elem, TupleType):
        n = len(flatten(t))
        return (tuple(vals[i : i + n]) if n > 1 else vals[i]), i + n
    if t == CHAR:
        return chr(vals[i]), i + 1
    return vals[i], i + 1
