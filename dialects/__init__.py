"""IR dialects of l0 (imported as `l0.dialects`).

* `l0.dialects.soac`: the `soac` dialect, internal L0 (thesis chapter 4, `docs/ir.md`);
* `l0.dialects.context`: `l0_context()`, an xDSL context with the dialects internal L0
  is made of.

Nothing here imports passes, lowering or the front end (`docs/architecture.md` §2).
"""
