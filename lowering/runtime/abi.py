"""The calling convention of compiled L0 code, shared by the emitter and `l0.lowering.backends.jit`.

Internal functions (one per `func.func` with a body), named `l0.fn.NAME`:

    {i32 status, R1..., Rn...} @"l0.fn.NAME"(ptr noalias %ctx, A1..., An...)

Every scalar argument or result is one LLVM value; a memref is its descriptor exploded
into scalars (`types.component_types`): allocated pointer, aligned pointer, offset,
sizes, strides. Exploded scalars keep every descriptor field an SSA value, so LLVM
hoists and folds them freely and its alias analysis sees the data pointers directly.
`status` is 0 on success; otherwise the other fields are undefined and `ctx` holds the
error (below). Calls propagate a non-zero status by returning at once.

Entry points (one per function exposed to Python), named `l0.entry.NAME`:

    i32 @"l0.entry.NAME"(ptr %ctx, ptr %slots)

`slots` is an array of 8-byte slots: the arguments' components in order, then room for
the results' components. Integers (i1/i32/i64/index) travel sign- or zero-extended to
i64, floats as doubles, pointers as addresses. This keeps the Python side to one
ctypes signature for every function.

The context `ctx` is an array of i64 (`ctx_size` slots):

    ctx[CTX_ERROR]        error id: 0 none, ERR_* below, or an assert's id
    ctx[CTX_STACK_FLOOR]  lowest usable stack address (0: unknown, no stack checks)
    ctx[CTX_VALUES + k]   the k-th value reported with the error (`{k}` in its message)

The error table (`ErrorTable`) maps an id to a message template and a source location;
it is built while emitting and handed to the Python side with the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CTX_ERROR = 0
CTX_STACK_FLOOR = 1
CTX_VALUES = 2

ERR_OUT_OF_MEMORY = 1
ERR_STACK_OVERFLOW = 2
ERR_FIRST_SITE = 3

INTERNAL_PREFIX = "l0.fn."
ENTRY_PREFIX = "l0.entry."
RUNTIME_PREFIX = "l0.rt."


@dataclass(frozen=True)
class ErrorSite:
    """A way compiled code can fail: `message` (with `{k}` placeholders) at `loc`.

    `loc` is `"file:line:col"`, or empty where the IR has no source location.
    """

    message: str
    loc: str = ""


OUT_OF_MEMORY = "out of memory: cannot allocate {0} bytes"
NO_STACK_ROOM = "stack overflow: no room for an array of {0} bytes on the stack"
SIZE_MESSAGES = (OUT_OF_MEMORY, NO_STACK_ROOM)
"""The messages of a failed allocation of {0} bytes, also at sites with a location
(`memref.alloc`s carry their construct's): a negative {0} is a size beyond 64 bits."""


@dataclass
class ErrorTable:
    """Error ids of one compiled module; ids below `ERR_FIRST_SITE` are the built-in ones."""

    sites: dict[int, ErrorSite] = field(
        default_factory=lambda: {
            ERR_OUT_OF_MEMORY: ErrorSite(OUT_OF_MEMORY),
            ERR_STACK_OVERFLOW: ErrorSite(NO_STACK_ROOM),
        }
    )
    max_values: int = 1

    def add(self, site: ErrorSite, nvalues: int) -> int:
        new_id = max(self.sites) + 1
        self.sites[new_id] = site
        self.max_values = max(self.max_values, nvalues)
        return new_id

    @property
    def ctx_size(self) -> int:
        return CTX_VALUES + self.max_values
