"""The `convert-soac-to-scf` stage: SOACs on buffers to loops.
"""
