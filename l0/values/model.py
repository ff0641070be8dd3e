"""How L0 run-time values are represented in Python (docs/CONTRIBUTING-helpers.md).

`int` -> Python `int` wrapped to 64 bits (the 2014 interpreter's Haskell `Int`),
`real` -> `float`, `bool` -> `bool`, `char` -> `int` code point, `cert` -> `CHECKED`.
Arrays are rectangular `numpy.ndarray`s of any rank whose dtype is given by `DTYPES`;
an empty array has shape `(0, ...)`, with inner sizes 0 where they are unknown.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from l0.types import Basic


class Checked:
    """The type of `CHECKED`, the only value of type `cert` (thesis 4.2)."""

    _instance: Checked | None = None

    def __new__(cls) -> Checked:
        # A singleton, so `v is CHECKED` works and copies (deepcopy, pickle) stay it.
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "Checked"

    def __reduce__(self) -> str:
        return "CHECKED"

    def __copy__(self) -> Checked:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Checked:
        return self


CHECKED: Final = Checked()

# One run-time value: a scalar or an array (see the module docstring).
Value = Any

DTYPES: Final[dict[Basic, type]] = {
    Basic.INT: np.int64,
    Basic.REAL: np.float64,
    Basic.BOOL: np.bool_,
    Basic.CHAR: np.int32,
    Basic.CERT: np.object_,
}

INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1
"""The range of `int` values; values and literals outside it are errors, not wrapped."""
