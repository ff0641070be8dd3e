"""Running compiled code: calls into JIT-compiled and cached code, the OpenMP,
GPU and trace runtimes, the checking heap and allocation counts. Imports no xDSL: code
loaded from the compile cache runs with this package alone (`l0.compile_cache`).
"""
