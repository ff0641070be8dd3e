"""Arguments of a whole function: flattening by source type, and the one check flattening needs.

An array of tuples is passed as one array per component (thesis 4.1). Inside the
program those components come from one array, so they have the same outer shape, and
compiled code indexes all of them with the bounds of one; a caller handing in
components of different sizes (on stdin or from Python) is therefore rejected here,
before anything runs, instead of reading out of bounds later.

Such a parameter also has a certificate slot in the IR signature (thesis 4.2.1, docs/ir.md
"Modules"), and such a result a leading cert; callers from outside supply and see only
the flattened values: `to_ir_arguments` / `from_ir_results` convert (`Checked` goes into
a cert slot, since `check_arguments` has checked what the cert stands for).
"""

from __future__ import annotations

from collections.abc import Sequence

from l0.diagnostics import L0Error, Loc
from l0.types import ArrayType, TupleType, Type, flatten, needs_cert
from l0.values.model import CHECKED, Value
from l0.values.reader import read_values


def read_arguments(
    text: str | bytes | bytearray, params: Sequence[Type], source: str = "<stdin>"
) -> list[Value]:
    """Read the flattened arguments of a function whose parameters have types `params`
    (from bytes: text and binary values mixed, `binary.py`)."""
    types = [c for t in params for c in flatten(t)]
    values = read_values(text, types, source)  # with no types: checks that `text` is empty
    check_arguments(params, values, Loc(source, 1, 1))
    return values


def check_arguments(params: Sequence[Type], values: Sequence[Value], loc: Loc) -> None:
    """Check that the components of every array of tuples among `params` agree in shape."""
    pos = 0
    for i, t in enumerate(params, 1):
        n = len(flatten(t))
        _check(t, values[pos : pos + n], loc, i)
        pos += n


def _check(t: Type, values: Sequence[Value], loc: Loc, param: int) -> None:
    if isinstance(t, TupleType):
        pos = 0
        for e in t.elems:
            n = len(flatten(e))
            _check(e, values[pos : pos + n], loc, param)
            pos += n
        return
    if not isinstance(t, ArrayType) or not isinstance(t.elem, TupleType) or len(values) < 2:
        return
    shapes = [tuple(getattr(v, "shape", ()))[: t.rank] for v in values]
    if any(s != shapes[0] for s in shapes):
        found = ", ".join("x".join(map(str, s)) or "scalar" for s in shapes)
        raise L0Error(
            loc,
            f"the arrays of argument {param} (of type {t}) must have the same outer shape, "
            f"found {found}",
            "value-error",
        )


def to_ir_arguments(params: Sequence[Type], flat_values: Sequence[Value]) -> list[Value]:
    """The IR arguments of a function with parameter types `params` given the flattened
    values: `CHECKED` inserted before the values of every parameter that `needs_cert`."""
    out: list[Value] = []
    pos = 0
    for t in params:
        n = len(flatten(t))
        if needs_cert(t):
            out.append(CHECKED)
        out.extend(flat_values[pos : pos + n])
        pos += n
    assert pos == len(flat_values), f"{len(flat_values)} values for {pos} components"
    return out


def fresh_arguments(params: Sequence[Type], ir_values: Sequence[Value]) -> list[Value]:
    """The IR arguments `ir_values` of a function with parameter types `params` (as
    `to_ir_arguments` gives them) for one more call of it: a copy of each argument the
    call may update in place, a component of a unique array type, and the others as
    they are (Note [Inputs of repeated runs])."""
    import copy

    return [copy.deepcopy(v) if c else v
            for v, c in zip(ir_values, consumed_arguments(params), strict=True)]


def consumed_arguments(params: Sequence[Type]) -> list[bool]:
    """Per IR argument of a function with parameter types `params` (certificates
    included, as `to_ir_arguments` places them), whether the function may update it in
    place: a component of a unique array type."""
    consumed: list[bool] = []
    for t in params:
        if needs_cert(t):
            consumed.append(False)
        consumed.extend(isinstance(c, ArrayType) and c.unique for c in flatten(t))
    return consumed


# Note [Inputs of repeated runs]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# `l0-run -r N`, `l0 bench`, `l0 autotune` and the `-r N` of executables (`fill_slots`
# in lowering/backends/native/runtime.c) run `main` again and again on the same input.
# Only a unique parameter (`*[int]`) may be updated in place by a run, so only its
# arguments are copied afresh for each run (`fresh_arguments`); the others are
# passed as they are, as a benchmark harness passes its inputs (Futhark's copies only
# consumed arguments too). Copying everything was not free: the copy, made by the
# calling thread just before the timed call, leaves the input in that core's cache,
# modified, and the other threads of a `multicore` region then fetch every line of
# their parts from there. A histogram of 10^6 points took 1.34 ms a run on 2 threads
# with the copies and 0.73 ms without (`cpu`: 1.05 and 1.02 ms), and neither figure
# was the program's own cost.
#
# The arrays are still copied once, before the first timed run: the value reader's
# arrays may lie on ordinary 4 KiB pages where a fresh buffer of numpy's gets huge ones
# (numpy advises them for large allocations; this machine's transparent huge pages
# are `madvise`), and k-means over 200,000 points of 34 reals (54 MB, read by every
# iteration) took 235-242 ms a run on `cpu` from the reader's array against 203-216 ms
# from a copy, which every run had before.


def from_ir_results(ret: Type, ir_values: Sequence[Value]) -> list[Value]:
    """The flattened results of a function of result type `ret` from its IR results:
    the leading cert dropped when `ret` `needs_cert`."""
    return list(ir_values[1:] if needs_cert(ret) else ir_values)
