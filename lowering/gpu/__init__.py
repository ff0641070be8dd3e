"""The GPU back end's lowerings: kernels and their launches (the gpu level) and
the simulator's conversion of them to CPU code.
"""
