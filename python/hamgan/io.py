"""HamGAN weights in the safetensors format (`hamgan export`): every tensor of G (and D with --with_d) under
its C++ name prefixed "G." / "D.", float32, and string metadata (format, format_version, networks, model,
weights, step, standing_stats, source, hamgan_version, git_revision). Loading is strict: a missing, extra
or misshapen tensor is an error naming it."""
import os

import torch

from .config import FORMAT, FORMAT_VERSION, check_format, model_config, model_config_to_text, parse_model_text
from .networks import Discriminator, Generator

__version__ = "0.1.0"


def _read(path):
    from safetensors import SafetensorError
    from safetensors.torch import load_file, safe_open

    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file; give a .safetensors file written by `hamgan export`")
    try:
        with safe_open(path, "pt") as f:
            metadata = f.metadata() or {}
        tensors = load_file(path, device="cpu")
    except SafetensorError as e:
        raise ValueError(f"{path}: not a readable safetensors file ({e}); export it again") from None
    check_format(metadata, path)
    if "model" not in metadata:
        raise ValueError(f"{path}: metadata has no 'model' text; export it again with `hamgan export`")
    return tensors, metadata


def _build(cls, config):
    with torch.random.fork_rng(devices=[]):  # building draws init values; leave the caller's RNG stream as it was
        return cls(config)


def _fill(net, tensors, prefix, path):
    """Copy the file's `prefix` tensors into `net`, refusing anything missing, extra or misshapen."""
    expected = net.state_dict()
    for key, target in expected.items():
        name = prefix + key
        if name not in tensors:
            raise ValueError(f"{path}: tensor {name} is missing; expected shape {tuple(target.shape)} "
                             f"(the file and its model metadata disagree; export it again)")
        t = tensors[name]
        if tuple(t.shape) != tuple(target.shape):
            raise ValueError(f"{path}: tensor {name} has shape {tuple(t.shape)}, expected {tuple(target.shape)}")
        if t.dtype != torch.float32:
            raise ValueError(f"{path}: tensor {name} is {t.dtype}, expected torch.float32")
    extra = [n for n in tensors if n.startswith(prefix) and n[len(prefix):] not in expected]
    if extra:
        raise ValueError(f"{path}: unexpected tensor {extra[0]} (no such {prefix[:-1]} tensor for this model "
                         f"configuration; export it again)")
    net.load_state_dict({key: tensors[prefix + key] for key in expected}, strict=True)


def _load(path, prefix, cls, device):
    tensors, metadata = _read(path)
    stray = [n for n in tensors if not n.startswith(("G.", "D."))]
    if stray:
        raise ValueError(f"{path}: tensor {stray[0]} belongs to neither network (names start with G. or D.)")
    networks = metadata.get("networks", "G").split(",")
    if prefix[:-1] not in networks:
        raise ValueError(f"{path}: holds no {'discriminator' if prefix == 'D.' else 'generator'} (networks = "
                         f"{','.join(networks)}); export with {'--with_d' if prefix == 'D.' else 'hamgan export'}")
    net = _build(cls, parse_model_text(metadata["model"]))
    _fill(net, tensors, prefix, path)
    net.metadata = dict(metadata)
    return _frozen(net).to(device)


def _frozen(net):
    net.eval()
    net.requires_grad_(False)
    return net


def load_generator(path, device="cpu"):
    """The generator of a `hamgan export` file as an eval-mode torch.nn.Module without gradients."""
    return _load(path, "G.", Generator, device)


def load_discriminator(path, device="cpu"):
    """The discriminator of a file exported with --with_d."""
    return _load(path, "D.", Discriminator, device)


def build_generator(config):
    """An untrained generator for `config` (model keys; missing ones at the C++ defaults), in eval mode
    without gradients; call .train() and .requires_grad_(True) to train it."""
    return _frozen(Generator(model_config(config)))


def build_discriminator(config):
    return _frozen(Discriminator(model_config(config)))


def _metadata_text(key, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise ValueError(f"metadata['{key}'] is a {type(value).__name__}; give a string")


def save_generator(G, path, D=None, metadata=None):
    """Write G (and D) in the layout `hamgan export` writes, for `hamgan import` or load_generator."""
    from safetensors.torch import save_file

    if D is not None and model_config(D.config) != model_config(G.config):
        raise ValueError("save_generator: G and D have different model configurations; save networks of one model")
    tensors = {}
    for prefix, net in (("G.", G), ("D.", D)):
        if net is not None:
            tensors.update({prefix + k: v.detach().to("cpu", torch.float32).contiguous()
                            for k, v in net.state_dict().items()})
    meta = {"weights": "raw", "step": "0", "standing_stats": "false", "git_revision": ""}
    meta.update(getattr(G, "metadata", None) or {})
    meta.update({"source": "hamgan.save_generator", "hamgan_version": f"python {__version__}"})
    meta.update(metadata or {})
    meta.update({"format": FORMAT, "format_version": FORMAT_VERSION, "networks": "G" if D is None else "G,D",
                 "model": model_config_to_text(G.config)})
    save_file(tensors, path, metadata={k: _metadata_text(k, v) for k, v in meta.items()})
