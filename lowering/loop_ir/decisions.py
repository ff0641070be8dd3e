"""The probe through which lowering passes report their decisions (`simd-map`: which
loops went SIMD, at what width, or why not). It does nothing: `l0-run -v` replaces
`report` for the duration of a compilation and prints what it receives (as the stage
probes of `l0.cli.stages` do). No imports: `l0-run` reaches it without xDSL."""

from __future__ import annotations


def report(pass_name: str, message: str) -> None:
    """A decision of lowering pass `pass_name` (nothing unless `l0-run -v` listens)."""
