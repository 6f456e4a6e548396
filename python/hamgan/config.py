"""The model configuration as HamGAN writes it (gan/model/model_config.cpp): every model key with its C++
default and check, read from the flat TOML text a checkpoint or export stores (`model_config_to_text`)
or from an experiment file, and written back in the same form."""
try:
    import tomllib  # Python >= 3.11
except ModuleNotFoundError:  # Python 3.9 and 3.10: tomli is the same parser under its older name
    import tomli as tomllib

FORMAT, FORMAT_VERSION = "hamgan", "1"
INITS = ("xavier", "orthogonal", "n02")
HAM_GRADIENT_ALIASES = {"one_step": "one-step", "onestep": "one-step"}  # accepted by ham_types.cpp too


def _at_least(lo):
    return lambda v: None if v >= lo else f"must be >= {lo}"


def _one_of(values):
    def check(v):
        return None if v in values else "must be one of " + ", ".join(str(x) for x in values)
    check.values = tuple(values)  # the choices, for tests/python/model_fields_check.py
    return check


# The context blocks in registry order (modules/context_registry.cpp): name -> ("module.Class" of the block
# in this package, its option fields as (key, type, C++ default, check)). blocks.py builds from it;
# `ctest -R PythonPackage.MirrorsModelFields` compares it with `hamgan model-info --fields_json`.
BLOCK_TABLE = {
    "none": ("attention.NoneBlock", []),
    "sa": ("attention.SelfAttention", []),
    "ylg": ("ylg.YLGAttention", []),
    "ham": ("ham.HamBlock", [
        ("ham_type", str, "nmf", _one_of(("nmf", "vq", "cd"))),
        ("ham_train_steps", int, 6, _at_least(1)),
        ("ham_eval_steps", int, 6, _at_least(1)),
        ("ham_rank", int, 0, _at_least(0)),
        ("ham_gradient", str, "one-step", _one_of(("one-step", "bptt"))),
        ("ham_temperature", float, 0.0, _at_least(0)),
        ("ham_beta", float, 0.01, lambda v: None if v > 0 else "must be > 0"),
        ("ham_init", str, "random", _one_of(("random", "online"))),
    ]),
    "sa_dense": ("attention.DenseSelfAttention", []),
    "ea": ("external_attention.ExternalAttention", [
        ("ea_memory", int, 64, _at_least(1)),
        ("ea_heads", int, 1, _at_least(1)),
        ("ea_cbn", bool, True, lambda v: None),
    ]),
}
BLOCKS = tuple(BLOCK_TABLE)

# (key, type, C++ default, check) in model_config_fields() order: model keys, then the block options.
FIELDS = [
    ("resolution", int, 32, _one_of((32, 64, 128))),
    ("image_channels", int, 3, _at_least(1)),
    ("num_classes", int, 10, _at_least(1)),
    ("z_dim", int, 128, _at_least(1)),
    ("g_ch", int, 64, _at_least(1)),
    ("d_ch", int, 64, _at_least(1)),
    ("block_resolution", int, 0, _one_of((0, 8, 16, 32, 64))),
    ("g_block", str, "none", _one_of(BLOCKS)),
    ("d_block", str, "none", _one_of(BLOCKS)),
    ("init", str, "xavier", _one_of(INITS)),
    # How the C++ blocks resample; both forms give the same results, so the networks here compute the separate one.
    ("resample_conv", str, "separate", _one_of(("separate", "folded"))),
] + [field for _, options in BLOCK_TABLE.values() for field in options]
KEYS = tuple(f[0] for f in FIELDS)
DEFAULTS = {key: default for key, _, default, _ in FIELDS}


KIND_WORDS = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


def typed_value(key, kind, value):
    """A TOML value as the key's type; TOML writes 0.0 as a float but a hand-written 0 is an int."""
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind is bool and isinstance(value, str) and value in ("true", "false"):
        return value == "true"
    if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
        wanted = KIND_WORDS[kind]
        raise ValueError(f"model: {key} = {value!r} is not {wanted}; write {wanted}")
    if key == "ham_gradient":
        return HAM_GRADIENT_ALIASES.get(value, value)
    return value


def context_side(config):
    """block_resolution with 0 resolved: 32 at 64/128, 16 at 32 (ModelConfig::context_side)."""
    return config["block_resolution"] or min(32, config["resolution"] // 2)


def model_config(values=None, strict=True):
    """Every model key, typed and checked, with the C++ defaults for keys left out. strict: other keys are
    errors (as model_config_from_text); else they are skipped (an experiment file's train keys)."""
    values = dict(values or {})
    unknown = [k for k in values if k not in DEFAULTS]
    if strict and unknown:
        raise ValueError(f"model: unknown key '{unknown[0]}'; the model keys are {', '.join(KEYS)}")
    config = {}
    for key, kind, default, check in FIELDS:
        value = typed_value(key, kind, values[key]) if key in values else default
        problem = check(value)
        if problem:
            raise ValueError(f"model: {key} {problem}, got {value!r}")
        config[key] = value
    side = context_side(config)
    if not 8 <= side <= config["resolution"] // 2:
        sides = ", ".join(str(8 << i) for i in range(config["resolution"].bit_length() - 4))
        raise ValueError(f"model: block_resolution {side} has no feature map in both G and D at resolution "
                         f"{config['resolution']}; use one of {sides} (or 0 for the default)")
    return config


def parse_model_text(text):
    """The `model` metadata / checkpoint text (flat TOML) -> the full config dict."""
    try:
        values = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"model: the configuration text is not valid TOML ({e}); re-export the generator")
    return model_config(values, strict=True)


def load_model_toml(path):
    """The model keys of a HamGAN TOML file (an experiment or a run's config.toml); other keys skipped."""
    with open(path, "rb") as f:
        return model_config(tomllib.load(f), strict=False)


def _toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float):
        text = repr(value)
        return text if any(ch in text for ch in ".eEn") else text + ".0"
    return str(value)


def model_config_to_text(config):
    """Every key as a `key = value` line, in the C++ order and spelling (model_config_to_text)."""
    config = model_config(config)
    return "".join(f"{key} = {_toml_value(config[key])}\n" for key in KEYS)


def check_format(metadata, path="file"):
    """Refuse files that are not HamGAN exports of a format version this package reads."""
    fmt, version = metadata.get("format"), metadata.get("format_version")
    if fmt != FORMAT:
        raise ValueError(f"{path}: format is {fmt!r}, not 'hamgan'; write it with `hamgan export` or "
                         f"hamgan.save_generator")
    if version != FORMAT_VERSION:
        raise ValueError(f"{path}: format_version {version!r} is not supported (this package reads "
                         f"{FORMAT_VERSION}); use a matching hamgan Python package")
