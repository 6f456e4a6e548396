"""HamGAN's global-context blocks as a PyTorch library, for any model taking (N, C, H, W) feature maps:

    from hamgan.blocks import HamburgerBlock, HamburgerOptions
    ham = HamburgerBlock(256, HamburgerOptions(type="nmf", train_steps=6))   # x + sigma * ham(x), sigma = 0
    y = ham(x)                                  # (N, 256, H, W); ham(x, labels) with num_classes > 0

HamburgerBlock, SelfAttention, DenseSelfAttention, YlgAttention and ExternalAttention train (the
Hamburger with its one-step gradient by default) and compute what the C++ blocks compute, with the same
tensor names. Each option class is generated from config.BLOCK_TABLE, the list the C++ registry is
checked against, with the model key's prefix dropped (ham_train_steps -> train_steps); a bad value raises
ValueError naming the option. `context_block(name, ...)` is the factory the networks build from."""
import dataclasses
import importlib

from .attention import DenseSelfAttention as _DenseSelfAttention
from .attention import SelfAttention as _SelfAttention
from .config import BLOCK_TABLE, BLOCKS, DEFAULTS, KIND_WORDS, typed_value
from .external_attention import ExternalAttention as _ExternalAttention
from .ham import HamBlock as _HamBlock
from .ylg import YLGAttention as _YLGAttention

__all__ = ["DenseSelfAttention", "ExternalAttention", "ExternalAttentionOptions", "HamburgerBlock",
           "HamburgerOptions", "SelfAttention", "YlgAttention", "context_block"]


def _block_class(name):
    if name not in BLOCK_TABLE:
        raise ValueError(f"unknown context block '{name}'; known blocks: {', '.join(BLOCKS)}")
    module, cls = BLOCK_TABLE[name][0].split(".")
    return getattr(importlib.import_module(f".{module}", __package__), cls)


def context_block(name, channels, opts, classes=0, init="xavier"):
    """Block `name` for `channels` channels, opts the model config dict; classes > 0 gives its
    class-conditional layers (G only). Every block computes forward(x, y=None) -> x's shape."""
    return _block_class(name)(channels, opts, classes, init)


def _options_class(class_name, block, prefix, doc):
    """A frozen dataclass of block's option fields (BLOCK_TABLE) named without `prefix`, checked on creation."""
    table = BLOCK_TABLE[block][1]
    fields = [(key[len(prefix):], kind, dataclasses.field(default=default)) for key, kind, default, _ in table]

    def __post_init__(self):
        for key, kind, _, check in table:
            name = key[len(prefix):]
            value = getattr(self, name)
            try:  # ints as floats, the gradient's aliases: as a config file's value is read
                value = typed_value(key, kind, value)
            except ValueError:
                raise ValueError(f"{class_name}: {name} = {value!r} is not {KIND_WORDS[kind]}") from None
            problem = check(value)
            if problem:
                raise ValueError(f"{class_name}: {name} {problem}, got {value!r}")
            object.__setattr__(self, name, value)

    def model_keys(self):
        """The options as the model keys a HamGAN config holds (ham_type = ..., ...)."""
        return {key: getattr(self, key[len(prefix):]) for key, _, _, _ in table}

    cls = dataclasses.make_dataclass(class_name, fields, frozen=True,
                                     namespace={"__post_init__": __post_init__, "model_keys": model_keys})
    cls.__doc__, cls.__module__ = doc, __name__
    return cls


HamburgerOptions = _options_class("HamburgerOptions", "ham", "ham_", """The Hamburger's options
(docs/ham.md): type nmf | vq | cd; train_steps and eval_steps, K in training and in eval; rank r (0:
max(1, channels / 8)); gradient one-step (K steps without autograd, the gradient through the final code
step) | bptt; temperature (0: NMF 1, VQ and CD 0.01); beta, CD's ridge term; init random (fresh bases every
forward from torch's default generator) | online (a buffer, moved after every eval forward).""")

ExternalAttentionOptions = _options_class("ExternalAttentionOptions", "ea", "ea_", """External Attention's
options: memory S (slots), heads H (dividing the channels), cbn (class-conditional BN on the output when
the block has classes).""")


def _opts(options, cls):
    options = cls() if options is None else options
    if not isinstance(options, cls):
        raise ValueError(f"options must be a {cls.__name__}, got {type(options).__name__}")
    return dict(DEFAULTS, **options.model_keys())


class HamburgerBlock(_HamBlock):
    """The Hamburger: SN 1x1 lower bread -> ReLU (NMF) -> matrix decomposition of X (d x HW) at rank r ->
    SN 1x1 upper bread -> class-conditional BN when num_classes > 0 -> x + sigma * out, sigma = 0 at init.
    forward(x, y=None); y (N,) int64 labels when num_classes > 0. init: xavier | orthogonal | n02."""

    def __init__(self, channels, options=None, *, num_classes=0, init="xavier"):
        super().__init__(channels, _opts(options, HamburgerOptions), num_classes, init)


class SelfAttention(_SelfAttention):
    """SAGAN self-attention (C/8 queries and keys, C/2 values, keys and values 2x2 max-pooled, x + sigma * o);
    channels divisible by 8; H and W even."""

    def __init__(self, channels, *, init="xavier"):
        super().__init__(channels, None, 0, init)


class DenseSelfAttention(_DenseSelfAttention):
    """Self-attention over all H*W keys, without SAGAN's pooling (the Hamburger paper's Table 3 SA)."""

    def __init__(self, channels, *, init="xavier"):
        super().__init__(channels, None, 0, init)


class YlgAttention(_YLGAttention):
    """YLG's 8-head local attention ("Your Local GAN", CVPR 2020): ESA ordering, the four sparse head
    patterns; channels divisible by 64; H and W even."""

    def __init__(self, channels, *, init="xavier"):
        super().__init__(channels, None, 0, init)


class ExternalAttention(_ExternalAttention):
    """External Attention (Guo et al. 2021): two small learned memories shared across samples, softmax over
    positions then L1 over slots, x + sigma * o; class-conditional BN on o when num_classes > 0 and cbn."""

    def __init__(self, channels, options=None, *, num_classes=0, init="xavier"):
        super().__init__(channels, _opts(options, ExternalAttentionOptions), num_classes, init)
