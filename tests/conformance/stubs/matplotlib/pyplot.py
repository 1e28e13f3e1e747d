"""pyplot with every function a no-op (plot, legend, show, savefig, ...).

Two settings, off by default, let a conformance entry's ``patch`` (see
tests/conformance/suites/__init__.py) compare programs that show their
progress only in plots:

- ``echo = True``: ``text`` prints its string ("plt.text: Loss=0.1234"),
  ``plot`` the y values it would draw ("plt.plot: 0.1 0.25 ...") and
  ``hist`` the values it would count ("plt.hist: ..."), one line per call, on
  stdout, whether called from pyplot or on axes from ``subplots``;
- ``stop_after = {"pause": 3}``: the 3rd call of ``pause`` ends the program
  (SystemExit(0)), for a program that trains far longer than a test should.

``figure``, ``subplots``, ``subplot`` and ``gca`` return stand-in figures and
axes whose methods do nothing (``subplots`` returns its axes in a numpy
array shaped as matplotlib's)."""
import numpy as np

echo = False
stop_after = {}
_calls = {}


class _Nothing:
    """A figure, axes or artist: every attribute is a method that does nothing."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _nothing

    def __iter__(self):
        return iter(())


def _nothing(*args, **kwargs):
    """Does nothing; returns a stand-in object (a figure, axes or artist)."""
    return _Nothing()


class _Axes(_Nothing):
    """Axes from subplots: text, plot and hist as pyplot's, the rest does nothing."""

    def text(self, *args, **kwargs):
        """As pyplot.text."""
        return text(*args, **kwargs)

    def plot(self, *args, **kwargs):
        """As pyplot.plot."""
        return plot(*args, **kwargs)

    def hist(self, x, *args, **kwargs):
        """As pyplot.hist."""
        return hist(x, *args, **kwargs)


def _count(name):
    _calls[name] = _calls.get(name, 0) + 1
    if name in stop_after and _calls[name] >= stop_after[name]:
        raise SystemExit(0)


def _values(data):
    return " ".join("%.8g" % v for v in np.asarray(data, dtype=np.float64).ravel())


def text(x, y, s, *args, **kwargs):
    """Draws nothing; in echo mode prints the text."""
    _count("text")
    if echo:
        print("plt.text: %s" % s)


def plot(*args, **kwargs):
    """Draws nothing; in echo mode prints the y values of each curve
    (plot(y), plot(x, y), plot(x, y, fmt), ...)."""
    _count("plot")
    if echo:
        data = [a for a in args if not isinstance(a, str)]
        ys = data if len(data) == 1 else data[1::2]
        for y in ys:
            print("plt.plot: %s" % _values(y))
    return [_Nothing()]


def hist(x, *args, **kwargs):
    """Counts nothing; in echo mode prints the values."""
    _count("hist")
    if echo:
        print("plt.hist: %s" % _values(x))
    return _Nothing()


def subplots(nrows=1, ncols=1, **kwargs):
    """(figure, axes): one axes, or a numpy array of them (squeezed as matplotlib's)."""
    _count("subplots")
    axes = np.empty((nrows, ncols), dtype=object)
    for index in np.ndindex(axes.shape):
        axes[index] = _Axes()
    if nrows == 1 and ncols == 1:
        return _Nothing(), axes[0, 0]
    if nrows == 1 or ncols == 1:
        return _Nothing(), axes.ravel()
    return _Nothing(), axes


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def nothing(*args, **kwargs):
        _count(name)
        return _Nothing()
    return nothing
