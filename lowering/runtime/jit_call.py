"""Calling JIT-compiled code from Python, and loading it from object code.

`l0.lowering.backends.jit` compiles a module with MCJIT; what calling its entry points needs is
here, described without xDSL (`ScalarSlot`, `ArraySlot`: what an entry point's
parameters and results are in the slot convention of `abi.py`), so that object code
kept by the compile cache (`l0.compile_cache`) can be loaded (`load_object`) and
called in a process that never imports the compiler:

    compiled = load_object(code, signatures, errors)   # or jit.compile_module(module)
    f = JitFunction(compiled, "main")
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
values.
"""

from __future__ import annotations

import ctypes
import re
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import llvmlite.binding as llvm
import numpy as np
from numpy.lib.array_utils import byte_bounds

from l0.diagnostics import NOWHERE, L0Error, Loc
from l0.lowering.runtime import abi, alloc_stats, checked_memory, llvm_level, openmp_runtime

STACK_MARGIN = 1 << 20

_lock = threading.RLock()
_initialised = False
_libc = ctypes.CDLL(None)
_free = _libc.free
_free.argtypes = [ctypes.c_void_p]
_free.restype = None
_ENTRY = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)


# --------------------------------------------------------------------------- slots


@dataclass(frozen=True)
class ScalarSlot:
    """A scalar parameter or result: `kind` is "real", "int", "bool" or "cert"."""

    kind: str
    slots = 1


@dataclass(frozen=True)
class ArraySlot:
    """A memref parameter or result: its element `dtype` (numpy's name) and what its
    type says statically (`l0.lowering.llvm.types.Layout`; None for dynamic)."""

    dtype: str
    shape: tuple[int | None, ...]
    identity: bool
    strides: tuple[int | None, ...]
    offset: int | None

    @property
    def rank(self) -> int:
        return len(self.shape)


Slot = ScalarSlot | ArraySlot
Signature = tuple[list[Slot], list[Slot]]
"""An entry point's parameters and results."""


def slot_to_json(slot: Slot) -> dict[str, Any]:
    if isinstance(slot, ScalarSlot):
        return {"scalar": slot.kind}
    return {"dtype": slot.dtype, "shape": list(slot.shape), "identity": slot.identity,
            "strides": list(slot.strides), "offset": slot.offset}


def slot_from_json(data: Mapping[str, Any]) -> Slot:
    if "scalar" in data:
        return ScalarSlot(str(data["scalar"]))
    return ArraySlot(str(data["dtype"]), tuple(data["shape"]), bool(data["identity"]),
                     tuple(data["strides"]), data["offset"])


# --------------------------------------------------------------------------- LLVM


@dataclass
class CompiledModule:
    """A finalised MCJIT engine and what calling into it needs; `object_code` is the
    machine code it runs (what the compile cache keeps)."""

    engine: llvm.ExecutionEngine
    errors: abi.ErrorTable
    signatures: dict[str, Signature]
    addresses: dict[str, int]
    checked_memory: bool = False
    object_code: bytes = field(default=b"", repr=False)




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


def host_target_machine(opt: int = llvm_level.DEFAULT) -> llvm.TargetMachine:
    """A fresh target machine for this CPU at opt level `opt` (an MCJIT engine owns its
    own)."""
    _initialise()
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
        opt=opt, jit=True,
    )



def link_runtime(checked: bool, counted: bool, openmp: bool) -> None:
    """Make what compiled code may call resolvable: the checking heap (`checked`), the
    allocation counter (`counted`), the OpenMP runtime (`openmp`: code of a back end
    that runs threads)."""
    if checked:
        link_callbacks(checked_memory.CALLBACKS)
    if counted:
        _link_address(alloc_stats.SYMBOL, alloc_stats.address())
    if openmp:
        openmp_runtime.load()


def load_object(object_code: bytes, signatures: dict[str, Signature],
                errors: abi.ErrorTable, *, checked: bool = False, counted: bool = False,
                openmp: bool = False) -> CompiledModule:
    """Load object code that `jit.compile_module` made (in this process or another, on
    this CPU) into a new MCJIT engine; `signatures` are its entry points. The callbacks
    it calls must be linked (`link_callbacks`) before."""
    with _lock:
        tm = host_target_machine()
        link_runtime(checked, counted, openmp)
        engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm)
        engine.add_object_file(llvm.ObjectFileRef.from_data(object_code))
        engine.finalize_object()
        return CompiledModule(engine, errors, dict(signatures),
                              entry_addresses(engine, signatures), checked, object_code)


def entry_addresses(engine: llvm.ExecutionEngine, names: Mapping[str, object]) -> dict[str, int]:
    """The address of every entry point of `names` in the finalised `engine`."""
    addresses = {name: engine.get_function_address(abi.ENTRY_PREFIX + name) for name in names}
    missing = [name for name, addr in addresses.items() if not addr]
    if missing:
        raise RuntimeError(f"MCJIT produced no code for entry points {missing}")
    return addresses


# --------------------------------------------------------------------------- Python side



class JitFunction:
    """Calls one entry point: marshals arguments into slots, results out of them."""

    def __init__(self, compiled: CompiledModule, name: str, *, threads: int = 0) -> None:
        self.name = name
        self._compiled = compiled  # keeps the engine (and so the code) alive
        self._threads = threads  # multicore: the count it runs on (openmp_runtime)
        inputs, outputs = compiled.signatures[name]
        self._params = [_spec(t) for t in inputs]
        self._results = [_spec(t) for t in outputs]
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
        with openmp_runtime.thread_count(self._threads):
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

    def __init__(self, slot: ScalarSlot) -> None:
        self.kind = slot.kind

    def write(self, slots: np.ndarray, pos: int, a: object, keep: list[np.ndarray]) -> None:
        if self.kind == "real":
            if not isinstance(a, int | float | np.integer | np.floating):
                raise TypeError(f"expected a real number, found {type(a).__name__}")
            slots.view(np.float64)[pos] = float(a)
        elif self.kind == "cert":
            slots[pos] = 1
        else:
            if isinstance(a, float | np.floating):
                raise TypeError(f"expected an integer, found {type(a).__name__}")
            n = int(cast(Any, a))
            slots[pos] = ((n + 2**63) % 2**64) - 2**63  # L0 integers wrap

    def read(self, slots: np.ndarray, pos: int, keep: list[np.ndarray],
             owners: _Owners) -> object:
        if self.kind == "real":
            return float(slots.view(np.float64)[pos])
        if self.kind == "bool":
            return bool(slots[pos])
        if self.kind == "cert":
            from l0.values.model import CHECKED

            return CHECKED
        return int(slots[pos])


class _ArraySpec:
    def __init__(self, slot: ArraySlot) -> None:
        self.layout = slot
        self.rank = slot.rank
        self.dtype = np.dtype(slot.dtype)
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


def _spec(slot: Slot) -> _ScalarSpec | _ArraySpec:
    if isinstance(slot, ArraySlot):
        return _ArraySpec(slot)
    return _ScalarSpec(slot)


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
    if site.message in abi.SIZE_MESSAGES and values[0] < 0:
        what = site.message.split(":")[0]
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
