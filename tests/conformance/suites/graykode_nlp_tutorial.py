"""Programs from https://github.com/graykode/nlp-tutorial (MIT; see
tests/conformance/SOURCES.md for the commit).

They are single files with their tiny data inline and no command-line
arguments. Most train for thousands of epochs and print the loss every few
hundred ("Epoch: 1000 cost = 0.123456"): each entry hands the program a
``range`` (suites.thinned_range) that keeps a few steps before each of the
first printing epochs, so a run is short and still prints several losses."""
import math
import re

import numpy as np

from . import thinned_range

_COST = re.compile(r"cost = (-?\d+\.\d+(?:e[-+]?\d+)?)")


def _costs(out):
    """The losses the programs print ("Epoch: 1000 cost = 0.123456")."""
    return [float(x) for x in _COST.findall(out)]


def _entry(script, total, every, steps, blocks, **extra):
    """An entry for a program that trains ``for epoch in range(total)`` and
    prints every ``every`` epochs: ``steps`` steps before each of the first
    ``blocks`` prints."""
    entry = {"script": script, "argv": lambda w: [], "compare": _costs,
             "globals": lambda: {"range": thinned_range(total, every, steps, blocks)}}
    entry.update(extra)
    return entry


def _shared_linear_init(torch, workdir):
    """BERT.py builds an nn.Linear inside each attention call (a fresh random
    projection every step, never trained): its initial weights are drawn,
    in both runs, from one numpy generator with PyTorch's distribution
    (U(-1/sqrt(in), 1/sqrt(in)) for the weight and the bias), since torch's
    and tc's own generators differ. The model's trained weights come from
    PyTorch's run as usual (run_one's weight sync)."""
    rng = np.random.RandomState(2021)
    linear = torch.nn.Linear
    builtin_init = linear.__init__

    def __init__(self, in_features, out_features, *args, **kwargs):
        builtin_init(self, in_features, out_features, *args, **kwargs)
        bound = 1.0 / math.sqrt(in_features) if in_features else 0.0
        with torch.no_grad():
            self.weight.copy_(torch.from_numpy(
                rng.uniform(-bound, bound, (out_features, in_features)).astype(np.float32)))
            if self.bias is not None:
                self.bias.copy_(torch.from_numpy(rng.uniform(-bound, bound, out_features).astype(np.float32)))

    linear.__init__ = __init__


# (total epochs, print interval) as the programs have them; then the steps
# kept before each print and how many prints. The recurrent ones keep fewer
# steps (tc's small-batch LSTM steps cost more than the others').
PROGRAMS = {
    "graykode_nnlm": _entry("graykode_nnlm/NNLM.py", 5000, 1000, 10, 4),
    "graykode_word2vec": _entry("graykode_word2vec/Word2Vec-Skipgram(Softmax).py", 5000, 1000, 10, 4),
    "graykode_textcnn": _entry("graykode_textcnn/TextCNN.py", 5000, 1000, 10, 4),
    "graykode_textrnn": _entry("graykode_textrnn/TextRNN.py", 5000, 1000, 10, 4),
    "graykode_textlstm": _entry("graykode_textlstm/TextLSTM.py", 1000, 100, 5, 4),
    "graykode_bilstm": _entry("graykode_bilstm/Bi-LSTM.py", 10000, 1000, 5, 4),
    "graykode_seq2seq": _entry("graykode_seq2seq/Seq2Seq.py", 5000, 1000, 5, 4),
    "graykode_seq2seq_attention": _entry("graykode_seq2seq_attention/Seq2Seq(Attention).py", 2000, 400, 5, 3),
    "graykode_bilstm_attention": _entry("graykode_bilstm_attention/Bi-LSTM(Attention).py", 5000, 1000, 5, 4),
    # full size as the programs fix it (6+6 layers of d_model 512, ~44M
    # parameters; BERT 6 layers of 768): two steps take minutes on 2 cores
    "graykode_transformer": _entry("graykode_transformer/Transformer.py", 20, 1, 1, 2, slow=True, timeout=900),
    "graykode_transformer_greedy": _entry("graykode_transformer_greedy/Transformer(Greedy_decoder).py", 20, 1, 1, 2,
                                          slow=True, timeout=900),
    "graykode_bert": _entry("graykode_bert/BERT.py", 100, 10, 1, 2, patch=_shared_linear_init, slow=True,
                            timeout=900),
}
