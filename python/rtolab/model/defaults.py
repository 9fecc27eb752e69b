"""The model's default inputs, in a module of their own so the command line can show them
without importing numpy and scipy."""

DEFAULT_TIMEOUT_S = 1.0
"""Mean length of a congestion timeout, TO in τSS (Eq. 16–18). The paper leaves it open; the
default is the RFC 6298 minimum RTO."""
