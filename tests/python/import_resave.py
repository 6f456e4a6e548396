"""Rewrites a HamGAN safetensors file with the safetensors package itself
(tests/import/import_roundtrip_test.cpp): IN is read with safe_open (tensors
and __metadata__) and written to OUT by save_file, in the package's own order
and alignment, so `hamgan import` is checked on a file HamGAN did not write.

usage: import_resave.py IN OUT
"""
import sys

try:
    from safetensors import safe_open
    from safetensors.torch import save_file
except ImportError:
    sys.exit(3)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with safe_open(src, framework="pt") as f:
        metadata = f.metadata()
        tensors = {name: f.get_tensor(name) for name in f.keys()}
    if metadata.get("format") != "hamgan" or not any(n.startswith("G.") for n in tensors):
        print(f"{src}: not a HamGAN generator file (metadata {metadata})")
        return 1
    save_file(tensors, dst, metadata=metadata)
    return 0


if __name__ == "__main__":
    sys.exit(main())
