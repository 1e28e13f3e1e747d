"""Programs from https://github.com/graykode/nlp-tutorial (MIT; see
tests/conformance/SOURCES.md for the commit).

They are single files with their tiny data inline and no command-line
arguments. Most train for thousands of epochs and print the loss every few
hundred ("Epoch: 1000 cost = 0.123456"): each entry hands the program a
``range`` (suites.thinned_range) that keeps a few steps before each of the
first printing epochs, so a run is short and still prints several losses."""
import re

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


PROGRAMS = {
    "graykode_nnlm": _entry("graykode_nnlm/NNLM.py", 5000, 1000, 20, 5),
    "graykode_word2vec": _entry("graykode_word2vec/Word2Vec-Skipgram(Softmax).py", 5000, 1000, 20, 5),
    "graykode_textcnn": _entry("graykode_textcnn/TextCNN.py", 5000, 1000, 20, 5),
    "graykode_textrnn": _entry("graykode_textrnn/TextRNN.py", 5000, 1000, 20, 5),
    "graykode_textlstm": _entry("graykode_textlstm/TextLSTM.py", 1000, 100, 20, 5),
    "graykode_bilstm": _entry("graykode_bilstm/Bi-LSTM.py", 10000, 1000, 20, 5),
    "graykode_seq2seq": _entry("graykode_seq2seq/Seq2Seq.py", 5000, 1000, 20, 5),
    "graykode_seq2seq_attention": _entry("graykode_seq2seq_attention/Seq2Seq(Attention).py", 2000, 400, 10, 3),
    "graykode_bilstm_attention": _entry("graykode_bilstm_attention/Bi-LSTM(Attention).py", 5000, 1000, 20, 5),
    "graykode_transformer": _entry("graykode_transformer/Transformer.py", 20, 1, 1, 3),
    "graykode_transformer_greedy": _entry("graykode_transformer_greedy/Transformer(Greedy_decoder).py", 20, 1, 1, 3),
    "graykode_bert": _entry("graykode_bert/BERT.py", 100, 10, 1, 2),
}
