"""examples/gp_regression.py trains the same on tc as on PyTorch 1.13: the
negative log marginal likelihood step by step (Cholesky, cholesky_solve,
the log-determinant and their gradients through Adam) to float64 precision,
the same hyperparameters and posterior; and the script runs as a program."""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO

import tc

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(tc._core.get_flag("has_lapack") != 1, reason="libtc built without LAPACK")

SCRIPT = os.path.join(REPO, "examples", "gp_regression.py")


def _example():
    spec = importlib.util.spec_from_file_location("gp_regression", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_losses_match_torch_step_by_step():
    gp = _example()
    losses_tc, params_tc = gp.train(tc, steps=40)
    losses_t, params_t = gp.train(torch, steps=40)
    np.testing.assert_allclose(losses_tc, losses_t, rtol=1e-10, atol=1e-10)
    assert losses_tc[-1] < losses_tc[0] - 10  # it learns
    np.testing.assert_allclose([p.item() for p in params_tc], [p.item() for p in params_t], rtol=1e-9)
    x, y = gp.toy_data(tc)
    xt, yt = gp.toy_data(torch)
    with tc.no_grad():
        _, L = gp.negative_log_marginal_likelihood(tc, x, y, params_tc)
        m, v = gp.predict(tc, x, y, tc.tensor([0.5, 2.0], dtype=tc.float64), params_tc, L)
    with torch.no_grad():
        _, Lt = gp.negative_log_marginal_likelihood(torch, xt, yt, params_t)
        mt, vt = gp.predict(torch, xt, yt, torch.tensor([0.5, 2.0], dtype=torch.float64), params_t, Lt)
    np.testing.assert_allclose(m.tolist(), mt.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(v.tolist(), vt.numpy(), rtol=1e-7, atol=1e-12)


def test_script_runs_and_prints_the_losses():
    env = dict(os.environ, TC_LIBRARY=tc.library_path, OMP_NUM_THREADS="1")
    res = subprocess.run([sys.executable, SCRIPT, "--steps", "25"], capture_output=True, text=True, env=env,
                         timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "final nll" in res.stdout and "lengthscale" in res.stdout
    bad = subprocess.run([sys.executable, SCRIPT, "--steps", "0"], capture_output=True, text=True, env=env,
                         timeout=60)
    assert bad.returncode == 2 and "usage" in bad.stderr
