"""matplotlib.cm: every colormap is a function that returns no colour (None)."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def colormap(*args, **kwargs):
        return None
    return colormap
