"""A seeded folder of ImageNet-like JPEGs for timing `hamgan prepare`.

ImageNet train layout, root/<class>/<class>_<i>.JPEG; sizes around 500×375 (a
quarter portrait), content of smooth gradients, filled shapes and texture
noise so that quality-90 files weigh about what ImageNet's do (100-150 KB).
    python bench/python/make_jpeg_folder.py OUT_DIR [--images 3000] [--classes 10] [--seed 0]
"""
import argparse
import os

import numpy as np
from PIL import Image, ImageDraw, ImageFilter


def make_image(rng):
    w, h = int(rng.integers(440, 521)), int(rng.integers(330, 391))
    if rng.random() < 0.25:
        w, h = h, w  # portrait
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # Smooth background: a colour gradient plus a few low-frequency waves.
    base = rng.uniform(40, 215, 3).astype(np.float32)
    slope = rng.uniform(-0.25, 0.25, (3, 2)).astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    for c in range(3):
        img[..., c] = base[c] + slope[c, 0] * (xx - w / 2) + slope[c, 1] * (yy - h / 2)
        for _ in range(2):
            f = rng.uniform(0.005, 0.04, 2)
            img[..., c] += rng.uniform(10, 30) * np.sin(f[0] * xx + f[1] * yy + rng.uniform(0, 6.3))
    pil = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(pil)
    for _ in range(int(rng.integers(6, 14))):  # objects with sharp edges
        x0, y0 = rng.integers(-50, w), rng.integers(-50, h)
        x1, y1 = x0 + rng.integers(20, 220), y0 + rng.integers(20, 220)
        fill = tuple(int(v) for v in rng.integers(0, 256, 3))
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)([x0, y0, x1, y1], fill=fill)
    pil = pil.filter(ImageFilter.GaussianBlur(float(rng.uniform(0.5, 1.5))))
    # Texture: fine-grained noise, correlated a little across channels, as in photographs.
    arr = np.asarray(pil).astype(np.float32)
    sigma = float(rng.uniform(24, 36))
    grain = rng.normal(0, sigma, (h, w, 1)) + rng.normal(0, sigma / 2, (h, w, 3))
    return Image.fromarray(np.clip(arr + grain, 0, 255).astype(np.uint8))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--images", type=int, default=3000)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quality", type=int, default=90)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    total = 0
    for i in range(a.images):
        cls = "n%08d" % (1000000 + i % a.classes)
        os.makedirs(os.path.join(a.out, cls), exist_ok=True)
        path = os.path.join(a.out, cls, "%s_%d.JPEG" % (cls, i // a.classes))
        make_image(rng).save(path, quality=a.quality)
        total += os.path.getsize(path)
    print(f"{a.out}: {a.images} JPEGs in {a.classes} classes, {total / a.images / 1024:.0f} KB on average")


if __name__ == "__main__":
    main()
