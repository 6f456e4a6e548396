"""torch-fidelity's own command line on an exported generator (tests/interop/interop_fidelity_test.cpp).

    interop_fidelity.py DIR WEIGHTS N BATCH SEED

DIR/G.safetensors (`hamgan export` of a generator without random draws inside) becomes DIR/G.onnx through
`python -m hamgan.export_onnx --torch_fidelity`. Writes:
  DIR/inception.pth  WEIGHTS (tests/python/inception_reference.py's random FID Inception) with fc.weight
                     made to spread the generated images over the classes: random pool features share one
                     large mean direction, which would make every p(y|x) alike and IS = 1 + 1e-5; the
                     rows lose their component along the generated images' mean feature and are scaled
                     so that the logits vary by about 1.5 between the generated images
  DIR/real/          N PNGs (smooth random 32x32 RGB images), torch-fidelity's --input2
  DIR/latents.npz    z float32 (N, z_dim), y int64 (N): the inputs torch-fidelity feeds the generator at
                     --rng-seed SEED in batches of BATCH, recorded by running its own sampling loop
                     (torch_fidelity.utils.get_featuresdict_from_generative_model) with a recording model
  DIR/fidelity.txt   `fid F`, `is_mean M`, `is_std S` from `fidelity --input1 G.onnx --input2 real --fid --isc
                     --isc-splits 2 --no-samples-shuffle`, the FID Inception replaced by DIR/inception.pth
torch-fidelity 0.4.0 draws labels with `dtype=np.int` (removed in NumPy 1.24): its CLI runs with
`numpy.int = int` set first, which is what that alias was.
"""
import json
import os
import subprocess
import sys

try:
    import numpy as np
    import onnxruntime  # noqa: F401  (torch-fidelity runs .onnx generators with it)
    import onnxscript  # noqa: F401
    import torch
    import torch_fidelity  # noqa: F401
    from PIL import Image
    from torch_fidelity.feature_extractor_base import FeatureExtractorBase
    from torch_fidelity.generative_model_base import GenerativeModelBase
    from torch_fidelity.utils import get_featuresdict_from_generative_model
except ImportError as e:
    print(f"missing test package ({e}); scripts/install_deps.sh installs torch-fidelity, onnxruntime, onnxscript")
    sys.exit(3)

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(REPO, "python"))
import hamgan  # noqa: E402

NP_INT_SHIM = "import numpy; numpy.int = int; from torch_fidelity.fidelity import main; main()"
if not hasattr(np, "int"):
    np.int = int  # the same shim for the recording run in this process


class Recorder(GenerativeModelBase):
    """A generator that keeps what it is fed and returns black uint8 images."""

    def __init__(self, z_size, num_classes, resolution):
        super().__init__()
        self._z_size, self._num_classes, self.resolution, self.calls = z_size, num_classes, resolution, []

    @property
    def z_size(self):
        return self._z_size

    @property
    def z_type(self):
        return "normal"

    @property
    def num_classes(self):
        return self._num_classes

    def forward(self, z, y):
        self.calls.append((z.clone(), y.clone()))
        return torch.zeros(z.size(0), 3, self.resolution, self.resolution, dtype=torch.uint8)


class NoFeatures(FeatureExtractorBase):
    def __init__(self):
        super().__init__("none", ["x"])

    def forward(self, x):
        return (torch.zeros(x.size(0), 1),)

    @staticmethod
    def get_provided_features_list():
        return ("x",)


def record_latents(G, n, batch, seed, out):
    rec = Recorder(G.z_dim, G.num_classes, G.resolution)
    get_featuresdict_from_generative_model(rec, NoFeatures(), n, batch, False, seed, False)
    z = torch.cat([c[0] for c in rec.calls]).numpy()
    y = torch.cat([c[1] for c in rec.calls]).numpy()
    assert z.dtype == np.float32 and y.dtype == np.int64 and len(z) == n, (z.dtype, y.dtype, z.shape)
    np.savez(out, z=z, y=y)


def planted_weights(weights, G, latents, out):
    """WEIGHTS with fc.weight = s (W - (W m) m^T), m the unit mean pool feature of G's images, s giving the
    logits a standard deviation of 1.5 over those images."""
    from torch_fidelity.feature_extractor_inceptionv3 import FeatureExtractorInceptionV3
    from hamgan.export_common import TorchFidelityOutput

    d = np.load(latents)
    with torch.no_grad():
        images = TorchFidelityOutput(G)(torch.from_numpy(d["z"]), torch.from_numpy(d["y"]))
        inception = FeatureExtractorInceptionV3("inception-v3-compat", ["2048"],
                                                feature_extractor_weights_path=weights)
        features = inception(images)[0].double()
    m = features.mean(0) / features.mean(0).norm()
    sd = torch.load(weights, map_location="cpu", weights_only=True)
    w = sd["fc.weight"].double()
    w = w - (w @ m)[:, None] * m[None]
    sd["fc.weight"] = (w * 1.5 / (features @ w.t()).std(0).mean()).float()
    torch.save(sd, out)


def write_reals(root, n):
    os.makedirs(root, exist_ok=True)
    g = torch.Generator().manual_seed(11)
    coarse = torch.rand(n, 3, 8, 8, generator=g)
    images = torch.nn.functional.interpolate(coarse, size=32, mode="bilinear", align_corners=False)
    images = (images * 255).round().clamp(0, 255).to(torch.uint8).permute(0, 2, 3, 1).numpy()
    for i, im in enumerate(images):
        Image.fromarray(im).save(os.path.join(root, f"{i:04d}.png"))


def main(d, weights, n, batch, seed):
    torch.set_num_threads(2)
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    subprocess.run([sys.executable, "-m", "hamgan.export_onnx", os.path.join(d, "G.safetensors"),
                    os.path.join(d, "G.onnx"), "--torch_fidelity"], check=True, env=env)
    G = hamgan.load_generator(os.path.join(d, "G.safetensors"))
    record_latents(G, n, batch, seed, os.path.join(d, "latents.npz"))
    planted_weights(weights, G, os.path.join(d, "latents.npz"), os.path.join(d, "inception.pth"))
    write_reals(os.path.join(d, "real"), n)
    cmd = [sys.executable, "-c", NP_INT_SHIM, "--input1", os.path.join(d, "G.onnx"),
           "--input1-model-z-size", str(G.z_dim), "--input1-model-num-classes", str(G.num_classes),
           "--input1-model-num-samples", str(n), "--input2", os.path.join(d, "real"), "--fid", "--isc",
           "--isc-splits", "2", "--no-samples-shuffle", "--feature-extractor-weights-path",
           os.path.join(d, "inception.pth"), "--batch-size", str(batch), "--rng-seed", str(seed), "--cpu",
           "--no-cache", "--save-cpu-ram", "--json", "--silent"]
    with open(os.path.join(d, "fidelity_command.txt"), "w") as f:
        f.write(" ".join(cmd[:2] + [f"'{NP_INT_SHIM}'"] + cmd[3:]) + "\n")
    result = subprocess.run(cmd, check=True, capture_output=True, text=True)
    m = json.loads(result.stdout[result.stdout.index("{"):])
    with open(os.path.join(d, "fidelity.txt"), "w") as f:
        f.write(f"fid {m['frechet_inception_distance']!r}\nis_mean {m['inception_score_mean']!r}\n"
                f"is_std {m['inception_score_std']!r}\n")
    print(open(os.path.join(d, "fidelity.txt")).read(), end="")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
