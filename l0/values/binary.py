"""Futhark's binary value format: reading it, mixed with text values, and writing it.

One binary value is

    'b'  version (the byte 2)  rank (one byte)  type (4 ASCII bytes)
    rank dimensions (little-endian u64)  the elements (little-endian, row-major)

with the types `  i8`, ` i16`, ` i32`, ` i64`, `  u8` ... ` u64`, ` f16`, ` f32`, ` f64`
and `bool` (one byte, 0 or 1). L0's types take exactly one each, so that no value
changes on the way in: `int` is ` i64`, `real` ` f64`, `bool` `bool`, and `char` ` i32`
(a code point; `  u8` is accepted too, for byte strings). A scalar has rank 0. `cert`
has no binary form.

Binary and text values mix freely in one input (`read_mixed`): where a value starts
(after spaces and `//` comments), a `b` begins a binary value, since no text value does.
The text between binary values is read by the text reader (`reader.py`), with errors
located in the whole input. A text value must therefore not contain the two bytes `b`,
`\\x02` (they could only occur inside a string literal, as a raw control character).

Note [Binary arrays without copies]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Reading 2x10^7 reals must not take three times their size. When the input is a
`bytearray` (as `read_input_bytes` returns), an array of the input is a numpy view of
the input's own bytes, writable like any array `main` receives. Compiled code expects
elements at aligned addresses, so the elements are first moved down to the nearest
aligned address, at most 7 bytes, over the value's own header (7 bytes or more), which
has been read by then. Other inputs (`bytes`) are copied into fresh arrays.
"""

from __future__ import annotations

import ctypes
import io
import os
import re
from collections.abc import Sequence

import numpy as np

from l0.diagnostics import L0Error, Loc
from l0.types import ArrayType, Basic, BasicType, Type, flatten
from l0.values.model import DTYPES, Value
from l0.values.reader import _Reader, _shown, _values, read_values

VERSION = 2
MARKER = b"b\x02"  # a binary value starts with these two bytes

ELEMENT_TYPES: dict[bytes, np.dtype] = {
    name.encode("ascii"): np.dtype(dtype)
    for name, dtype in [
        ("  i8", "<i1"), (" i16", "<i2"), (" i32", "<i4"), (" i64", "<i8"),
        ("  u8", "<u1"), (" u16", "<u2"), (" u32", "<u4"), (" u64", "<u8"),
        (" f16", "<f2"), (" f32", "<f4"), (" f64", "<f8"), ("bool", "<u1"),
    ]
}
# The binary types each L0 basic type is read from; the first is the one written.
ACCEPTED: dict[Basic, tuple[bytes, ...]] = {
    Basic.INT: (b" i64",),
    Basic.REAL: (b" f64",),
    Basic.BOOL: (b"bool",),
    Basic.CHAR: (b" i32", b"  u8"),
}
MAX_BYTES = 2**63 - 1
"""The most bytes an array may span, its empty dimensions counted as 1: sizes are
64-bit signed integers in compiled code, and numpy allows no more either."""
_SPACE_OR_COMMENT = re.compile(rb"(?:\s+|//[^\n]*)*")


def _past_space(data: bytes | bytearray, pos: int) -> int:
    """Where the white space and comments from `pos` end (the pattern matches the empty
    string, so it always matches)."""
    m = _SPACE_OR_COMMENT.match(data, pos)
    assert m is not None
    return m.end()
_MAX_CHAR = 0x10FFFF


# -- writing ------------------------------------------------------------------------------


def write_binary(t: Type, value: Value) -> bytes:
    """The binary form of `value`, of flattened type `t` (a basic type or an array of one)."""
    kind = t.kind if isinstance(t, BasicType) else _elem_kind(t)
    if kind not in ACCEPTED:
        raise ValueError(f"values of type {t} have no binary form")
    name = ACCEPTED[kind][0]
    arr = np.asarray(value, dtype=ELEMENT_TYPES[name] if kind is not Basic.BOOL else np.uint8)
    rank = arr.ndim
    header = b"b" + bytes([VERSION, rank]) + name
    dims = np.asarray(arr.shape, dtype="<u8").tobytes()
    return header + dims + np.ascontiguousarray(arr).tobytes()


def write_binary_values(ret: Type, values: Sequence[Value]) -> bytes:
    """`main`'s flattened result `values` (of result type `ret`) in binary, one value per
    component; certificates, which have no binary form, are left out."""
    types = flatten(ret)
    return b"".join(write_binary(t, v) for t, v in zip(types, values, strict=True)
                    if (t.kind if isinstance(t, BasicType) else _elem_kind(t)) is not Basic.CERT)


def _elem_kind(t: Type) -> Basic | None:
    if isinstance(t, ArrayType) and isinstance(t.elem, BasicType):
        return t.elem.kind
    return None


# -- reading ------------------------------------------------------------------------------


def read_input_bytes(stream: io.BufferedIOBase) -> bytearray:
    """All of `stream`, in a `bytearray` (Note [Binary arrays without copies]): sized once
    from the file's length when it is a regular file, else grown as it is read."""
    try:
        size = os.fstat(stream.fileno()).st_size - stream.tell()
    except (OSError, ValueError, AttributeError):
        size = -1
    if size > 0:
        buf = bytearray(size)
        view = memoryview(buf)
        got = 0
        while got < size:
            n = stream.readinto(view[got:])
            if not n:
                break
            got += n
        view.release()
        del buf[got:]
        rest = stream.read()  # the file may have grown
        if rest:
            buf += rest
        return buf
    buf = bytearray()
    while chunk := stream.read(1 << 20):
        buf += chunk
    return buf


def has_binary_values(data: bytes | bytearray) -> bool:
    return data.find(MARKER) >= 0


def read_mixed(data: bytes | bytearray, types: Sequence[Type], source: str) -> list[Value]:
    """One value per type in `types` from `data`, text and binary values mixed."""
    from l0.diagnostics import register_source

    if not has_binary_values(data):
        text = _decode(data, 0, len(data), source)
        register_source(source, text)
        return read_values(text, types, source)
    return _MixedReader(data, source).read(types)


def _decode(data: bytes | bytearray, start: int, end: int, source: str) -> str:
    try:
        return bytes(data[start:end]).decode("utf-8")
    except UnicodeDecodeError as err:
        raise L0Error(_loc(data, start + err.start, source),
                      "the input is neither UTF-8 text nor a binary value here",
                      "value-error") from None


def _loc(data: bytes | bytearray, offset: int, source: str) -> Loc:
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return Loc(source, line, col)


class _MixedReader:
    def __init__(self, data: bytes | bytearray, source: str) -> None:
        self.data = data
        self.source = source
        self.pos = 0
        self.text: _SegmentReader | None = None  # the reader of the current text segment
        self.segment_end = 0

    def fail(self, offset: int, message: str) -> L0Error:
        return L0Error(_loc(self.data, offset, self.source), message, "value-error")

    def read(self, types: Sequence[Type]) -> list[Value]:
        out = [self.value(t, n) for n, t in enumerate(types, 1)]
        expected = f"(expected {_values(len(types))})"
        if not self._text_left():
            self.pos = _past_space(self.data, self.pos)
            if self.pos >= len(self.data):
                return out
            if self.data[self.pos] == ord("b"):
                raise self.fail(self.pos, f"unexpected binary value after the last argument "
                                f"{expected}")
            self._start_text()
        assert self.text is not None  # text is left over: its reader shows the first token
        extra = self.text.peek()
        assert extra is not None
        self.text.fail(extra.start, f"unexpected {_shown(extra)} after the last argument "
                       f"{expected}", len(extra.text))

    def _text_left(self) -> bool:
        """Whether the current text segment has a token left; if not, move past it."""
        if self.text is None:
            return False
        if self.text.peek() is not None:
            return True
        self.text, self.pos = None, self.segment_end
        return False

    def value(self, t: Type, param: int) -> Value:
        if not self._text_left():
            self.pos = _past_space(self.data, self.pos)
            if self.pos < len(self.data) and self.data[self.pos] == ord("b"):
                return self.binary(t, param)
            self._start_text()
        assert self.text is not None
        self.text.param = param
        return self.text.value(t, fast=True)

    def _start_text(self) -> None:
        end = self.data.find(MARKER, self.pos)
        self.segment_end = len(self.data) if end < 0 else end
        text = _decode(self.data, self.pos, self.segment_end, self.source)
        self.text = _SegmentReader(text, self.source, _loc(self.data, self.pos, self.source))

    def binary(self, t: Type, param: int) -> Value:
        """The binary value at `self.pos`, for parameter `param` of flattened type `t`."""
        data, start = self.data, self.pos
        if len(data) < start + 7:
            raise self.fail(start, "truncated binary value header")
        if data[start + 1] != VERSION:
            raise self.fail(start, f"binary value of format version {data[start + 1]}, "
                            f"expected {VERSION}")
        rank, name = data[start + 2], bytes(data[start + 3 : start + 7])
        if name not in ELEMENT_TYPES:
            raise self.fail(start, f"unknown binary element type {name.decode('latin-1')!r}")
        want_rank = t.rank if isinstance(t, ArrayType) else 0
        kind = t.kind if isinstance(t, BasicType) else _elem_kind(t)
        if kind not in ACCEPTED or rank != want_rank or name not in ACCEPTED[kind]:
            found = f"rank {rank} of '{name.decode('ascii')}'"
            wanted = f"rank {want_rank} of '{ACCEPTED[kind][0].decode()}'" if (
                kind in ACCEPTED) else "none"
            raise self.fail(start, f"expected a value of type {t} for parameter {param}, "
                            f"found a binary value of {found} (binary form: {wanted})")
        dims_at = start + 7
        if len(data) < dims_at + 8 * rank:
            raise self.fail(start, "truncated binary value header")
        dims = [int(d) for d in np.frombuffer(data, "<u8", rank, dims_at)]
        dtype = ELEMENT_TYPES[name]
        count = int(np.prod(dims, dtype=object)) if dims else 1
        shape = "x".join(map(str, dims)) or "scalar"
        if _too_large(dims, max(dtype.itemsize, np.dtype(DTYPES[kind]).itemsize)):
            raise self.fail(start, f"binary value too large: {shape} of '{name.decode()}' "
                            f"(an array may hold at most {MAX_BYTES} bytes, counting its "
                            "empty dimensions as 1)")
        elems_at = dims_at + 8 * rank
        end = elems_at + count * dtype.itemsize
        if end > len(data):
            raise self.fail(start, f"truncated binary value: {shape} of '{name.decode()}' "
                            f"needs {count * dtype.itemsize} bytes, {len(data) - elems_at} "
                            "are left")
        self.pos = end
        arr = self._elements(elems_at, count, dtype, dims)
        self._check(arr, kind, name, start)
        if kind is Basic.CHAR and arr.dtype != DTYPES[Basic.CHAR]:
            arr = arr.astype(DTYPES[Basic.CHAR])
        elif kind is Basic.BOOL:
            arr = arr.view(np.bool_)
        if rank == 0:
            return arr.reshape(()).item()
        return arr

    def _elements(self, at: int, count: int, dtype: np.dtype, dims: list[int]) -> np.ndarray:
        """The elements at `data[at:]` (Note [Binary arrays without copies])."""
        nbytes = count * dtype.itemsize
        if isinstance(self.data, bytearray) and dims and dtype.isnative:
            whole = np.frombuffer(self.data, np.uint8)
            address = whole.ctypes.data + at
            shift = address % dtype.alignment
            if shift:
                ctypes.memmove(address - shift, address, nbytes)
                at -= shift
            return whole[at : at + nbytes].view(dtype).reshape(dims)
        raw = np.frombuffer(self.data, dtype, count, at)
        return raw.astype(dtype.newbyteorder("="), copy=True).reshape(dims)

    def _check(self, arr: np.ndarray, kind: Basic | None, name: bytes, start: int) -> None:
        if kind is Basic.BOOL and arr.size and arr.max() > 1:
            raise self.fail(start, "binary bool value other than 0 or 1")
        if kind is Basic.CHAR and arr.size and (arr.min() < 0 or arr.max() > _MAX_CHAR):
            raise self.fail(start, f"binary '{name.decode()}' value is not a character code")


def _too_large(dims: Sequence[int], itemsize: int) -> bool:
    """Whether an array of `dims` would span more than MAX_BYTES bytes, its empty
    dimensions counted as 1 (a dimension of 2^64 - 1 beside a 0 is no size either)."""
    span = itemsize
    for d in dims:
        span *= d or 1
    return span > MAX_BYTES


class _SegmentReader(_Reader):
    """The text reader over the text between binary values, locating errors in the
    whole input: `base` is where the segment starts."""

    def __init__(self, text: str, source: str, base: Loc) -> None:
        super().__init__(text, source)
        self.base = base

    def loc(self, offset: int, length: int = 0) -> Loc:
        at = super().loc(offset, length)
        lines = self.base.line - 1
        shift = self.base.col - 1 if at.line == 1 else 0
        return Loc(at.file, at.line + lines, at.col + shift,
                   at.end_line + lines if at.end_line else 0,
                   at.end_col + shift if at.end_line == 1 else at.end_col)
