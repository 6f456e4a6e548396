"""pytorch-fid's own command-line tool on two flat folders of PNGs, with planted
weights (tests/metrics/fid_cli_test.cpp, FidCli.FlatFoldersMatchPytorchFidsCommandLine).

Usage: fid_folders_reference.py WEIGHTS.pth OUT_DIR

Writes OUT_DIR/a/*.png and OUT_DIR/b/*.png: 40x40 images from two different
distributions, RGB plus one grayscale image in each folder (pytorch-fid converts
to RGB, as HamGAN does). Then runs pytorch-fid's `main()` (what `python -m
pytorch_fid A B` runs) with its one download, the FID Inception weights,
replaced by loading WEIGHTS.pth (random weights made by inception_reference.py),
and writes the FID it prints to OUT_DIR/fid.txt.
"""
import contextlib
import io
import os
import sys

try:
    import numpy as np
    import torch
    from PIL import Image
    import pytorch_fid.fid_score as fs
    import pytorch_fid.inception as pi
except ImportError as e:
    print(f"missing test package ({e}); scripts/install_deps.sh installs pytorch-fid")
    sys.exit(3)

weights, out = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)
for name, smooth in (("a", False), ("b", True)):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    for i in range(16):
        x = rng.integers(0, 256, (40, 40, 3)).astype(np.float64)
        if smooth:  # a different distribution: low-pass noise plus a ramp
            x = (x + np.roll(x, 1, 0) + np.roll(x, 1, 1) + np.roll(x, (1, 1), (0, 1))) / 4
            x = 0.5 * x + 2.0 * np.arange(40)[None, :, None]
        img = Image.fromarray(np.clip(x, 0, 255).astype(np.uint8))
        if i == 3:
            img = img.convert("L")
        img.save(os.path.join(d, f"{i:03d}.png"))

pi.load_state_dict_from_url = lambda *args, **kwargs: torch.load(weights)
torch.set_num_threads(2)
sys.argv = ["pytorch-fid", "--device", "cpu", "--num-workers", "0", "--batch-size", "16",
            os.path.join(out, "a"), os.path.join(out, "b")]
printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    fs.main()
line = [l for l in printed.getvalue().splitlines() if l.startswith("FID:")]
if not line:
    print("pytorch-fid printed no FID:\n" + printed.getvalue())
    sys.exit(1)
with open(os.path.join(out, "fid.txt"), "w") as f:
    f.write(line[0].split(":", 1)[1].strip() + "\n")
print(line[0])
