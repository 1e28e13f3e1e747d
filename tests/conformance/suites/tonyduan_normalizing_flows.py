"""Programs from https://github.com/tonyduan/normalizing-flows (MIT; see
tests/conformance/SOURCES.md for each file's commit).

The program, the repository's ex_2d.py
(tests/conformance/programs/tonyduan_normalizing_flows/examples/ex_2d.py),
fits a flow to a 2-D mixture drawn from numpy's global generator (seeded
alike in both runs): the negative log-likelihood is the MultivariateNormal
prior's log_prob (a Cholesky factor and a triangular solve) plus the flows'
log-determinants; with --convolve the invertible 1x1 convolutions
(LU-parametrized, inverted with torch.inverse when the program samples at
the end) join the chain. It logs its progress every 100 steps (on stderr):
every backpropagated loss is compared (trace_backward)."""
import os
import sys

from .pytorch_examples import trace_backward

_ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "programs",
                     "tonyduan_normalizing_flows")


def _repository_root(torch, workdir):
    """patch: the program imports its package ``src`` from the repository's
    root (it runs as ``python -m examples.ex_2d`` there); its final plot is
    saved under ./examples (the matplotlib stand-in writes nothing)."""
    sys.path.insert(0, _ROOT)
    trace_backward(torch, workdir)


def _flows(flow, *extra):
    return {"script": "tonyduan_normalizing_flows/examples/ex_2d.py", "patch": _repository_root,
            "argv": lambda w: ["--n", "96", "--flows", "2", "--flow", flow, "--iterations", "12"] + list(extra)}


# MAF is left out: its inverse (model.sample at the end) writes x[:, i] after
# x[:, :i] went through a Linear, which saved that view for backward; libtc
# records an in-place write only into a tensor no saved tensor shares.
PROGRAMS = {
    "tonyduan_flows_realnvp_conv": _flows("RealNVP", "--convolve", "--actnorm"),
    "tonyduan_flows_nsf_cl": _flows("NSF_CL"),
}
