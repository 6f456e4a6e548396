"""Whether an augmentation leaked into the generator's samples (docs/results-recipe.md).

DiffAugment's translation pads with 0 and its cutout fills a square with 0, both in the
model's [-1, 1] range: mid-grey (127.5) pixels. Fashion-MNIST has black backgrounds and a
black 2-pixel frame (28x28 zero-padded to 32x32), so leaked augmentation shows as grey
frames and grey squares; leaked colour jitter as shifted brightness and contrast. Each
statistic is computed for the real images and for every sample file given; a leak is a
sample statistic far from the data's.

  python augment_leakage.py --reals /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz \\
      --samples name1=s1.npz name2=s2.npz [--json out.json]
"""
import argparse
import gzip
import json

import numpy as np

GREY_LOW, GREY_HIGH = 112, 143  # 127.5 +- 0.125 in [-1, 1] units
SQUARE = 8  # side of the grey square that counts as a hole (the cutout at 32 is 16)


def read_idx_images(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    n, rows, cols = (int.from_bytes(data[i:i + 4], "big") for i in (4, 8, 12))
    images = np.frombuffer(data, np.uint8, offset=16).reshape(n, rows, cols)
    return np.pad(images, ((0, 0), (2, 2), (2, 2)))  # as HamGAN pads 28 to 32


def grey_square_rate(images):
    """Fraction of images holding a SQUARE x SQUARE block whose pixels are all mid-grey."""
    grey = ((images >= GREY_LOW) & (images <= GREY_HIGH)).astype(np.int32)
    # Summed-area table: a block is all grey when its count equals its area.
    table = np.pad(grey.cumsum(1).cumsum(2), ((0, 0), (1, 0), (1, 0)))
    k = SQUARE
    counts = table[:, k:, k:] - table[:, :-k, k:] - table[:, k:, :-k] + table[:, :-k, :-k]
    return float((counts == k * k).any(axis=(1, 2)).mean())


def frame_stats(images):
    frame = np.concatenate([images[:, :2, :].reshape(len(images), -1), images[:, -2:, :].reshape(len(images), -1),
                            images[:, :, :2].reshape(len(images), -1), images[:, :, -2:].reshape(len(images), -1)], 1)
    grey = (frame >= GREY_LOW) & (frame <= GREY_HIGH)
    return float(frame.mean()), float(grey.mean())


def statistics(images):
    images = images.astype(np.float64) if images.dtype != np.uint8 else images
    frame_mean, frame_grey = frame_stats(images)
    per_image_mean = images.reshape(len(images), -1).mean(1)
    per_image_std = images.reshape(len(images), -1).std(1)
    return {
        "n": int(len(images)),
        "frame_mean": frame_mean,
        "frame_grey_fraction": frame_grey,
        "grey_square_rate": grey_square_rate(images.astype(np.uint8)),
        "brightness_mean": float(per_image_mean.mean()),
        "brightness_std": float(per_image_mean.std()),
        "contrast_mean": float(per_image_std.mean()),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reals", required=True, help="IDX images (.gz) of the training data")
    ap.add_argument("--samples", nargs="+", default=[], help="NAME=FILE.npz from hamgan sample (x uint8 NxCxHxW)")
    ap.add_argument("--json", help="write the table here as JSON")
    args = ap.parse_args()
    rows = {"data": statistics(read_idx_images(args.reals))}
    for spec in args.samples:
        name, path = spec.split("=", 1)
        x = np.load(path)["x"]
        rows[name] = statistics(x[:, 0])
    keys = list(rows["data"].keys())
    print("| images | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for name, r in rows.items():
        print(f"| {name} | " + " | ".join(f"{r[k]:.4g}" if isinstance(r[k], float) else str(r[k]) for k in keys) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
