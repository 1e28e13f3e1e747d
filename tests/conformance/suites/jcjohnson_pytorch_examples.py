"""Programs from https://github.com/jcjohnson/pytorch-examples (MIT; see
tests/conformance/SOURCES.md for the commit). Each trains a small two-layer
network for 500 steps and prints "step loss" on every step: the runs stop
after the first 25 (max_lines), which keeps each under a few seconds."""
import re

_STEP_LOSS = re.compile(r"^\d+ (-?\d+(?:\.\d*)?(?:e[-+]?\d+)?)$", re.MULTILINE)


def _step_losses(out):
    """The loss of every "t loss.item()" line the programs print."""
    return [float(x) for x in _STEP_LOSS.findall(out)]


def _program(name):
    return {"script": "jcjohnson_%s/%s.py" % (name, name), "argv": lambda w: [], "compare": _step_losses,
            "max_lines": 25}


PROGRAMS = {"jcjohnson_" + name: _program(name) for name in (
    "two_layer_net_tensor", "two_layer_net_autograd", "two_layer_net_custom_function", "two_layer_net_nn",
    "two_layer_net_optim", "two_layer_net_module", "dynamic_net")}
