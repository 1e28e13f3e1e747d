"""Programs from https://github.com/eriklindernoren/PyTorch-GAN (MIT; see
tests/conformance/SOURCES.md for each file's commit).

wgan_gp trains its critic with a gradient penalty: the norm of
``autograd.grad(D(x), x, create_graph=True)`` enters the critic's loss, so
every critic step backpropagates through a gradient (a second-order graph).
Its noise comes from numpy's global generator (seeded alike in both runs)."""
import os

from .pytorch_examples import trace_backward


def _into_nested_workdir(torch, workdir):
    """patch: the program makes ``../../data/mnist`` and ``images`` relative
    to where it runs; running it two folders down keeps both in the work
    folder. Every backpropagated loss is printed too (trace_backward): the
    program prints its losses only at generator steps."""
    run_dir = os.path.join(workdir, "run", "here")
    os.makedirs(run_dir, exist_ok=True)
    os.chdir(run_dir)
    trace_backward(torch, workdir)


PROGRAMS = {
    # 32 synthetic digits in batches of 4: 8 critic steps, 4 generator steps
    "wgan_gp": {"script": "wgan_gp/wgan_gp.py", "patch": _into_nested_workdir,
                "argv": lambda w: ["--n_epochs", "1", "--batch_size", "4", "--n_critic", "2",
                                   "--latent_dim", "16", "--sample_interval", "1000"]},
    # wgan_div: the critic's penalty takes the gradient at the real and at
    # the fake images (two autograd.grad calls with create_graph=True)
    "wgan_div": {"script": "wgan_div/wgan_div.py", "patch": _into_nested_workdir,
                 "argv": lambda w: ["--n_epochs", "1", "--batch_size", "4", "--n_critic", "2",
                                    "--latent_dim", "16", "--sample_interval", "1000"]},
}
