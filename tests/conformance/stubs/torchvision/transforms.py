"""transforms for uint8 images, (H, W) or (H, W, C): numpy arrays (the stub
datasets give those where torchvision gives PIL images) or PIL images:
ToTensor, Normalize, Compose, Lambda, and CenterCrop/Resize on PIL images
(as torchvision computes them: a rounded centred box, PIL's bilinear
resampling)."""
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


def _pair(size):
    return (size, size) if isinstance(size, int) else tuple(size)


class CenterCrop:
    """Crops the centre (h, w) box of a PIL image (torchvision's rounding)."""

    def __init__(self, size):
        self.size = _pair(size)

    def __call__(self, img):
        th, tw = self.size
        w, h = img.size
        assert th <= h and tw <= w, "CenterCrop stand-in: no padding"
        top, left = int(round((h - th) / 2.0)), int(round((w - tw) / 2.0))
        return img.crop((left, top, left + tw, top + th))


class Resize:
    """Resizes a PIL image bilinearly: an int is the shorter side's new length."""

    def __init__(self, size, interpolation=None):
        self.size = size

    def __call__(self, img):
        from PIL import Image

        if isinstance(img, np.ndarray):
            # the stub datasets' numpy images (torchvision's are PIL images)
            img = Image.fromarray(img)
        w, h = img.size
        if isinstance(self.size, int):
            short, long_ = (w, h) if w <= h else (h, w)
            new_short, new_long = self.size, int(self.size * long_ / short)
            size = (new_short, new_long) if w <= h else (new_long, new_short)
        else:
            size = (self.size[1], self.size[0])
        return img.resize(size, Image.BILINEAR)
