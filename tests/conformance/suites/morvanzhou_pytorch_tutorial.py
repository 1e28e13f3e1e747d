"""Programs from https://github.com/MorvanZhou/PyTorch-Tutorial (MIT; see
tests/conformance/SOURCES.md for the commit), tutorial-contents/.

Most of them show their progress only in plots: their entries ask the
matplotlib stand-in (stubs/matplotlib/pyplot.py) to print the text, curves
and histograms they would draw, and, for those that train far longer than a
test should, to end the run at the n-th ``plt.pause``. The MNIST ones read
the torchvision stand-in's synthetic digits.

Not here: 201_torch_numpy and 406_conditional_GAN, which fail under PyTorch
1.13 itself (a 2-D Tensor.dot; a tensor modified in place before backward,
which tc reports the same way), 405_DQN_Reinforcement_learning (needs gym)
and 502_GPU (needs CUDA)."""
import re

_NUMBER = re.compile(r"(?<![\w.])-?\d+\.?\d*(?:e[-+]?\d+)?")


def _numbers(out):
    """Every number the program printed (tensors, arrays, losses, plotted values)."""
    return [float(x) for x in _NUMBER.findall(out)]


def _plotted(out):
    """The numbers of what the program would have drawn ("plt.text: ...",
    "plt.plot: ...", "plt.hist: ..." lines)."""
    return _numbers("\n".join(line for line in out.splitlines() if line.startswith("plt.")))


def _training(out):
    """The numbers printed from the first "Epoch" line on (losses, accuracies,
    predictions), leaving out the model's description printed before."""
    start = out.find("Epoch")
    return _numbers(out[start:]) if start >= 0 else []


def _text(out):
    """The printed text itself, character by character (for a program that
    prints only module descriptions)."""
    return [float(ord(c)) for c in out]


def _plots(stop_after_pauses=None):
    """A patch: the matplotlib stand-in echoes what would be drawn and, when
    asked, ends the run at the given count of plt.pause calls."""
    def patch(torch, workdir):
        from matplotlib import pyplot
        pyplot.echo = True
        if stop_after_pauses:
            pyplot.stop_after = {"pause": stop_after_pauses}
    return patch


def _program(name, **spec):
    return dict({"script": "morvan_%s/%s.py" % (name, name), "argv": lambda w: []}, **spec)


PROGRAMS = {"morvan_" + name: _program(name, **spec) for name, spec in {
    "202_variable": {"compare": _numbers},
    "203_activation": {"compare": _plotted, "patch": _plots()},
    "301_regression": {"compare": _plotted, "patch": _plots()},
    "302_classification": {"compare": _plotted, "patch": _plots()},
    "303_build_nn_quickly": {"compare": _text},
    # net2 and net3 are restored by the program from its own files: only net1
    # starts from PyTorch's weights
    "304_save_reload": {"compare": _plotted, "patch": _plots(), "sync_first": 1},
    "305_batch_train": {"compare": _numbers},
    "306_optimizer": {"compare": _plotted, "patch": _plots()},
    # tc's MaxPool2d describes itself as stride=None, return_indices=False
    # where PyTorch's says stride=2: the description is left out here
    "401_CNN": {"compare": _training},
    "402_RNN_classifier": {"compare": _numbers},
    "403_RNN_regressor": {"compare": _plotted, "patch": _plots(20)},
    "404_autoencoder": {},
    "406_GAN": {"compare": _plotted, "patch": _plots(3)},
    "501_why_torch_dynamic_graph": {"compare": _numbers, "patch": _plots(20)},
    "503_dropout": {"compare": _plotted, "patch": _plots(3)},
    # Only the histograms drawn before training: the hidden layers' biases
    # feed BatchNorm, so their gradients are zero but for float rounding, and
    # Adam's first steps (about lr * sign(grad)) turn that rounding into
    # full-size updates; the two runs part within a few steps of training.
    "504_batch_normalization": {"compare": _plotted, "patch": _plots(1)},
}.items()}
