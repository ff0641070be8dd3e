"""JIT compilation of loop-level IR for the host CPU.

`JitModule(module)` emits LLVM IR (`l0.lowering.llvm`), optimises it with LLVM's new pass
manager at O3 for the host CPU (all its features, loop and SLP vectorisation on),
compiles it with MCJIT and exposes every entry point as a Python callable:

    jm = JitModule(module)            # an xDSL builtin.module at the scf/memref level
    f = jm.function("main")
    out = f(np.arange(10), 3)         # numpy arrays (any strides) and Python scalars

Calling compiled code (arguments, results, run-time errors) is `l0.lowering.runtime.jit_call`,
which needs no xDSL: there each entry point's parameters and results are described as
slots (`describe_slot` makes them from the memref types). The machine code MCJIT makes
is kept (`CompiledModule.object_code`), for the compile cache. Compiling a module whose
LLVM IR is that of an earlier one reuses the first engine (Note [The JIT's cache key]).
See `docs/backend.md` for the whole design.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import cast

import llvmlite.binding as llvm
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

from l0.dialects.soac import CertType
from l0.lowering.llvm import EmittedModule, emit_module, omp
from l0.lowering.llvm.types import LoweringError, layout_of
from l0.lowering.runtime import alloc_stats, checked_memory
from l0.lowering.runtime.jit_call import (
    ArraySlot,
    CompiledModule,
    JitFunction,
    ScalarSlot,
    Signature,
    Slot,
    _lock,
    entry_addresses,
    host_target_machine,
    link_callbacks,
    link_runtime,
    parse_loc,
)
from l0.lowering.runtime.llvm_level import DEFAULT as DEFAULT_LEVEL
from l0.lowering.runtime.llvm_level import llvm_level
from l0.targets import DEFAULT, Target
from l0.types import ArrayType, BasicType

__all__ = ["CompiledModule", "JitFunction", "JitModule", "compile_module", "describe_signature",
           "describe_slot", "host_target_machine", "link_callbacks", "optimise_module",
           "optimized_llvm_ir", "parse_loc"]

CACHE_SIZE = 32

_cache: OrderedDict[tuple[str, tuple[str, ...] | None, bool, bool, int],
                    CompiledModule] = OrderedDict()

def _optimise(mod: llvm.ModuleRef, tm: llvm.TargetMachine, level: int = DEFAULT_LEVEL) -> None:
    """LLVM's O3 pipeline with vectorisation (loops and SLP) and interleaving, but no
    separate loop unrolling: the vectoriser's interleaving already unrolls the hot
    loops, and unrolling every other loop made the IR ~25% larger and optimisation and
    code generation ~15% slower (LocVolCalib) with no measurable gain on the
    benchmarks. `level` below 3 (the test-only `L0_LLVM_OPT`,
    `l0.lowering.runtime.llvm_level`): that pipeline, without vectorisation; 0: none."""
    if level == 0:
        return
    pto = llvm.create_pipeline_tuning_options(speed_level=level)
    vectorise = level == DEFAULT_LEVEL
    pto.loop_vectorization = vectorise
    pto.slp_vectorization = vectorise
    pto.loop_interleaving = vectorise
    pto.loop_unrolling = False
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)


def optimise_module(mod: llvm.ModuleRef, tm: llvm.TargetMachine) -> None:
    """LLVM's O3 pipeline as the JIT runs it (for other back ends' host code); through
    `_optimise`, which `l0-run -v` times."""
    _optimise(mod, tm)


def _emit(module: ModuleOp, fast_math: bool, entries: Sequence[str] | None,
          tm: llvm.TargetMachine, checked: bool = False, counted: bool = False,
          target: Target = DEFAULT) -> EmittedModule:
    return emit_module(module, fast_math=fast_math, entries=entries,
                       triple=llvm.get_process_triple(), data_layout=str(tm.target_data),
                       checked_memory=checked, count_allocations=counted, target=target)


def _build(text: str, tm: llvm.TargetMachine, level: int = DEFAULT_LEVEL) -> llvm.ModuleRef:
    mod = llvm.parse_assembly(text)
    mod.verify()
    _optimise(mod, tm, level)
    return mod


def optimized_llvm_ir(module: ModuleOp, *, fast_math: bool = False,
                      target: Target = DEFAULT) -> str:
    """The LLVM IR of `module` for back end `target` after the O3 pipeline, as text."""
    with _lock:
        tm = host_target_machine()
        emitted = _emit(module, fast_math, None, tm, target=target)
        return str(_build(str(emitted.llvm), tm))




def compile_module(module: ModuleOp, *, fast_math: bool = False,
                   entries: Iterable[str] | None = None,
                   target: Target = DEFAULT) -> CompiledModule:
    """Compile `module` (or fetch it from the cache, keyed by its LLVM IR and the options).

    With `L0_CHECK_MEMORY` set, the code allocates through the checking heap
    (`l0.lowering.runtime.checked_memory`). Code that calls the OpenMP runtime (a
    multicore module's parallel loops) links it (`l0.lowering.runtime.openmp_runtime`);
    it is the same for every thread count, which the caller sets when it calls
    (`JitFunction`)."""
    names = tuple(entries) if entries is not None else None
    checked = checked_memory.enabled()
    counted = alloc_stats.enabled()
    level = llvm_level()
    with _lock:
        tm = host_target_machine(level)
        emitted = _emit(module, fast_math, names, tm, checked, counted, target)
        text = str(emitted.llvm)
        # Note [The JIT's cache key]; not the back end's name
        key = (text, names, checked, counted, level)
        signatures = {name: describe_signature(t) for name, t in emitted.entries.items()}
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            if hit.errors == emitted.errors and hit.signatures == signatures:
                return hit
            return replace(hit, errors=emitted.errors, signatures=signatures)
        link_runtime(checked, counted, openmp=omp.calls_runtime(emitted.llvm))
        mod = _build(text, tm, level)
        engine = llvm.create_mcjit_compiler(mod, tm)
        objects: list[bytes] = []
        engine.set_object_cache(lambda _module, code: objects.append(bytes(code)))
        engine.finalize_object()
        compiled = CompiledModule(engine, emitted.errors, signatures,
                                  entry_addresses(engine, signatures), checked,
                                  b"".join(objects))
        _cache[key] = compiled
        if len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
        return compiled


# Note [The JIT's cache key]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# The cache is keyed by the LLVM IR the module emits, not by the module's own text:
# emitting is needed on a miss anyway and costs about what printing the module did
# (a tenth of a compile, spent on every call, and almost every call misses), and the
# LLVM IR is what the machine code is made from. What the code is called with that the
# IR does not hold: the table of run-time error messages (an error is a number in the
# IR) and the element types of array parameters and results (an array is a pointer
# there: a function that only moves the rows of an array of integers and one that
# moves those of an array of reals emit the same IR). So a hit takes this emission's
# table and signatures; its machine code is the same either way. The back end's name is
# not in the key, nor whether it runs threads: the IR says whether the code calls the
# OpenMP runtime, and the thread count is set around a call
# (`openmp_runtime.thread_count`), not compiled in. So the sequential back ends'
# identical modules share their code, and so does a multicore module without parallel
# loops, whose IR is the cpu back end's (a fifth of the corpus's modules).


def describe_signature(t: FunctionType) -> Signature:
    """An entry point's IR signature as the slots `jit_call` calls it with."""
    return ([describe_slot(a) for a in t.inputs.data],
            [describe_slot(r) for r in t.outputs.data])


def describe_slot(t: Attribute) -> Slot:
    """A parameter or result of IR type `t` as `jit_call` passes it."""
    if isinstance(t, MemRefType):
        layout = layout_of(cast(MemRefType, t))
        return ArraySlot(_dtype(cast(Attribute, t.get_element_type())), layout.shape,
                         layout.identity, layout.strides, layout.offset)
    if isinstance(t, Float64Type | Float32Type):
        return ScalarSlot("real")
    if isinstance(t, CertType):
        return ScalarSlot("cert")
    if isinstance(t, IntegerType) and t.width.data == 1:
        return ScalarSlot("bool")
    return ScalarSlot("int")


_DTYPES = {("i", 1): "bool", ("i", 8): "int8", ("i", 16): "int16", ("i", 32): "int32",
           ("i", 64): "int64", ("f", 32): "float32", ("f", 64): "float64"}


def _dtype(elem: Attribute) -> str:
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


# --------------------------------------------------------------------------- Python side


class JitModule:
    """A compiled module; `function(name)` gives a callable entry point."""

    def __init__(self, module: ModuleOp, *, fast_math: bool = False,
                 entries: Iterable[str] | None = None, target: Target = DEFAULT,
                 threads: int = 0) -> None:
        """`target`: the back end the code is for; `threads`: where it runs threads, how
        many each call forks (0: libgomp's default)."""
        self.compiled = compile_module(module, fast_math=fast_math, entries=entries,
                                       target=target)
        self._threads = threads
        self._functions: dict[str, JitFunction] = {}
        self.trace_sites: dict[int, tuple[str, BasicType | ArrayType]] = {}
        """The trace sites its code reports (`trace_runtime.SITES`), set by the caller."""

    def function(self, name: str) -> JitFunction:
        fn = self._functions.get(name)
        if fn is None:
            if name not in self.compiled.addresses:
                raise KeyError(f"no compiled entry point named {name!r}")
            fn = self._functions[name] = JitFunction(self.compiled, name,
                                                     threads=self._threads)
        return fn

    @property
    def names(self) -> list[str]:
        return list(self.compiled.addresses)
