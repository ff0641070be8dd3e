"""Analyses that several passes share; none of them changes the IR (Futhark's `Analysis/`).

They import only one another (and the dialects); every pass and shared core may use them.

* `calls`: the call graph (functions, recursive ones, reachable ones);
* `constants`: integer and real constants known at compile time;
* `consumption`: aliases, and which arrays may be consumed where (thesis 6.1.1);
* `effects`: which ops may fail or print, so they are not erased (thesis 5.3);
* `order`: a numbering of values by definition, for canonical orders;
* `scope`: values defined inside or outside an op, and the free values of an op;
* `shapes`: row shapes known before a SOAC runs, and shapes known at compile time;
* `speculation`: which ops may fail or print, so they are not moved or merged;
* `elements`: what is the same for every element of a map, and which checks in its
  lambda fail alike for all elements.
"""
