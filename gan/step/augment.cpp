#include "gan/step/augment.h"

#include <algorithm>
#include <utility>

#include "core/errors.h"

namespace hamgan {

const EnumNames<AugmentMode>& augment_mode_names() {
  static const EnumNames<AugmentMode> names(
      "augment", {{AugmentMode::kNone, "none"}, {AugmentMode::kDiffAug, "diffaug"}, {AugmentMode::kAda, "ada"}});
  return names;
}

const EnumNames<AugmentOp>& augment_op_names() {
  static const EnumNames<AugmentOp> names(
      "augment_policy",
      {{AugmentOp::kColor, "color"}, {AugmentOp::kTranslation, "translation"}, {AugmentOp::kCutout, "cutout"}});
  return names;
}

namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  return first == std::string::npos ? "" : s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

bool has(const AugmentPolicy& policy, AugmentOp op) {
  return std::find(policy.begin(), policy.end(), op) != policy.end();
}

torch::Tensor moved(const torch::Tensor& t, torch::Device device) {
  if (!t.defined() || t.device() == device) return t;
  if (device.is_cuda() && t.is_cpu()) return (t.is_pinned() ? t : t.pin_memory()).to(device, /*non_blocking=*/true);
  return t.to(device);
}

torch::Tensor sliced(const torch::Tensor& t, int64_t from, int64_t to) {
  return t.defined() ? t.slice(0, from, to) : t;
}

// The images where transform t is drawn, as (N, 1, 1, 1) for broadcasting over pixels.
torch::Tensor applied(const AugmentDraws& d, AugmentTransform t) { return d.apply.select(1, t).view({-1, 1, 1, 1}); }

torch::Tensor per_image(const torch::Tensor& v, const torch::Tensor& x) { return v.to(x.dtype()).view({-1, 1, 1, 1}); }

torch::Tensor color(const torch::Tensor& x0, const AugmentDraws& d) {
  torch::Tensor x = torch::where(applied(d, kBrightness), x0 + per_image(d.brightness, x0), x0);
  const torch::Tensor pixel_mean = x.mean(1, /*keepdim=*/true);
  x = torch::where(applied(d, kSaturation), (x - pixel_mean) * per_image(d.saturation, x) + pixel_mean, x);
  const torch::Tensor image_mean = x.mean({1, 2, 3}, /*keepdim=*/true);
  return torch::where(applied(d, kContrast), (x - image_mean) * per_image(d.contrast, x) + image_mean, x);
}

// out(i, j) = in(i + dy, j + dx) where that lies inside the image, else 0: one gather
// over the flattened pixels and a mask. An image without the transform gets shift 0.
torch::Tensor translation(const torch::Tensor& x, const AugmentDraws& d) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const auto longs = torch::TensorOptions().dtype(torch::kLong).device(x.device());
  const torch::Tensor shift = d.shift * d.apply.select(1, kTranslate).unsqueeze(1);
  const torch::Tensor rows = torch::arange(h, longs).unsqueeze(0) + shift.select(1, 0).unsqueeze(1);  // (N, H)
  const torch::Tensor cols = torch::arange(w, longs).unsqueeze(0) + shift.select(1, 1).unsqueeze(1);  // (N, W)
  const torch::Tensor inside = ((rows >= 0) & (rows < h)).unsqueeze(2) & ((cols >= 0) & (cols < w)).unsqueeze(1);
  const torch::Tensor source = rows.clamp(0, h - 1).unsqueeze(2) * w + cols.clamp(0, w - 1).unsqueeze(1);
  const torch::Tensor moved_pixels =
      x.reshape({n, c, h * w}).gather(2, source.view({n, 1, h * w}).expand({n, c, h * w})).view({n, c, h, w});
  return moved_pixels * inside.unsqueeze(1).to(x.dtype());
}

// The cells of [start, start + side) on an axis of `length`, per image: (N, length).
torch::Tensor covered(const torch::Tensor& start, int64_t side, int64_t length) {
  const torch::Tensor at = torch::arange(length, start.options()).unsqueeze(0);
  return (at >= start.unsqueeze(1)) & (at < start.unsqueeze(1) + side);
}

torch::Tensor cutout(const torch::Tensor& x, const AugmentDraws& d) {
  const int64_t h = x.size(2), w = x.size(3), ch = cutout_side(h), cw = cutout_side(w);
  const torch::Tensor rows = covered(d.cutout_offset.select(1, 0) - ch / 2, ch, h);
  const torch::Tensor cols = covered(d.cutout_offset.select(1, 1) - cw / 2, cw, w);
  const torch::Tensor hole = rows.unsqueeze(2) & cols.unsqueeze(1) & d.apply.select(1, kCutoutSquare).view({-1, 1, 1});
  return x * hole.logical_not().unsqueeze(1).to(x.dtype());
}

}  // namespace

AugmentPolicy parse_augment_policy(const std::string& text) {
  const auto& names = augment_op_names();
  AugmentPolicy policy;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find(',', begin), text.size());
    const std::string name = trimmed(text.substr(begin, end - begin));
    begin = end + 1;
    if (name.empty()) {
      if (text.find_first_not_of(" \t") == std::string::npos) break;  // all blank: reported below
      throw ConfigError("augment_policy: an empty entry in '" + text + "'; list " + names.names_text() +
                        ", separated by commas");
    }
    const AugmentOp op = names.parse(name);
    if (has(policy, op))
      throw ConfigError("augment_policy: '" + name + "' is listed twice in '" + text + "'; name each of " +
                        names.names_text() + " at most once");
    policy.push_back(op);
  }
  if (policy.empty())
    throw ConfigError("augment_policy: no operation named; list some of " + names.names_text() +
                      ", separated by commas (e.g. \"" + kDefaultAugmentPolicy + "\")");
  return policy;
}

std::string augment_policy_text(const AugmentPolicy& policy) {
  std::string s;
  for (const AugmentOp op : policy) s += (s.empty() ? "" : ",") + augment_op_names().name(op);
  return s;
}

int64_t max_translation(int64_t side) { return static_cast<int64_t>(side * kTranslationRatio + 0.5); }
int64_t cutout_side(int64_t side) { return static_cast<int64_t>(side * kCutoutRatio + 0.5); }

int64_t AugmentDraws::size() const { return apply.defined() ? apply.size(0) : 0; }

AugmentDraws AugmentDraws::rows(int64_t from, int64_t to) const {
  if (from < 0 || from > to || to > size())
    throw Error("augment draws: rows [" + std::to_string(from) + ", " + std::to_string(to) + ") outside the " +
                std::to_string(size()) + " drawn");
  AugmentDraws out = *this;
  for (torch::Tensor* t : {&out.brightness, &out.saturation, &out.contrast, &out.shift, &out.cutout_offset, &out.apply})
    *t = sliced(*t, from, to);
  return out;
}

AugmentDraws AugmentDraws::to(torch::Device device) const {
  AugmentDraws out = *this;
  for (torch::Tensor* t : {&out.brightness, &out.saturation, &out.contrast, &out.shift, &out.cutout_offset, &out.apply})
    *t = moved(*t, device);
  return out;
}

AugmentDraws draw_augment(const AugmentPolicy& policy, int64_t n, int64_t height, int64_t width, double p,
                          at::Generator& gen, torch::Device device) {
  if (n < 0 || height < 1 || width < 1)
    throw Error("augment draws: " + std::to_string(n) + " images of " + std::to_string(height) + "x" +
                std::to_string(width) + "; need a non-negative count and positive sides");
  if (!(p >= 0 && p <= 1)) throw Error("augment draws: probability " + std::to_string(p) + " outside [0, 1]");
  AugmentDraws d;
  d.policy = policy;
  d.height = height;
  d.width = width;
  const auto host = torch::TensorOptions().pinned_memory(device.is_cuda());
  const auto uniform = [&](double from, double to) { return torch::empty({n}, host).uniform_(from, to, gen); };
  // Rows then columns, each integer uniform in [from, to_inclusive] of its axis.
  const auto integer_pairs = [&](std::pair<int64_t, int64_t> rows, std::pair<int64_t, int64_t> cols) {
    torch::Tensor t = torch::empty({n, 2}, host.dtype(torch::kLong));
    t.select(1, 0).random_(rows.first, rows.second + 1, gen);
    t.select(1, 1).random_(cols.first, cols.second + 1, gen);
    return t;
  };
  for (const AugmentOp op : policy) {
    if (op == AugmentOp::kColor) {
      d.brightness = uniform(-0.5, 0.5);
      d.saturation = uniform(0, 2);
      d.contrast = uniform(0.5, 1.5);
    } else if (op == AugmentOp::kTranslation) {
      const int64_t sy = max_translation(height), sx = max_translation(width);
      d.shift = integer_pairs({-sy, sy}, {-sx, sx});
    } else {
      d.cutout_offset = integer_pairs({0, height - cutout_side(height) % 2}, {0, width - cutout_side(width) % 2});
    }
  }
  // uniform_ on [0, 1) never yields 1, so p = 1 applies every transform and p = 0 none.
  const torch::Tensor u = torch::empty({n, int64_t{kAugmentTransforms}}, host).uniform_(0, 1, gen);
  d.apply = torch::empty(u.sizes(), host.dtype(torch::kBool));
  torch::lt_out(d.apply, u, p);
  return d.to(device);
}

torch::Tensor apply_augment(const torch::Tensor& images, const AugmentDraws& draws) {
  if (draws.policy.empty()) return images;
  if (images.dim() != 4 || !images.is_floating_point())
    throw Error("augment: images must be floating-point NCHW, got " + std::to_string(images.dim()) + " dimensions");
  if (images.size(0) != draws.size() || images.size(2) != draws.height || images.size(3) != draws.width)
    throw Error("augment: draws for " + std::to_string(draws.size()) + " images of " + std::to_string(draws.height) +
                "x" + std::to_string(draws.width) + " given " + std::to_string(images.size(0)) + " of " +
                std::to_string(images.size(2)) + "x" + std::to_string(images.size(3)) + "; draw for this batch");
  if (draws.apply.device() != images.device())
    throw Error("augment: draws on " + draws.apply.device().str() + ", images on " + images.device().str() +
                "; move the draws with AugmentDraws::to");
  torch::Tensor x = images;
  for (const AugmentOp op : draws.policy) {
    if (op == AugmentOp::kColor) x = color(x, draws);
    else if (op == AugmentOp::kTranslation) x = translation(x, draws);
    else x = cutout(x, draws);
  }
  return x;
}

}  // namespace hamgan
