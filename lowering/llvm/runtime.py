"""Functions emitted code calls: LLVM intrinsics, libc/libm, and small helpers of ours.

Everything is declared on first use, once per module. Our helpers are `internal`
functions named `l0.rt.*` that LLVM inlines where it pays.

* `l0.rt.alloc(i64 bytes) -> ptr`: heap memory from libc's `malloc` (Note [malloc, not
  aligned_alloc]), NULL when `bytes` is negative (an overflowed size) or the allocation
  fails. Callers turn NULL into the "out of memory" error. Returned pointers are
  `noalias`, which is how LLVM knows fresh buffers alias nothing else.
  With `checked_memory`, `l0_checked_alloc`/`l0_checked_free` replace libc's
  allocator (`l0.lowering.runtime.checked_memory`); with `count_allocations`, every call adds
  one to the counter `l0_alloc_count` (`l0.lowering.runtime.alloc_stats`).
* `l0_checked_slice(buffer, start, end)` (`slice_check`, on the checking heap only):
  reports a parallel iteration's slice of an expanded buffer (Note [Checking the slices]
  in `l0.lowering.memory.expand_allocs`).
* `l0.rt.ipowi.iN(x, n)`: integer power by squaring, wrapping.
"""

from __future__ import annotations

import llvmlite.ir as ir

from l0.lowering.llvm.types import I1, I64, PTR, VOID, i64
from l0.lowering.runtime.abi import RUNTIME_PREFIX

ALIGNMENT = 64
"""What the checking heap aligns to (it rounds sizes up to a multiple of it)."""
ALLOC_COUNTER = "l0_alloc_count"
"""The allocation counter's symbol (`l0.lowering.runtime.alloc_stats.SYMBOL`)."""

# Note [malloc, not aligned_alloc]
# glibc serves `aligned_alloc(64, n)` on its slow path (`_int_memalign`: no per-thread
# cache, and it consolidates fastbins), which made allocation a quarter of LocVolCalib's
# run time before memory planning. Plain `malloc` takes the thread cache and gives
# 16-byte alignment, which is all the emitted code assumes: loads and stores claim only
# their element's alignment, and vector accesses are unaligned ones. The memory
# planning passes (docs/lowering.md) take most allocations out of loops; what remains is
# cheap with malloc, so the runtime keeps no pool of its own.


class Runtime:
    """The declarations of one LLVM module."""

    def __init__(self, module: ir.Module, *, checked_memory: bool = False,
                 count_allocations: bool = False) -> None:
        self.module = module
        # The checking heap (`l0.lowering.runtime.checked_memory`) stands in for libc's.
        self._checked = checked_memory
        self._counted = count_allocations
        self._free_name = "l0_checked_free" if checked_memory else "free"
        self._cache: dict[str, ir.Function] = {}

    def _get(self, name: str, fnty: ir.FunctionType, *attrs: str) -> ir.Function:
        fn = self._cache.get(name)
        if fn is None:
            existing = self.module.globals.get(name)
            if isinstance(existing, ir.Function):
                fn = existing
            else:
                fn = ir.Function(self.module, fnty, name)
                for a in attrs:
                    fn.attributes.add(a)
            self._cache[name] = fn
        return fn

    def intrinsic(self, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
        """An LLVM intrinsic by its full mangled name, e.g. `llvm.smax.i64`."""
        return self._get(name, ir.FunctionType(ret, args))

    def external(self, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
        """A C function of the process by its name (a driver's, e.g. libcuda's)."""
        return self._get(name, ir.FunctionType(ret, args), "nounwind")

    def libm(self, name: str, ty: ir.Type, nargs: int) -> ir.Function:
        """A libm function on `ty` (`name` for double, `namef` for float).

        Declared `readnone`: the only memory libm writes is errno, which no compiled
        code reads, and this lets LLVM hoist and vectorise around the calls.
        """
        full = name if isinstance(ty, ir.DoubleType) else name + "f"
        return self._get(full, ir.FunctionType(ty, [ty] * nargs), "nounwind", "readnone")

    def stacksave(self) -> ir.Function:
        return self._get("llvm.stacksave.p0", ir.FunctionType(PTR, []))

    def stackrestore(self) -> ir.Function:
        return self._get("llvm.stackrestore.p0", ir.FunctionType(VOID, [PTR]))

    def free(self) -> ir.Function:
        return self._get(self._free_name, ir.FunctionType(VOID, [PTR]), "nounwind")

    def slice_check(self) -> ir.Function | None:
        """The checking heap's `l0_checked_slice(buffer, start, end)`; None off it."""
        if not self._checked:
            return None
        return self._get("l0_checked_slice", ir.FunctionType(VOID, [PTR, PTR, PTR]),
                         "nounwind")

    def memmove(self) -> ir.Function:
        return self._get("llvm.memmove.p0.p0.i64", ir.FunctionType(VOID, [PTR, PTR, I64, I1]))

    def alloc(self) -> ir.Function:
        name = RUNTIME_PREFIX + "alloc"
        if name in self._cache:
            return self._cache[name]
        if self._checked:
            heap_alloc = self._get("l0_checked_alloc", ir.FunctionType(PTR, [I64, I64]),
                                   "nounwind")
        else:
            heap_alloc = self._get("malloc", ir.FunctionType(PTR, [I64]), "nounwind")
        heap_alloc.return_value.add_attribute("noalias")
        fn = self._get(name, ir.FunctionType(PTR, [I64]), "nounwind")
        fn.linkage = "internal"
        fn.return_value.add_attribute("noalias")
        (nbytes,) = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        bad = fn.append_basic_block("bad")
        good = fn.append_basic_block("good")
        b.cbranch(b.icmp_signed("<", nbytes, i64(0)), bad, good)
        b.position_at_end(bad)
        b.ret(ir.Constant(PTR, None))
        b.position_at_end(good)
        if self._counted:
            b.atomic_rmw("add", self._alloc_counter(), i64(1), "monotonic")
        if self._checked:
            # A multiple of the alignment, as aligned_alloc wants; 0 bytes get a real block.
            rounded = b.and_(b.add(nbytes, i64(ALIGNMENT - 1)), i64(-ALIGNMENT))
            size = b.select(b.icmp_signed("==", rounded, i64(0)), i64(ALIGNMENT), rounded)
            b.ret(b.call(heap_alloc, [i64(ALIGNMENT), size]))
        else:
            # malloc(0) may return NULL, which would read as "out of memory".
            size = b.select(b.icmp_signed("==", nbytes, i64(0)), i64(1), nbytes)
            b.ret(b.call(heap_alloc, [size]))
        return fn

    def _alloc_counter(self) -> ir.GlobalVariable:
        """The process-wide allocation counter (`l0.lowering.runtime.alloc_stats`), external."""
        existing = self.module.globals.get(ALLOC_COUNTER)
        if isinstance(existing, ir.GlobalVariable):
            return existing
        return ir.GlobalVariable(self.module, I64, ALLOC_COUNTER)

    def ipowi(self, ty: ir.IntType) -> ir.Function:
        """`x ** n` wrapping; for n < 0 the integer part of 1 / x**|n| (0 for x = 0)."""
        name = f"{RUNTIME_PREFIX}ipowi.i{ty.width}"
        if name in self._cache:
            return self._cache[name]
        fn = self._get(name, ir.FunctionType(ty, [ty, ty]), "nounwind")
        fn.linkage = "internal"
        x, n = fn.args
        zero, one = ir.Constant(ty, 0), ir.Constant(ty, 1)
        entry = fn.append_basic_block("entry")
        neg = fn.append_basic_block("negative")
        head = fn.append_basic_block("head")
        body = fn.append_basic_block("body")
        done = fn.append_basic_block("done")
        b = ir.IRBuilder(entry)
        b.cbranch(b.icmp_signed("<", n, zero), neg, head)
        b.position_at_end(neg)
        # 1 / x**k truncates to 0 unless |x| = 1: 1 for x = 1, +-1 for x = -1.
        odd = b.trunc(n, I1)
        minus_one = b.icmp_signed("==", x, ir.Constant(ty, -1))
        b.ret(b.select(b.icmp_signed("==", x, one), one,
                       b.select(minus_one, b.select(odd, ir.Constant(ty, -1), one), zero)))
        b.position_at_end(head)
        acc = b.phi(ty)
        base = b.phi(ty)
        exp = b.phi(ty)
        acc.add_incoming(one, entry)
        base.add_incoming(x, entry)
        exp.add_incoming(n, entry)
        b.cbranch(b.icmp_signed("==", exp, zero), done, body)
        b.position_at_end(body)
        bit = b.trunc(exp, I1)
        acc2 = b.select(bit, b.mul(acc, base), acc)
        base2 = b.mul(base, base)
        exp2 = b.lshr(exp, one)
        acc.add_incoming(acc2, body)
        base.add_incoming(base2, body)
        exp.add_incoming(exp2, body)
        b.branch(head)
        b.position_at_end(done)
        b.ret(acc)
        return fn
