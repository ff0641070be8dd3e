"""JIT compilation of loop-level IR for the host CPU, and calling it with numpy arrays.

`JitModule(module)` emits LLVM IR (`l0.lowering.llvm`), optimises it with LLVM's new pass
manager at O3 for the host CPU (all its features, loop and SLP vectorisation on),
compiles it with MCJIT and exposes every entry point as a Python callable:

    jm = JitModule(module)            # an xDSL builtin.module at the scf/memref level
    f = jm.function("main")
    out = f(np.arange(10), 3)         # numpy arrays (any strides) and Python scalars

Arrays are passed without copying when their layout fits the parameter's memref type
(an identity-layout parameter needs a C-contiguous array; a `strided<[?, ?], offset: ?>`
one takes any numpy strides). Arrays the compiled code allocated and returns are
wrapped without copying and freed when the last numpy array using them dies; a result
that is a view of an argument keeps that argument alive. A function with several
results returns a tuple, with none `None`.

Run-time errors: the compiled code reports a failed `soac.assert` (and running out of
memory or stack) through the context (`abi.py`); `JitFunction.__call__` raises
`L0Error(loc, message, kind="runtime-error")`, the message filled with the reported
values. Compiling the same module text twice in a process reuses the first engine.
See `docs/backend.md` for the whole design.
"""

from __future__ import annotations

import ctypes
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import llvmlite.binding as llvm
import numpy as np
from numpy.lib.array_utils import byte_bounds
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    FunctionType,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute

from l0.diagnostics import NOWHERE, L0Error, Loc
from l0.dialects.soac import CertType
from l0.lowering import alloc_stats, checked_memory, openmp_runtime
from l0.lowering.llvm import EmittedModule, abi, emit_module
from l0.lowering.llvm.types import LoweringError, layout_of

__all__ = ["CompiledModule", "JitFunction", "JitModule", "compile_module",
           "host_target_machine", "optimise_module", "optimized_llvm_ir", "parse_loc"]

CACHE_SIZE = 32
STACK_MARGIN = 1 << 20

_lock = threading.RLock()
_initialised = False
_cache: OrderedDict[tuple[str, bool, tuple[str, ...] | None, bool, bool, int | None],
                    CompiledModule] = OrderedDict()
_libc = ctypes.CDLL(None)
_free = _libc.free
_free.argtypes = [ctypes.c_void_p]
_free.restype = None
_ENTRY = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)


# --------------------------------------------------------------------------- LLVM


_linked: set[str] = set()


def link_callbacks(callbacks: dict[str, Any]) -> None:
    """Make ctypes callbacks (name -> CFUNCTYPE object) callable by their names from
    JIT-compiled code; each name is registered with LLVM's linker once per process."""
    with _lock:
        for name, cb in callbacks.items():
            if name not in _linked:
                llvm.add_symbol(name, ctypes.cast(cb, ctypes.c_void_p).value)
                _linked.add(name)


def _link_address(name: str, address: int) -> None:
    """Make the data at `address` the symbol `name` of JIT-compiled code, once per process."""
    with _lock:
        if name not in _linked:
            llvm.add_symbol(name, address)
            _linked.add(name)


def _initialise() -> None:
    global _initialised
    if _initialised:
        return
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    # libm functions (tanh, erf, ...) are resolved in the process; make sure it is there.
    import ctypes.util

    libm = ctypes.util.find_library("m")
    if libm:
        llvm.load_library_permanently(libm)
    _initialised = True


def host_target_machine() -> llvm.TargetMachine:
    """A fresh target machine for this CPU at opt level 3 (an MCJIT engine owns its own)."""
    _initialise()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
        opt=3, jit=True,
    )


def _optimise(mod: llvm.ModuleRef, tm: llvm.TargetMachine) -> None:
    """LLVM's O3 pipeline with vectorisation (loops and SLP) and interleaving, but no
    separate loop unrolling: the vectoriser's interleaving already unrolls the hot
    loops, and unrolling every other loop made the IR ~25% larger and optimisation and
    code generation ~15% slower (LocVolCalib) with no measurable gain on the
    benchmarks."""
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_interleaving = True
    pto.loop_unrolling = False
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)


def optimise_module(mod: llvm.ModuleRef, tm: llvm.TargetMachine) -> None:
    """LLVM's O3 pipeline as the JIT runs it (for other back ends' host code); through
    `_optimise`, which `l0-run -v` times."""
    _optimise(mod, tm)


def _build(module: ModuleOp, fast_math: bool, entries: Sequence[str] | None,
           tm: llvm.TargetMachine, checked: bool = False,
           counted: bool = False, threads: int | None = None,
           ) -> tuple[llvm.ModuleRef, EmittedModule]:
    emitted = emit_module(module, fast_math=fast_math, entries=entries,
                          triple=llvm.get_process_triple(), data_layout=str(tm.target_data),
                          checked_memory=checked, count_allocations=counted, threads=threads)
    mod = llvm.parse_assembly(str(emitted.llvm))
    mod.verify()
    _optimise(mod, tm)
    return mod, emitted


def optimized_llvm_ir(module: ModuleOp, *, fast_math: bool = False,
                      threads: int | None = None) -> str:
    """The LLVM IR of `module` after the O3 pipeline, as text."""
    with _lock:
        mod, _ = _build(module, fast_math, None, host_target_machine(), threads=threads)
        return str(mod)


@dataclass
class CompiledModule:
    """A finalised MCJIT engine and what calling into it needs."""

    engine: llvm.ExecutionEngine
    errors: abi.ErrorTable
    signatures: dict[str, FunctionType]
    addresses: dict[str, int]
    checked_memory: bool = False


def compile_module(module: ModuleOp, *, fast_math: bool = False,
                   entries: Iterable[str] | None = None,
                   threads: int | None = None) -> CompiledModule:
    """Compile `module` (or fetch it from the cache, keyed by its text and the options).

    With `L0_CHECK_MEMORY` set, the code allocates through the checking heap
    (`l0.lowering.checked_memory`). `threads` (multicore: a count, 0 for libgomp's
    default) links the OpenMP runtime (`l0.lowering.openmp_runtime`)."""
    names = tuple(entries) if entries is not None else None
    checked = checked_memory.enabled()
    counted = alloc_stats.enabled()
    key = (str(module), fast_math, names, checked, counted, threads)
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
        tm = host_target_machine()
        if checked:
            link_callbacks(checked_memory.CALLBACKS)
        if counted:
            _link_address(alloc_stats.SYMBOL, alloc_stats.address())
        if threads is not None:
            openmp_runtime.load()
        mod, emitted = _build(module, fast_math, names, tm, checked, counted, threads)
        engine = llvm.create_mcjit_compiler(mod, tm)
        engine.finalize_object()
        addresses = {name: engine.get_function_address(abi.ENTRY_PREFIX + name)
                     for name in emitted.entries}
        missing = [name for name, addr in addresses.items() if not addr]
        if missing:
            raise RuntimeError(f"MCJIT produced no code for entry points {missing}")
        compiled = CompiledModule(engine, emitted.errors, dict(emitted.entries), addresses,
                                  checked)
        _cache[key] = compiled
        if len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
        return compiled


# --------------------------------------------------------------------------- Python side


class JitModule:
    """A compiled module; `function(name)` gives a callable entry point."""

    def __init__(self, module: ModuleOp, *, fast_math: bool = False,
                 entries: Iterable[str] | None = None, threads: int | None = None) -> None:
        self.compiled = compile_module(module, fast_math=fast_math, entries=entries,
                                       threads=threads)
        self._functions: dict[str, JitFunction] = {}

    def function(self, name: str) -> JitFunction:
        fn = self._functions.get(name)
        if fn is None:
            if name not in self.compiled.addresses:
                raise KeyError(f"no compiled entry point named {name!r}")
            fn = self._functions[name] = JitFunction(self.compiled, name)
        return fn

    @property
    def names(self) -> list[str]:
        return list(self.compiled.addresses)


class JitFunction:
    """Calls one entry point: marshals arguments into slots, results out of them."""

    def __init__(self, compiled: CompiledModule, name: str) -> None:
        self.name = name
        self._compiled = compiled  # keeps the engine (and so the code) alive
        ftype = compiled.signatures[name]
        self._params = [_spec(t) for t in ftype.inputs.data]
        self._results = [_spec(t) for t in ftype.outputs.data]
        self._nin = sum(p.slots for p in self._params)
        self._nslots = self._nin + sum(r.slots for r in self._results)
        self._cfunc = _ENTRY(compiled.addresses[name])

    def __call__(self, *args: object) -> Any:
        if len(args) != len(self._params):
            raise TypeError(f"{self.name}() takes {len(self._params)} arguments, "
                            f"{len(args)} given")
        slots = np.zeros(max(self._nslots, 1), dtype=np.int64)
        keep: list[np.ndarray] = []
        pos = 0
        for spec, a in zip(self._params, args, strict=True):
            spec.write(slots, pos, a, keep)
            pos += spec.slots
        ctx = np.zeros(self._compiled.errors.ctx_size, dtype=np.int64)
        ctx[abi.CTX_STACK_FLOOR] = _stack_floor()
        status = self._cfunc(ctx.ctypes.data, slots.ctypes.data)
        if status != 0:
            raise _runtime_error(self._compiled.errors, ctx)
        owners = _Owners(checked_memory.free if self._compiled.checked_memory else _free)
        out = []
        for spec in self._results:
            out.append(spec.read(slots, pos, keep, owners))
            pos += spec.slots
        if len(out) == 1:
            return out[0]
        return tuple(out) if out else None


# ---- argument and result specs


class _ScalarSpec:
    slots = 1

    def __init__(self, t: Attribute) -> None:
        self.t = t

    def write(self, slots: np.ndarray, pos: int, a: object, keep: list[np.ndarray]) -> None:
        t = self.t
        if isinstance(t, Float64Type | Float32Type):
            if not isinstance(a, int | float | np.integer | np.floating):
                raise TypeError(f"expected a real number for {t}, found {type(a).__name__}")
            slots.view(np.float64)[pos] = float(a)
        elif isinstance(t, CertType):
            slots[pos] = 1
        else:
            if isinstance(a, float | np.floating):
                raise TypeError(f"expected an integer for {t}, found {type(a).__name__}")
            n = int(cast(Any, a))
            slots[pos] = ((n + 2**63) % 2**64) - 2**63  # L0 integers wrap

    def read(self, slots: np.ndarray, pos: int, keep: list[np.ndarray],
             owners: _Owners) -> object:
        t = self.t
        if isinstance(t, Float64Type | Float32Type):
            return float(slots.view(np.float64)[pos])
        if isinstance(t, IntegerType) and t.width.data == 1:
            return bool(slots[pos])
        if isinstance(t, CertType):
            from l0.values.model import CHECKED

            return CHECKED
        return int(slots[pos])


_DTYPES = {("i", 1): np.dtype(np.bool_), ("i", 8): np.dtype(np.int8),
           ("i", 16): np.dtype(np.int16), ("i", 32): np.dtype(np.int32),
           ("i", 64): np.dtype(np.int64), ("f", 32): np.dtype(np.float32),
           ("f", 64): np.dtype(np.float64)}


def _dtype(elem: Attribute) -> np.dtype[Any]:
    if isinstance(elem, IntegerType):
        key = ("i", elem.width.data)
    elif isinstance(elem, IndexType):
        key = ("i", 64)
    elif isinstance(elem, Float64Type):
        key = ("f", 64)
    elif isinstance(elem, Float32Type):
        key = ("f", 32)
    else:
        key = ("?", 0)
    dt = _DTYPES.get(key)
    if dt is None:
        raise LoweringError(f"expected array elements of a numeric type, found {elem}")
    return dt


class _ArraySpec:
    def __init__(self, t: MemRefType) -> None:
        self.layout = layout_of(t)
        self.rank = self.layout.rank
        self.dtype = _dtype(cast(Attribute, t.get_element_type()))
        self.slots = 3 + 2 * self.rank

    def write(self, slots: np.ndarray, pos: int, a: object, keep: list[np.ndarray]) -> None:
        arr = self._conform(a)
        keep.append(arr)
        item = arr.itemsize
        offset = self.layout.offset or 0
        slots[pos] = 0  # allocated: NULL, the compiled code does not own numpy's memory
        slots[pos + 1] = arr.ctypes.data - offset * item
        slots[pos + 2] = offset
        r = self.rank
        slots[pos + 3 : pos + 3 + r] = arr.shape
        slots[pos + 3 + r : pos + 3 + 2 * r] = [s // item for s in arr.strides]

    def _conform(self, a: object) -> np.ndarray:
        """`a` as an array this parameter can take, copying only when it must."""
        arr = np.asarray(a)
        if arr.dtype != self.dtype:
            if arr.size and not np.can_cast(arr.dtype, self.dtype, casting="same_kind"):
                raise TypeError(f"expected an array of {self.dtype}, found {arr.dtype}")
            arr = arr.astype(self.dtype)
        if arr.ndim != self.rank:
            raise TypeError(f"expected an array of rank {self.rank}, found rank {arr.ndim}")
        for k, (want, got) in enumerate(zip(self.layout.shape, arr.shape, strict=True)):
            if want is not None and want != got:
                raise ValueError(f"expected size {want} in dimension {k}, found {got}")
        if not self._fits(arr):
            arr = np.array(arr, order="C", copy=True)
            if not self._fits(arr):
                raise ValueError(f"expected strides {self.layout.strides} (in elements), "
                                 f"found {[s // arr.itemsize for s in arr.strides]}")
        return arr

    def _fits(self, arr: np.ndarray) -> bool:
        # The compiled code may write in place, and addresses must be element-aligned.
        if not arr.flags.writeable or not arr.flags.aligned:
            return False
        if any(s % arr.itemsize for s in arr.strides):
            return False
        if self.layout.identity:
            return bool(arr.flags.c_contiguous)
        return all(want is None or want == s // arr.itemsize or n <= 1
                   for want, s, n in zip(self.layout.strides, arr.strides, arr.shape,
                                         strict=True))

    def read(self, slots: np.ndarray, pos: int, keep: list[np.ndarray],
             owners: _Owners) -> np.ndarray:
        r = self.rank
        allocated, aligned, offset = (int(x) for x in slots[pos : pos + 3])
        shape = tuple(int(x) for x in slots[pos + 3 : pos + 3 + r])
        item = self.dtype.itemsize
        strides = tuple(int(x) * item for x in slots[pos + 3 + r : pos + 3 + 2 * r])
        data = aligned + offset * item
        if allocated:
            return _wrap(data, shape, strides, self.dtype, owners.owner(allocated))
        if any(n == 0 for n in shape):
            return np.empty(shape, dtype=self.dtype)
        for a in keep:
            lo, hi = byte_bounds(a)
            if lo <= data < hi:
                return _wrap(data, shape, strides, self.dtype, a)
        # Memory nobody owns beyond this call (a constant global): copy it out.
        return _wrap(data, shape, strides, self.dtype, None).copy()


def _spec(t: Attribute) -> _ScalarSpec | _ArraySpec:
    if isinstance(t, MemRefType):
        return _ArraySpec(cast(MemRefType, t))
    return _ScalarSpec(t)


class _Owner:
    """Owns a buffer the compiled code allocated: frees it when no array uses it."""

    def __init__(self, allocated: int, free: Any) -> None:
        weakref.finalize(self, free, allocated)


class _Owners:
    """The owners of one call's result buffers (one per buffer), freeing with `free`."""

    def __init__(self, free: Any) -> None:
        self.free = free
        self._owners: dict[int, _Owner] = {}

    def owner(self, allocated: int) -> _Owner:
        got = self._owners.get(allocated)
        if got is None:
            got = self._owners[allocated] = _Owner(allocated, self.free)
        return got


class _View:
    """Exposes raw memory to numpy (`__array_interface__`), keeping its owner alive."""

    def __init__(self, data: int, shape: tuple[int, ...], strides: tuple[int, ...],
                 dtype: np.dtype[Any], owner: object) -> None:
        self.__array_interface__ = {
            "version": 3, "shape": shape, "strides": strides, "typestr": dtype.str,
            "data": (data, False),
        }
        self.owner = owner


def _wrap(data: int, shape: tuple[int, ...], strides: tuple[int, ...], dtype: np.dtype[Any],
          owner: object) -> np.ndarray:
    return np.asarray(_View(data, shape, strides, dtype, owner))


# ---- errors and the stack


_PLACEHOLDER = re.compile(r"\{(\d+)\}")
_LOC = re.compile(r"^(.*):(\d+):(\d+)(?:-(\d+):(\d+))?$")


def _runtime_error(errors: abi.ErrorTable, ctx: np.ndarray) -> Exception:
    error_id = int(ctx[abi.CTX_ERROR])
    site = errors.sites.get(error_id)
    if site is None:
        return RuntimeError(f"compiled code failed without reporting an error (id {error_id})")
    values = [int(v) for v in ctx[abi.CTX_VALUES:]]
    if error_id in (abi.ERR_OUT_OF_MEMORY, abi.ERR_STACK_OVERFLOW) and values[0] < 0:
        what = "out of memory" if error_id == abi.ERR_OUT_OF_MEMORY else "stack overflow"
        message = f"{what}: the requested array size does not fit in 64 bits"
    else:
        message = _PLACEHOLDER.sub(
            lambda m: str(values[int(m.group(1))]) if int(m.group(1)) < len(values)
            else m.group(0), site.message)
    return L0Error(parse_loc(site.loc), message, kind="runtime-error")


def parse_loc(text: str) -> Loc:
    """`"file:line:col"` (or `"file:l1:c1-l2:c2"`) as a `Loc`; empty gives `NOWHERE`."""
    m = _LOC.match(text)
    if m is None:
        return NOWHERE if not text else Loc(text, 0, 0)
    end_line = int(m.group(4)) if m.group(4) else 0
    end_col = int(m.group(5)) if m.group(5) else 0
    return Loc(m.group(1), int(m.group(2)), int(m.group(3)), end_line, end_col)


_thread = threading.local()


def _stack_floor() -> int:
    """The lowest address compiled code on this thread may push the stack to (0: unknown).

    From glibc's `pthread_getattr_np` (which also knows the main thread's stack), less a
    margin for frames between two checks (callees, libc) so a check always fires first.
    """
    floor = getattr(_thread, "floor", None)
    if floor is None:
        floor = _thread.floor = _query_stack_floor()
    return floor


def _query_stack_floor() -> int:
    try:
        attr = ctypes.create_string_buffer(256)  # pthread_attr_t is 56 bytes on x86-64
        self_ = _libc.pthread_self
        self_.restype = ctypes.c_ulong
        if _libc.pthread_getattr_np(ctypes.c_ulong(self_()), attr) != 0:
            return 0
        addr, size = ctypes.c_void_p(), ctypes.c_size_t()
        ok = _libc.pthread_attr_getstack(attr, ctypes.byref(addr), ctypes.byref(size))
        _libc.pthread_attr_destroy(attr)
        if ok != 0 or not addr.value:
            return 0
        margin = min(STACK_MARGIN, size.value // 4)
        return addr.value + margin
    except (AttributeError, OSError):
        return 0
