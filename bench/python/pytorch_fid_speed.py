"""Times pytorch-fid's feature extraction on CPU, the way `hamgan bench fid
--extract_only` times ours, for a side-by-side comparison (docs/metrics.md,
"FID speed").

The network is pytorch-fid's own `InceptionV3([3])` (FID Inception structure,
resize to 299 with F.interpolate bilinear, inputs scaled to [-1, 1]), with the
weights of --weights (pytorch-fid's state-dict format, e.g. from
tests/python/inception_reference.py) or, without it, its random initialisation;
nothing is downloaded. What is timed matches metrics/fid.cpp: one untimed batch,
then batches of the same random uint8 images until --images are done, each
converted to float in [0, 1] as pytorch-fid's ToTensor does.

  python3 bench/python/pytorch_fid_speed.py --weights DIR/weights.pth --images 64 --batch 32 --size 32 --threads 2
Prints one JSON object.
"""
import argparse
import json
import time

import torch

try:
    import pytorch_fid
    import pytorch_fid.inception as pi
except ImportError as e:
    raise SystemExit(f"pytorch_fid_speed: {e}; scripts/install_deps.sh installs pytorch-fid")

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--weights", help="pytorch-fid state dict (.pth); default: random initialisation")
p.add_argument("--images", type=int, default=64, help="images timed (whole batches, after one warm-up batch)")
p.add_argument("--batch", type=int, default=32)
p.add_argument("--size", type=int, default=32, help="side of the synthetic input images")
p.add_argument("--threads", type=int, default=2)
a = p.parse_args()

torch.set_num_threads(a.threads)
torch.manual_seed(0)
if a.weights:
    state = torch.load(a.weights, map_location="cpu")
    pi.load_state_dict_from_url = lambda *args, **kwargs: state  # instead of the download
else:
    # The FID structure of pytorch-fid's fid_inception_v3(), left at its random initialisation.
    def random_fid_inception():
        net = pi._inception_v3(num_classes=1008, aux_logits=False, weights=None)
        net.Mixed_5b = pi.FIDInceptionA(192, pool_features=32)
        net.Mixed_5c = pi.FIDInceptionA(256, pool_features=64)
        net.Mixed_5d = pi.FIDInceptionA(288, pool_features=64)
        net.Mixed_6b = pi.FIDInceptionC(768, channels_7x7=128)
        net.Mixed_6c = pi.FIDInceptionC(768, channels_7x7=160)
        net.Mixed_6d = pi.FIDInceptionC(768, channels_7x7=160)
        net.Mixed_6e = pi.FIDInceptionC(768, channels_7x7=192)
        net.Mixed_7b = pi.FIDInceptionE_1(1280)
        net.Mixed_7c = pi.FIDInceptionE_2(2048)
        return net

    pi.fid_inception_v3 = random_fid_inception
model = pi.InceptionV3([3], resize_input=True, normalize_input=True, use_fid_inception=True).eval()

images = torch.randint(0, 256, (a.batch, 3, a.size, a.size), dtype=torch.uint8)
with torch.no_grad():
    model(images.float() / 255.0)  # warm-up (allocations, lazy init)
    start = time.perf_counter()
    done = 0
    while done < a.images:
        features = model(images.float() / 255.0)[0]
        done += a.batch
    seconds = time.perf_counter() - start
assert features.shape == (a.batch, 2048, 1, 1), features.shape
print(json.dumps({"images": done, "seconds": seconds, "images_per_s": done / seconds, "batch": a.batch,
                  "size": a.size, "threads": torch.get_num_threads(), "torch": torch.__version__,
                  "pytorch_fid": pytorch_fid.__version__}))
