"""tc.utils: data helpers (tc.utils.data)."""
from . import data  # noqa: F401
