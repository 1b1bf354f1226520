"""The analysis engine: numba kernels, the compiled house way, exact analysis, statistics."""
