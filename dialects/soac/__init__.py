"""The `soac` dialect: internal L0 as xDSL IR (thesis chapter 4, `docs/ir.md`).

Internal L0 is SSA (so let-normalisation and unique names come for free), has no tuples
(arrays of tuples are tuples of arrays, thesis 4.1), and makes every run-time check an
explicit `soac.assert` whose `!soac.cert` result is passed to the ops it guards
(certificates, thesis 4.2). Arrays are builtin `tensor<?x...xT>` values with every
dimension dynamic and `T` one of i64 (int), f64 (real), i1 (bool), i32 (char) or
`!soac.cert`. The second-order array combinators (thesis 2.2) carry their lambdas as
single-block regions ending in `soac.yield`.

Every op has a custom syntax, shown in its docstring; the generic form works as well.
The ops that bind no lambda arguments declare theirs (`assembly_format`, in `ops`); the
SOACs, which name their lambdas' arguments, have theirs written out (`syntax`).

The package: `types` (the cert type, array types and the IRDL constraints), `ops` (the
ops without lambdas), `soacs` (the SOACs and `soac.yield`), `syntax`, `verify` (the
verifiers' shared checks) and `canonicalization` (the ops' own rewrites, which
`canonicalize` runs).

Effects (what generic passes may do): ops without regions are `Pure`, except
`soac.array` and `soac.concat` (no memory effect, but they can fail at run time on
irregular arrays, so they are not speculatable) and `soac.assert` / `soac.trace`, which
have effects and are never erased, merged or moved by xDSL's dce, cse or licm. An op
guarded by a certificate is still pure: the certificate operand carries the dependence
on its check. SOACs have the effects of their lambdas (`RecursiveMemoryEffect`).
`soac.conjoin` is `Commutative` (the order of certificates means nothing).
"""

from __future__ import annotations

from xdsl.ir import Dialect

from l0.dialects.fast_ops import speed_up_accessors
from l0.dialects.soac.ops import (
    ArrayOp,
    AssertOp,
    CheckedOp,
    ConcatOp,
    ConjoinOp,
    CopyOp,
    EmptyOp,
    IndexOp,
    IotaOp,
    ReplicateOp,
    ReshapeOp,
    SizeOp,
    SplitOp,
    ThresholdOp,
    TraceOp,
    TransposeOp,
    UpdateOp,
    is_checked,
    join_certs,
)
from l0.dialects.soac.soacs import (
    FilterOp,
    MapOp,
    RedomapOp,
    ReduceOp,
    ScanomapOp,
    ScanOp,
    YieldOp,
    row_arguments,
)
from l0.dialects.soac.types import (
    ARRAY,
    CERT,
    UNIQUE_ATTR,
    VALUE,
    CertType,
    array_of,
    array_type,
    is_array_type,
    is_value_type,
    row_type,
)

__all__ = [
    "ARRAY", "CERT", "SOAC", "UNIQUE_ATTR", "VALUE", "ArrayOp", "AssertOp", "CertType",
    "CheckedOp", "ConcatOp", "ConjoinOp", "CopyOp", "EmptyOp", "FilterOp", "IndexOp",
    "IotaOp", "MapOp", "RedomapOp", "ReduceOp", "ReplicateOp", "ReshapeOp", "ScanOp",
    "ScanomapOp",
    "SizeOp", "SplitOp", "ThresholdOp", "TraceOp", "TransposeOp", "UpdateOp", "YieldOp", "array_of",
    "array_type", "is_array_type", "is_checked", "is_value_type", "join_certs",
    "row_arguments", "row_type",
]

SOAC = Dialect(
    "soac",
    [
        CheckedOp,
        AssertOp,
        ConjoinOp,
        IotaOp,
        ReplicateOp,
        ArrayOp,
        EmptyOp,
        CopyOp,
        SizeOp,
        ThresholdOp,
        IndexOp,
        UpdateOp,
        ReshapeOp,
        TransposeOp,
        SplitOp,
        ConcatOp,
        MapOp,
        ReduceOp,
        ScanOp,
        FilterOp,
        RedomapOp,
        ScanomapOp,
        YieldOp,
        TraceOp,
    ],
    [CertType],
)

for _op_class in SOAC.operations:  # `op.inputs` & co. read fast (`l0.dialects.fast_ops`)
    speed_up_accessors(_op_class)
