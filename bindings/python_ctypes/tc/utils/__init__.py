"""tc.utils: data helpers (tc.utils.data)."""
from . import data  # noqa: F401
# ---- tc.utils.checkpoint (activation checkpointing: tc/utils/checkpoint.py) ----
from . import checkpoint  # noqa: F401,E402
# ---- end of checkpoint ----
