"""What the loaders check before they allocate: the file's header (names, dtypes, shapes) against the tensors
its `model` metadata implies, computed on a network built on the meta device (no memory, no init work),
then every value of the tensors read. Each problem is one ValueError line naming the file and the tensor."""
import math
import os

import torch

from .config import check_format, parse_model_text

DTYPES = {"F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16", "I64": "int64",
          "I32": "int32", "I16": "int16", "I8": "int8", "U8": "uint8", "BOOL": "bool"}
# Metadata keys that set a tensor dimension directly; the widths scale g_ch / d_ch.
SIZE_KEYS = ("num_classes", "z_dim", "image_channels", "ham_rank", "ea_memory")
MAX_PARAMETERS = 2 ** 29  # per network, as `hamgan import`: five times BigGAN-deep at 512


def read_header(path):
    """(metadata, {name: (dtype, shape)}) from the header alone: no tensor data is read."""
    from safetensors import SafetensorError, safe_open

    if os.path.isdir(path):
        raise ValueError(f"{path} is a directory; give a .safetensors file written by `hamgan export`")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file; give a .safetensors file written by `hamgan export`")
    try:
        with safe_open(path, "pt") as f:
            metadata = f.metadata() or {}
            header = {}
            for name in f.keys():
                part = f.get_slice(name)
                header[name] = (part.get_dtype(), tuple(part.get_shape()))
    except (SafetensorError, OSError) as e:
        raise ValueError(f"{path}: not a readable safetensors file ({_one_line(e)}); export it again") from None
    return metadata, header


def model_of(path, metadata):
    """The model configuration the metadata holds; empty or invalid text is one line naming the file."""
    check_format(metadata, path)
    text = metadata.get("model")
    if text is None:
        raise ValueError(f"{path}: metadata has no 'model' text; export it again with `hamgan export`")
    if not text.strip():
        raise ValueError(f"{path}: the metadata's 'model' text is empty; export it again with `hamgan export`")
    try:
        return parse_model_text(text)
    except ValueError as e:
        raise ValueError(f"{path}: metadata {_one_line(e)}") from None


def expected_shapes(path, cls, config):
    """{state_dict key: shape} of `cls(config)`, built on the meta device: nothing is allocated however large
    the metadata says the network is."""
    try:
        with torch.device("meta"):
            net = cls(config)
    except ValueError as e:
        raise ValueError(f"{path}: metadata model: {_one_line(e)}") from None
    except RuntimeError as e:  # sizes beyond int64 (a forged num_classes or width)
        raise ValueError(f"{path}: the metadata's model implies tensors too large to exist ({_one_line(e)}); "
                         f"the file is damaged, export it again") from None
    return {key: tuple(t.shape) for key, t in net.state_dict().items()}


def _suspects(config, want, have):
    """Metadata keys that explain a dimension `want` where the file has `have`."""
    named = [f"{k} = {config[k]}" for k in SIZE_KEYS if config[k] in want and config[k] not in have]
    if named:
        return ", ".join(named)
    return ", ".join(f"{k} = {config[k]}" for k in ("g_ch", "d_ch"))


def check_header(path, header, expected, prefix, config):
    """Every tensor the model needs is in the header as float32 of its shape, and nothing else is."""
    for key, shape in expected.items():
        name = prefix + key
        if name not in header:
            raise ValueError(f"{path}: tensor {name} is missing; expected shape {shape} "
                             f"(the file and its model metadata disagree; export it again)")
        dtype, have = header[name]
        if have != shape:
            raise ValueError(f"{path}: tensor {name} has shape {have}, expected {shape} from the metadata's model "
                             f"({_suspects(config, shape, have)}); the file and its metadata disagree, export it "
                             f"again")
        if dtype != "F32":
            raise ValueError(f"{path}: tensor {name} is {DTYPES.get(dtype, dtype)}, expected float32; export it "
                             f"again (hamgan.save_generator writes float32)")
    extra = [n for n in header if n.startswith(prefix) and n[len(prefix):] not in expected]
    if extra:
        raise ValueError(f"{path}: unexpected tensor {extra[0]} (no such {prefix[:-1]} tensor for this model "
                         f"configuration; export it again)")
    count = sum(math.prod(header[prefix + key][1]) for key in expected)
    if count > MAX_PARAMETERS:
        raise ValueError(f"{path}: the {prefix[:-1]} network holds {count:,} values, more than the {MAX_PARAMETERS:,} "
                         f"HamGAN reads (five times BigGAN-deep at 512); check the file's model metadata")


def check_values(where, name, t, source=None):
    """Finite values, and no negative BatchNorm variance. `source`: the tensor before its float32 cast."""
    finite = torch.isfinite(t)
    if not bool(finite.all()):
        bad = int((~finite).sum())
        if source is not None and bool(torch.isfinite(source).all()):
            raise ValueError(f"{where}: tensor {name} holds {bad} value(s) beyond float32's range (|x| > 3.4e38) "
                             f"that become inf in float32; scale or clamp them before saving")
        raise ValueError(f"{where}: tensor {name} holds {bad} non-finite value(s) (NaN or inf) of {t.numel()}; "
                         f"use weights from before the divergence (an earlier checkpoint)")
    if name.endswith("running_var") and t.numel() and bool((t < 0).any()):
        raise ValueError(f"{where}: tensor {name} holds a negative variance ({float(t.min()):.4g}); a BatchNorm "
                         f"running_var is >= 0, so the weights are damaged: export them again")


def read_tensors(path, names):
    """The named tensors (already checked in the header), each checked for impossible values."""
    from safetensors import SafetensorError, safe_open

    tensors = {}
    try:
        with safe_open(path, "pt") as f:
            for name in names:
                tensors[name] = f.get_tensor(name)
                check_values(path, name, tensors[name])
    except (SafetensorError, OSError) as e:
        raise ValueError(f"{path}: not a readable safetensors file ({_one_line(e)}); export it again") from None
    return tensors


def _one_line(e):
    return " ".join(str(e).split())
