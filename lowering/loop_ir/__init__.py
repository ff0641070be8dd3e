"""The loop-level IR shared by the lowering stages: building it, bounds checks,
parallel loops and trace calls.
"""
