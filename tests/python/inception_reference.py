"""Inception references (tests/metrics/inception_test.cpp), all on random weights.

Writes into DIR:
  weights.pth         pytorch-fid's FID Inception state dict (random, seeded), torch.save zip
  weights_legacy.pth  the same in PyTorch's legacy (pre-1.6) format
  mimic.pt            TorchScript module with the interface of NVIDIA's
                      inception-2015-12-05.pt (docs/metrics.md, "Sources"): forward(img 0..255,
                      return_features, use_fp16, no_output_bias) with the internal
                      affine_grid/grid_sample resize, submodules `layers` and `output`
  ref.npz             images (uint8), pytorch-fid features + bias-free logits,
                      TorchScript features (internal resize and clean resize),
                      resize references: TF1 bilinear (torch-fidelity), PIL bicubic
                      in float mode (clean-fid), the TorchScript grid_sample resize.
"""
import sys
import numpy as np

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import pytorch_fid.inception as pi
    from torch_fidelity.interpolate_compat_tensorflow import interpolate_bilinear_2d_like_tensorflow1x
    from PIL import Image
except ImportError as e:
    print(f"missing test package ({e}); scripts/install_deps.sh installs pytorch-fid and torch-fidelity")
    sys.exit(3)

d = sys.argv[1]
torch.manual_seed(0)
torch.set_num_threads(2)


def random_fid_state_dict():
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
    g = torch.Generator().manual_seed(42)
    sd = {}
    for k, v in net.state_dict().items():
        if k.endswith("num_batches_tracked"):
            continue  # the released port has none; they carry no weights
        if v.dim() == 4:  # conv: He-scaled so activations stay O(1)
            fan_in = v[0].numel()
            v = torch.randn(v.shape, generator=g) * (2.0 / fan_in) ** 0.5
        elif k.endswith("running_var") or (k.endswith("weight") and v.dim() == 1):
            v = 0.8 + 0.4 * torch.rand(v.shape, generator=g)
        elif v.dim() == 1:
            v = 0.05 * torch.randn(v.shape, generator=g)
        else:  # fc weight
            v = 0.02 * torch.randn(v.shape, generator=g)
        sd[k] = v.contiguous()
    return sd


sd = random_fid_state_dict()
torch.save(sd, f"{d}/weights.pth")
torch.save(sd, f"{d}/weights_legacy.pth", _use_new_zipfile_serialization=False)
pi.load_state_dict_from_url = lambda *a, **k: sd  # pytorch-fid then loads our random weights
model = pi.InceptionV3([3], resize_input=True, normalize_input=True, use_fid_inception=True).eval()

images = torch.randint(0, 256, (2, 3, 40, 48), generator=torch.Generator().manual_seed(5), dtype=torch.uint8)
with torch.no_grad():
    feats = model(images.float() / 255.0)[0].reshape(2, 2048)  # pytorch-fid: ToTensor → model
logits = feats @ sd["fc.weight"].t()


class Layers(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 5, stride=4)
        self.proj = nn.Conv2d(16, 2048, 1)

    def forward(self, x):
        return self.proj(F.adaptive_avg_pool2d(torch.relu(self.conv(x)), 1))


class Mimic(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = Layers()
        self.output = nn.Linear(2048, 1008)

    def forward(self, img, return_features: bool = False, use_fp16: bool = False, no_output_bias: bool = False):
        batch_size, channels, height, width = img.shape
        assert channels == 3
        x = img.to(torch.float32)
        theta = torch.eye(2, 3, device=x.device)
        theta[0, 2] += theta[0, 0] / width - theta[0, 0] / 299
        theta[1, 2] += theta[1, 1] / height - theta[1, 1] / 299
        theta = theta.to(x.dtype).unsqueeze(0).repeat([batch_size, 1, 1])
        grid = F.affine_grid(theta, [batch_size, channels, 299, 299], align_corners=False)
        x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
        x = (x - 128) / 128
        features = self.layers(x).reshape(-1, 2048)
        if return_features:
            return features
        if no_output_bias:
            logits = F.linear(features, self.output.weight)
        else:
            logits = self.output(features)
        return F.softmax(logits, dim=1)


mimic = torch.jit.script(Mimic().eval())
mimic.save(f"{d}/mimic.pt")


def grid_resize(img):  # the TorchScript module's internal resize, kept as a reference
    b, c, h, w = img.shape
    theta = torch.eye(2, 3)
    theta[0, 2] += 1.0 / w - 1.0 / 299
    theta[1, 2] += 1.0 / h - 1.0 / 299
    grid = F.affine_grid(theta.unsqueeze(0).repeat(b, 1, 1), [b, c, 299, 299], align_corners=False)
    return F.grid_sample(img.float(), grid, mode="bilinear", padding_mode="border", align_corners=False)


def pil_bicubic(img, size=299):  # clean-fid's resize: PIL bicubic per channel in 'F' mode, clipped
    out = []
    for im in img.numpy():
        chans = [np.asarray(Image.fromarray(ch.astype(np.float32), mode="F").resize((size, size), Image.BICUBIC))
                 for ch in im]
        out.append(np.clip(np.stack(chans), 0, 255))
    return torch.from_numpy(np.stack(out))


big = torch.randint(0, 256, (1, 3, 331, 420), generator=torch.Generator().manual_seed(6), dtype=torch.uint8)
with torch.no_grad():
    ts_feats_tf = mimic(images, return_features=True)
    ts_feats_clean = mimic.layers((pil_bicubic(images) - 128) / 128).reshape(-1, 2048)
ts_logits = ts_feats_tf @ mimic.output.weight.t()
np.savez(f"{d}/ref.npz", images=images.numpy(), features=feats.numpy(), logits=logits.numpy(),
         ts_features_tf=ts_feats_tf.detach().numpy(), ts_features_clean=ts_feats_clean.detach().numpy(),
         ts_logits=ts_logits.detach().numpy(), big=big.numpy(),
         tf1_small=interpolate_bilinear_2d_like_tensorflow1x(images.float(), size=(299, 299), align_corners=False).numpy(),
         tf1_big=interpolate_bilinear_2d_like_tensorflow1x(big.float(), size=(299, 299), align_corners=False).numpy(),
         grid_small=grid_resize(images).numpy(), grid_big=grid_resize(big).numpy(),
         pil_small=pil_bicubic(images).numpy(), pil_big=pil_bicubic(big).numpy())
print("wrote", d)
