"""Analyses that several passes share; none of them changes the IR (Futhark's `Analysis/`).

* `consumption`: which arrays may be consumed, and where (uniqueness, thesis 6.1.1);
* `speculation`: which ops may fail or print, so they are not moved, merged or erased.
"""
