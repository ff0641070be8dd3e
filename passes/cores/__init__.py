"""Rewriting cores that more than one pass runs; passes import them from here, never
from one another.

* `common_subexpressions`: which ops compute the same value, and merging them (`cse`,
  `rebind`);
* `erase_dead`: the pattern that erases an unused op without effects (`dce`,
  `simplify`);
* `hoisting`: which ops may leave a lambda, loop or branch, and moving them (`hoist`,
  `rebind`).
* `rewrite_walker`: xDSL's pattern walker, filling its worklist faster (`simplify`,
  `dce`, `fuse`).
"""
