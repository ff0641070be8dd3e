"""Memory planning on the loop level: deallocation, the passes that move, size,
expand and reuse allocations, and the facts they share.
"""
