"""examples/train_digits.py reaches the C example's accuracy (>= 95%) with
the same split, model and optimizer."""
import os
import re
import subprocess
import sys

from conftest import REPO, need

import tc


def test_train_digits_reaches_95_percent():
    need("tc_linear", "tc_cross_entropy", "tc_optimizer_adam", "tc_index_select", "tc_argmax")
    env = dict(os.environ, TC_LIBRARY=tc.library_path)
    res = subprocess.run([sys.executable, os.path.join(REPO, "examples", "train_digits.py"), "--threads", "1"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    m = re.search(r"final test accuracy ([\d.]+)% after 20 epochs", res.stdout)
    assert m, res.stdout
    assert float(m.group(1)) >= 95.0
    assert "1437 train, 360 test" in res.stdout  # the C example's 80/20 split


def test_train_digits_resumes_to_the_same_weights(tmp_path):
    env = dict(os.environ, TC_LIBRARY=tc.library_path)
    script = os.path.join(REPO, "examples", "train_digits.py")

    def run(*args):
        res = subprocess.run([sys.executable, script, "--threads", "1", "--min-acc", "0"] + list(args),
                             capture_output=True, text=True, env=env, timeout=600)
        assert res.returncode == 0, res.stdout + res.stderr
        return res.stdout

    straight, first, resumed = (str(tmp_path / n) for n in ("a.safetensors", "b.safetensors", "c.safetensors"))
    run("--epochs", "3", "--save", straight)
    run("--epochs", "1", "--save", first)
    assert "resumed from" in run("--epochs", "3", "--resume", first, "--save", resumed)
    a, c = tc.load(straight), tc.load(resumed)
    assert a["epoch"] == c["epoch"] == 3
    for k in a["model"]:
        assert a["model"][k].tolist() == c["model"][k].tolist(), k


def test_train_digits_bad_arguments_exit_2_with_usage():
    """A malformed value is an error (usage, exit 2), never a silent default."""
    script = os.path.join(REPO, "examples", "train_digits.py")
    env = dict(os.environ, TC_LIBRARY=tc.library_path)
    for args in (["--epochs", "abc"], ["--epochs", "0"], ["--batch", "-3"], ["--lr", "fast"], ["--threads", "x"],
                 ["--epochs"]):
        res = subprocess.run([sys.executable, script] + args, capture_output=True, text=True, env=env, timeout=60)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert "usage:" in res.stderr, (args, res.stderr)
        assert "epoch 1" not in res.stdout, args
