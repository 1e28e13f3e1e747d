"""transforms.ToTensor, Normalize and Compose for 2-D uint8 numpy images."""
import numpy as np
import torch


class ToTensor:
    """A uint8 (H, W) array -> a float32 (1, H, W) tensor in [0, 1]."""

    def __call__(self, img):
        return torch.from_numpy((np.asarray(img, dtype=np.float32) / 255.0)[None].copy())


class Normalize:
    """(x - mean) / std per channel."""

    def __init__(self, mean, std):
        self.mean, self.std = float(mean[0]), float(std[0])

    def __call__(self, x):
        return (x - self.mean) / self.std


class Compose:
    """Applies the transforms in order."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x
