"""Run-time errors in kernels: the error word (`docs/gpu.md`).

Note [The error word]
~~~~~~~~~~~~~~~~~~~~~
Every check in device code has a number k >= 1 (attribute `l0.check`). A kernel that
may fail takes the function's error word as its last parameter (`l0.error_word` on the
`gpu.func`): a device buffer of 1 + V i64 (V: the most values a check of the module
reports), word 0 initialised to INT64_MAX. A failing thread stops, and publishes
key = global thread id * 2^16 + k with an atomic minimum on word 0; if its key lowered
the word it stores the check's values into words 1..V. The host copies the word back
after each launch of a kernel that may fail and, when word 0 is not INT64_MAX, fails
with check (key mod 2^16)'s message, location and values: the error of the lowest
failing thread, which (a thread per element, contiguous rows per thread in a
reduction) is the first failing element, the CPU's error. With several failures racing
on a real GPU the values may come from another failing thread than the key; the
message and location are always the lowest thread's.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, func, gpu, memref
from xdsl.dialects.builtin import i64
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint

from l0.dialects import soac
from l0.lowering.gpu.kernels import DeviceCode
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.passes.analysis.walk import walk_ops

KEY_BITS = 16
"""The low bits of a key hold the check's number, the others the thread's global id."""
NO_ERROR = (1 << 63) - 1
"""Word 0 while no thread has failed."""


class ErrorWord:
    """The error word of one host function: made at its entry when a kernel first
    needs it, copied back and read after each launch, freed at its returns."""

    def __init__(self, code: DeviceCode, f: func.FuncOp) -> None:
        self.code, self.f = code, f
        self._device: SSAValue | None = None
        self._host: SSAValue | None = None

    def word(self) -> SSAValue:
        """The device buffer, made at the function's entry on first use."""
        if self._device is None:
            t = self.code.error_type
            entry = CodeBuilder(InsertPoint.at_start(self.f.body.block))
            self._host = entry.val(memref.AllocaOp.get(i64, shape=t.get_shape()))
            entry.store(entry.i64(NO_ERROR), self._host, [entry.i64(0)])
            self._device = entry.val(gpu.AllocOp(t, []))
            entry.add(gpu.MemcpyOp(self._host, self._device))
        return self._device

    def check(self, b: CodeBuilder, checks: Sequence[int]) -> None:
        """After a launch of a kernel that may fail `checks`: fail as the lowest failing
        thread did, if one did."""
        device = self.word()
        host = self._host
        assert host is not None
        b.add(gpu.MemcpyOp(device, host))
        key = b.load(host, [b.i64(0)])

        def report(tb: CodeBuilder) -> list[SSAValue]:
            which = tb.val(arith.AndIOp(key, tb.i64((1 << KEY_BITS) - 1)))
            for n in checks:
                check = self.code.checks[n - 1]
                values = [tb.load(host, [tb.i64(1 + j)]) for j in range(len(check.values))]
                tb.add(soac.AssertOp(tb.cmpi("ne", which, tb.i64(n)), check.msg.data,
                                     check.loc.data, values))
            return []

        b.if_(b.cmpi("ne", key, b.i64(NO_ERROR)), [], report)

    def free_at_returns(self) -> None:
        if self._device is not None:
            for ret in [o for o in walk_ops(self.f) if isinstance(o, func.ReturnOp)]:
                CodeBuilder.before(ret).add(gpu.DeallocOp(self._device))
