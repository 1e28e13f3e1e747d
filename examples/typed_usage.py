"""A typed use of the tc package, checked by mypy (ctest python.mypy) and run
by tests/python/test_typing.py: tensors, autograd, a small
nn.Module subclass trained a few steps with an optimizer, save and load."""
import os
import tempfile
from typing import Dict, List

import tc
import tc.nn as nn
import tc.nn.functional as F
from tc.serialization import load_file, save_file


class TinyMLP(nn.Module):
    """Two linear layers with a ReLU between them."""

    def __init__(self, n_in: int, n_hidden: int, n_out: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.fc2 = nn.Linear(n_hidden, n_out)

    def forward(self, x: tc.Tensor) -> tc.Tensor:
        """Returns the logits of ``x``."""
        return self.fc2(F.relu(self.fc1(x)))


def autograd_demo() -> float:
    """d/dx sum(x * x + 3x) at x = [1, 2] is [5, 7]."""
    x: tc.Tensor = tc.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x + 3 * x).sum()
    y.backward()
    grad = x.grad
    assert grad is not None
    values: List[float] = grad.tolist()
    return values[0] + values[1]


def train(steps: int = 5) -> List[float]:
    """Trains TinyMLP on random data; returns the loss of each step."""
    tc.manual_seed(0)
    model = TinyMLP(4, 8, 3)
    opt = tc.optim.SGD(model.parameters(), lr=0.1)
    x = tc.randn(16, 4)
    target = tc.tensor([i % 3 for i in range(16)])
    losses: List[float] = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def save_and_load(model: nn.Module, path: str) -> Dict[str, tc.Tensor]:
    """Saves the model's state to a safetensors file and reads it back."""
    save_file(model.state_dict(), path)
    return load_file(path)


def main() -> None:
    """Runs the three parts and checks their results."""
    assert autograd_demo() == 12.0
    losses = train()
    assert losses[-1] < losses[0], losses
    model = TinyMLP(4, 8, 3)
    with tempfile.TemporaryDirectory() as d:
        state = save_and_load(model, os.path.join(d, "model.safetensors"))
    assert sorted(state) == ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"]
    assert state["fc1.weight"].equal(model.fc1.weight)
    print("typed_usage: ok, losses", ["%.4f" % v for v in losses])


if __name__ == "__main__":
    main()
