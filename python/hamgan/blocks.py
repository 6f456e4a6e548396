"""The context-block factory (modules/context_registry.cpp): a block name -> its module. Every block class
takes (channels, opts, classes, init), opts being the full model config dict, and computes forward(x, y=None)
on (N, C, H, W) -> the same shape."""


def _block_class(name):
    # Imported here, not at the top: ylg and ea live in their own modules, loaded only when used.
    if name == "none":
        from .attention import NoneBlock
        return NoneBlock
    if name == "sa":
        from .attention import SelfAttention
        return SelfAttention
    if name == "sa_dense":
        from .attention import DenseSelfAttention
        return DenseSelfAttention
    if name == "ham":
        from .ham import HamBlock
        return HamBlock
    if name == "ylg":
        from .ylg import YLGAttention
        return YLGAttention
    if name == "ea":
        from .external_attention import ExternalAttention
        return ExternalAttention
    raise ValueError(f"unknown context block '{name}'; known blocks: none, sa, ylg, ham, sa_dense, ea")


def context_block(name, channels, opts, classes=0, init="xavier"):
    """Block `name` for `channels` channels; classes > 0 gives its class-conditional layers (G only)."""
    return _block_class(name)(channels, opts, classes, init)
