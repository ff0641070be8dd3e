"""Benchmarks of the l0 compiler: the thesis's artificial benchmarks P0-P2 (Part IV) in L0,
hand-written C and NumPy, and the runner that compares them (`python -m benchmarks.run`).
See `benchmarks/README.md`."""
