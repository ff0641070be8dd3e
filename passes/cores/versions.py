"""The versioning core: a nest kept as it was beside a copy to flatten, chosen at run time.

`interchange{versioned=true}` and `distribute{versioned=true}` (multicore's `-O`) call
`version` on a map they are about to flatten, and flatten the copy it returns
(Note [Versions of a nest]).

Before:
    %r = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?xf64> { ... }
After (`version`; the else branch's map is then flattened):
    %n = soac.size(0) %xs : tensor<?xf64>
    %t = soac.threshold %n, "flatten_below" default "threads*1" at "p.l0:3:5"
    %r = scf.if %t -> (tensor<?xf64>) {
      %a = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?xf64> { ... }   // as it was
      scf.yield %a : tensor<?xf64>
    } else {
      %b = soac.map(%x = %xs : tensor<?xf64>) -> tensor<?xf64> { ... }   // flattened
      scf.yield %b : tensor<?xf64>
    }

Note [Versions of a nest]
~~~~~~~~~~~~~~~~~~~~~~~~~
A map whose lambda holds parallel work runs in one of two forms. As it is, its outer
level is one parallel loop (one OpenMP region) and everything inside an iteration runs
sequentially in one thread: right when the outer size keeps every thread busy
(LocVolCalib's 16 or 128 strikes on a few cores), and the cheapest form, since no
intermediate is expanded and no region is opened per step of an inner loop. Flattened
(`interchange` moves its sequential loop out, `distribute` splits its lambda into
perfect nests), every level is parallel over outer x inner elements: right when the
outer size is below the thread count (2 strikes on 4 threads; 1 strike leaves all
threads but one idle), where the other form cannot use the machine at all.

Which form pays depends on the outer size, known only at run time, so both are in the
code (Futhark's incremental flattening makes the same choice per nest): the nest as
it was runs when its outer size reaches the run-time parameter `SITE.flatten_below`
(SITE the map's name, `l0-run --print-params`, `--param SITE.flatten_below=V`, `l0
autotune`), whose default is the thread count; the flattened copy otherwise. 0 forces
the nest as it was, a large value the flattened copy. The choice is `soac.threshold`,
which the lowering makes a comparison with the parameter (`run_params.reaches`). Both
versions compute the same values and report the same first error (each keeps the
smallest failing element's: Notes [When the interchange keeps the meaning] and
[Failures of the pieces] in the passes).

`interchange` and `distribute` never flatten what is in the kept branch, and version
only a nest outside every versioned nest: the maps they make inside the flattened copy
are flattened further without versions of their own (`version_of`).
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Block, Region
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from l0.dialects import soac

PARAM = "flatten_below"
"""The suffix of a nest's threshold: `SITE.flatten_below`."""

DEFAULT = "threads*1"
"""Its default: the thread count (the flattened copy runs below it)."""


def version(op: soac.MapOp, rewriter: PatternRewriter) -> soac.MapOp | None:
    """Replace `op` by the choice between itself and a copy (module docstring) and
    return the copy, the version to flatten; None (and nothing changed) for a map
    without inputs, which has no outer size to compare."""
    if not op.inputs:
        return None
    size = soac.SizeOp(op.inputs[0], 0)
    loc = "" if op.loc is None else op.loc.data
    wide = soac.ThresholdOp(size, PARAM, DEFAULT, loc)
    kept, flat = op.clone(), op.clone()
    types = list(op.result_types)
    branch = scf.IfOp(wide.result, types,
                      Region(Block([kept, scf.YieldOp(*kept.results)])),
                      Region(Block([flat, scf.YieldOp(*flat.results)])))
    rewriter.insert([size, wide], InsertPoint.before(op))
    rewriter.replace(op, branch)
    return flat
