"""A stand-in for matplotlib's mpl_toolkits (3-D axes only), for the
conformance runs: nothing is drawn."""
