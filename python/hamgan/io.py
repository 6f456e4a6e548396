"""HamGAN weights in the safetensors format (`hamgan export`): every tensor of G (and D with --with_d) under
its C++ name prefixed "G." / "D.", float32, and string metadata (format, format_version, networks, model,
weights, step, standing_stats, source, hamgan_version, git_revision). Loading is strict: a missing, extra
or misshapen tensor, non-finite values or a negative BatchNorm variance is an error naming it, found before the
network is built (hamgan.checked_read)."""
import torch

from .checked_read import check_header, check_values, expected_shapes, model_of, read_header, read_tensors
from .config import FORMAT, FORMAT_VERSION, model_config, model_config_to_text
from .networks import Discriminator, Generator

__version__ = "0.1.0"


def _build(cls, config):
    with torch.random.fork_rng(devices=[]):  # building draws init values; leave the caller's RNG stream as it was
        return cls(config)


def _load(path, prefix, cls, device):
    """Header, metadata and values are checked before the network is built: a forged size allocates nothing,
    and NaN weights never become a module."""
    metadata, header = read_header(path)
    config = model_of(path, metadata)
    stray = [n for n in header if not n.startswith(("G.", "D."))]
    if stray:
        raise ValueError(f"{path}: tensor {stray[0]} belongs to neither network (names start with G. or D.)")
    networks = metadata.get("networks", "G").split(",")
    if prefix[:-1] not in networks:
        raise ValueError(f"{path}: holds no {'discriminator' if prefix == 'D.' else 'generator'} (networks = "
                         f"{','.join(networks)}); export with {'--with_d' if prefix == 'D.' else 'hamgan export'}")
    expected = expected_shapes(path, cls, config)
    check_header(path, header, expected, prefix, config)
    tensors = read_tensors(path, [prefix + key for key in expected])
    net = _build(cls, config)
    net.load_state_dict({key: tensors[prefix + key] for key in expected}, strict=True)
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
            for k, v in net.state_dict().items():
                t = v.detach().to("cpu", torch.float32).contiguous()
                check_values("save_generator", prefix + k, t, source=v)  # a file load_generator would refuse
                tensors[prefix + k] = t
    meta = {"weights": "raw", "step": "0", "standing_stats": "false", "git_revision": ""}
    meta.update(getattr(G, "metadata", None) or {})
    meta.update({"source": "hamgan.save_generator", "hamgan_version": f"python {__version__}"})
    meta.update(metadata or {})
    meta.update({"format": FORMAT, "format_version": FORMAT_VERSION, "networks": "G" if D is None else "G,D",
                 "model": model_config_to_text(G.config)})
    save_file(tensors, path, metadata={k: _metadata_text(k, v) for k, v in meta.items()})
