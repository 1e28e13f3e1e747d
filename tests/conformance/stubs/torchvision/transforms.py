"""transforms for uint8 numpy images, (H, W) or (H, W, C) (the stub datasets
give numpy arrays where torchvision gives PIL images): ToTensor, Normalize,
Compose and Lambda."""
import numpy as np
import torch


class ToTensor:
    """A uint8 (H, W) or (H, W, C) array -> a float32 (C, H, W) tensor in [0, 1]."""

    def __call__(self, img):
        img = np.asarray(img, dtype=np.float32) / 255.0
        img = img[None] if img.ndim == 2 else img.transpose(2, 0, 1)
        return torch.from_numpy(np.ascontiguousarray(img))


class Normalize:
    """(x - mean) / std per channel."""

    def __init__(self, mean, std, inplace=False):
        self.mean = np.asarray(mean, dtype=np.float32)
        self.std = np.asarray(std, dtype=np.float32)

    def __call__(self, x):
        shape = (-1, 1, 1)
        return (x - torch.from_numpy(self.mean.reshape(shape))) / torch.from_numpy(self.std.reshape(shape))


class Compose:
    """Applies the transforms in order."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


class Lambda:
    """Applies a user function."""

    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, x):
        return self.lambd(x)
