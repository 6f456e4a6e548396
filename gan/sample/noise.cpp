#include "gan/sample/noise.h"

#include <cmath>

#include "core/errors.h"
#include "core/rng.h"
#include "gan/sample/label_draw.h"

namespace hamgan {

torch::Tensor sample_z(int64_t n, int64_t z_dim, double truncation, at::Generator& gen) {
  torch::Tensor z = torch::randn({n, z_dim}, gen);
  if (truncation <= 0) return z;
  // Rejection first (BigGAN's redraw; exact), for a bounded number of rounds:
  // a tiny T accepts almost nothing and would loop for ever.
  constexpr int kRedrawRounds = 32;
  torch::Tensor bad = z.abs() > truncation;
  for (int round = 0; round < kRedrawRounds && bad.any().item<bool>(); ++round) {
    z = torch::where(bad, torch::randn({n, z_dim}, gen), z);
    bad = z.abs() > truncation;
  }
  if (!bad.any().item<bool>()) return z;
  // What is left: inverse-CDF draws from N(0, 1) restricted to [-T, T], in
  // double so that T down to ~1e-15 still spans distinct probabilities.
  const double lo = 0.5 * std::erfc(truncation / std::sqrt(2.0));  // Phi(-T)
  const torch::Tensor u = torch::rand({n, z_dim}, gen, torch::kDouble) * (1.0 - 2.0 * lo) + lo;
  const torch::Tensor inv = torch::special::ndtri(u).clamp(-truncation, truncation).to(z.scalar_type());
  return torch::where(bad, inv, z);
}

torch::Tensor balanced_labels(int64_t offset, int64_t count, int64_t num_classes) {
  return torch::arange(offset, offset + count, torch::kInt64).remainder(num_classes);
}

FixedNoise::FixedNoise(int64_t n, int64_t z_dim, int64_t num_classes, uint64_t seed, double truncation,
                       int64_t chunk, const LabelDraw* labels) {
  if (n < 0 || z_dim < 1 || num_classes < 1)
    throw ConfigError("noise: need n >= 0, z_dim >= 1 and num_classes >= 1 (got " + std::to_string(n) + ", " +
                      std::to_string(z_dim) + ", " + std::to_string(num_classes) + ")");
  torch::manual_seed(seed);
  at::Generator gen = make_cpu_generator(seed);
  if (chunk <= 0 || chunk >= n) {
    z_ = sample_z(n, z_dim, truncation, gen);
  } else {
    std::vector<torch::Tensor> parts;
    for (int64_t i = 0; i < n; i += chunk) parts.push_back(sample_z(std::min(chunk, n - i), z_dim, truncation, gen));
    z_ = torch::cat(parts);
  }
  labels_ = labels ? draw_labels(n, num_classes, seed, *labels) : balanced_labels(0, n, num_classes);
}

NoiseBatch FixedNoise::slice(int64_t offset, int64_t count) const {
  TORCH_CHECK(offset >= 0 && count >= 0 && offset + count <= size(), "FixedNoise: slice [", offset, ", ",
              offset + count, ") outside ", size(), " images");
  return {z_.slice(0, offset, offset + count), labels_.slice(0, offset, offset + count)};
}

}  // namespace hamgan
