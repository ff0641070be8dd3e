"""Facts about upstream (xDSL) ops that l0 relies on and xDSL does not declare.

Note [Commutative upstream ops]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Passes ask an op whether its operands may be swapped through the `Commutative` trait
(`cse` meets `x * y` with `y * x`). xDSL declares it on `arith.addi`, `muli`, `andi`,
`ori` and `xori` only; MLIR declares it on the ops below as well, and they are
commutative in l0's semantics too: the integer minimum and maximum, and IEEE addition
and multiplication (commutative, though not associative), `maximumf`/`minimumf` (NaN
wins from either side, and -0 < +0 either way) and `maxnumf`/`minnumf` (the number wins
from either side). Importing `l0.dialects` adds the trait to them, through xDSL's own
`OpTraits.add_trait`.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.irdl import IRDLOperation
from xdsl.traits import Commutative

COMMUTATIVE_UPSTREAM: tuple[type[IRDLOperation], ...] = (
    arith.MaxSIOp, arith.MinSIOp, arith.MaxUIOp, arith.MinUIOp,
    arith.AddfOp, arith.MulfOp, arith.MaximumfOp, arith.MinimumfOp,
    arith.MaxnumfOp, arith.MinnumfOp,
)
"""The upstream ops that are commutative but not declared so by xDSL."""


def declare_upstream_facts() -> None:
    """Add the traits of this module's Note to the upstream op classes (idempotent)."""
    for op_class in COMMUTATIVE_UPSTREAM:
        if not op_class.has_trait(Commutative):
            op_class.traits.add_trait(Commutative())
