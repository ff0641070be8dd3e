"""The Python API: compile L0 code once, call its functions with numpy arrays and Python scalars.

    import l0
    prog = l0.compile("fun int main([int] a) = reduce(op +, 0, a)")
    prog.main(numpy.arange(10))          # -> 45
    prog.run_main("[1, 2, 3]")            # -> "6", as l0-run prints it

Arguments and results follow the source types: scalars are Python values (chars are
one-character strings), arrays numpy arrays (arrays of chars too: of code points),
tuples Python tuples, and an array of tuples a tuple of arrays (thesis 4.1).
Arguments, positional or by parameter name, are checked and converted by
`l0.values.python.from_python` whatever the back end: a wrong one raises TypeError or
ValueError naming the parameter. `help(prog.main)` shows the L0 signature.
Compiling the same source twice in one process reuses the first compilation.

Back ends (`l0.targets`, one record each): "cpu" (the default) compiles to native
code (`l0.lowering.pipeline`); "interp" runs the reference interpreter. All give
callers value semantics: arrays passed in are never changed, results never alias
them. `fast_math=True` (cpu) lets LLVM reassociate real arithmetic (vectorised
reductions; results may differ in the last bits).
"""

from __future__ import annotations

import copy
import inspect
import keyword
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from l0.bigstack import call_with_big_stack
from l0.diagnostics import L0Error, Loc
from l0.syntax import ast
from l0.targets import REFERENCE, TARGETS, BackendUnavailable, target
from l0.types import CHAR, ArrayType, TupleType, Type, flatten, type_from_json, type_to_json

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

_cache: dict[tuple[Any, ...], CompiledProgram] = {}

BACKENDS = tuple(TARGETS)
"""The back ends, by name (`l0.targets.TARGETS`)."""

__all__ = ["BACKENDS", "BackendUnavailable", "CompiledProgram", "compile", "pipeline_target"]


def pipeline_target(backend: str) -> str:
    """The target whose `-O` pipeline optimises code for `backend`
    (`l0.passes.pipeline.TARGETS`, Note [One pipeline per target] there): its record's
    `pipeline` (`l0.targets`): `gpu-sim` runs the gpu back end's kernels, so it is
    optimised as `gpu`; the interpreter as `cpu`; the others as themselves."""
    return target(backend).pipeline


def compile(  # noqa: A001 - the API's name, like re.compile
    source_or_path: str | os.PathLike[str],
    *,
    filename: str | None = None,
    backend: str = "cpu",
    optimise: bool = True,
    fast_math: bool = False,
    threads: int | None = None,
    cache: bool = True,
    params: Mapping[str, int] | None = None,
    profile: bool = False,
    tuning: bool = True,
) -> CompiledProgram:
    """Compile an L0 program given as source text or as the path of a `.l0` file.

    A string without a newline that ends in `.l0`, or an `os.PathLike`, is read as a file.
    Options:

    * `filename`: the name used in error messages (default: the path, or "<string>");
    * `backend`: "cpu" (default) compiles to native code through LLVM, "multicore" too,
      running the parallel loops on threads of the OpenMP runtime (libgomp), "gpu-sim"
      too, through the GPU back end's kernels run on the CPU (`docs/gpu.md`), "interp"
      runs the reference interpreter; all check and convert arguments the same way;
    * `threads` (multicore only): how many threads (default: `L0_NUM_THREADS`, else
      libgomp's default, `OMP_NUM_THREADS` or all cores);
    * `optimise` (default True): run the default pipeline (`l0.passes.pipeline`) for
      the back end (`pipeline_target`), as `l0-run -O` does;
    * `fast_math` (default False, cpu only): let LLVM reassociate real arithmetic
      (vectorised reductions; results may differ in the last bits);
    * `cache` (default True, cpu and multicore): keep the native code in the compile
      cache on disk and take it from there when this source was compiled with these
      options before (`l0.compile_cache`; `L0_NO_CACHE=1` turns it off everywhere);
    * `params`: values of the program's run-time parameters, by name (thresholds the
      compiled code reads when it runs, `docs/tools.md`; `prog.param_values()` lists
      them with their values); an unknown name or a negative value is a ValueError
      naming the known ones. Changing them compiles nothing again
      (`prog.set_params`);
    * `profile` (default False): count every parallel region (multicore) or kernel
      launch (gpu, gpu-sim): `prog.profile_records()`, `prog.reset_profile()`;
    * `tuning` (default True): a program given by its path takes the values of its
      tuning file, `PATH.tuning` (`l0 autotune`, `l0.tuning`), for `backend` when the
      file exists; `params` wins over them. A malformed file, or one naming a
      parameter the program lacks, is an `L0Error` at its line.

    Returns a `CompiledProgram` whose functions are attributes: `prog.main(a, n)` or
    `prog.main(a=..., n=...)`; `help(prog.main)` shows the L0 signature. Arguments are
    checked against the L0 types (TypeError or ValueError naming the parameter). Compiling
    the same source with the same options again returns the same program.
    Raises `L0Error` for errors in the program.
    """
    text, name = _source_of(source_or_path, filename)
    settings = _tuning_settings(source_or_path, backend) if tuning else {}
    values = tuple(sorted((params or {}).items()))
    tuned_values = tuple(sorted((n, s.value) for n, s in settings.items()))
    key = (text, name, backend, optimise, fast_math, threads, cache, values, profile,
           tuned_values)
    if key not in _cache:
        prog = call_with_big_stack(
            lambda: CompiledProgram(text, name, backend, optimise=optimise,
                                    fast_math=fast_math, threads=threads, cache=cache,
                                    profile=profile)
        )
        tuned: dict[str, int] = {}
        if settings:
            from l0.tuning import checked

            tuned = checked(settings, backend, prog.param_values())
        if tuned or params:
            prog.set_params({**tuned, **(params or {})})
        _cache[key] = prog
    return _cache[key]


def _tuning_settings(source_or_path: str | os.PathLike[str], backend: str) -> dict[str, Any]:
    """The settings for `backend` of the tuning file of a program given by its path
    (`l0.tuning.Setting`s by name); none for source text or without a file."""
    if not _looks_like_path(source_or_path):
        return {}
    from l0 import tuning as tuning_files

    path = tuning_files.tuning_path(source_or_path)
    if not os.path.exists(path):
        return {}
    return dict(tuning_files.read(path).get(backend, {}))


def _looks_like_path(source_or_path: str | os.PathLike[str]) -> bool:
    return isinstance(source_or_path, os.PathLike) or (
        "\n" not in str(source_or_path) and str(source_or_path).endswith(".l0")
    )


def _source_of(source_or_path: str | os.PathLike[str], filename: str | None) -> tuple[str, str]:
    if not _looks_like_path(source_or_path):
        return str(source_or_path), filename or "<string>"
    path = os.fspath(source_or_path)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), filename or path
    except (OSError, UnicodeDecodeError) as err:
        raise L0Error(Loc(path, 1, 1), f"cannot read program: {err}", "io-error") from None


def thread_count(threads: int | None) -> int:
    """The multicore back end's thread count: `threads`, else `L0_NUM_THREADS`, else 0
    (libgomp's default: `OMP_NUM_THREADS`, or all cores)."""
    if threads is None:
        env = os.environ.get("L0_NUM_THREADS", "").strip()
        threads = int(env) if env.isdigit() else 0
    if threads < 0:
        raise ValueError(f"expected a thread count >= 0, found {threads}")
    return threads


@dataclass(frozen=True)
class Parameter:
    """A parameter of an L0 function: its source type and name."""

    type: Type
    name: str


@dataclass(frozen=True)
class Function:
    """What calling an L0 function needs of it: its name and source signature."""

    name: str
    ret: Type
    params: tuple[Parameter, ...]

    @staticmethod
    def of(fundef: ast.FunDef) -> Function:
        return Function(fundef.name, fundef.ret,
                        tuple(Parameter(p.type, p.name) for p in fundef.params))


class CompiledProgram:
    """An L0 program compiled for one back end; its functions are attributes.
    With `optimise` (the default) the module goes through the default pipeline of the
    back end's target (`pipeline_target`)."""

    def __init__(self, text: str, filename: str, backend: str, *, optimise: bool = True,
                 fast_math: bool = False, inhibit_uniqueness: bool = False,
                 main_only: bool = False, isolate: bool = True,
                 threads: int | None = None, cache: bool = False,
                 checked: ast.Program | None = None,
                 entries: Sequence[str] | None = None,
                 profile: bool = False) -> None:
        """`main_only`: only `main` will be called (l0-run), so nothing else is kept or
        compiled; `entries` (without `optimise`): only these functions will be called
        (`l0 repl`); `checked`: the program, already parsed and type checked (and
        perhaps not from `text` alone: `l0 repl` adds its entries), instead of
        `text`; `isolate=False`: the caller's arrays may be updated in place (l0-run
        reads fresh ones for every run). With `inhibit_uniqueness` the occurrence checks
        are skipped, so an update may hit an array used later: the program then runs
        unoptimised in the interpreter, which copies on every update. With `cache`, native
        code is taken from the compile cache when it is there, and put there when it is
        not (`l0.compile_cache`): a hit runs no part of the compiler. With `profile`,
        parallel regions and kernel launches are counted (`profile_records`)."""
        self._target = target(backend)  # ValueError for an unknown one
        self.filename = filename
        self._rebuild_args = (text, filename, backend, optimise, fast_math, threads,
                              inhibit_uniqueness, main_only, isolate)
        self._text = text
        self._unchecked = inhibit_uniqueness
        self._optimise = optimise and not inhibit_uniqueness
        # The optimiser keeps only what `main` reaches (it inlines everything else into
        # it): the other functions are run from the module as the front end makes it,
        # internalised again when one of them is first called.
        self._separate_plain = self._optimise and not main_only
        self._backend, self._fast_math = backend, fast_math
        if entries is not None and optimise:
            raise ValueError("entries need optimise=False (the optimiser keeps only main)")
        self._entries = ["main"] if main_only else None if entries is None else list(entries)
        self._isolate = isolate
        self._profile = profile
        self._threads = thread_count(threads) if self._target.threads else None
        self._plain_engine: Any = None
        self._ast: ast.Program | None = checked
        self._module: ModuleOp | None = None
        self.from_cache = False
        """Whether the native code came from the compile cache (nothing was compiled)."""
        key = self._cache_key() if cache and checked is None else None
        if key is not None and self._load_cached(key):
            self.from_cache = True
            return
        self._ast = self.ast
        self.functions: dict[str, Function] = {f.name: Function.of(f)
                                               for f in self._ast.fundefs}
        module = self.module
        self._defined = _defined(module)
        self._engine = self._make_engine(module)
        if key is not None:
            self._store_cached(key)

    @property
    def ast(self) -> ast.Program:
        """The checked program (on a cache hit, made when first asked for)."""
        if self._ast is None:
            from l0.frontend import load_program

            self._ast = load_program(self._text, self.filename,
                                     inhibit_uniqueness=self._unchecked)
        return self._ast

    @property
    def module(self) -> ModuleOp:
        """The IR the back end compiled: the front end's, after the default pipeline of
        the back end's target with `optimise` (on a cache hit, made when first asked
        for)."""
        if self._module is None:
            from l0.frontend import to_module

            module = to_module(self.ast, verify=False)
            if self._optimise:
                from l0.passes.pipeline import optimise as run_pipeline

                run_pipeline(module, target=self._target.pipeline)
            self._module = module
        return self._module

    def _cache_key(self) -> str | None:
        """The compile-cache key of this program and options; None: not cached (a back
        end whose record has no cache loader, the interpreter's unchecked runs, or the
        cache turned off)."""
        from l0 import compile_cache

        if self._unchecked or not compile_cache.enabled():
            return None
        facts = self._target.cache_key_facts()  # the gpu: its architecture
        if facts is None:
            return None
        options: dict[str, Any] = {
            "backend": self._backend, "threads": self._threads,
            "optimise": self._optimise, "fast_math": self._fast_math,
            "profile": self._profile,
            # the pipeline's target: code optimised for one back end is never another's
            "pipeline": self._target.pipeline if self._optimise else None,
            "entries": self._entries, **facts}
        return compile_cache.program_key(self._text, self.filename, options)

    def _load_cached(self, key: str) -> bool:
        """Take the engine and signatures from the cache entry `key`, if it is there and
        can run in this process."""
        from l0 import compile_cache

        hit = compile_cache.load_engine(
            key, lambda data, code: self._target.load_engine(data, code, isolate=self._isolate),
            _signatures_from_json)
        if hit is None:
            return False
        self._engine, (self.functions, self._defined) = hit
        return True

    def _store_cached(self, key: str) -> None:
        from l0 import compile_cache

        compile_cache.store_engine(key, self._engine,
                                   _signatures_to_json(self.functions, self._defined))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its source and options (compiled code cannot be): unpickling
        compiles it again, once per process (`compile`'s cache), e.g. on a Dask worker."""
        return (_rebuild, self._rebuild_args)

    def _make_engine(self, module: ModuleOp) -> Any:
        from l0.interp import Interpreter

        if self._unchecked:
            return Interpreter(module, in_place=False)
        return self._target.make_engine(module, fast_math=self._fast_math,
                                        entries=self._entries, isolate=self._isolate,
                                        threads=self._threads, profile=self._profile)

    def on_threads(self, threads: int | None) -> CompiledProgram:
        """This program, its calls run on `threads` threads (None: `L0_NUM_THREADS`, else
        libgomp's default) on a back end that takes a thread count (`Target.threads`).
        Nothing is compiled again: the count is set when code is called, not compiled
        in. ValueError on another back end."""
        if not self._target.threads:
            raise ValueError(f"the {self._backend} back end takes no thread count")
        other = copy.copy(self)
        other._threads = count = thread_count(threads)
        text, filename, backend, optimise, fast_math, _, unchecked, main_only, isolate = (
            self._rebuild_args)
        other._rebuild_args = (text, filename, backend, optimise, fast_math, threads,
                               unchecked, main_only, isolate)
        if not self._unchecked:  # else the interpreter runs it, on one thread
            other._engine = self._engine.on_threads(count)
            if self._plain_engine is not None:
                other._plain_engine = self._plain_engine.on_threads(count)
        return other

    def _engine_for(self, name: str) -> Any:
        if name in self._defined or not self._separate_plain:
            return self._engine
        if self._plain_engine is None:
            from l0.frontend import to_module

            self._plain_engine = self._make_engine(to_module(self.ast, verify=False))
        return self._plain_engine

    # -- run-time parameters and the profile (docs/tools.md) ---------------------------

    def _tables(self) -> Any:
        """`main`'s engine's `l0.lowering.runtime.run_tables.RunTables`; None for the
        interpreter."""
        return getattr(self._engine, "tables", None)

    def param_values(self) -> dict[str, int]:
        """The program's run-time parameters and their values, in program order."""
        tables = self._tables()
        return tables.params() if tables is not None else {}

    def param_defaults(self) -> dict[str, int]:
        """The program's run-time parameters and their defaults on this machine."""
        tables = self._tables()
        return tables.defaults() if tables is not None else {}

    def set_params(self, values: Mapping[str, int]) -> None:
        """Set run-time parameters (the others keep their values): nothing is compiled
        again. An unknown name or a value that is not an int >= 0 is a ValueError
        naming the program's parameters."""
        tables = self._tables()
        if tables is None:
            from l0.lowering.runtime.run_tables import unknown_param_message

            for name in values:
                raise ValueError(unknown_param_message(name, []))
            return
        tables.set_params(dict(values))

    def reset_profile(self) -> None:
        """Zero the profile's counters (`profile_records`)."""
        tables = self._tables()
        if tables is not None:
            tables.reset_profile()

    def profile_records(self) -> list[dict[str, Any]]:
        """With `profile`: per parallel region (multicore) or kernel (gpu, gpu-sim), in
        program order, `{"name", "launches", "threads", "iterations", "time_us"}` summed
        since the last `reset_profile` (docs/tools.md); otherwise, and on cpu and the
        interpreter, which run nothing in parallel, an empty list."""
        tables = self._tables()
        return tables.profile() if tables is not None else []

    def compared_sizes(self) -> dict[str, Any]:
        """With `profile`: per threshold whose code notes them, the sizes it was compared
        with since the last `reset_profile` (`run_tables.Compared`: `sizes`, ascending,
        and how many were `dropped` from a full table; `l0 autotune` tries them);
        otherwise an empty dict."""
        tables = self._tables()
        return tables.compared() if tables is not None else {}

    def call_flat(self, name: str, args: Sequence[Any]) -> list[Any]:
        """Call `name` with its IR arguments (the flattened values, with `Checked` in the
        cert slots: `l0.values.to_ir_arguments`); return its IR results."""
        engine = self._engine_for(name)
        return call_with_big_stack(lambda: engine.call(name, list(args)))

    def run_main(self, input_text: str | bytes) -> str:
        """Read `main`'s arguments from `input_text` and return its printed result (no newline)."""
        from l0.values import format_result

        return format_result(self.functions["main"].ret, self.main_values(input_text))

    def main_values(self, input_text: str | bytes) -> list[Any]:
        """Read `main`'s arguments from `input_text` (text, or bytes: text and binary
        values) and return its flattened result (`l0.values.from_ir_results`)."""
        from l0.values import from_ir_results, read_arguments, to_ir_arguments

        entry = self.functions["main"]
        params = [p.type for p in entry.params]
        inputs = to_ir_arguments(params, read_arguments(input_text, params, "<stdin>"))
        return from_ir_results(entry.ret, self.call_flat("main", inputs))

    def __getattr__(self, name: str) -> Callable[..., Any]:
        functions = self.__dict__.get("functions", {})
        if name not in functions:
            raise AttributeError(f"the program has no function {name!r}")
        # One callable per function, so `prog.f is prog.f` and its signature is built once.
        calls = self.__dict__.setdefault("_calls", {})
        if name not in calls:
            calls[name] = self._callable(functions[name])
        return calls[name]

    def _callable(self, fundef: Function) -> Callable[..., Any]:
        name = fundef.name
        params = [p.type for p in fundef.params]
        signature = _signature(fundef)

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                _check_keywords(signature, kwargs)
                bound = signature.bind(*args, **kwargs)
            except TypeError as err:
                raise TypeError(f"{_header(fundef)}: {err}") from None
            if any(_is_dask(a) for a in bound.args):
                return self._call_over_dask(fundef, bound.args)
            from l0.values import from_ir_results, to_ir_arguments
            from l0.values.python import from_python

            # The one check and conversion of arguments, whatever the back end.
            flat: list[Any] = []
            for p, a in zip(fundef.params, bound.args, strict=True):
                flat.extend(from_python(p.type, a, f"argument {p.name!r} of {name}"))
            ir_results = self.call_flat(name, to_ir_arguments(params, flat))
            results = from_ir_results(fundef.ret, ir_results)
            value, _ = _unflatten(fundef.ret, results, 0)
            return value

        call.__name__ = call.__qualname__ = name
        call.__signature__ = signature  # type: ignore[attr-defined]  # inspect.signature reads it
        call.__doc__ = (
            f"The L0 function `{_header(fundef)}` ({self.filename}).\n\n"
            "Arguments follow the L0 types: ints (Python or numpy, 64 bits), reals (ints or\n"
            "floats), bools, chars (one-character strings), numpy arrays or nested lists of\n"
            "the parameter's rank, tuples, and an array of tuples as a tuple of its component\n"
            "arrays. Wrong arguments raise TypeError or ValueError before anything runs.\n"
            "Results likewise; a [char] comes back as a str, a [[char]] as a list of str."
        )
        return call


    def _call_over_dask(self, fundef: Function, args: Sequence[Any]) -> Any:
        """Dask arguments: lazy Dask results, each chunk's work compiled
        (`l0.distributed.arguments.call_python`, docs/distributed.md)."""
        try:
            from l0.distributed import arguments
        except ImportError as err:
            raise ImportError(f"{err}; Dask arguments need the extra: pip install 'l0[dask]'") \
                from err
        from l0.frontend import to_module

        module = self.module if fundef.name in self._defined else to_module(
            self.ast, verify=False)
        return arguments.call_python(module, fundef, args,
                                     backend=REFERENCE.name if self._unchecked
                                     else self._backend,
                                     fast_math=self._fast_math, threads=self._threads)


def _rebuild(text: str, filename: str, backend: str, optimise: bool, fast_math: bool,
             threads: int | None, inhibit_uniqueness: bool, main_only: bool,
             isolate: bool) -> CompiledProgram:
    """Unpickling a `CompiledProgram`: compiled again, through `compile`'s cache where
    the options are the API's."""
    if not inhibit_uniqueness and not main_only and isolate:
        return compile(text, filename=filename, backend=backend, optimise=optimise,
                       fast_math=fast_math, threads=threads)
    return CompiledProgram(text, filename, backend, optimise=optimise, fast_math=fast_math,
                           inhibit_uniqueness=inhibit_uniqueness, main_only=main_only,
                           isolate=isolate, threads=threads)


def _signatures_to_json(functions: dict[str, Function], defined: set[str]) -> Any:
    """What a compile-cache entry keeps of a program besides its engine: the functions'
    L0 signatures and the names of those its module defines."""
    return {"defined": sorted(defined),
            "functions": [{"name": f.name, "ret": type_to_json(f.ret),
                           "params": [[type_to_json(p.type), p.name] for p in f.params]}
                          for f in functions.values()]}


def _signatures_from_json(data: Any) -> tuple[dict[str, Function], set[str]]:
    """`_signatures_to_json` read back (KeyError, TypeError or ValueError if malformed)."""
    functions = {f["name"]: Function(
        f["name"], type_from_json(f["ret"]),
        tuple(Parameter(type_from_json(t), n) for t, n in f["params"]))
        for f in data["functions"]}
    return functions, set(data["defined"])


def _is_dask(value: Any) -> bool:
    """A Dask collection, or a tuple holding one (an array of tuples), told by its
    module so that nothing imports Dask unless the caller did."""
    if isinstance(value, tuple | list):
        return any(_is_dask(v) for v in value)
    return type(value).__module__.partition(".")[0] == "dask"


def _header(fundef: Function) -> str:
    params = ", ".join(f"{p.type} {p.name}" for p in fundef.params)
    return f"fun {fundef.ret} {fundef.name}({params})"


def _signature(fundef: Function) -> inspect.Signature:
    """The Python signature of an L0 function: its parameter names, annotated with their
    L0 types (as strings); a name Python cannot take (`lambda`) is positional only."""
    names = [p.name for p in fundef.params]
    usable = len(set(names)) == len(names) and all(
        n.isidentifier() and not keyword.iskeyword(n) for n in names)
    kind = (inspect.Parameter.POSITIONAL_OR_KEYWORD if usable
            else inspect.Parameter.POSITIONAL_ONLY)
    if not usable:  # then all are positional (one may not follow a keyword parameter)
        names = [f"arg{i}_" for i in range(len(names))]
    params = [inspect.Parameter(n, kind, annotation=str(p.type))
              for n, p in zip(names, fundef.params, strict=True)]
    return inspect.Signature(params, return_annotation=str(fundef.ret))


def _check_keywords(signature: inspect.Signature, kwargs: dict[str, Any]) -> None:
    """Name a keyword argument the function does not have, and the parameter it may have
    meant (`inspect.Signature.bind` would only say what is then missing)."""
    names = [n for n, p in signature.parameters.items()
             if p.kind is not inspect.Parameter.POSITIONAL_ONLY]
    for kw in kwargs:
        if kw not in names:
            import difflib

            close = difflib.get_close_matches(kw, names, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise TypeError(f"unexpected keyword argument '{kw}'{hint}")


def backend_unavailable(backend: str) -> str | None:
    """Why `backend` cannot run on this machine (one line), or None; only `gpu` needs
    more than l0 itself (a GPU, its driver, the gpu extra): its record says."""
    return target(backend).unavailable()


def _defined(module: ModuleOp) -> set[str]:
    """The names of the functions `module` defines."""
    from xdsl.dialects import func

    return {f.sym_name.data for f in module.ops if isinstance(f, func.FuncOp)}


def _unflatten(t: Type, vals: Sequence[Any], i: int, *,
               decode_chars: bool = True) -> tuple[Any, int]:
    """Rebuild a Python value of source type `t` from flattened values starting at `i`
    (with `decode_chars`, a char is a one-character string, else its code point)."""
    if isinstance(t, TupleType):
        out = []
        for e in t.elems:
            x, i = _unflatten(e, vals, i, decode_chars=decode_chars)
            out.append(x)
        return tuple(out), i
    if isinstance(t, ArrayType) and isinstance(t.elem, TupleType):
        n = len(flatten(t))
        return (tuple(vals[i : i + n]) if n > 1 else vals[i]), i + n
    if t == CHAR and decode_chars:
        return chr(vals[i]), i + 1
    if isinstance(t, ArrayType) and t.elem == CHAR and decode_chars:
        return _strings(vals[i]), i + 1
    return vals[i], i + 1


def _strings(codes: Any) -> Any:
    """An array of chars (code points) as Python text: a `[char]` is a `str`, a
    `[[char]]` a list of them (one per row), and so on; a list, not a numpy array of
    strings, which would drop trailing NUL characters."""
    import numpy as np

    a = np.asarray(codes)
    if a.ndim == 1:
        return "".join(map(chr, a.tolist()))
    return [_strings(row) for row in a]
