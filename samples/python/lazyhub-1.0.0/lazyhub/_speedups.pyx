# cython: language_level=3
"""Compiled helpers (Cython): refgraph reads no Cython, so its names are unknown."""


def fast_hash(bytes data):
    return hash(data)
