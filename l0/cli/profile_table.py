"""The profile of parallel execution as the tools show it: a JSON file and a table.

`l0-run --profile FILE` writes the records of `CompiledProgram.profile_records()` (one
per OpenMP region or kernel: name, launches, threads, iterations, time_us) as a JSON
list; `-v` prints them as a table with totals (`format_table`), and `l0 bench
--profile` puts them in its JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from l0.diagnostics import L0Error, Loc

COLUMNS = ("launches", "threads", "iterations", "time_us")


def write_profile(path: str, records: Sequence[dict[str, Any]]) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(list(records), f, indent=1)
            f.write("\n")
    except OSError as err:
        raise L0Error(Loc(path, 1, 1), f"cannot write the profile: {err.strerror}",
                      "io-error") from None


def format_table(records: Sequence[dict[str, Any]]) -> str:
    """The records as an aligned table, one line each and a line of totals."""
    total = {c: sum(r[c] for r in records) for c in COLUMNS}
    rows = [["region/kernel", *COLUMNS]]
    rows += [[r["name"], *(_number(r[c]) for c in COLUMNS)] for r in records]
    rows.append(["total", *(_number(total[c]) for c in COLUMNS)])
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if k == 0 else cell.rjust(w)
                       for k, (cell, w) in enumerate(zip(row, widths, strict=True)))
             for row in rows]
    return "l0-run: profile\n" + "\n".join(lines)


def _number(v: float) -> str:
    return f"{v:.1f}" if isinstance(v, float) else str(v)
