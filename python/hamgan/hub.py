"""Generators from a folder in the Hugging Face Hub's model layout (`hamgan export RUN --hub DIR`) or from a
Hub repository holding one:

    G = hamgan.from_pretrained("runs/fmnist_ham_hub")            # a local folder
    G = hamgan.from_pretrained("user/hamgan-fmnist", revision="v1")  # a Hub repository, through huggingface_hub

A repository is fetched by huggingface_hub's snapshot_download (model.safetensors and config.json only),
which honours HF_HUB_OFFLINE=1 and HF_HUB_CACHE / HF_HOME, so a compute node without network loads what an
earlier download, or a copied cache, holds. config.json must agree with the model text inside
model.safetensors, the one the loader builds from: a folder whose two disagree is refused."""
import json
import os

from .config import model_config, parse_model_text
from .checked_read import read_header
from .io import load_discriminator, load_generator

WEIGHTS, CONFIG = "model.safetensors", "config.json"


def _snapshot(repo_id, revision):
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise ValueError(f"{repo_id}: not a local folder, and loading from the Hub needs huggingface_hub "
                         f"(pip install huggingface_hub)") from None
    try:
        return snapshot_download(repo_id, revision=revision, allow_patterns=[WEIGHTS, CONFIG])
    except Exception as e:  # noqa: BLE001: huggingface_hub's errors (offline, unknown repo) as one line
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise ValueError(f"{repo_id}: cannot get it from the Hub or its cache ({first})") from None


def resolve_folder(path_or_repo_id, revision=None):
    """The local folder holding model.safetensors and config.json."""
    folder = os.fspath(path_or_repo_id)
    if not os.path.isdir(folder):
        if os.path.exists(folder) or folder.count("/") != 1:
            raise ValueError(f"{folder}: neither a folder written by `hamgan export --hub` nor a Hub repository "
                             f"id (owner/name)")
        folder = _snapshot(folder, revision)
    for name in (WEIGHTS, CONFIG):
        if not os.path.isfile(os.path.join(folder, name)):
            raise ValueError(f"{path_or_repo_id}: has no {name}; export the run with `hamgan export RUN --hub DIR`")
    return folder


def _check_config(folder):
    path = os.path.join(folder, CONFIG)
    try:
        with open(path) as f:
            written = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not readable JSON ({e}); re-export the run") from None
    if not isinstance(written, dict):
        raise ValueError(f"{path}: expected a JSON object of model keys")
    metadata, _ = read_header(os.path.join(folder, WEIGHTS))
    inside = parse_model_text(metadata.get("model", ""))
    declared = model_config({k: v for k, v in written.items() if k != "library_name"})
    differing = [k for k in inside if declared[k] != inside[k]]
    if differing:
        k = differing[0]
        raise ValueError(f"{path}: {k} = {declared[k]!r} but model.safetensors was exported with {inside[k]!r}; "
                         f"the folder was edited, re-export it")


def from_pretrained(path_or_repo_id, revision=None, device="cpu", discriminator=False):
    """The generator (or, with discriminator=True, the discriminator of a folder exported with --with_d) of
    a Hub-layout folder or repository, in eval mode without gradients."""
    folder = resolve_folder(path_or_repo_id, revision)
    _check_config(folder)
    load = load_discriminator if discriminator else load_generator
    return load(os.path.join(folder, WEIGHTS), device)
