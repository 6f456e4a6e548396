"""The safetensors library's own reader and writer beside HamGAN's (tests/export/safetensors_test.cpp).

Usage: safetensors_reference.py write OUT.safetensors
         writes tensors of several dtypes (a 0-d one, an empty one) and metadata with safetensors.torch.save_file
       safetensors_reference.py check FILE.safetensors
         loads FILE with safetensors.torch.load_file and compares it with what `write` writes; exit 1 if unequal
"""
import sys

try:
    import torch
    from safetensors import safe_open
    from safetensors.torch import load_file, save_file
except ImportError as e:
    print(f"missing test package ({e}); scripts/install_deps.sh installs safetensors")
    sys.exit(3)


def expected():
    g = torch.Generator().manual_seed(5)
    return {
        "G.linear.weight": torch.randn(6, 4, generator=g),
        "half": torch.randn(3, 5, generator=g).half(),
        "brain": torch.randn(7, generator=g).bfloat16(),
        "double": torch.randn(2, 2, 2, generator=g).double(),
        "ids": torch.arange(-3, 9, dtype=torch.int64).reshape(3, 4),
        "int32": torch.arange(5, dtype=torch.int32),
        "bytes": torch.arange(250, 256, dtype=torch.uint8),
        "flags": torch.tensor([True, False, True]),
        "scalar": torch.tensor(2.5),
        "empty": torch.zeros(0, 3),
    }


METADATA = {"format": "hamgan", "model": "resolution = 32\ng_block = \"ham\"\n", "note": "ünïcode"}

if sys.argv[1] == "write":
    save_file(expected(), sys.argv[2], metadata=METADATA)
    sys.exit(0)
got = load_file(sys.argv[2])
want = expected()
with safe_open(sys.argv[2], "pt") as f:
    meta = f.metadata()
ok = meta == METADATA and set(got) == set(want)
for k in want:
    ok = ok and k in got and got[k].dtype == want[k].dtype and got[k].shape == want[k].shape and torch.equal(got[k], want[k])
print("equal" if ok else f"differ: metadata {meta}, tensors {sorted(got)}")
sys.exit(0 if ok else 1)
