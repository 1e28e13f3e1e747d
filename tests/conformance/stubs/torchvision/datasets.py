"""datasets.MNIST, FashionMNIST, CIFAR10 and FakeData over synthetic images:
a fixed number of uint8 images drawn from numpy with a fixed seed (the same
under torch and tc), labels 0-9; a pixel block of each image encodes its
label so that the classifiers have something to learn.

The sizes are small defaults; a program whose batch size or step count needs
others gets them from ``conformance_data.json`` in the working folder (the
suite's argv function writes it there), e.g.
``{"MNIST": {"train": 100, "test": 16}}``."""
import json
import os

import numpy as np
import torch

# sizes chosen so that each program runs a few steps in well under a second
TRAIN_SIZE = 32
TEST_SIZE = 16
_SIZES_FILE = "conformance_data.json"


def _size(name, train, default=None):
    """The number of images of dataset ``name``: conformance_data.json's
    entry if there is one, else TRAIN_SIZE/TEST_SIZE (or ``default``)."""
    key = "train" if train else "test"
    if os.path.exists(_SIZES_FILE):
        with open(_SIZES_FILE) as f:
            sizes = json.load(f).get(name, {})
        if key in sizes:
            return int(sizes[key])
    if default is not None:
        return default
    return TRAIN_SIZE if train else TEST_SIZE


def _labelled_images(seed, n, shape):
    """n uint8 images of ``shape`` (H, W[, C]) and their int64 labels."""
    rng = np.random.RandomState(seed)
    # every label about equally often (siamese_network pairs two images of one class)
    targets = rng.permutation(np.arange(n) % 10).astype(np.int64)
    data = (rng.rand(n, *shape) * 64).astype(np.uint8)
    for i, label in enumerate(targets):
        data[i, 2 * label:2 * label + 6, 4:24] = 255
    return data, targets


class _Images:
    """What the datasets share: indexing applies transform/target_transform
    to an image (a numpy array, where torchvision gives a PIL image)."""

    def __len__(self):
        return len(self.data)

    def _image(self, index):
        return np.asarray(self.data[index])

    def __getitem__(self, index):
        img, target = self._image(index), int(self.targets[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class MNIST(_Images):
    """MNIST(root, train=True, download=False, transform=None): synthetic
    28x28 digits; ``data`` (uint8) and ``targets`` (int64) are tensors, as
    torchvision's."""

    _SEEDS = (1234, 4321)

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        n = _size(type(self).__name__, train)
        data, targets = _labelled_images(self._SEEDS[0] if train else self._SEEDS[1], n, (28, 28))
        self.data = torch.from_numpy(data)
        self.targets = torch.from_numpy(targets)
        self.train = train
        self.transform = transform
        self.target_transform = target_transform

    def _image(self, index):
        return self.data[index].numpy()

    # torchvision's older names for the data, still used by programs written
    # for it (tensors there, as here)
    @property
    def train_data(self):
        """The images as a uint8 tensor (N, 28, 28) (torchvision's old name for data)."""
        return self._images()

    @property
    def test_data(self):
        """The images as a uint8 tensor (N, 28, 28) (torchvision's old name for data)."""
        return self._images()

    @property
    def train_labels(self):
        """The labels as an int64 tensor (N,) (torchvision's old name for targets)."""
        return self._labels()

    @property
    def test_labels(self):
        """The labels as an int64 tensor (N,) (torchvision's old name for targets)."""
        return self._labels()

    def _images(self):
        return self.data.clone()

    def _labels(self):
        return self.targets.clone()


class FashionMNIST(MNIST):
    """FashionMNIST: as MNIST, other synthetic images."""

    _SEEDS = (2345, 5432)


class CIFAR10(_Images):
    """CIFAR10(root, train=True, transform=None, download=False): synthetic
    32x32 RGB images; ``data`` is a uint8 numpy array (N, 32, 32, 3) and
    ``targets`` a list, as torchvision's."""

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        n = _size("CIFAR10", train)
        self.data, targets = _labelled_images(5678 if train else 8765, n, (32, 32, 3))
        self.targets = targets.tolist()
        self.train = train
        self.transform = transform
        self.target_transform = target_transform


class FakeData(_Images):
    """FakeData(size=1000, image_size=(3, 224, 224), num_classes=10,
    transform=None): random uint8 images (H, W, C) from a fixed numpy seed
    (torchvision draws them from torch's generator); ``size`` is replaced by
    conformance_data.json's "FakeData" "train" entry when there is one."""

    def __init__(self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None,
                 target_transform=None, random_offset=0):
        n = _size("FakeData", True, default=size)
        c, h, w = image_size
        rng = np.random.RandomState(6789 + random_offset)
        self.data = (rng.rand(n, h, w, c) * 255).astype(np.uint8)
        self.targets = rng.randint(0, num_classes, size=n).astype(np.int64)
        self.transform = transform
        self.target_transform = target_transform
