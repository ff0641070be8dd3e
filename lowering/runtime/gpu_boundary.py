"""`main`'s boundary on the GPU: numpy arrays in, numba.cuda device arrays across,
numpy arrays out.

Note [Arrays at main's boundary]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A public function of the gpu back end takes device arrays and returns fresh dense
device arrays that its caller owns (`l0.lowering.gpu.entry`). `DeviceFunction` is its
caller from Python, `JitFunction`'s interface with host arrays: it conforms each array
argument as the CPU's entry does (dtype, rank, sizes), packs it C-contiguous and copies
it to the device with numba.cuda (`Device.to_device`), passes the device address in
the argument's slots, calls the compiled code, and copies each array result back
through a numba.cuda device array over the returned memory (`Device.to_host`), then
frees that memory (the compiled code allocated it). The numba.cuda argument arrays
live until the call returns. On a run-time error the arguments are freed with them and
no result is returned (the error ends the run, as on the CPU).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from l0.lowering.runtime import abi
from l0.lowering.runtime.gpu_runtime import Device
from l0.lowering.runtime.jit_call import (
    CompiledModule,
    JitFunction,
    _ArraySpec,
    _Owners,
    _runtime_error,
    _stack_floor,
)


class DeviceFunction(JitFunction):
    """Calls one public function of the gpu back end with host arrays (Note [Arrays at
    main's boundary])."""

    def __init__(self, compiled: CompiledModule, name: str, device: Device) -> None:
        super().__init__(compiled, name)
        self._device = device

    def __call__(self, *args: object) -> Any:
        if len(args) != len(self._params):
            raise TypeError(f"{self.name}() takes {len(self._params)} arguments, "
                            f"{len(args)} given")
        slots = np.zeros(max(self._nslots, 1), dtype=np.int64)
        keep: list[Any] = []
        pos = 0
        for spec, a in zip(self._params, args, strict=True):
            if isinstance(spec, _ArraySpec):
                self._write_array(spec, slots, pos, a, keep)
            else:
                spec.write(slots, pos, a, keep)
            pos += spec.slots
        ctx = np.zeros(self._compiled.errors.ctx_size, dtype=np.int64)
        ctx[abi.CTX_STACK_FLOOR] = _stack_floor()
        self._device.make_current()
        status = self._cfunc(ctx.ctypes.data, slots.ctypes.data)
        if status != 0:
            raise _runtime_error(self._compiled.errors, ctx)
        out = [self._read(spec, slots, pos + sum(r.slots for r in self._results[:k]), keep)
               for k, spec in enumerate(self._results)]
        if len(out) == 1:
            return out[0]
        return tuple(out) if out else None

    def _write_array(self, spec: _ArraySpec, slots: np.ndarray, pos: int, a: object,
                     keep: list[Any]) -> None:
        """The argument `a` on the device: its slots hold the device copy's address
        (allocated NULL: the compiled code does not own it) and C-contiguous strides."""
        host = np.ascontiguousarray(spec._conform(a))
        array, address = self._device.to_device(host)
        keep.append(array)
        offset = spec.layout.offset or 0
        r = spec.rank
        slots[pos] = 0
        slots[pos + 1] = address - offset * host.itemsize
        slots[pos + 2] = offset
        slots[pos + 3 : pos + 3 + r] = host.shape
        slots[pos + 3 + r : pos + 3 + 2 * r] = [s // host.itemsize for s in host.strides]

    def _read(self, spec: Any, slots: np.ndarray, pos: int, keep: list[Any]) -> object:
        if not isinstance(spec, _ArraySpec):
            return spec.read(slots, pos, keep, _Owners(None))
        r = spec.rank
        allocated, aligned, offset = (int(x) for x in slots[pos : pos + 3])
        shape = tuple(int(x) for x in slots[pos + 3 : pos + 3 + r])
        host = self._device.to_host(aligned + offset * spec.dtype.itemsize, shape,
                                    spec.dtype)
        if allocated:
            self._device.free(allocated)
        return host
