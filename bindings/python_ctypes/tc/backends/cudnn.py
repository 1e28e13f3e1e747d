"""tc.backends.cudnn: torch.backends.cudnn's flags. libtc calls cuDNN (when
built with CUDA) without these knobs: the values are kept so that programs
setting or reading them run, and change nothing."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    """Whether cuDNN can be used: the same answer as tc.cuda.is_available()."""
    from .. import cuda
    return cuda.is_available()


def version():
    """The cuDNN version as an int, or None; libtc does not report one, so None."""
    return None
