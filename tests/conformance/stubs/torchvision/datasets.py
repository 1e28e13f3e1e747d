"""datasets.MNIST over synthetic images: a fixed number of 28x28 uint8
images drawn from numpy with a fixed seed (the same under torch and tc),
labels 0-9; the first pixel block of each image encodes its label so that
the classifiers have something to learn."""
import numpy as np

# sizes chosen so that each program runs a few steps in well under a second
TRAIN_SIZE = 32
TEST_SIZE = 16


class MNIST:
    """MNIST(root, train=True, download=False, transform=None): synthetic digits."""

    def __init__(self, root, train=True, download=False, transform=None, target_transform=None):
        rng = np.random.RandomState(1234 if train else 4321)
        n = TRAIN_SIZE if train else TEST_SIZE
        self.targets = rng.randint(0, 10, size=n).astype(np.int64)
        self.data = (rng.rand(n, 28, 28) * 64).astype(np.uint8)
        for i, label in enumerate(self.targets):
            self.data[i, 2 * label:2 * label + 6, 4:24] = 255
        self.transform = transform
        self.target_transform = target_transform

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
        import torch
        return torch.from_numpy(self.data.copy())

    def _labels(self):
        import torch
        return torch.from_numpy(self.targets.copy())

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        img, target = self.data[index], int(self.targets[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target
