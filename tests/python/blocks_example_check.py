"""The hamgan.blocks example in docs/interop.md, run as written (tests/interop/python_package_test.cpp),
and the typed options of the public blocks.

The python block after `<!-- example: blocks -->` is executed with the package on the path. It must train:
the Hamburger's sigma leaves 0, both SN breads end with non-zero gradients and weights other than the ones
the same seed builds, and both losses are finite. The option classes must hold exactly the model keys of
their block with the C++ defaults (hamgan.config's table, which `PythonPackage.MirrorsModelFields` checks
against the binary), read values as a config file's are read, and refuse a bad one in one line naming it.
"""
import math
import os
import sys

try:
    import torch
except ImportError as e:
    print(f"missing test package ({e}); scripts/install_deps.sh installs torch")
    sys.exit(3)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
torch.set_num_threads(2)
MARK = "<!-- example: blocks -->"


def example_code():
    with open(os.path.join(ROOT, "docs", "interop.md")) as f:
        text = f.read()
    if MARK not in text:
        raise SystemExit(f"FAIL: docs/interop.md has no {MARK}")
    return text.split(MARK, 1)[1].split("```python\n", 1)[1].split("```", 1)[0]


def option_problems():
    from hamgan.blocks import ExternalAttention, ExternalAttentionOptions, HamburgerBlock, HamburgerOptions
    from hamgan.config import DEFAULTS

    problems = []
    for cls, prefix in ((HamburgerOptions, "ham_"), (ExternalAttentionOptions, "ea_")):
        keys = cls().model_keys()
        wanted = {k: v for k, v in DEFAULTS.items() if k.startswith(prefix)}
        if keys != wanted:
            problems.append(f"{cls.__name__}() gives {keys}, not the defaults {wanted}")
    if HamburgerOptions(gradient="one_step", temperature=1).model_keys()["ham_gradient"] != "one-step":
        problems.append("the gradient alias one_step is not read as one-step")
    for make, word in ((lambda: HamburgerOptions(train_steps=0), "train_steps must be >= 1"),
                       (lambda: HamburgerOptions(type="svd"), "type must be one of"),
                       (lambda: HamburgerOptions(rank="4"), "rank = '4' is not an integer"),
                       (lambda: ExternalAttentionOptions(heads=0), "heads must be >= 1"),
                       (lambda: HamburgerBlock(16, ExternalAttentionOptions()), "must be a HamburgerOptions"),
                       (lambda: ExternalAttention(48, ExternalAttentionOptions(heads=5)), "not divisible")):
        try:
            make()
            problems.append(f"accepted: expected '{word}'")
        except ValueError as e:
            if word not in str(e) or "\n" in str(e):
                problems.append(f"error {str(e)!r} does not say '{word}' in one line")
    block = HamburgerBlock(32, HamburgerOptions(rank=3, train_steps=2))
    if block.rank != 3 or block.train_steps != 2:
        problems.append(f"the options did not reach the block: rank {block.rank}, K {block.train_steps}")
    return problems


def main():
    namespace = {"__name__": "docs_example"}
    exec(compile(example_code(), "docs/interop.md (example: blocks)", "exec"), namespace)
    G, TinyGenerator = namespace["G"], namespace["TinyGenerator"]
    torch.manual_seed(0)
    initial = TinyGenerator()  # the example builds G right after manual_seed(0)
    problems = option_problems()
    if not G.ham.sigma.item() != 0:
        problems.append("sigma is still 0 after training")
    for bread in ("lower", "upper"):
        trained, start = getattr(G.ham, bread).weight, getattr(initial.ham, bread).weight
        if trained.grad is None or not trained.grad.abs().sum() > 0:
            problems.append(f"the {bread} bread has no gradient")
        if torch.equal(trained, start):
            problems.append(f"the {bread} bread did not move")
    for name in ("d_loss", "g_loss"):
        if not math.isfinite(namespace[name].item()):
            problems.append(f"{name} is {namespace[name].item()}")
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print(f"the example trained: sigma {G.ham.sigma.item():+.4f}, d_loss {namespace['d_loss'].item():.3f}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
