"""xDSL's generic passes that l0 registers as they are, documented for soac IR.

They work on soac IR through the effect traits of `l0.dialects.soac` and the
canonicalisation traits of the ops. These subclasses change no behaviour; they exist so
that every registered pass carries its documentation (`l0-opt --help`, `docs/passes.md`).
"""

from __future__ import annotations

from xdsl.transforms.canonicalize import CanonicalizePass as _Canonicalize


class CanonicalizePass(_Canonicalize):
    """Apply the canonicalisation patterns and folders of every op, then erase dead code.

    On soac IR this folds arith/scf constants, runs the soac ops' own patterns
    (`assert(True)` -> `Checked`; `conjoin` without `Checked`, repeats or nesting;
    `transpose(k, 0, a)` -> `a`) and removes dead ops that have no effects (never
    `soac.assert` or `soac.trace`).
    """
