"""The CPU back ends' own lowerings: tiling parallel loops and OpenMP regions
(multicore).
"""
