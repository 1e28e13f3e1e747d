"""pyplot with every function a no-op (plot, legend, show, savefig, ...).
Functions that return a figure or axes (figure, gca, subplot, ...) return a
stand-in on which every method call does nothing as well; ``subplots``
returns a (figure, axes) pair of them."""


class _Nothing:
    """A figure, axes or artist that draws nothing: every attribute is a
    method that does nothing and returns another such object."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Nothing()

    def __call__(self, *args, **kwargs):
        return _Nothing()

    def __getitem__(self, key):
        return _Nothing()


def subplots(*args, **kwargs):
    """(figure, axes) stand-ins."""
    return _Nothing(), _Nothing()


def __getattr__(name):
    def nothing(*args, **kwargs):
        return _Nothing()
    return nothing
