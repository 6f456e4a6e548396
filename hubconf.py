"""torch.hub entry points of HamGAN's Python package (python/hamgan):

    G = torch.hub.load("path/to/hamgan", "generator", source="local", weights="runs/fmnist_hub")
    G = torch.hub.load("path/to/hamgan", "generator", source="local", weights="user/hamgan-fmnist")

`weights` is a folder written by `hamgan export RUN --hub DIR` or a Hub repository holding one
(hamgan.from_pretrained); the module is in eval mode without gradients."""
import os
import sys

dependencies = ["torch", "safetensors", "numpy", "huggingface_hub"]

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))


def generator(weights, revision=None, device="cpu"):
    """The generator of a `hamgan export --hub` folder or Hub repository."""
    from hamgan import from_pretrained

    return from_pretrained(weights, revision=revision, device=device)


def discriminator(weights, revision=None, device="cpu"):
    """The discriminator of a folder exported with `--hub DIR --with_d`."""
    from hamgan import from_pretrained

    return from_pretrained(weights, revision=revision, device=device, discriminator=True)
