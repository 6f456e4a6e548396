"""Real batches for bench/python/train_step.py: Fashion-MNIST from its IDX files, or uniform random images."""
import gzip
import os

import torch
import torch.nn.functional as F


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return torch.frombuffer(bytearray(data[4 + 4 * dims:]), dtype=torch.uint8).reshape(shape)


class Data:
    """Real batches from a Fashion-MNIST IDX directory (28x28 zero-padded to the model's side, as the C++
    loader does) when it is there, else uniform random images of the model's shape drawn on the training
    device (as `hamgan bench train`: they stand for a loader that keeps up)."""

    def __init__(self, t, m, generator, device):
        self.batch, self.m, self.gen, self.at, self.device = t["batch_size"], m, generator, 0, device
        split = "t10k" if t["dataset_split"] == "test" else "train"
        images = os.path.join(t["dataset"], f"{split}-images-idx3-ubyte.gz")
        if os.path.isfile(images) and m["image_channels"] == 1:
            x = read_idx(images).float().div_(127.5).sub_(1).unsqueeze(1)
            pad = (m["resolution"] - x.size(-1)) // 2
            self.images = F.pad(x, (pad, pad, pad, pad), value=-1.0)
            self.labels = read_idx(os.path.join(t["dataset"], f"{split}-labels-idx1-ubyte.gz")).long()
            self.order = torch.randperm(len(self.labels), generator=generator)
            self.description = "real: " + t["dataset"]
        else:
            self.images = None
            self.description = f"synthetic: uniform random images ({t['dataset']} not found)"

    def next(self):
        m = self.m
        if self.images is None:
            side = m["resolution"]
            return (torch.rand(self.batch, m["image_channels"], side, side, device=self.device) * 2 - 1,
                    torch.randint(0, m["num_classes"], (self.batch,), device=self.device))
        if self.at + self.batch > len(self.order):
            self.order, self.at = torch.randperm(len(self.labels), generator=self.gen), 0
        idx = self.order[self.at:self.at + self.batch]
        self.at += self.batch
        return self.images[idx], self.labels[idx]
