"""IR dialects of l0 (imported as `l0.dialects`).

* `l0.dialects.soac`: the `soac` dialect, internal L0 (thesis chapter 4, `docs/ir.md`);
* `l0.dialects.msoac`: the `msoac` dialect, SOACs on memrefs after bufferisation
  (`docs/lowering.md`), with `l0.dialects.memref_types`, the memref types of arrays;
* `l0.dialects.context`: the one list of the dialects l0's tools load, and
  `l0_context()`, an xDSL context with them;
* `l0.dialects.upstream`: traits of upstream ops that xDSL does not declare, added
  when this package is imported (Note [Commutative upstream ops]).

Nothing here imports passes, lowering or the front end (`docs/architecture.md` §2).
"""

from l0.dialects.upstream import declare_upstream_facts

declare_upstream_facts()
