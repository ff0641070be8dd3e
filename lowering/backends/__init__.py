"""Back ends: compile lowered modules to code that runs (the JIT, the GPU
engine, native executables and libraries).
"""
