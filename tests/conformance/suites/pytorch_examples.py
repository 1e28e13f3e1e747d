"""Programs from https://github.com/pytorch/examples (BSD-3-Clause; see
tests/conformance/SOURCES.md for each file's commit)."""
import json
import os
import re
import sys

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


def trace_backward(torch, workdir):
    """patch: prints every one-element tensor the program calls .backward()
    on, as "[run_one] backward loss: X" (the test's loss pattern), for
    programs that print their loss only every 100 steps or so, or under
    another name (dcgan's Loss_D/Loss_G)."""
    real_backward = torch.Tensor.backward

    def backward(self, *args, **kwargs):
        if self.numel() == 1:
            print("[run_one] backward loss: %.6e" % float(self.detach()))
        return real_backward(self, *args, **kwargs)

    torch.Tensor.backward = backward


def _sync_optimizers(torch, workdir):
    """patch for programs whose modules are never called as modules (their
    forward is called directly, so run_one's first-call sync never happens):
    the parameters each optimizer is built with, in order of construction,
    are saved (PyTorch run) or loaded (tc run), as run_one does with
    state_dicts."""
    save = type(torch.zeros(1)).__module__.split(".")[0] != "tc"
    state = {"count": 0, "depth": 0}

    def sync(params):
        tensors = [t for g in params for t in (g["params"] if isinstance(g, dict) else [g])]
        path = os.path.join(workdir, "weights", "optimizer%d.npz" % state["count"])
        state["count"] += 1
        if save:
            np.savez(path, *[t.detach().cpu().numpy() for t in tensors])
        elif os.path.exists(path):
            with np.load(path) as arrays, torch.no_grad():
                for i, t in enumerate(tensors):
                    t.copy_(torch.from_numpy(arrays["arr_%d" % i].copy()))
            print("[run_one] loaded %d optimized tensors from PyTorch's initial values" % len(tensors),
                  file=sys.stderr)

    def wrap(cls):
        real_init = cls.__init__

        def init(self, params, *args, **kwargs):
            params = list(params)
            if state["depth"] == 0:  # a subclass's __init__ calls its base's
                sync(params)
            state["depth"] += 1
            try:
                real_init(self, params, *args, **kwargs)
            finally:
                state["depth"] -= 1

        cls.__init__ = init

    for name in dir(torch.optim):
        obj = getattr(torch.optim, name, None)
        if isinstance(obj, type) and issubclass(obj, torch.optim.Optimizer) and obj is not torch.optim.Optimizer:
            wrap(obj)


def _channel_dropout(torch, workdir):
    """patch: Dropout2d (and F.dropout2d) draw their masks with torch.rand,
    which run_one routes to the generator both runs share: one draw per
    (sample, channel), as torch's feature dropout (per element for a 2-D
    input, mnist_rnn's case)."""
    def dropout2d(input, p=0.5, training=True, inplace=False):
        if not training or p == 0:
            return input
        shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
        keep = (torch.rand(*shape) >= p).to(input.dtype)
        return input * keep * (1.0 / (1.0 - p))

    torch.nn.functional.dropout2d = dropout2d
    torch.nn.Dropout2d.forward = lambda self, x: dropout2d(x, self.p, self.training)


def _stub_sizes(workdir, sizes):
    """conformance_data.json: the stub datasets' sizes for this program."""
    with open(os.path.join(workdir, "conformance_data.json"), "w") as f:
        json.dump(sizes, f)


def _sine_waves(workdir):
    """traindata.pt as time_sequence_prediction/generate_sine_wave.py makes
    it (shifted sine waves, float64), with 6 waves of 21 points in place of
    100 of 1000. Saved by the library the run has (torch, or tc under
    tc.run), which is the one the program loads it with."""
    import torch

    rng = np.random.RandomState(2)
    x = np.arange(21)[None, :] + rng.randint(-80, 80, 6)[:, None]
    torch.save(np.sin(x / 20.0).astype("float64"), os.path.join(workdir, "traindata.pt"))
    return ["--steps", "1"]


def _cora(workdir, nodes=1700, features=12, classes=3):
    """A synthetic Cora (cora/cora.content: id, 0/1 features, label;
    cora/cora.cites: pairs of ids). gat splits the nodes 1200/400/rest,
    hence the 1700 nodes."""
    rng = np.random.RandomState(3)
    path = os.path.join(workdir, "cora")
    os.makedirs(path, exist_ok=True)
    ids = rng.permutation(100000)[:nodes] + 1
    labels = rng.randint(0, classes, size=nodes)
    with open(os.path.join(path, "cora.content"), "w") as f:
        for i in range(nodes):
            feats = (rng.rand(features) < 0.2).astype(int)
            feats[labels[i]] = 1
            f.write("%d\t%s\tclass_%d\n" % (ids[i], "\t".join(map(str, feats)), labels[i]))
    with open(os.path.join(path, "cora.cites"), "w") as f:
        for _ in range(3 * nodes):
            a, b = rng.randint(0, nodes, size=2)
            f.write("%d\t%d\n" % (ids[a], ids[b]))


def _graph_losses(out):
    """gat prints "loss_train: X ... loss_val: Y" per epoch and the test loss."""
    return [float(x) for x in re.findall(r"loss(?:_train|_val)?[:\s]+(-?\d+\.\d+)", out)]


def _gat_args(workdir):
    _cora(workdir)
    return ["--epochs", "2", "--hidden-dim", "4", "--num-heads", "1", "--val-every", "1"]


def _dcgan_args(workdir):
    _stub_sizes(workdir, {"FakeData": {"train": 8}})
    return ["--dataset", "fake", "--batchSize", "4", "--imageSize", "64", "--nz", "8", "--ngf", "4",
            "--ndf", "4", "--niter", "1", "--workers", "0", "--manualSeed", "1", "--outf", workdir]


def _siamese_args(workdir):
    _stub_sizes(workdir, {"MNIST": {"train": 20, "test": 20}})
    # every class needs two images of each set (the positive pairs): 20 each;
    # --dry-run: one training step, one test batch
    return ["--epochs", "1", "--batch-size", "10", "--test-batch-size", "20", "--log-interval", "1",
            "--dry-run"]


def _bsds300(workdir):
    """dataset/BSDS300/images/{train,test}/*.png (data.py skips its download
    when the folder exists): 2 + 1 synthetic 256x256 RGB images."""
    from PIL import Image

    rng = np.random.RandomState(4)
    for part, count in (("train", 2), ("test", 1)):
        path = os.path.join(workdir, "dataset", "BSDS300", "images", part)
        os.makedirs(path, exist_ok=True)
        for i in range(count):
            yy, xx = np.mgrid[0:256, 0:256]
            base = 128 + 60 * np.sin(xx / rng.uniform(5, 20) + yy / rng.uniform(5, 20))
            img = np.clip(base[..., None] + rng.randint(-30, 30, size=(256, 256, 3)), 0, 255)
            Image.fromarray(img.astype(np.uint8), "RGB").save(os.path.join(path, "%d.png" % i))
    return ["--upscale_factor", "3", "--batchSize", "1", "--testBatchSize", "1", "--nEpochs", "1",
            "--threads", "0", "--lr", "0.001"]


def _losses_and_psnr(out):
    """super_resolution: its losses and the test set's PSNR."""
    return [float(x) for x in re.findall(r"(?:Loss|PSNR):\s+(-?\d+\.\d+)", out)]


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
    "time_sequence_prediction": {"script": "time_sequence_prediction/train.py", "argv": _sine_waves},
    "mnist_rnn": {"script": "mnist_rnn/main.py", "patch": _channel_dropout,
                  "argv": lambda w: ["--epochs", "1", "--batch-size", "8", "--test-batch-size", "16",
                                     "--log-interval", "1"]},
    # the losses are printed as Loss_D/Loss_G: every backpropagated loss is compared
    "dcgan": {"script": "dcgan/main.py", "argv": _dcgan_args, "patch": trace_backward},
    "gat": {"script": "gat/main.py", "argv": _gat_args, "compare": _graph_losses},
    "siamese_network": {"script": "siamese_network/main.py", "argv": _siamese_args},
    "super_resolution": {"script": "super_resolution/main.py", "argv": _bsds300, "compare": _losses_and_psnr},
    # its layers train themselves (layer.train calls layer.forward): never
    # called as modules, so their weights are synced when their optimizers are built
    "mnist_forward_forward": {"script": "mnist_forward_forward/main.py", "patch": _sync_optimizers,
                              "argv": lambda w: ["--epochs", "3", "--train_size", "32", "--test_size", "16",
                                                 "--log-interval", "1"]},
}

# --- programs for torch.multiprocessing (Hogwild): one block, appended ---
class _SharedDrawsTarget:
    """A process target (picklable: spawn sends it to the child) that first
    gives the child run_one's shared random draws (torch.randn, dropout, the
    DataLoader's shuffling from one numpy generator, reseeded by
    torch.manual_seed) and Dropout2d on them (_channel_dropout), as the
    parent has, then runs the program's target."""

    def __init__(self, target):
        self.target = target

    def __call__(self, *args, **kwargs):
        import run_one  # tests/conformance: on the child's sys.path, as on the parent's
        import torch

        run_one._install_random()
        _channel_dropout(torch, None)
        return self.target(*args, **kwargs)


def _hogwild(torch, workdir):
    """patch for mnist_hogwild: the model is first called in the training
    process, which run_one's first-call sync never sees (the entry's
    sync_first=0 turns it off, or the parent's test would reload PyTorch's
    trained weights). Instead every module handed to mp.Process is synced
    there, in the parent, before the process starts (saved by the PyTorch
    run, loaded in place, into the shared memory, by the tc run), and the
    process's target draws from the shared generator."""
    import multiprocessing

    save = type(torch.zeros(1)).__module__.split(".")[0] != "tc"
    count = {"n": 0}

    def sync(module):
        path = os.path.join(workdir, "weights", "process%d.npz" % count["n"])
        count["n"] += 1
        if save:
            np.savez(path, **{k: v.detach().numpy() for k, v in module.state_dict().items()})
        elif os.path.exists(path):
            with np.load(path) as arrays:
                module.load_state_dict({k: torch.from_numpy(arrays[k].copy()) for k in arrays.files})
            print("[run_one] loaded the shared model from PyTorch's initial weights", file=sys.stderr)

    def process(group=None, target=None, name=None, args=(), kwargs=None, *, daemon=None):
        for arg in args:
            if isinstance(arg, torch.nn.Module):
                sync(arg)
        return multiprocessing.Process(group, _SharedDrawsTarget(target), name, args, kwargs or {}, daemon=daemon)

    os.makedirs(os.path.join(workdir, "weights"), exist_ok=True)
    torch.multiprocessing.Process = process
    _channel_dropout(torch, workdir)


def _dcgan_workers_args(workdir):
    """dcgan's arguments, with two DataLoader worker processes (--workers):
    the batches are loaded in forked workers, shuffled in the parent."""
    args = _dcgan_args(workdir)
    args[args.index("--workers") + 1] = "2"
    return args


PROGRAMS["dcgan_workers"] = {"script": "dcgan/main.py", "argv": _dcgan_workers_args, "patch": trace_backward}

# one training process: with two, their losses interleave in any order
PROGRAMS["mnist_hogwild"] = {
    "script": "mnist_hogwild/main.py", "patch": _hogwild, "sync_first": 0,
    "argv": lambda w: ["--epochs", "1", "--batch-size", "8", "--test-batch-size", "16", "--log-interval", "1",
                       "--num-processes", "1"]}
# --- end of the Hogwild block ---
