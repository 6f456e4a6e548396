"""A `hamgan export --hub` folder read by the tools that read Hub models (tests/export/hub_export_test.cpp).

    hub_folder_check.py HUB RUN SAMPLES_NPZ TMP WITH_D_HUB

- The card through huggingface_hub's ModelCard: library_name, license, datasets, and one eval result per
  number of the run's last evaluation row in RUN/metrics.jsonl (read here with json), value and protocol;
  its class table equals torchvision's FashionMNIST.classes.
- config.json equals the model text inside model.safetensors; the copies equal the run's files.
- hamgan.from_pretrained on the folder, on a Hub cache this script lays out (HF_HUB_OFFLINE=1, by repo id
  and by commit), and torch.hub.load(source="local") give `hamgan sample --float`'s images (SAMPLES_NPZ: x,
  y, z; seed 3, one batch).
- WITH_D_HUB (exported with --with_d): from_pretrained(discriminator=True) gives D, whose raw weights are
  those of the run's checkpoint as `hamgan export --with_d --out` writes them; HUB has no D to give.
- A folder whose config.json was edited, and an absent repository, are one-line ValueErrors.
"""
import os
import shutil
import sys

TMP = sys.argv[4]
os.environ["HF_HUB_CACHE"] = os.path.join(TMP, "hf_cache")  # read when huggingface_hub is imported
os.environ["HF_HUB_OFFLINE"] = "1"

try:
    import json

    import huggingface_hub
    import numpy as np
    import torch
except ImportError as e:
    print(f"missing test package ({e}); scripts/install_deps.sh installs huggingface_hub (with timm), numpy, torch")
    sys.exit(3)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
import hamgan  # noqa: E402
from hamgan.checked_read import read_header  # noqa: E402
from hamgan.config import parse_model_text  # noqa: E402

torch.set_num_threads(2)
HUB, RUN, SAMPLES, WITH_D = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[5]
REPO, COMMIT = "hamgan-test/fmnist", "0123456789abcdef0123456789abcdef01234567"
problems = []


def check(ok, what):
    if not ok:
        problems.append(what)


def last_evaluation():
    with open(os.path.join(RUN, "metrics.jsonl")) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r for r in rows if "protocol" in r][-1]


def check_card():
    card = huggingface_hub.ModelCard.load(os.path.join(HUB, "README.md"))
    data = card.data
    check(data.library_name == "hamgan", f"library_name {data.library_name}")
    check(data.license == "mit", f"license {data.license}")
    check(data.datasets == ["zalando-datasets/fashion_mnist"], f"datasets {data.datasets}")
    row = last_evaluation()
    numbers = {k: v for k, v in row.items() if k != "step" and isinstance(v, (int, float))}
    results = {r.metric_type: r for r in (data.eval_results or [])}
    check(sorted(results) == sorted(numbers), f"eval results {sorted(results)} != the row's {sorted(numbers)}")
    for key, value in numbers.items():
        r = results.get(key)
        if r is None:
            continue
        check(r.metric_value == value, f"{key}: card {r.metric_value} != metrics.jsonl {value}")
        args = r.metric_args or {}
        check(args.get("protocol") == row["protocol"] and args.get("step") == row["step"],
              f"{key}: protocol or step differ: {args}")
    # The card's Fashion-MNIST names against torchvision's list of the same data set's classes.
    from torchvision.datasets import FashionMNIST

    table = card.text.split("## Classes", 1)[-1].split("##", 1)[0]
    names = [line.split("|")[2].strip() for line in table.splitlines() if line.startswith("| ") and
             line.split("|")[1].strip().isdigit()]
    check(names == list(FashionMNIST.classes), f"class names {names} != torchvision's {FashionMNIST.classes}")
    print(f"card: {len(numbers)} metrics of step {row['step']} equal metrics.jsonl")


def check_files():
    with open(os.path.join(HUB, "config.json")) as f:
        written = json.load(f)
    metadata, _ = read_header(os.path.join(HUB, "model.safetensors"))
    inside = parse_model_text(metadata["model"])
    check({k: v for k, v in written.items() if k != "library_name"} == inside, f"config.json {written} != {inside}")
    for name in ("metrics.jsonl", "config.toml", "samples/step_0000002.png"):
        with open(os.path.join(HUB, name), "rb") as a, open(os.path.join(RUN, name), "rb") as b:
            check(a.read() == b.read(), f"{name} differs from the run's")
    events = [n for n in os.listdir(RUN) if n.startswith("events.out.tfevents.")]
    check(events and all(os.path.isfile(os.path.join(HUB, n)) for n in events), f"events {events} not copied")


def lay_out_cache():
    """The Hub cache as snapshot_download leaves it: refs/main names the commit, snapshots/<commit>/ the files."""
    repo = os.path.join(os.environ["HF_HUB_CACHE"], "models--" + REPO.replace("/", "--"))
    snapshot = os.path.join(repo, "snapshots", COMMIT)
    os.makedirs(snapshot)
    os.makedirs(os.path.join(repo, "refs"))
    with open(os.path.join(repo, "refs", "main"), "w") as f:
        f.write(COMMIT)
    for name in ("model.safetensors", "config.json"):
        shutil.copy(os.path.join(HUB, name), snapshot)


def check_loaders():
    f = np.load(SAMPLES)
    x, y, z = torch.from_numpy(f["x"]), torch.from_numpy(f["y"]), torch.from_numpy(f["z"])
    lay_out_cache()
    loaders = {
        "folder": lambda: hamgan.from_pretrained(HUB),
        "offline cache": lambda: hamgan.from_pretrained(REPO),
        "offline cache at a commit": lambda: hamgan.from_pretrained(REPO, revision=COMMIT),
        "torch.hub": lambda: torch.hub.load(ROOT, "generator", source="local", weights=HUB, trust_repo=True),
    }
    for name, load in loaders.items():
        G = load()
        torch.manual_seed(3)  # `hamgan sample --seed 3` seeds the Hamburger's bases before its first batch
        with torch.no_grad():
            delta = (G(z, y) - x).abs().max().item()
        check(delta <= 1e-6, f"{name}: max |G - hamgan sample| = {delta:.3g}")
        print(f"{name}: max |G - hamgan sample --float| = {delta:.3g}")


def check_discriminator():
    D = hamgan.from_pretrained(WITH_D, discriminator=True)
    from safetensors.torch import load_file

    tensors = load_file(os.path.join(WITH_D, "model.safetensors"))
    state = D.state_dict()
    check(all(torch.equal(state[k[2:]], v) for k, v in tensors.items() if k.startswith("D.")) and
          sum(k.startswith("D.") for k in tensors) == len(state), "D's tensors differ from the file's")
    try:
        hamgan.from_pretrained(HUB, discriminator=True)
        problems.append("a folder without D gave a discriminator")
    except ValueError as e:
        check("--with_d" in str(e), f"no-D folder: {e}")
    print(f"discriminator: {len(state)} tensors from the --with_d folder")


def check_refusals():
    edited = os.path.join(TMP, "edited_hub")
    shutil.copytree(HUB, edited)
    with open(os.path.join(edited, "config.json")) as f:
        config = json.load(f)
    config["g_ch"] += 1
    with open(os.path.join(edited, "config.json"), "w") as f:
        json.dump(config, f)
    for what, target in (("edited config.json", edited), ("absent repository", "hamgan-test/absent")):
        try:
            hamgan.from_pretrained(target)
            problems.append(f"{what}: loaded")
        except ValueError as e:
            text = str(e)
            word = "g_ch" if what.startswith("edited") else "hamgan-test/absent"
            check("\n" not in text and word in text, f"{what}: {text!r}")


def main():
    check_card()
    check_files()
    check_loaders()
    check_discriminator()
    check_refusals()
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
