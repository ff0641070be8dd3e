"""Fusing a map into a scan: `scanomap`, redomap's pattern for scan.

The thesis fuses a map into a reduce by making a redomap (7.1.1): the fold's lambda
runs the map's lambda on each row first, and the reduce's operator stays apart to
combine partial results. A scan is the same fold, keeping every intermediate result,
so a map feeding a scan fuses the same way:

    scan(op, ne, map(f, a))  =  scanomap(op, fn (acc, x) => op(acc, f(x)), ne, a)

`scan(op, ne, a)` is first `scanomap(op, op, ne, a)` (`as_scanomap`), then the map is
composed into its inner lambda like any consumer's (`compose.compose_map`). The
intermediate array `map(f, a)` is never built. The meaning is the left fold with the
inner lambda, so it is exact for operators that are not commutative; the operator
(`outer`) is only used by the blocked parallel scan of `convert-soac-to-scf`, to
combine the totals of chunks, which needs it associative with `ne` neutral, as any
parallel scan does (the thesis requires both of scan's operator).
"""

from __future__ import annotations

from l0.dialects import soac
from l0.passes.fuse.compose import detach_region

SCAN_CONSUMERS = (soac.ScanOp, soac.ScanomapOp)
"""The consumers this rule adds to those a map fuses into."""


def as_scanomap(scan: soac.ScanOp) -> soac.ScanomapOp:
    """`scan(f, ne, a)` as `scanomap(f, f, ne, a)`, taking `scan`'s region. The
    scanomap is not inserted; `compose.rebuilt` makes the op that is."""
    new = soac.ScanomapOp(list(scan.neutral), list(scan.inputs), scan.body.clone(),
                          detach_region(scan.body), list(scan.certs))
    new.attributes |= scan.attributes
    return new
