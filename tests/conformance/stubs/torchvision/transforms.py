"""transforms for uint8 numpy images, (H, W) or (H, W, C) (the stub datasets
give numpy arrays where torchvision gives PIL images): ToTensor, Normalize,
Compose, Lambda, Pad, RandomCrop and RandomHorizontalFlip. The random ones
draw with torch.rand/torch.randint as torchvision does, which run_one.py
routes to the generator both runs share."""
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


def _pad(img, padding):
    widths = [(padding, padding), (padding, padding)] + [(0, 0)] * (img.ndim - 2)
    return np.pad(img, widths)


class Pad:
    """Pads the image's height and width with ``padding`` zeros each side."""

    def __init__(self, padding, fill=0, padding_mode="constant"):
        assert isinstance(padding, int) and fill == 0 and padding_mode == "constant"
        self.padding = padding

    def __call__(self, img):
        return _pad(np.asarray(img), self.padding)


class RandomCrop:
    """Crops a random (size, size) window (torchvision's draw: top, then left)."""

    def __init__(self, size, padding=None):
        self.size = (size, size) if isinstance(size, int) else tuple(size)
        self.padding = padding

    def __call__(self, img):
        img = np.asarray(img)
        if self.padding:
            img = _pad(img, self.padding)
        h, w = img.shape[:2]
        th, tw = self.size
        i = torch.randint(0, h - th + 1, size=(1,)).item()
        j = torch.randint(0, w - tw + 1, size=(1,)).item()
        return img[i:i + th, j:j + tw]


class RandomHorizontalFlip:
    """Flips left-right with probability p (one torch.rand(1) draw per image)."""

    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        img = np.asarray(img)
        if torch.rand(1) < self.p:
            return np.ascontiguousarray(img[:, ::-1])
        return img
