"""`l0 compile --library`: a shared library, its C header and a Python module (ctypes).

    l0 compile --library prog.l0 -o prog    # libprog.so, prog.h, prog.py

As Futhark's C API and Python wrappers: the library exports `main` of the program in
the slot convention of `lowering/runtime/abi.py` (`l0_main(int64_t *slots)`, documented
per slot in the header), `l0_error()` for the message of a failed call and `l0_free`
for result buffers. The Python module needs only numpy: `prog.main(a, n)` takes one
argument per flattened component of `main`'s parameters (tuples given component by
component, an array of tuples as one array per component, as on `l0-run`'s stdin) as
numpy arrays or Python scalars, and returns the flattened result (one value, or a
tuple of them) as numpy arrays (copied out of the library's buffers, which are then
freed) and Python scalars. A run-time error raises `prog.L0RuntimeError` with the
message `l0-run` would print.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from l0.lowering.backends.native.build import (
    CompiledMain,
    compile_main,
    find_cc,
    link,
    printed_components,
    static_offset,
)
from l0.targets import DEFAULT, Target
from l0.types import ArrayType, Basic, BasicType, Type, flatten, needs_cert

_DTYPES = {Basic.INT: "int64", Basic.REAL: "float64", Basic.BOOL: "bool",
           Basic.CHAR: "int32", Basic.CERT: "bool"}


def build_library(module: ModuleOp, params: Sequence[Type], ret: Type, filename: str,
                  base: str | os.PathLike[str], *, fast_math: bool = False,
                  target: str | Target = DEFAULT) -> list[str]:
    """Write `libBASE.so`, `BASE.h` and `BASE.py` for `main` of the soac-level `module`
    (source types `params` -> `ret`; `filename` names the program in their comments);
    return their paths. Raises `BuildError` when there is no C compiler or linking fails."""
    cc = find_cc()
    compiled = compile_main(module, params, ret, fast_math=fast_math, target=target)
    base = Path(base)
    # Not BASE.so: Python would import it in place of BASE.py, as an extension module.
    lib = base.with_name(f"lib{base.name}.so")
    header, py_module = base.with_name(base.name + ".h"), base.with_name(base.name + ".py")
    link(cc, compiled, str(lib), ["-shared", "-fPIC", "-DL0_LIBRARY"])
    header.write_text(_header(compiled, base.name, filename), encoding="utf-8")
    py_module.write_text(_python_module(compiled, lib.name, filename), encoding="utf-8")
    return [str(lib), str(header), str(py_module)]


def _component(t: BasicType | ArrayType) -> tuple[Basic, int]:
    if isinstance(t, BasicType):
        return t.kind, 0
    assert isinstance(t.elem, BasicType)
    return t.elem.kind, t.rank


def _slot_lines(what: str, kind: Basic, rank: int, first: int) -> tuple[list[str], int]:
    if rank == 0:
        how = {Basic.REAL: "a double (its bits)", Basic.BOOL: "0 or 1",
               Basic.CHAR: "a code point", Basic.CERT: "1"}.get(kind, "the int")
        return [f" *   slots[{first}]: {what}: {kind.value}, {how}"], first + 1
    type_text = "[" * rank + kind.value + "]" * rank
    lines = [f" *   slots[{first}..{first + 2 + 2 * rank}]: {what}: {type_text} "
             f"({_DTYPES[kind]} elements): allocated pointer, data pointer, offset, "
             f"{rank} size(s), {rank} stride(s) (offset and strides in elements)"]
    return lines, first + 3 + 2 * rank


def _header(compiled: CompiledMain, name: str, filename: str) -> str:
    lines = [f"/* The C API of {filename}, compiled by `l0 compile --library`. */",
             f"#ifndef L0_{_ident(name).upper()}_H", f"#define L0_{_ident(name).upper()}_H",
             "#include <stdint.h>", "", "/* main's arguments and results travel in 8-byte "
             "slots, arguments first:"]
    pos = 0
    inputs = [c for t in compiled.params for c in flatten(t)]
    k = 0
    for number, t in enumerate(compiled.params, 1):
        if needs_cert(t):
            more, pos = _slot_lines(f"certificate of argument {number}", Basic.CERT, 0, pos)
            lines += more
        for _ in flatten(t):
            kind, rank = _component(inputs[k])
            more, pos = _slot_lines(f"argument {number}, component {k + 1}", kind, rank, pos)
            lines += more
            k += 1
    results = _result_components(compiled)
    for j, (kind, rank) in enumerate(results):
        more, pos = _slot_lines(f"result {j}", kind, rank, pos)
        lines += more
    lines += [" * Arrays passed in need allocated = NULL; result arrays with a non-NULL "
              "allocated",
              " * pointer are the caller's, to free with l0_free. */",
              f"#define L0_MAIN_SLOTS {pos}", "",
              "/* Run main; 0 on success, else 2 and l0_error() says why (as l0-run would). "
              "*/",
              "int l0_main(int64_t *slots);", "const char *l0_error(void);",
              "void l0_free(void *allocated);", "#endif", ""]
    return "\n".join(lines)


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def _result_components(compiled: CompiledMain) -> list[tuple[Basic, int]]:
    """(kind, rank) of every IR result of main, the leading certificate included."""
    comps = [_component(c) for c in printed_components(compiled.ret) if c is not None]
    return ([(Basic.CERT, 0)] if needs_cert(compiled.ret) else []) + comps


def _python_module(compiled: CompiledMain, lib_name: str, filename: str) -> str:
    inputs = [_component(c) for t in compiled.params for c in flatten(t)]
    params = []
    k = 0
    groups = []
    for t in compiled.params:
        if needs_cert(t):
            params.append((-1, "bool", 0, 0))
        n = len(flatten(t))
        if isinstance(t, ArrayType) and n > 1:
            groups.append((k, n, t.rank))
        for _ in range(n):
            kind, rank = inputs[k]
            params.append((k, _DTYPES[kind], rank, 0))
            k += 1
    params = [(src, dt, rank, static_offset(ir_t))
              for (src, dt, rank, _), ir_t in zip(params, compiled.ir_inputs, strict=True)]
    results = [(_DTYPES[kind], rank, kind is Basic.CERT, kind is Basic.CHAR)
               for kind, rank in _result_components(compiled)]
    signature = ", ".join(f"{'[' * r}{kind.value}{']' * r}" for kind, r in inputs)
    return _TEMPLATE.format(filename=filename, lib=lib_name, params=params, results=results,
                            groups=groups, ninputs=len(inputs), signature=signature)


_TEMPLATE = '''"""Python wrapper of {filename}, made by `l0 compile --library` (needs numpy).

    main({signature})

One argument per flattened component of main's parameters (numpy arrays or Python
scalars); the result is one value or a tuple of them. Run-time errors raise
L0RuntimeError with the message l0-run prints.
"""

import ctypes
import os

import numpy as np

_lib = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "{lib}"))
_lib.l0_main.argtypes = [ctypes.c_void_p]
_lib.l0_main.restype = ctypes.c_int
_lib.l0_error.restype = ctypes.c_char_p
_lib.l0_free.argtypes = [ctypes.c_void_p]

# (input index or -1 for a certificate, dtype, rank, static offset) per IR parameter
_PARAMS = {params}
# (dtype, rank, is a certificate, is char) per IR result
_RESULTS = {results}
# (first input, count, rank): arrays of tuples, whose components must agree in shape
_GROUPS = {groups}


class L0RuntimeError(Exception):
    """main failed at run time (index out of bounds, failed assertion, ...)."""


def _array(value, dtype, rank):
    if dtype == "int32" and isinstance(value, str):
        value = [ord(c) for c in value]
    arr = np.array(value, dtype=dtype, order="C", copy=True)
    if arr.ndim != rank:
        raise ValueError(f"expected an array of rank {{rank}}, found rank {{arr.ndim}}")
    if dtype == "int32" and arr.size and (arr.min() < 0 or arr.max() > 0x10FFFF):
        raise ValueError("expected chars as code points (0 to 0x10FFFF), found "
                         f"{{int(arr.min()) if arr.min() < 0 else int(arr.max())}}")
    return arr


def _char(value):
    code = ord(value) if isinstance(value, str) else int(value)
    if not 0 <= code <= 0x10FFFF:
        raise ValueError(f"expected a char (a code point, 0 to 0x10FFFF), found {{code}}")
    return code


def main(*args):
    if len(args) != {ninputs}:
        raise TypeError(f"main takes {ninputs} arguments, {{len(args)}} given")
    slots, keep = [], []
    for src, dtype, rank, offset in _PARAMS:
        if src < 0:
            slots.append(1)
            continue
        value = args[src]
        if rank == 0:
            if dtype == "float64":
                slots.append(int(np.float64(value).view(np.int64)))
            elif dtype == "int32":
                slots.append(_char(value))
            else:
                slots.append(int(value))
            continue
        arr = _array(value, dtype, rank)
        keep.append(arr)
        item = arr.itemsize
        slots += [0, arr.ctypes.data - offset * item, offset, *arr.shape,
                  *[s // item for s in arr.strides]]
    for first, count, rank in _GROUPS:
        shapes = [np.shape(args[first + i])[:rank] for i in range(count)]
        if any(s != shapes[0] for s in shapes):
            raise ValueError(f"the arrays of a tuple array must have the same outer shape, "
                             f"found {{shapes}}")
    nin = len(slots)
    for dtype, rank, _, _ in _RESULTS:
        slots += [0] * (3 + 2 * rank if rank else 1)
    buf = np.array(slots + [0], dtype=np.uint64).view(np.int64)
    if _lib.l0_main(buf.ctypes.data) != 0:
        raise L0RuntimeError(_lib.l0_error().decode("utf-8", "replace"))
    out, owned, pos = [], set(), nin
    for dtype, rank, cert, char in _RESULTS:
        if rank == 0:
            raw = int(buf[pos])
            pos += 1
            if cert:
                continue
            if dtype == "float64":
                out.append(float(np.int64(raw).view(np.float64)))
            elif dtype == "bool":
                out.append(bool(raw))
            elif char:
                out.append(chr(raw))
            else:
                out.append(raw)
            continue
        allocated, data, offset = (int(x) for x in buf[pos:pos + 3])
        shape = tuple(int(x) for x in buf[pos + 3:pos + 3 + rank])
        dt = np.dtype(dtype)
        strides = tuple(int(x) * dt.itemsize for x in buf[pos + 3 + rank:pos + 3 + 2 * rank])
        pos += 3 + 2 * rank
        if allocated:
            owned.add(allocated)
        if cert:
            continue
        if any(n == 0 for n in shape):
            out.append(np.empty(shape, dtype=dt))
            continue
        view = type("_View", (), {{}})()
        view.__array_interface__ = {{"version": 3, "shape": shape, "strides": strides,
                                    "typestr": dt.str, "data": (data + offset * dt.itemsize,
                                                                True)}}
        out.append(np.array(np.asarray(view), copy=True))
    for allocated in owned:
        _lib.l0_free(allocated)
    return out[0] if len(out) == 1 else tuple(out)
'''
