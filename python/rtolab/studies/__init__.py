"""Reproductions of the papers behind rtolab, one module per paper."""
