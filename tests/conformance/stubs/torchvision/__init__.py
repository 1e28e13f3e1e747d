"""A stand-in for the few torchvision pieces the vendored programs use
(datasets.MNIST/FashionMNIST/CIFAR10/FakeData, models.resnet18, a few
transforms, utils.save_image), so that they run offline on tiny synthetic
data. It is put on sys.path by tests/conformance/run_one.py only; it is not part of tc
and tc.compat does not fake torchvision."""
from . import datasets, models, transforms, utils  # noqa: F401
