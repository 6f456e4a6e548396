"""Self-check of the `hamgan` Python package (python/hamgan) against the hamgan binary.

Usage: hamgan_package_check.py HAMGAN_BIN. For each context block (none, sa, sa_dense, ham nmf/vq/cd, ham
with online bases; ylg and ea when the package holds them) at resolution 32, 64 and 128: the parameter
counts of build_generator / build_discriminator equal what `HAMGAN_BIN model-info` prints for the same
config, and save_generator -> load_generator / load_discriminator reproduces the outputs exactly. Then the
strict loader's errors, fix_ham_bases and the model text. Exits 0 when all hold, 1 otherwise, 3 without
torch or safetensors."""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import torch
    import safetensors.torch  # noqa: F401
except ImportError as e:
    print(f"hamgan_package_check: {e.name} missing (pip install torch safetensors)")
    sys.exit(3)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
import hamgan  # noqa: E402
from hamgan.config import model_config, model_config_to_text, parse_model_text  # noqa: E402

PACKAGE = Path(hamgan.__file__).parent
VARIANTS = [  # (label, model keys beyond the base)
    ("none", {"g_block": "none", "d_block": "none"}),
    ("sa", {"g_block": "sa", "d_block": "sa"}),
    ("sa_dense", {"g_block": "sa_dense", "d_block": "sa_dense"}),
    ("ham nmf", {"g_block": "ham", "d_block": "ham", "ham_rank": 2}),
    ("ham vq", {"g_block": "ham", "d_block": "ham", "ham_type": "vq", "ham_temperature": 0.5}),
    ("ham cd bptt", {"g_block": "ham", "d_block": "ham", "ham_type": "cd", "ham_gradient": "bptt"}),
    ("ham online", {"g_block": "ham", "d_block": "none", "ham_init": "online", "ham_eval_steps": 3}),
    ("ylg", {"g_block": "ylg", "d_block": "ylg", "g_ch": 32, "d_ch": 64}),
    ("ea", {"g_block": "ea", "d_block": "ea", "ea_memory": 16, "ea_heads": 2}),
]
OPTIONAL = {"ylg": "ylg.py", "ea": "external_attention.py"}
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def model_info_totals(binary, config, workdir):
    path = os.path.join(workdir, "model.toml")
    Path(path).write_text(model_config_to_text(config))
    text = subprocess.run([binary, "model-info", "--config", path], check=True, capture_output=True,
                          text=True).stdout
    totals = {}
    for net in ("G", "D"):
        section = text.split(f"\n{net} (context:")[1]
        totals[net] = int(re.search(r"^\s+total\s+([\d,]+)", section, re.M).group(1).replace(",", ""))
    return totals


def perturb(net, seed):
    """Non-trivial values in every tensor (sigma 0 and unit BN statistics would hide a mis-loaded block)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, t in net.state_dict().items():
            if name.endswith(("running_var", "gain")):
                t.copy_(0.5 + torch.rand(t.shape, generator=g))
            elif not name.endswith("online_bases"):
                t.add_(0.1 * torch.randn(t.shape, generator=g))


def outputs(G, D, z, y, seed):
    torch.manual_seed(seed)  # the same random Ham bases for both networks being compared
    with torch.no_grad():
        x = G(z, y)
        return x, D(x, y)


def round_trip(label, config, workdir):
    torch.manual_seed(1)
    G, D = hamgan.build_generator(config), hamgan.build_discriminator(config)
    perturb(G, 2)
    perturb(D, 3)
    path = os.path.join(workdir, "G.safetensors")
    hamgan.save_generator(G, path, D=D, metadata={"step": 7})
    G2, D2 = hamgan.load_generator(path), hamgan.load_discriminator(path)
    z, y = torch.randn(4, G.z_dim), torch.arange(4) % G.num_classes
    (x1, d1), (x2, d2) = outputs(G, D, z, y, 5), outputs(G2, D2, z, y, 5)
    check(torch.equal(x1, x2) and torch.equal(d1, d2) and x1.shape == (4, G.image_channels, G.resolution,
                                                                         G.resolution),
          f"{label}: save_generator -> load_generator/load_discriminator gives identical outputs")
    check(not G2.training and not any(p.requires_grad for p in G2.parameters()) and G2.metadata["step"] == "7",
          f"{label}: loaded G is in eval mode without gradients, metadata kept")
    return path, G2


def tamper(src, dst, change):
    from safetensors import safe_open
    from safetensors.torch import load_file, save_file
    with safe_open(src, "pt") as f:
        meta = f.metadata()
    tensors = load_file(src)
    change(tensors, meta)
    save_file(tensors, dst, metadata=meta)


def expect_error(label, fn, *words):
    try:
        fn()
    except ValueError as e:
        text = str(e)
        check(all(w in text for w in words) and "\n" not in text, f"{label}: one-line error naming {words}: {text}")
        return
    check(False, f"{label}: no error raised")


def strict_loading(path, workdir):
    bad = os.path.join(workdir, "bad.safetensors")
    cases = [
        ("missing tensor", lambda t, m: t.pop("G.block1.conv1.weight"), ("G.block1.conv1.weight", "missing")),
        ("extra tensor", lambda t, m: t.update({"G.block1.extra": torch.zeros(2)}), ("G.block1.extra",)),
        ("wrong shape", lambda t, m: t.update({"G.conv_out.bias": torch.zeros(5)}), ("G.conv_out.bias", "(5,)")),
        ("wrong format", lambda t, m: m.update({"format": "other"}), ("format",)),
        ("newer version", lambda t, m: m.update({"format_version": "2"}), ("format_version",)),
        ("no D", lambda t, m: m.update({"networks": "G"}), ("--with_d",)),
    ]
    for label, change, words in cases:
        tamper(path, bad, change)
        loader = hamgan.load_discriminator if label == "no D" else hamgan.load_generator
        expect_error(f"strict loading, {label}", lambda: loader(bad), *words)


def fixed_bases(G):
    z, y = torch.randn(3, G.z_dim), torch.arange(3) % G.num_classes
    hamgan.fix_ham_bases(G, 11)
    with torch.no_grad():
        a, b = G(z, y), G(z, y)
    hamgan.fix_ham_bases(G, None)
    with torch.no_grad():
        c = G(z, y)
    check(torch.equal(a, b) and not torch.equal(a, c), "fix_ham_bases: fixed bases repeat, None draws again")


def model_text():
    config = model_config({"g_block": "ham", "ham_temperature": 0.25, "ea_cbn": False, "resolution": 64})
    check(parse_model_text(model_config_to_text(config)) == config, "model text round trip")
    check(parse_model_text("ham_gradient = \"one_step\"\nham_temperature = 1\n")["ham_temperature"] == 1.0,
          "model text: aliases and integer-valued floats read as C++ reads them")
    expect_error("model text, unknown key", lambda: parse_model_text("colour = 1\n"), "colour")
    expect_error("model text, bad value", lambda: parse_model_text("resolution = 48\n"), "resolution")


def main():
    if len(sys.argv) != 2 or not os.access(sys.argv[1], os.X_OK):
        print("usage: hamgan_package_check.py HAMGAN_BIN (the built hamgan executable)")
        return 1
    binary = sys.argv[1]
    torch.set_num_threads(min(2, torch.get_num_threads()))
    with tempfile.TemporaryDirectory() as workdir:
        path = ham = None
        for label, keys in VARIANTS:
            block = label.split()[0]
            if block in OPTIONAL and not (PACKAGE / OPTIONAL[block]).is_file():
                print(f"skip  {label}: python/hamgan/{OPTIONAL[block]} is not there")
                continue
            for resolution in (32, 64, 128):
                config = model_config({"resolution": resolution, "image_channels": 3, "num_classes": 5,
                                       "z_dim": 16, "g_ch": 8, "d_ch": 8, **keys})
                name = f"{label} at {resolution}"
                G, D = hamgan.build_generator(config), hamgan.build_discriminator(config)
                ours = {n: sum(p.numel() for p in net.parameters()) for n, net in (("G", G), ("D", D))}
                theirs = model_info_totals(binary, config, workdir)
                check(ours == theirs, f"{name}: parameters {ours} == model-info {theirs}")
                path, loaded = round_trip(name, config, workdir)
                if label == "ham nmf":
                    ham = loaded
        strict_loading(path, workdir)
        fixed_bases(ham)
        model_text()
    print(f"hamgan_package_check: {len(failures)} failure(s)" if failures else "hamgan_package_check: all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
