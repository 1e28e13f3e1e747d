"""A stand-in for SciPy (not installed where the suite runs): only what the
conformance programs call, in numpy (scipy.linalg.qr, scipy.linalg.lu)."""
