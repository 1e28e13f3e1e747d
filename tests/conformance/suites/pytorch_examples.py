"""Programs from https://github.com/pytorch/examples (BSD-3-Clause; see
tests/conformance/SOURCES.md for each file's commit)."""
import os
import re

import numpy as np


def _write_corpus(workdir):
    """A three-file corpus (train/valid/test.txt) of a few short sentences."""
    rng = np.random.RandomState(7)
    words = ["the", "cat", "dog", "sat", "on", "a", "mat", "ran", "far", "and", "slept", "here"]
    path = os.path.join(workdir, "corpus")
    os.makedirs(path, exist_ok=True)
    for name, lines in (("train.txt", 12), ("valid.txt", 4), ("test.txt", 4)):
        with open(os.path.join(path, name), "w") as f:
            for _ in range(lines):
                f.write(" ".join(words[i] for i in rng.randint(0, len(words), size=6)) + "\n")
    return path


def _wlm_args(workdir, model, *extra):
    return ["--data", _write_corpus(workdir), "--model", model, "--epochs", "1", "--emsize", "16",
            "--nhid", "16", "--nlayers", "1", "--bptt", "5", "--batch_size", "4", "--log-interval", "1",
            "--nhead", "2", "--save", os.path.join(workdir, "model.pt")] + list(extra)


def _learned(out):
    """regression/main.py trains until its loss is below 1e-3: float32
    rounding decides the step count, so what is compared is the polynomial it
    learned (its coefficients, printed on one line)."""
    m = re.search(r"Learned function:\s*y = (.*)", out)
    return [float(x) for x in re.findall(r"[-+]\d+\.\d+", m.group(1))] if m else []


PROGRAMS = {
    "regression": {"script": "regression/main.py", "argv": lambda w: [], "compare": _learned, "abs": 0.1,
                   "rel": 0.0},
    "mnist": {"script": "mnist/main.py",
              "argv": lambda w: ["--epochs", "1", "--batch-size", "8", "--test-batch-size", "16",
                                 "--log-interval", "1", "--lr", "0.5"]},
    "vae": {"script": "vae/main.py", "argv": lambda w: ["--epochs", "1", "--batch-size", "8", "--log-interval", "1"]},
    "word_language_model_lstm": {"script": "word_language_model/main.py", "argv": lambda w: _wlm_args(w, "LSTM")},
    "word_language_model_transformer": {"script": "word_language_model/main.py",
                                        "argv": lambda w: _wlm_args(w, "Transformer"), "no_dropout": True},
    "word_language_model_gru": {"script": "word_language_model/main.py", "argv": lambda w: _wlm_args(w, "GRU")},
    "word_language_model_rnn_tanh": {"script": "word_language_model/main.py",
                                     "argv": lambda w: _wlm_args(w, "RNN_TANH")},
    "word_language_model_rnn_relu": {"script": "word_language_model/main.py",
                                     "argv": lambda w: _wlm_args(w, "RNN_RELU")},
    "word_language_model_lstm_tied": {"script": "word_language_model/main.py",
                                      "argv": lambda w: _wlm_args(w, "LSTM", "--tied")},
}
