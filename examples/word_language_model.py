#!/usr/bin/env python3
# Adapted from pytorch/examples, word_language_model (model.py, data.py and
# main.py), under its BSD 3-Clause License:
#
#   Copyright (c) 2017, Pytorch contributors
#   All rights reserved.
#
#   Redistribution and use in source and binary forms, with or without
#   modification, are permitted provided that the following conditions are met:
#   * Redistributions of source code must retain the above copyright notice,
#     this list of conditions and the following disclaimer.
#   * Redistributions in binary form must reproduce the above copyright notice,
#     this list of conditions and the following disclaimer in the documentation
#     and/or other materials provided with the distribution.
#   * Neither the name of the copyright holder nor the names of its
#     contributors may be used to endorse or promote products derived from
#     this software without specific prior written permission.
#
#   THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
#   AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
#   IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
#   ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE
#   LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR
#   CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
#   SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS
#   INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN
#   CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE)
#   ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE
#   POSSIBILITY OF SUCH DAMAGE.
"""PyTorch's word-level language model recipe (pytorch/examples,
word_language_model) on tc: an RNN_TANH / RNN_RELU / LSTM / GRU model (with
optionally tied embedding and decoder weights) or a Transformer encoder with
sinusoidal positions and a causal mask, trained with truncated
back-propagation through time, gradient-norm clipping and SGD whose learning
rate is divided by 4 when the validation loss stops falling.

The code is the recipe's, written against `torch` where `torch` is tc
(`import tc as torch`). Set TC_EXAMPLE_BACKEND=torch to run the very same
code on PyTorch for comparison.

The corpus is a slice of the bundled tiny Shakespeare
(examples/data/tinyshakespeare.txt.gz), tokenized by words (whitespace),
with <eos> at each line's end; its first --lines lines are split 80% / 10% /
10% into training, validation and test text.

    python3 examples/word_language_model.py [--model Transformer|LSTM|GRU|RNN_TANH|RNN_RELU]
        [--lines N] [--emsize N] [--nhid N] [--nlayers N] [--nhead N] [--lr X] [--clip X]
        [--epochs N] [--batch_size N] [--bptt N] [--dropout X] [--tied] [--seed N]
        [--max-batches N] [--use-optimizer] [--save PATH] [--dry-run]

Exits 2 on bad arguments.
"""
import argparse
import gzip
import importlib
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# Spinning OpenMP waits burn cores shared with other processes (see train_gpt.py).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def _import_backend():
    """`import tc as torch` (or PyTorch itself when TC_EXAMPLE_BACKEND=torch)."""
    if os.environ.get("TC_EXAMPLE_BACKEND", "tc") == "torch":
        return importlib.import_module("torch")
    try:
        return importlib.import_module("tc")  # the installed package
    except ImportError:
        # Not installed: the checkout's copy (finds libtc.so in TC_LIBRARY or build*/).
        sys.path.insert(0, os.path.join(HERE, "..", "bindings", "python_ctypes"))
        return importlib.import_module("tc")


torch = _import_backend()
nn = torch.nn
F = torch.nn.functional


###############################################################################
# The models (the recipe's model.py)
###############################################################################

class RNNModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ['LSTM', 'GRU']:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            try:
                nonlinearity = {'RNN_TANH': 'tanh', 'RNN_RELU': 'relu'}[rnn_type]
            except KeyError as e:
                raise ValueError("""An invalid option for `--model` was supplied,
                                 options are ['LSTM', 'GRU', 'RNN_TANH' or 'RNN_RELU']""") from e
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)

        # Optionally tie weights as in:
        # "Using the Output Embedding to Improve Language Models" (Press & Wolf 2016)
        # https://arxiv.org/abs/1608.05859
        # and
        # "Tying Word Vectors and Word Classifiers: A Loss Framework for Language Modeling" (Inan et al. 2016)
        # https://arxiv.org/abs/1611.01462
        if tie_weights:
            if nhid != ninp:
                raise ValueError('When using the tied flag, nhid must be equal to emsize')
            self.decoder.weight = self.encoder.weight

        self.init_weights()

        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        """Uniform(-0.1, 0.1) embedding and decoder weights, a zero decoder bias."""
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        """(log-probabilities (S * N, ntoken), the new hidden state) of input (S, N) word ids."""
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        """Zero hidden state(s) (nlayers, bsz, nhid): a pair for LSTM."""
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        else:
            return weight.new_zeros(self.nlayers, bsz, self.nhid)


class PositionalEncoding(nn.Module):
    r"""Inject some information about the relative or absolute position of the tokens in the sequence.
        The positional encodings have the same dimension as the embeddings, so that the two can be summed.
        Here, we use sine and cosine functions of different frequencies.
    .. math:
        \text{PosEncoder}(pos, 2i) = sin(pos/10000^(2i/d_model))
        \text{PosEncoder}(pos, 2i+1) = cos(pos/10000^(2i/d_model))
        \text{where pos is the word position and i is the embed idx)
    Args:
        d_model: the embed dim (required).
        dropout: the dropout value (default=0.1).
        max_len: the max. length of the incoming sequence (default=5000).
    """

    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)

        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer('pe', pe)

    def forward(self, x):
        """x (S, N, d_model) plus the encodings of positions 0..S-1, then dropout."""
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Transformer):
    """Container module with an encoder, a recurrent or transformer module, and a decoder."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        # The recipe leaves the encoder layers at nn.Transformer's dropout (0.1)
        # whatever --dropout says; here they get --dropout too.
        super(TransformerModel, self).__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                                               num_encoder_layers=nlayers, dropout=dropout)
        self.model_type = 'Transformer'
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)

        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)

        self.init_weights()

    def _generate_square_subsequent_mask(self, sz):
        return torch.log(torch.tril(torch.ones(sz, sz)))

    def init_weights(self):
        """Uniform(-0.1, 0.1) embedding and decoder weights, a zero decoder bias."""
        initrange = 0.1
        nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, src, has_mask=True):
        """Log-probabilities (S, N, ntoken) of the next word after each of src (S, N)."""
        if has_mask:
            device = src.device
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                mask = self._generate_square_subsequent_mask(len(src)).to(device)
                self.src_mask = mask
        else:
            self.src_mask = None

        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


###############################################################################
# The corpus (the recipe's data.py, reading a slice of tiny Shakespeare)
###############################################################################

class Dictionary(object):
    """Words <-> ids, in order of first appearance."""

    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        """The id of word, added if new."""
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus(object):
    """Training, validation and test word ids of the first `lines` lines of a
    text file (gzip when its name ends in .gz), split 80% / 10% / 10%."""

    def __init__(self, path, lines):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf8") as f:
            text = [line for _, line in zip(range(lines), f)]
        a, b = int(len(text) * 0.8), int(len(text) * 0.9)
        self.dictionary = Dictionary()
        self.train = self.tokenize(text[:a])
        self.valid = self.tokenize(text[a:b])
        self.test = self.tokenize(text[b:])

    def tokenize(self, lines):
        """Tokenizes lines of text: a 1-D int64 tensor of word ids."""
        ids = []
        for line in lines:
            for word in line.split() + ['<eos>']:
                ids.append(self.dictionary.add_word(word))
        return torch.tensor(ids).type(torch.int64)


###############################################################################
# Training (the recipe's main.py, as functions of their inputs)
###############################################################################

def batchify(data, bsz, device="cpu"):
    """The 1-D data as bsz columns (nbatch, bsz), the remainder dropped:
    columns are independent streams of text."""
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data.to(device)


def get_batch(source, i, bptt):
    """Rows i..i+bptt of source and, flattened, the words that follow them."""
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def evaluate(model, data_source, ntokens, bptt, eval_batch_size, criterion):
    """The mean loss per word of model over data_source, without dropout."""
    model.eval()
    total_loss = 0.
    is_transformer = getattr(model, 'model_type', None) == 'Transformer'
    if not is_transformer:
        hidden = model.init_hidden(eval_batch_size)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i, bptt)
            if is_transformer:
                output = model(data)
                output = output.view(-1, ntokens)
            else:
                output, hidden = model(data, hidden)
                hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train_epoch(model, train_data, ntokens, bptt, batch_size, criterion, optimizer, clip,
                max_batches=None, log_interval=0, epoch=1, lr=None):
    """One pass over train_data (or its first max_batches batches), each batch
    a gradient step; returns the batches' losses."""
    model.train()
    losses = []
    total_loss = 0.
    start_time = time.time()
    is_transformer = getattr(model, 'model_type', None) == 'Transformer'
    if not is_transformer:
        hidden = model.init_hidden(batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        if max_batches is not None and batch >= max_batches:
            break
        data, targets = get_batch(train_data, i, bptt)
        # Starting each batch, we detach the hidden state from how it was previously produced.
        # If we didn't, the model would try backpropagating all the way to start of the dataset.
        optimizer.zero_grad()
        if is_transformer:
            output = model(data)
            output = output.view(-1, ntokens)
        else:
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()

        # `clip_grad_norm` helps prevent the exploding gradient problem in RNNs / LSTMs.
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()

        losses.append(loss.item())
        total_loss += losses[-1]
        if log_interval and batch % log_interval == 0 and batch > 0:
            cur_loss = total_loss / log_interval
            elapsed = time.time() - start_time
            print('| epoch {:3d} | {:5d}/{:5d} batches | lr {:02.2f} | ms/batch {:5.2f} | '
                  'loss {:5.2f} | ppl {:8.2f}'.format(epoch, batch, len(train_data) // bptt, lr,
                                                      elapsed * 1000 / log_interval, cur_loss,
                                                      math.exp(cur_loss)), flush=True)
            total_loss = 0
            start_time = time.time()
    return losses


def build_model(kind, ntokens, args):
    """The --model kind of model."""
    if kind == 'Transformer':
        return TransformerModel(ntokens, args.emsize, args.nhead, args.nhid, args.nlayers, args.dropout)
    return RNNModel(kind, ntokens, args.emsize, args.nhid, args.nlayers, args.dropout, args.tied)


def parse_args(argv=None):
    """The command line (exits 2 on bad arguments, as argparse does)."""
    p = argparse.ArgumentParser(description='Word-level RNN/LSTM/GRU/Transformer language model on tiny '
                                            'Shakespeare (pytorch/examples word_language_model, on tc)')
    p.add_argument('--data', type=str, default=os.path.join(HERE, 'data', 'tinyshakespeare.txt.gz'),
                   help='the text (gzip when it ends in .gz)')
    p.add_argument('--lines', type=int, default=4000, help='use the first N lines of the text')
    p.add_argument('--model', type=str, default='Transformer',
                   choices=['RNN_TANH', 'RNN_RELU', 'LSTM', 'GRU', 'Transformer'], help='type of network')
    p.add_argument('--emsize', type=int, default=64, help='size of word embeddings')
    p.add_argument('--nhid', type=int, default=64, help='number of hidden units per layer')
    p.add_argument('--nlayers', type=int, default=2, help='number of layers')
    p.add_argument('--lr', type=float, default=20, help='initial learning rate')
    p.add_argument('--clip', type=float, default=0.25, help='gradient clipping')
    p.add_argument('--epochs', type=int, default=2, help='upper epoch limit')
    p.add_argument('--batch_size', type=int, default=20, metavar='N', help='batch size')
    p.add_argument('--bptt', type=int, default=35, help='sequence length')
    p.add_argument('--dropout', type=float, default=0.2, help='dropout applied to layers (0 = no dropout)')
    p.add_argument('--tied', action='store_true', help='tie the word embedding and softmax weights')
    p.add_argument('--seed', type=int, default=1111, help='random seed')
    p.add_argument('--log-interval', type=int, default=20, metavar='N', help='report interval')
    p.add_argument('--max-batches', type=int, default=None, help='at most N training batches per epoch')
    p.add_argument('--save', type=str, default='', help='save the best model\'s state_dict there')
    p.add_argument('--nhead', type=int, default=2, help='the number of heads of the transformer model')
    p.add_argument('--dry-run', action='store_true', help='one batch per epoch, one epoch')
    p.add_argument('--use-optimizer', action='store_true', help='AdamW rather than plain SGD')
    args = p.parse_args(argv)
    for name in ('lines', 'emsize', 'nhid', 'nlayers', 'epochs', 'batch_size', 'bptt', 'nhead'):
        if getattr(args, name) < 1:
            p.error('--%s must be at least 1' % name)
    if not 0.0 <= args.dropout < 1.0:
        p.error('--dropout must be in [0, 1)')
    if args.model == 'Transformer' and args.emsize % args.nhead:
        p.error('--emsize must be a multiple of --nhead')
    if args.tied and args.model != 'Transformer' and args.nhid != args.emsize:
        p.error('--tied needs --nhid equal to --emsize')
    return args


def main(argv=None):
    """Trains, keeps the best model by validation loss, reports the test loss."""
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    device = "cpu"
    corpus = Corpus(args.data, args.lines)
    eval_batch_size = 10
    train_data = batchify(corpus.train, args.batch_size, device)
    val_data = batchify(corpus.valid, eval_batch_size, device)
    test_data = batchify(corpus.test, eval_batch_size, device)
    if train_data.size(0) < 2 or val_data.size(0) < 2 or test_data.size(0) < 2:
        print('error: --lines %d gives too little text for these batch sizes' % args.lines, file=sys.stderr)
        return 2
    ntokens = len(corpus.dictionary)
    print('backend: %s  model: %s  vocabulary: %d words  training words: %d'
          % (torch.__name__, args.model, ntokens, corpus.train.size(0)), flush=True)
    model = build_model(args.model, ntokens, args).to(device)
    criterion = nn.NLLLoss()
    lr = args.lr
    if args.use_optimizer:
        optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    else:
        # The recipe's update, p -= lr * grad, is plain SGD.
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    max_batches = 1 if args.dry_run else args.max_batches
    best_val_loss = None
    best_state = None
    for epoch in range(1, (1 if args.dry_run else args.epochs) + 1):
        epoch_start_time = time.time()
        train_epoch(model, train_data, ntokens, args.bptt, args.batch_size, criterion, optimizer, args.clip,
                    max_batches, args.log_interval, epoch, lr)
        val_loss = evaluate(model, val_data, ntokens, args.bptt, eval_batch_size, criterion)
        print('-' * 89)
        print('| end of epoch {:3d} | time: {:5.2f}s | valid loss {:5.2f} | '
              'valid ppl {:8.2f}'.format(epoch, (time.time() - epoch_start_time), val_loss, math.exp(val_loss)))
        print('-' * 89, flush=True)
        # Keep the best model by validation loss so far.
        if not best_val_loss or val_loss < best_val_loss:
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
            if args.save:
                torch.save(model.state_dict(), args.save)
            best_val_loss = val_loss
        elif not args.use_optimizer:
            # Anneal the learning rate if no improvement has been seen in the validation dataset.
            lr /= 4.0
            for group in optimizer.param_groups:
                group['lr'] = lr
    model.load_state_dict(best_state)
    test_loss = evaluate(model, test_data, ntokens, args.bptt, eval_batch_size, criterion)
    print('=' * 89)
    print('| End of training | test loss {:5.2f} | test ppl {:8.2f}'.format(test_loss, math.exp(test_loss)))
    print('=' * 89)
    return 0


if __name__ == '__main__':
    sys.exit(main())
