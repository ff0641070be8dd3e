"""The interpreter's engine: soac-level IR compiled to Python source, once per function.

The reference semantics of internal L0 (docs/reference.md §5, `docs/ir.md`). Every pass
is checked against this interpreter, so it must be exactly right, and fast enough to run
real test inputs; xDSL's own tree-walking interpreter costs ~29 µs per op, far too slow.

Note [Compiling to Python]
~~~~~~~~~~~~~~~~~~~~~~~~~~
Each `func.func` becomes one Python function whose source is generated on first call and
`exec`'d into a namespace shared by the whole module: one Python local per SSA value
(`v17`), one statement (or a few) per op, `scf.for` as a Python `for` over `range`,
`scf.if` as `if`, and the lambda regions of SOACs *inlined* into the loop that runs them
(no call per element). L0 calls become Python calls, so L0 recursion is Python recursion
(the driver raises the recursion limit and runs us on a big stack, `l0.bigstack`).

Each op kind has an emitter, registered by name (`@emits("arith.addi")`) in the module of
its dialect (`arith.py`, `math.py`, `scf.py`, `soac.py`); emitters write lines through an
`Emitter`. Helpers that generated code calls are registered with `@helper`; they live
next to the emitters that use them. `vectorise.py` evaluates simple lambdas once over
whole numpy arrays (Note [Vectorised lambdas] there).

CPython refuses code nested more than 20 loop/try/with blocks deep or ~100 indentation
levels; when the IR nests deeper (long `if` chains), the op is *outlined*: emitted as a
separate top-level function taking its free SSA values as parameters (`Emitter.outline`).

Note [Fresh buffers and in-place updates]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
`soac.update` writes into its source array in place: uniqueness typing (thesis 6.1.1,
checked on the IR by `verify-uniqueness`) guarantees that the source and all its aliases
are dead afterwards, and in-place updates are what make `loop ... let a[i] = v` O(1) per
iteration. That is only sound if every op whose result may be unique returns a buffer that
nothing else refers to. The invariant, kept by every emitter here:

* fresh buffers: `iota`, `replicate` (also of an array: materialised, never a broadcast
  view), `array`, `empty`, `copy`, `concat`, results of `map`, `scan` and `filter` (also
  vectorised ones; a lambda yielding its argument or the same value twice is copied),
  array `arith.constant`s are read-only (an update of one is a bug caught by numpy);
* views that alias their operand, as L0's aliasing rules say they do (docs/reference.md §4.4):
  `index` returning a row, `reshape`, `transpose`, `split`, and values passed through
  `scf`/`func` unchanged; the type checker only lets such a result be updated when its
  operand is dead as well;
* arrays passed to `Interpreter.call` are copied, so callers never see their arguments
  change; a scan with array accumulators appends a copy of each accumulator.

`Interpreter(..., in_place=False)` makes every update copy its source instead, for
checking a suspected uniqueness bug in a pass.
"""

from __future__ import annotations

import itertools
import linecache
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO, TypeVar

import numpy as np
from xdsl.dialects import builtin, func
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.traits import IsTerminator

from l0.diagnostics import NOWHERE, L0Error, Loc
from l0.dialects.soac import CertType
from l0.values import CHECKED, format_value


class InternalError(Exception):
    """A bug in the compiler detected while interpreting: IR the interpreter does not
    support, or a run-time fault the IR should have guarded by a `soac.assert` (an
    out-of-bounds index without a bounds check, a zip of arrays of different sizes...).
    Never caused by the user's program alone."""


OpEmitter = Callable[["Emitter", Operation], None]

EMITTERS: dict[str, OpEmitter] = {}
"""Op name -> the emitter writing its Python code (filled by the dialect modules)."""

HELPERS: dict[str, Any] = {"np": np, "CHECKED": CHECKED, "format_value": format_value}
"""Names visible to generated code: run-time helpers and modules."""

_F = TypeVar("_F", bound=Callable[..., Any])


def emits(*names: str) -> Callable[[OpEmitter], OpEmitter]:
    """Register the decorated function as the emitter of the ops `names`."""

    def register(fn: OpEmitter) -> OpEmitter:
        for name in names:
            EMITTERS[name] = fn
        return fn

    return register


def helper(fn: _F) -> _F:
    """Make `fn` callable by generated code under its own name."""
    HELPERS[fn.__name__] = fn
    return fn


# ---------------------------------------------------------------------------------------
# Source locations and types
# ---------------------------------------------------------------------------------------

_LOC = re.compile(r"^(.*):(\d+):(\d+)(?:-(\d+):(\d+))?$")


def parse_loc(text: str) -> Loc:
    """`"file:line:col"` (or `"file:l1:c1-l2:c2"`) as a `Loc`."""
    m = _LOC.match(text)
    if m is None:
        return Loc(text, 0, 0)
    end_line = int(m.group(4)) if m.group(4) else 0
    end_col = int(m.group(5)) if m.group(5) else 0
    return Loc(m.group(1), int(m.group(2)), int(m.group(3)), end_line, end_col)


def op_loc(op: Operation) -> Loc:
    """The location of `op`: its `loc` property (or attribute), else that of the nearest
    enclosing op that has one (most arith ops carry none), else `NOWHERE`."""
    cur: Operation | None = op
    while cur is not None:
        loc = cur.properties.get("loc") or cur.attributes.get("loc")
        if isinstance(loc, builtin.StringAttr):
            return parse_loc(loc.data)
        cur = cur.parent_op()
    return NOWHERE


def int_width(t: Attribute) -> int:
    """Bit width of an integer or index type."""
    if isinstance(t, builtin.IndexType):
        return 64
    if isinstance(t, builtin.IntegerType):
        return t.width.data
    raise InternalError(f"expected an integer type, found {t}")


def is_tensor(t: Attribute) -> bool:
    return isinstance(t, builtin.TensorType)


def rank_of(t: Attribute) -> int:
    """Rank of a tensor type; 0 for scalars."""
    return t.get_num_dims() if isinstance(t, builtin.TensorType) else 0


def element_type(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, builtin.TensorType) else t


def dtype_of(t: Attribute) -> np.dtype[Any]:
    """The numpy dtype of arrays whose elements have (scalar or tensor) type `t`
    (docs/CONTRIBUTING-helpers.md: int64, float64, bool, int32 for chars, object for certs)."""
    et = element_type(t)
    if isinstance(et, builtin.IntegerType):
        w = et.width.data
        if w == 1:
            return np.dtype(np.bool_)
        if w in (8, 16, 32, 64):
            return np.dtype(f"int{w}")
    if isinstance(et, builtin.IndexType):
        return np.dtype(np.int64)
    if isinstance(et, builtin.Float64Type):
        return np.dtype(np.float64)
    if et.name == "soac.cert":
        return np.dtype(object)
    raise InternalError(f"the interpreter has no representation for values of type {t}")


def free_values(op: Operation) -> list[SSAValue]:
    """The SSA values `op` (with its regions) uses but does not define, in order."""
    defined: set[SSAValue] = set()
    used: dict[SSAValue, None] = {}
    for o in op.walk():
        for region in o.regions:
            for block in region.blocks:
                defined.update(block.args)
        defined.update(o.results)
        for v in o.operands:
            used[v] = None
    return [v for v in used if v not in defined]


def is_terminator(op: Operation) -> bool:
    return op.has_trait(IsTerminator)


# ---------------------------------------------------------------------------------------
# Code generation
# ---------------------------------------------------------------------------------------

# Past these depths an op with regions is outlined (Note [Compiling to Python]); CPython's
# limits are 20 nested loop/try/with blocks and 100 indentation levels.
_MAX_BLOCKS = 12
_MAX_INDENT = 40


class CompileUnit:
    """Code generation state shared by all functions of one module: the namespace the
    generated code runs in, SSA value names, and interpreter options."""

    def __init__(self, functions: dict[str, func.FuncOp], trace_stream: TextIO,
                 in_place: bool, vector_min_length: int | None) -> None:
        self.functions = functions
        self.in_place = in_place
        self.vector_min_length = vector_min_length
        self.ns: dict[str, Any] = dict(HELPERS)
        self.ns["__name__"] = "l0.interp.generated"
        self.ns["trace_stream"] = trace_stream
        self._names: dict[SSAValue, str] = {}
        self._counter = itertools.count()
        self._consts: dict[Any, str] = {}
        self.pending: list[Emitter] = []  # outlined functions of the function being compiled
        # Generated names never clash with helpers: SSA values are `v<n>`, temporaries
        # `<word><n>`, constants `k<n>`, functions `fun<n>_<name>`.
        self.py_names = {name: f"fun{i}_{_sanitise(name)}" for i, name in enumerate(functions)}
        self.compiled: dict[str, Callable[..., Any]] = {}
        self.sources: dict[str, str] = {}
        # Per function, the op each line of its generated source was emitted for (Note
        # [Locating faults of generated code]).
        self.line_ops: dict[str, list[Operation | None]] = {}

    def name(self, v: SSAValue) -> str:
        n = self._names.get(v)
        if n is None:
            n = self._names[v] = f"v{next(self._counter)}"
        return n

    def fresh(self, prefix: str = "t") -> str:
        return f"{prefix}{next(self._counter)}"

    def const(self, obj: Any, key: Any = None) -> str:
        """A global name bound to `obj` in the generated code's namespace. Objects with
        equal `key` (when given) share one name."""
        if key is not None and (key, type(obj)) in self._consts:
            return self._consts[(key, type(obj))]
        n = f"k{next(self._counter)}"
        self.ns[n] = obj
        if key is not None:
            self._consts[(key, type(obj))] = n
        return n

    def dtype(self, t: Attribute) -> str:
        """Global name of the numpy dtype for elements of type `t`."""
        dt = dtype_of(t)
        return self.const(dt, ("dtype", dt.str))

    def loc(self, op: Operation) -> str:
        """Global name of the `Loc` of `op` (see `op_loc`)."""
        loc = op_loc(op)
        return self.const(loc, ("loc", loc))

    def function(self, name: str) -> Callable[..., Any]:
        """The Python function for `@name`, compiled on first use."""
        fn = self.compiled.get(name)
        if fn is None:
            fn = self.compiled[name] = self._compile_function(name)
        return fn

    def _compile_function(self, name: str) -> Callable[..., Any]:
        """Generate, exec and return the Python function for `@name`."""
        f = self.functions[name]
        py = self.py_names[name]
        body = f.body
        if not body.blocks:
            raise InternalError(f"function @{name} has no body")
        if len(body.blocks) != 1:
            raise InternalError(
                f"function @{name} has {len(body.blocks)} blocks; the interpreter runs "
                "structured control flow only (one block per function)"
            )
        block = body.blocks.first
        assert block is not None
        self.pending = []
        e = Emitter(self)
        params = ", ".join(self.name(a) for a in block.args)
        e.lines.append(f"def {py}({params}):")
        term = e.emit_block(block)
        if not isinstance(term, func.ReturnOp):
            found = "nothing" if term is None else term.name
            raise InternalError(f"function @{name} must end in func.return, found {found}")
        e.line("return " + pack(e.names(term.arguments)))
        emitters = [*self.pending, e]
        source = "\n\n".join(em.source() for em in emitters) + "\n"
        self.line_ops[name] = [op for em in emitters for op in [*em.physical_ops(), None]]
        self.pending = []
        filename = f"{_GENERATED}{name}>"
        # Registered so that tracebacks through generated code show its lines.
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), self.ns)
        self.sources[name] = source
        return self.ns[py]


_GENERATED = "<l0-interp @"
"""How the file names of generated functions start (`<l0-interp @NAME>`)."""

_NUMPY_TOO_BIG = ("array is too big", "Maximum allowed size exceeded")
"""How numpy's errors for an array of more than 2^63 bytes start (a `ValueError`; the
second is `arange`'s in some numpy versions)."""

# Note [Locating faults of generated code]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Most faults are raised by helpers that are given the op's location. Some are raised
# by Python or numpy themselves, wherever an array is made: running out of memory
# (`MemoryError`, or numpy's `ValueError` for a size beyond 2^63 bytes). Each function's
# generated source therefore keeps, per line, the op the line was written for
# (`CompileUnit.line_ops`); the innermost generated frame of the traceback gives the
# line, and the op its location (`op_loc`).


def _sanitise(name: str) -> str:
    return re.sub(r"\W", "_", name)


def pack(names: Sequence[str]) -> str:
    """How a function returns `names`: None, the value, or a tuple."""
    if not names:
        return "None"
    if len(names) == 1:
        return names[0]
    return "(" + ", ".join(names) + ")"


def tuple_of(names: Sequence[str]) -> str:
    """A Python tuple display of `names` (`(a, )`, `()`)."""
    return "(" + "".join(n + ", " for n in names) + ")"


def assign(targets: Sequence[str], values: Sequence[str]) -> str:
    """A simultaneous assignment statement (`a, b = x, y`), or `pass` when empty."""
    if not targets:
        return "pass"
    return f"{', '.join(targets)} = {', '.join(values)}"


class Emitter:
    """Writes the Python source of one generated function (Note [Compiling to Python])."""

    def __init__(self, unit: CompileUnit) -> None:
        self.unit = unit
        self.lines: list[str] = []
        self.emitting: Operation | None = None  # the op whose lines are being written
        self.line_ops: dict[int, Operation] = {}  # index in `lines` -> `emitting`
        self.indent = 1
        self.blocks = 0  # enclosing for/while/try/with statements

    # -- names --------------------------------------------------------------------------

    def name(self, v: SSAValue) -> str:
        return self.unit.name(v)

    def names(self, vs: Sequence[SSAValue]) -> list[str]:
        return [self.unit.name(v) for v in vs]

    def fresh(self, prefix: str = "t") -> str:
        return self.unit.fresh(prefix)

    def const(self, obj: Any, key: Any = None) -> str:
        return self.unit.const(obj, key)

    def dtype(self, t: Attribute) -> str:
        return self.unit.dtype(t)

    def loc(self, op: Operation) -> str:
        return self.unit.loc(op)

    # -- lines --------------------------------------------------------------------------

    def line(self, text: str) -> None:
        if self.emitting is not None:
            self.line_ops[len(self.lines)] = self.emitting
        self.lines.append("    " * self.indent + text)

    @contextmanager
    def indented(self, block: bool = False) -> Iterator[None]:
        """The body of a compound statement; `block` for loops, `try` and `with`."""
        self.indent += 1
        self.blocks += block
        start = len(self.lines)
        try:
            yield
        finally:
            if len(self.lines) == start:
                self.line("pass")
            self.indent -= 1
            self.blocks -= block

    def source(self) -> str:
        return "\n".join(self.lines)

    def physical_ops(self) -> list[Operation | None]:
        """The op each line of `source()` was written for (None for a header)."""
        out: list[Operation | None] = []
        for i, text in enumerate(self.lines):
            out.extend([self.line_ops.get(i)] * (text.count("\n") + 1))
        return out

    # -- ops ----------------------------------------------------------------------------

    def emit_block(self, block: Block) -> Operation | None:
        """Emit every op of `block` but its terminator, which is returned (None if the
        block has none); the caller binds the block's arguments and uses the terminator's
        operands."""
        last = block.last_op
        term = last if last is not None and is_terminator(last) else None
        for op in block.ops:
            if op is term:
                break
            self.emit_op(op)
        return term

    def emit_op(self, op: Operation) -> None:
        fn = EMITTERS.get(op.name)
        if fn is None:
            raise InternalError(f"the interpreter does not support the op {op.name}")
        outer, self.emitting = self.emitting, op
        try:
            if op.regions and (self.blocks >= _MAX_BLOCKS or self.indent >= _MAX_INDENT):
                self.outline(op, fn)
            else:
                fn(self, op)
        finally:
            self.emitting = outer

    def outline(self, op: Operation, fn: OpEmitter) -> None:
        """Emit `op` as a top-level function of its free values and call it."""
        free = self.names(free_values(op))
        results = self.names(op.results)
        py = self.fresh("outlined")
        sub = Emitter(self.unit)
        sub.lines.append(f"def {py}({', '.join(free)}):")
        sub.emitting = op
        fn(sub, op)
        sub.line(f"return {tuple_of(results)}")
        self.unit.pending.append(sub)
        call = f"{py}({', '.join(free)})"
        self.line(f"{''.join(r + ', ' for r in results)}= {call}" if results else call)

    def bind(self, args: Sequence[BlockArgument], values: Sequence[str]) -> None:
        """Assign `values` to the block arguments `args`."""
        if args:
            self.line(assign(self.names(args), values))


# ---------------------------------------------------------------------------------------
# The public interpreter
# ---------------------------------------------------------------------------------------


class Interpreter:
    """Runs the functions of a soac-level module (func + soac + arith + scf + math).

    `call(name, args)` takes and returns flattened run-time values
    (docs/CONTRIBUTING-helpers.md): Python int/float/bool, chars as int code points,
    `CHECKED` for certificates, numpy arrays. Faults of the user's program (a failed
    assertion, an irregular array, an integer division by zero, `trunc` of NaN...) raise
    `L0Error(loc, message, kind="runtime-error")`; IR the interpreter cannot run, or a
    fault the IR should have checked first, raises `InternalError`. `trace` output goes
    to `trace_stream` (default: `sys.stderr` as it is when the interpreter is made).

    Options: `in_place=False` copies arrays on every `soac.update` (Note [Fresh buffers
    and in-place updates]); `vector_min_length` is the least array length for which a
    simple lambda is evaluated over whole arrays at once (None: never; the results are
    the same either way, see Note [Vectorised lambdas]).
    """

    def __init__(self, module: builtin.ModuleOp, trace_stream: TextIO | None = None, *,
                 in_place: bool = True, vector_min_length: int | None = 32) -> None:
        # Importing the dialect modules registers their emitters.
        from l0.interp import arith, math, scf, soac  # noqa: F401

        functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
        # None: the `sys.stderr` of now, not of when this module was imported.
        stream = sys.stderr if trace_stream is None else trace_stream
        self._unit = CompileUnit(functions, stream, in_place, vector_min_length)
        for name, py in self._unit.py_names.items():
            self._unit.ns[py] = self._lazy(name)

    def _lazy(self, name: str) -> Callable[..., Any]:
        """A stand-in that compiles `@name` on its first call and replaces itself."""
        unit = self._unit

        def first_call(*args: Any) -> Any:
            return unit.function(name)(*args)

        return first_call

    def function(self, name: str) -> Callable[..., Any]:
        """The compiled Python function for `@name` (compiling it if needed)."""
        if name not in self._unit.functions:
            raise InternalError(f"the module has no function @{name}")
        return self._unit.function(name)

    def source(self, name: str) -> str:
        """The generated Python source of `@name` (for debugging)."""
        self.function(name)
        return self._unit.sources[name]

    def call(self, name: str, args: Sequence[Any]) -> list[Any]:
        """Run `@name` on flattened `args`; return its flattened results."""
        fn = self.function(name)
        ftype = self._unit.functions[name].function_type
        params = ftype.inputs.data
        if len(args) != len(params):
            raise InternalError(f"@{name} takes {len(params)} values, got {len(args)}")
        converted = [_convert_arg(a, t) for a, t in zip(args, params, strict=True)]
        try:
            out = fn(*converted)
        except RecursionError as err:
            raise self._too_deep(err) from None
        except MemoryError as err:
            raise L0Error(self._fault_loc(err), "out of memory", "runtime-error") from None
        except ValueError as err:
            if not str(err).startswith(_NUMPY_TOO_BIG):
                raise
            raise L0Error(self._fault_loc(err), "out of memory: the requested array size "
                          "does not fit in 64 bits", "runtime-error") from None
        n = len(ftype.outputs.data)
        if n == 0:
            return []
        if n == 1:
            return [out]
        return list(out)


    def _fault_loc(self, err: BaseException) -> Loc:
        """Where generated code raised `err`: the location of the op whose line of
        generated code was running in the innermost generated frame."""
        loc = NOWHERE
        tb = err.__traceback__
        while tb is not None:
            file = tb.tb_frame.f_code.co_filename
            if file.startswith(_GENERATED):
                ops = self._unit.line_ops.get(file[len(_GENERATED):-1], [])
                op = ops[tb.tb_lineno - 1] if tb.tb_lineno <= len(ops) else None
                if op is not None:
                    loc = _fault_site(op)
            tb = tb.tb_next
        return loc

    def _too_deep(self, err: RecursionError) -> L0Error:
        """The error for recursion too deep for the stack, at the definition of the
        innermost recursive L0 function on it, as compiled code reports it (Note
        [Locations of recursive functions] in `l0.internalise.functions`)."""
        functions = self._unit.functions
        where: func.FuncOp | None = None
        tb = err.__traceback__
        while tb is not None:
            file = tb.tb_frame.f_code.co_filename
            if file.startswith(_GENERATED):
                f = functions.get(file[len(_GENERATED):-1])
                if f is not None and "loc" in f.attributes:
                    where = f
            tb = tb.tb_next
        if where is None:
            return L0Error(NOWHERE, "stack overflow: recursion too deep", "runtime-error")
        return L0Error(op_loc(where),
                       f"stack overflow: recursion too deep in function {where.sym_name.data}",
                       "runtime-error")


def _fault_site(op: Operation) -> Loc:
    """The location of `op`: its own, else that of the check guarding it (`soac.iota` and
    `soac.replicate` have none, but take a certificate from a `soac.assert` made for the
    same construct), else that of the nearest enclosing op with one."""
    for where in (op, *(v.owner for v in op.operands if isinstance(v.type, CertType))):
        if isinstance(where, Operation):
            loc = where.properties.get("loc") or where.attributes.get("loc")
            if isinstance(loc, builtin.StringAttr):
                return parse_loc(loc.data)
    return op_loc(op)


def _convert_arg(v: Any, t: Attribute) -> Any:
    """An argument of `call` in the representation generated code expects (a fresh copy
    for arrays: Note [Fresh buffers and in-place updates])."""
    if isinstance(t, builtin.TensorType):
        a = np.array(v, dtype=dtype_of(t), copy=True)
        if a.ndim != t.get_num_dims():
            raise InternalError(
                f"expected an array of rank {t.get_num_dims()}, got shape {a.shape}"
            )
        return a
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(t, builtin.IntegerType) and t.width.data == 1:
        return bool(v)
    if isinstance(t, (builtin.IntegerType, builtin.IndexType)):
        return int(v)
    if isinstance(t, builtin.Float64Type):
        return float(v)
    if t.name == "soac.cert":
        return CHECKED
    raise InternalError(f"the interpreter cannot pass a value of type {t}")
