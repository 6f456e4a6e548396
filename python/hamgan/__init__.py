"""HamGAN generators in PyTorch: load what `hamgan export` wrote (safetensors) as a torch.nn.Module, build
untrained networks from a model configuration, and save weights for `hamgan import`.

    import torch, hamgan
    G = hamgan.load_generator("G.safetensors")
    images = G(torch.randn(8, G.z_dim), torch.arange(8) % G.num_classes)  # (8, C, H, W) in [-1, 1]
    G = hamgan.from_pretrained("user/repo")  # a `hamgan export --hub` folder, local or on the Hub

The context blocks (the Hamburger, self-attention, YLG, External Attention) for other models are in
hamgan.blocks; `python -m hamgan.sample` writes samples for OpenAI's evaluator and dgm-eval.
"""
from . import blocks
from .ham import fix_ham_bases
from .hub import from_pretrained
from .io import (__version__, build_discriminator, build_generator, load_discriminator, load_generator,
                 save_generator)
from .networks import Discriminator, Generator

__all__ = ["Discriminator", "blocks", "Generator", "__version__", "build_discriminator", "build_generator",
           "fix_ham_bases", "from_pretrained", "load_discriminator", "load_generator", "save_generator"]
