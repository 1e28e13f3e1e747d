"""tc.backends.mps: Apple's Metal backend, which libtc does not have."""


def is_available():
    """Always False: libtc has no MPS backend."""
    return False


def is_built():
    """Always False: libtc has no MPS backend."""
    return False
