"""Programs from https://github.com/yunjey/pytorch-tutorial (MIT; see
tests/conformance/SOURCES.md for each file's commit).

These tutorials hard-code their sizes (batch 100, 2 to 15 epochs) and print
their loss every 100 steps: the runs use few synthetic images (each epoch is
one step) and compare every loss the program backpropagates
(the entries' patch, pytorch_examples.trace_backward)."""
from .pytorch_examples import trace_backward


def _tutorial(script, argv=lambda w: [], **extra):
    return dict({"script": script, "argv": argv, "patch": trace_backward}, **extra)


PROGRAMS = {
    "linear_regression": {"script": "linear_regression/main.py", "argv": lambda w: []},
    "yunjey_logistic_regression": _tutorial("yunjey_logistic_regression/main.py"),
    "yunjey_feedforward_neural_network": _tutorial("yunjey_feedforward_neural_network/main.py"),
    "yunjey_convolutional_neural_network": _tutorial("yunjey_convolutional_neural_network/main.py"),
    "yunjey_recurrent_neural_network": _tutorial("yunjey_recurrent_neural_network/main.py"),
    "yunjey_bidirectional_recurrent_neural_network": _tutorial(
        "yunjey_bidirectional_recurrent_neural_network/main.py"),
    "yunjey_variational_autoencoder": _tutorial("yunjey_variational_autoencoder/main.py"),
}
