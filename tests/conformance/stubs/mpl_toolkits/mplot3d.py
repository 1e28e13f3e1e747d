"""mplot3d.Axes3D: 3-D axes whose methods do nothing."""
from matplotlib.pyplot import _Nothing


def Axes3D(fig=None, *args, **kwargs):
    """Stand-in 3-D axes on fig: every method does nothing."""
    return _Nothing()
