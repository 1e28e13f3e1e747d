"""The reference programs of examples/higher_order_autograd.py (a WGAN-GP
step, a PINN for u'' = f, a MAML step) give PyTorch 1.13's losses at every
step, in float64, from the same weights and inputs. They differentiate
through gradients: skipped on a libtc without tc_autograd_grad."""
import os
import sys

import pytest

from conftest import REPO, need

pytest.importorskip("torch")
sys.path.insert(0, os.path.join(REPO, "examples"))
import higher_order_autograd as programs  # noqa: E402


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_program_matches_torch_step_by_step(name):
    need("tc_autograd_grad")
    ours, theirs, worst = programs.compare(name, steps=3)
    assert len(ours) == len(theirs) == 3
    assert worst < 1e-8, (ours, theirs)
