"""Values of `main`: reading its arguments and printing its result (docs/reference.md §6.2, 6.3).

* `read_values(text, types, source)` reads one value per flattened parameter type of
  `main` from a whitespace-separated stream (`reader.py`, fast path in `fast_reader.py`);
* `format_result(t, values)` prints `main`'s flattened result exactly as the 2014
  `l0c -i` did, and `format_value(t, v)` one flattened value, for `trace` (`printer.py`);
* `write_values(types, values)` writes values in the input syntax (tests, tools);
* `read_arguments(text, param_types, source)` reads and checks a whole function's
  arguments (`arguments.py`: components of an array of tuples must agree in shape);
  `to_ir_arguments` / `from_ir_results` add and drop the cert slots of the IR signature;
* `python.from_python(t, v, what)` checks and converts a Python argument of the API
  (`l0.api`) to the same values, for every back end;
* `CHECKED` is the value of type `cert`; the representation of values is in `model.py`.
"""

from __future__ import annotations

from l0.values.arguments import (
    check_arguments,
    from_ir_results,
    read_arguments,
    to_ir_arguments,
)
from l0.values.model import CHECKED, Checked, Value
from l0.values.printer import format_real, format_result, format_value, write_values
from l0.values.reader import read_values

__all__ = [
    "CHECKED",
    "Checked",
    "Value",
    "check_arguments",
    "format_real",
    "format_result",
    "format_value",
    "from_ir_results",
    "read_arguments",
    "read_values",
    "to_ir_arguments",
    "write_values",
]
