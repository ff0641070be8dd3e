"""The run-time side of `soac.trace` in compiled code: the site table and the callbacks.

Compiled code calls `l0_trace_scalar`, `l0_trace_real` and `l0_trace_array` with a site
id (`l0.lowering.loop_ir.trace` emits the calls); these are ctypes callbacks (`CALLBACKS`,
linked by `jit.link_callbacks`) that look the id up in `SITES` (the location and the L0
type of the traced value) and print `loc: value` to `STREAM` (None: `sys.stderr` at the
time of the call). This module imports no xDSL: code loaded from the compile cache
registers its sites here (`adopt`) and calls these callbacks.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from collections.abc import Mapping
from typing import Any, TextIO

import numpy as np

from l0.types import BOOL, ArrayType, BasicType

STREAM: TextIO | None = None
"""Where traced values are printed (None: the current `sys.stderr`)."""

SITES: dict[int, tuple[str, BasicType | ArrayType]] = {}
_ids: dict[tuple[str, str], int] = {}
_lock = threading.Lock()

SCALAR, REAL_FN, ARRAY = "l0_trace_scalar", "l0_trace_real", "l0_trace_array"


def site_id(loc: str, t: BasicType | ArrayType) -> int:
    """The id of the trace site (`loc`, `t`) in this process."""
    key = (loc, str(t))
    with _lock:
        sid = _ids.get(key)
        if sid is None:
            sid = _ids[key] = max(SITES, default=0) + 1
            SITES[sid] = (loc, t)
        return sid


def adopt(sites: Mapping[int, tuple[str, BasicType | ArrayType]]) -> bool:
    """Register the sites of code compiled in another process under their ids there.
    False (nothing registered) when one id already stands for another site here, or
    a site has another id here: that code cannot be run in this process."""
    with _lock:
        for sid, (loc, t) in sites.items():
            known = SITES.get(sid)
            same = _ids.get((loc, str(t)))
            if (known is not None and (known[0], str(known[1])) != (loc, str(t))) or \
                    (same is not None and same != sid):
                return False
        for sid, (loc, t) in sites.items():
            SITES[sid] = (loc, t)
            _ids[(loc, str(t))] = sid
        return True


_DTYPES = {"int": np.int64, "real": np.float64, "bool": np.bool_, "char": np.int32,
           "cert": np.bool_}


def _write(sid: int, render: Any) -> None:
    loc, t = SITES[sid]
    from l0.values import format_value

    stream = STREAM if STREAM is not None else sys.stderr
    try:
        stream.write(f"{loc}: {format_value(t, render(t))}\n")
    except Exception as err:  # a callback must never raise into compiled code
        print(f"l0: trace failed: {err}", file=sys.__stderr__)


def _scalar(sid: int, value: int) -> None:
    def render(t: BasicType | ArrayType) -> object:
        return bool(value) if t == BOOL else value

    _write(sid, render)


def _real(sid: int, value: float) -> None:
    _write(sid, lambda t: value)


def _array(sid: int, data: int, offset: int, dims: int) -> None:
    def render(t: BasicType | ArrayType) -> object:
        assert isinstance(t, ArrayType) and isinstance(t.elem, BasicType)
        r = t.rank
        meta = np.ctypeslib.as_array(ctypes.cast(dims, ctypes.POINTER(ctypes.c_int64)),
                                     shape=(2 * r,))
        shape = tuple(int(x) for x in meta[:r])
        dtype = np.dtype(_DTYPES[t.elem.kind.value])
        if any(n == 0 for n in shape):
            return np.empty(shape, dtype=dtype)
        strides = tuple(int(x) * dtype.itemsize for x in meta[r:])
        view = _Raw(data + offset * dtype.itemsize, shape, strides, dtype)
        return np.array(np.asarray(view), copy=True)

    _write(sid, render)


class _Raw:
    def __init__(self, data: int, shape: tuple[int, ...], strides: tuple[int, ...],
                 dtype: np.dtype[Any]) -> None:
        self.__array_interface__ = {"version": 3, "shape": shape, "strides": strides,
                                    "typestr": dtype.str, "data": (data, True)}


_SCALAR_T = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64)
_REAL_T = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_double)
_ARRAY_T = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                            ctypes.c_int64)
CALLBACKS = {SCALAR: _SCALAR_T(_scalar), REAL_FN: _REAL_T(_real), ARRAY: _ARRAY_T(_array)}
"""The runtime functions, by the names compiled code calls (`jit.link_callbacks`)."""
