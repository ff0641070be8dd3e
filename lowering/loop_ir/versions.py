"""The versions of a nest at the loop level: the choice made a comparison with a threshold.

`interchange{versioned=true}` and `distribute{versioned=true}` leave `scf.if %t {KEPT}
else {FLAT}` with `%t` a `soac.threshold` (Note [Versions of a nest] in
`l0.passes.cores.versions`). `convert-soac-to-scf` makes the threshold `SITE.PARAM`'s
comparison (`lower_thresholds`, `run_params.reaches`), marked `l0.versions` so that
the later passes still find the flattened copy (`in_flat_version`): its perfect
nests become one loop over outer x inner elements (`convert-soac-to-scf`), and
`convert-parallel-to-omp` runs such a loop's whole index space on the threads
(`l0.lowering.cpu.flat_nests`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter

from l0.dialects import soac
from l0.lowering.loop_ir import run_params
from l0.lowering.loop_ir.builder import CodeBuilder
from l0.lowering.loop_ir.profile import site_name
from l0.passes.analysis.versions import VERSIONS_ATTR, version_of
from l0.passes.analysis.walk import walk_ops


def in_flat_version(op: Operation) -> bool:
    """Whether `op` is in the flattened copy of a versioned nest (the innermost choice
    counts)."""
    return version_of(op) == "flat"


def lower_thresholds(module: ModuleOp, record: bool = False) -> None:
    """Every `soac.threshold` -> `size >= SITE.PARAM` (`run_params.reaches`; SITE the
    name of the map at its location, Note [Names of parallel sites]), marked; with
    `record`, the sizes compared are noted for `l0 autotune`."""
    for op in [o for o in walk_ops(module) if isinstance(o, soac.ThresholdOp)]:
        b = CodeBuilder.before(op)
        name = f"{site_name(op, 'map')}.{op.param.data}"
        reached = run_params.reaches(b, op, name, op.default.data, op.size, record=record)
        assert isinstance(reached.owner, Operation)
        reached.owner.attributes[VERSIONS_ATTR] = UnitAttr()
        Rewriter.replace_op(op, [], [reached])
