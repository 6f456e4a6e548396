"""The context-block factory (modules/context_registry.cpp): a block name -> its module. Every block class
takes (channels, opts, classes, init), opts being the full model config dict, and computes forward(x, y=None)
on (N, C, H, W) -> the same shape. The names and their classes are config.BLOCK_TABLE."""
import importlib

from .config import BLOCK_TABLE, BLOCKS


def _block_class(name):
    if name not in BLOCK_TABLE:
        raise ValueError(f"unknown context block '{name}'; known blocks: {', '.join(BLOCKS)}")
    # Imported on first use, not at the top: ylg and ea live in their own modules, loaded only when used.
    module, cls = BLOCK_TABLE[name][0].split(".")
    return getattr(importlib.import_module(f".{module}", __package__), cls)


def context_block(name, channels, opts, classes=0, init="xavier"):
    """Block `name` for `channels` channels; classes > 0 gives its class-conditional layers (G only)."""
    return _block_class(name)(channels, opts, classes, init)
