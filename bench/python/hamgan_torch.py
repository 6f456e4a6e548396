"""The model of a HamGAN config for bench/python/train_step.py: the networks come from the `hamgan` Python
package (python/hamgan: the C++ library's G, D, layers and context blocks, names and arithmetic included),
the parameter counts they must reach from what `hamgan model-info --config F` prints."""
import re
import subprocess
import sys
from pathlib import Path

try:
    import hamgan  # installed: pip install ./python
except ImportError:  # else the package beside the benchmarks in this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
    import hamgan
from hamgan.config import load_model_toml
from hamgan.networks import Discriminator, Generator

__all__ = ["Discriminator", "Generator", "load_model_toml", "model_info"]


def model_info(hamgan_bin, config):
    """Each network's total parameter count and context description as `hamgan model-info` prints them."""
    text = subprocess.run([hamgan_bin, "model-info", "--config", config], check=True, capture_output=True,
                          text=True).stdout
    info = {}
    for net in ("G", "D"):
        info[net + "_context"] = re.search(rf"^{net} \(context: (.*)\)$", text, re.M).group(1)
        section = text.split(f"\n{net} (context:")[1].split("\n", 1)[1]
        info[net + "_total"] = int(re.search(r"^\s+total\s+([\d,]+)", section, re.M).group(1).replace(",", ""))
    return info
