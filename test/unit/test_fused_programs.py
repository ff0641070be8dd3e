"""The corpus programs of the fusion rules reach their fused structure under -O.

The test matrix checks that each program's result is the same at -O0 and -O on every
back end; here, what `-O` leaves in the program (`l0.testing.structure_of`: the soac
ops, nested ones included) shows that the rule each program exercises fired: the
producers are gone and the fused SOAC is there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from l0.bigstack import call_with_big_stack
from l0.testing import structure_of

FUSION = Path(__file__).resolve().parents[1] / "programs" / "fusion"

SOACS = ("map", "reduce", "scan", "filter", "redomap", "scanomap")

EXPECTED: dict[str, dict[str, int]] = {
    # map into scan (scanomap)
    "map_scan": {"scanomap": 1, "map": 1, "scan": 0},
    "scanomap_affine": {"scanomap": 1, "map": 0, "scan": 0},
    "scanomap_chain": {"scanomap": 1, "map": 1, "scan": 0},
    "scanomap_rows": {"scanomap": 1, "reduce": 1, "map": 0, "scan": 0},
    # rows mapped, then scanned with row-wise sums: the fold maps the row, the
    # operator adds rows (a map each)
    "scanomap_matrix": {"scanomap": 1, "map": 2, "scan": 0},
    # PULL-RESHAPE (then map into the row sums; after a transposition, PULL-TRANSPOSE)
    "pull_reshape_rows": {"map": 1, "redomap": 1},
    "pull_reshape_error": {"map": 1, "redomap": 1},
    "pull_reshape_regroup": {"map": 1, "redomap": 1},
    "reshape_transpose": {"map": 3, "reduce": 1},
    # ISWIM where the transpositions cancel: a map of per-row scanomaps, no transpose
    "iswim_columns": {"map": 1, "scanomap": 1, "scan": 0, "transpose": 0},
    # a neutral element's check the producer repeats moves before it: the rows' map
    # fuses into the sum of vectors (its fold and operator each a map over a row)
    "neutral_check": {"redomap": 1, "map": 2, "reduce": 0},
}
"""Per program, the number of each SOAC after -O (a SOAC not named: none), and of
the other ops named (`l0.testing.STRUCTURE_OPS`)."""


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fused_structure(name: str) -> None:
    path = FUSION / f"{name}.l0"
    counts = call_with_big_stack(lambda: structure_of(path.read_text(), str(path)))
    named = [*SOACS, *(op for op in EXPECTED[name] if op not in SOACS)]
    found = {op: counts.get(op, 0) for op in named}
    expected = {op: EXPECTED[name].get(op, 0) for op in named}
    assert found == expected
