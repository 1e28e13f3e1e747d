"""Programs from https://github.com/yunjey/pytorch-tutorial (MIT; see
tests/conformance/SOURCES.md for each file's commit).

These tutorials hard-code their sizes (batch 100, 5 to 200 epochs) and print
their loss every 100 steps: the runs use few synthetic images (each epoch is
one step) and compare every loss the program backpropagates
(trace_backward)."""
import json
import os

import numpy as np


def _data(sizes):
    """The argv function of a program without arguments whose datasets
    need other sizes than the stub's defaults (conformance_data.json)."""
    def argv(workdir):
        with open(os.path.join(workdir, "conformance_data.json"), "w") as f:
            json.dump(sizes, f)
        return []
    return argv


def _corpus(workdir):
    """data/train.txt for the language model: 40 lines of 15 words
    (+ <eos>): 640 tokens, 20 rows of 32, so one 30-word step per epoch."""
    rng = np.random.RandomState(11)
    words = ["the", "cat", "dog", "sat", "on", "a", "mat", "ran", "far", "and", "slept", "here"]
    os.makedirs(os.path.join(workdir, "data"), exist_ok=True)
    with open(os.path.join(workdir, "data", "train.txt"), "w") as f:
        for _ in range(40):
            f.write(" ".join(words[i] for i in rng.randint(0, len(words), size=15)) + "\n")
    return []


def _tutorial(script, argv=lambda w: [], **extra):
    return dict({"script": script, "argv": argv, "trace_backward": True}, **extra)


PROGRAMS = {
    "linear_regression": {"script": "linear_regression/main.py", "argv": lambda w: []},
    "yunjey_logistic_regression": _tutorial("yunjey_logistic_regression/main.py"),
    "yunjey_feedforward_neural_network": _tutorial("yunjey_feedforward_neural_network/main.py"),
    "yunjey_convolutional_neural_network": _tutorial("yunjey_convolutional_neural_network/main.py"),
    "yunjey_deep_residual_network": _tutorial("yunjey_deep_residual_network/main.py",
                                              _data({"CIFAR10": {"train": 2, "test": 2}})),
    "yunjey_recurrent_neural_network": _tutorial("yunjey_recurrent_neural_network/main.py"),
    "yunjey_bidirectional_recurrent_neural_network": _tutorial(
        "yunjey_bidirectional_recurrent_neural_network/main.py"),
    "yunjey_language_model": _tutorial("yunjey_language_model/main.py", _corpus),
    # reshape(batch_size, -1) needs full batches of 100
    "yunjey_generative_adversarial_network": _tutorial("yunjey_generative_adversarial_network/main.py",
                                                       _data({"MNIST": {"train": 100}})),
    "yunjey_variational_autoencoder": _tutorial("yunjey_variational_autoencoder/main.py"),
}
