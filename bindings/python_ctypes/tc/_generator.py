"""tc.Generator: a random stream of its own, like torch.Generator, over
libtc's one default generator: a Generator keeps a generator state
(tc.get_rng_state's format) and swaps it in around each draw, so drawing
from it leaves the default generator's stream where it was."""
import contextlib
import threading
from typing import Iterator, Optional

from .serialization import get_rng_state, set_rng_state
from ._tensor import Tensor, manual_seed as _manual_seed, rand
from ._tensor_base import empty

# The swap is a read-modify-write of process-wide state.
_swap_lock = threading.RLock()


class Generator:
    """An independent random stream (CPU), seeded with manual_seed.

    Args:
        device: "cpu" (the only device).
    """

    def __init__(self, device: str = "cpu"):
        if str(device) != "cpu":
            raise RuntimeError("tc.Generator: only the cpu generator is supported, got %s" % (device,))
        self._seed = 67280421310721  # torch's default seed
        self.manual_seed(self._seed)

    def manual_seed(self, seed: int) -> "Generator":
        """Restarts the stream from seed; returns self."""
        with _swap_lock:
            saved = get_rng_state()
            try:
                _manual_seed(int(seed))
                self._state = get_rng_state()
            finally:
                set_rng_state(saved)
        self._seed = int(seed)
        return self

    def initial_seed(self) -> int:
        """The seed the stream was last started from."""
        return self._seed

    def get_state(self) -> Tensor:
        """The stream's state (a copy)."""
        return self._state.clone()

    def set_state(self, new_state: Tensor) -> "Generator":
        """Continues the stream from a get_state() result."""
        self._state = new_state.clone()
        return self

    @contextlib.contextmanager
    def _active(self) -> Iterator[None]:
        """Draws inside come from this stream (the default one is restored after)."""
        with _swap_lock:
            saved = get_rng_state()
            set_rng_state(self._state)
            try:
                yield
            finally:
                self._state = get_rng_state()
                set_rng_state(saved)


def randperm(n: int, generator: Optional[Generator] = None) -> Tensor:
    """A random permutation of 0..n-1 (int64), from generator or the default generator.

    Args:
        n: the length.
        generator: the stream drawn from (default: libtc's default generator).

    Returns:
        An int64 tensor of shape [n].
    """
    if n < 0:
        raise RuntimeError("n must be non-negative, got %d" % n)
    if n == 0:
        return empty(0, dtype="int64")
    ctx = generator._active() if generator is not None else contextlib.nullcontext()
    with ctx:
        keys = rand(n, dtype="float64")
    return keys.topk(n, 0, True, True)[1]
