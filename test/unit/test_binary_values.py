"""Futhark's binary value format (`l0.values.binary`): the exact bytes, reading it mixed
with text values, its errors, reading without copies, and `l0-run -b`."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from l0.diagnostics import L0Error
from l0.types import ArrayType, Basic, BasicType
from l0.values import read_values
from l0.values.binary import read_input_bytes, write_binary, write_binary_values

INT, REAL, BOOL, CHAR = (BasicType(k) for k in (Basic.INT, Basic.REAL, Basic.BOOL, Basic.CHAR))


def arr(t: BasicType, rank: int = 1) -> ArrayType:
    return ArrayType(t, rank)


def test_the_bytes_are_futharks() -> None:
    u64 = (2).to_bytes(8, "little")
    assert write_binary(arr(INT), np.array([1, -2])) == (
        b"b\x02\x01 i64" + u64 + (1).to_bytes(8, "little")
        + (-2).to_bytes(8, "little", signed=True))
    assert write_binary(REAL, 0.5) == b"b\x02\x00 f64" + np.float64(0.5).tobytes()
    assert write_binary(arr(BOOL), np.array([True, False])) == b"b\x02\x01bool" + u64 + b"\x01\x00"
    assert write_binary(arr(CHAR), np.array([104, 105])) == (
        b"b\x02\x01 i32" + u64 + b"h\x00\x00\x00i\x00\x00\x00")


@pytest.mark.parametrize("t,value", [
    (INT, -7), (REAL, 2.5), (BOOL, True), (CHAR, 955),
    (arr(INT), np.arange(5)), (arr(REAL, 3), np.linspace(0, 1, 24).reshape(2, 3, 4)),
    (arr(BOOL, 2), np.array([[True, False], [False, False]])),
    (arr(CHAR), np.array([955, 97], dtype=np.int32)),
    (arr(INT, 2), np.zeros((3, 0), dtype=np.int64)), (arr(REAL), np.zeros(0)),
])
@pytest.mark.parametrize("container", [bytes, bytearray])
def test_round_trip(t, value, container) -> None:
    (got,) = read_values(container(write_binary(t, value)), [t])
    if isinstance(t, ArrayType):
        assert got.dtype == np.asarray(value).dtype or t.elem == CHAR
        assert got.shape == np.shape(value)
        np.testing.assert_array_equal(got, value)
    else:
        assert got == value and type(got) is type(value)


def test_mixed_with_text_values_and_comments() -> None:
    data = (b"// header\n3 " + write_binary(arr(REAL, 2), np.ones((2, 2)))
            + b"\n[True] 'x' " + write_binary(INT, 9) + write_binary(arr(INT), np.arange(3))
            + b" \"ab\" // trailing comment\n")
    got = read_values(data, [INT, arr(REAL, 2), arr(BOOL), CHAR, INT, arr(INT), arr(CHAR)])
    assert got[0] == 3 and got[3] == ord("x") and got[4] == 9
    np.testing.assert_array_equal(got[1], np.ones((2, 2)))
    np.testing.assert_array_equal(got[5], np.arange(3))
    np.testing.assert_array_equal(got[6], [97, 98])


def test_text_only_bytes_read_as_text() -> None:
    assert read_values(b"[1, 2]\n3", [arr(INT), INT])[1] == 3
    with pytest.raises(L0Error, match=r"<stdin>:2:1: error: expected a value of type int"):
        read_values(b"[1, 2]\nx", [arr(INT), INT])


def _error(data: bytes, types: list) -> str:
    with pytest.raises(L0Error) as info:
        read_values(data, types)
    assert info.value.kind == "value-error"
    return info.value.render()


def test_errors_in_text_after_binary_values_are_located() -> None:
    data = b"1\n  " + write_binary(INT, 2) + b" [1, x]"
    # The binary value's bytes hold no newline: line 2, after its 15 bytes.
    assert _error(data, [INT, INT, arr(INT)]) == (
        "<stdin>:2:23: error: expected a value of type int in the array for parameter 3, "
        "found `x`")


def _dims(*dims: int, kind: bytes = b" i64") -> bytes:
    """A binary array header of `dims`, without elements."""
    return b"b\x02" + bytes([len(dims)]) + kind + b"".join(d.to_bytes(8, "little")
                                                           for d in dims)


# Dimensions that are no size (each beside a 0: no element to be truncated), or whose
# product leaves 64 bits: errors, never numpy's "maximum allowed dimension exceeded".
TOO_LARGE = [(2**64 - 1, 0), (0, 2**63), (0, 2**63 - 1), (2**60, 0), (2**32, 2**32),
             (2**40, 2**40, 0)]


@pytest.mark.parametrize("data,types,message", [
    (write_binary(INT, 1), [REAL], "expected a value of type real for parameter 1, found a "
     "binary value of rank 0 of ' i64' (binary form: rank 0 of ' f64')"),
    (write_binary(arr(INT), np.arange(2)), [arr(INT, 2)], "found a binary value of rank 1"),
    (write_binary(arr(INT), np.arange(4))[:-1], [arr(INT)],
     "truncated binary value: 4 of ' i64' needs 32 bytes, 31 are left"),
    (b"b\x02\x01 f64", [arr(REAL)], "truncated binary value header"),
    (b"b\x02\x00 x64" + bytes(8), [INT], "unknown binary element type ' x64'"),
    (b"b\x02\x01bool" + (1).to_bytes(8, "little") + b"\x02", [arr(BOOL)],
     "binary bool value other than 0 or 1"),
    (write_binary(INT, 1) * 2, [INT], "unexpected binary value after the last argument"),
    (write_binary(INT, 1) + b" 5", [INT], "unexpected `5` after the last argument"),
    (write_binary(INT, 1) + b" \xff", [INT, INT], "neither UTF-8 text nor a binary value"),
    (write_binary(INT, 1), [INT, INT], "expected a value of type int for parameter 2, "
     "found end of input"),
    (b"b\x02\x00 i32" + (-1).to_bytes(4, "little", signed=True), [CHAR],
     "binary ' i32' value is not a character code"),
    (b"b\x02\x01 i32" + (2).to_bytes(8, "little") + (65).to_bytes(4, "little")
     + (-66).to_bytes(4, "little", signed=True), [arr(CHAR)],
     "binary ' i32' value is not a character code"),
    *[(_dims(*dims), [arr(INT, len(dims))], "binary value too large: "
       + "x".join(map(str, dims)) + " of ' i64' (an array may hold at most "
       "9223372036854775807 bytes, counting its empty dimensions as 1)") for dims in TOO_LARGE],
    (_dims(2**61, 0, kind=b"  u8"), [arr(CHAR, 2)], "binary value too large"),  # as i32
])
def test_errors(data: bytes, types: list, message: str) -> None:
    assert message in _error(data, types)


def test_arrays_of_a_bytearray_are_aligned_writable_views() -> None:
    # Note [Binary arrays without copies]: no copy, whatever the header's length.
    for prefix in (b"", b"1 ", b"12 ", b"123 "):
        data = bytearray(prefix + write_binary(arr(REAL), np.arange(100.0)))
        types = [INT, arr(REAL)] if prefix else [arr(REAL)]
        got = read_values(data, types)[-1]
        assert np.shares_memory(got, np.frombuffer(data, np.uint8))
        assert got.ctypes.data % 8 == 0 and got.flags.writeable
        np.testing.assert_array_equal(got, np.arange(100.0))
    from_bytes = read_values(write_binary(arr(REAL), np.arange(3.0)), [arr(REAL)])[0]
    assert from_bytes.flags.writeable and from_bytes.base.flags.owndata  # a copy


def test_read_input_bytes_from_files_and_pipes(tmp_path: Path) -> None:
    payload = bytes(range(256)) * 5000
    path = tmp_path / "f.in"
    path.write_bytes(payload)
    with open(path, "rb") as f:
        assert read_input_bytes(f) == payload
    assert read_input_bytes(io.BytesIO(payload)) == payload


def test_binary_result_of_every_component() -> None:
    from l0.syntax.parser import parse_type

    t = parse_type("{int, [{real, bool}]}")
    out = write_binary_values(t, [4, np.array([0.5]), np.array([True])])
    assert read_values(out, [INT, arr(REAL), arr(BOOL)])[0] == 4
