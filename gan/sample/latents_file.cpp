#include "gan/sample/latents_file.h"

#include <filesystem>

#include "core/errors.h"
#include "metrics/npz.h"

namespace hamgan {
namespace {

const char* kFix = " (the members `hamgan sample --out F.npz --float` writes: z float32 (N, z_dim), y int64 (N))";

NpzArrays read_members(const std::string& path, const std::vector<std::string>& members) {
  if (!std::filesystem::is_regular_file(path))
    throw DataError("--latents " + path + ": no such file; give an .npz with z and y" + kFix);
  NpzArrays a = read_npz(path, members);
  for (const auto& m : members)
    if (!a.count(m)) throw DataError("--latents " + path + ": no member '" + m + "'" + kFix);
  return a;
}

// y as int64 (N): any integer dtype numpy writes; floats and bools are refused, not rounded.
torch::Tensor checked_labels(const torch::Tensor& y, const std::string& path) {
  const bool integer = torch::isIntegralType(y.scalar_type(), /*includeBool=*/false);
  if (!integer || y.dim() != 1)
    throw DataError("--latents " + path + ": y is " + std::string(c10::toString(y.scalar_type())) + " with " +
                    std::to_string(y.dim()) + " dimension(s); expected int64 (N)" + kFix);
  return y.to(torch::kInt64).contiguous();
}

}  // namespace

NoiseBatch read_latents(const std::string& path, int64_t z_dim, int64_t num_classes) {
  NpzArrays a = read_members(path, {"z", "y"});
  const torch::Tensor z = a["z"], y = checked_labels(a["y"], path);
  // Exactly float32: a float64 z would be rounded here, and then differ from what the other tool fed its G.
  if (z.scalar_type() != torch::kFloat32 || z.dim() != 2)
    throw DataError("--latents " + path + ": z is " + std::string(c10::toString(z.scalar_type())) + " with " +
                    std::to_string(z.dim()) + " dimension(s); expected float32 (N, " + std::to_string(z_dim) + ")" +
                    kFix);
  if (z.size(1) != z_dim)
    throw DataError("--latents " + path + ": z has " + std::to_string(z.size(1)) + " columns but the generator takes z_dim = " +
                    std::to_string(z_dim) + "; draw z for this model");
  if (z.size(0) != y.size(0))
    throw DataError("--latents " + path + ": z has " + std::to_string(z.size(0)) + " rows but y has " +
                    std::to_string(y.size(0)) + "; give one label per row of z");
  if (z.size(0) == 0) throw DataError("--latents " + path + ": z and y are empty; give at least one row");
  if (!torch::isfinite(z).all().item<bool>())
    throw DataError("--latents " + path + ": z holds NaN or Inf; give finite values");
  const int64_t lo = y.min().item<int64_t>(), hi = y.max().item<int64_t>();
  if (lo < 0 || hi >= num_classes) {
    const int64_t bad = lo < 0 ? lo : hi;
    const int64_t row = (y == bad).nonzero()[0][0].item<int64_t>();
    throw DataError("--latents " + path + ": y[" + std::to_string(row) + "] = " + std::to_string(bad) +
                    " is out of range; the generator has classes 0.." + std::to_string(num_classes - 1));
  }
  return {z.contiguous(), y};
}

int64_t latents_count(const std::string& path) {
  NpzArrays a = read_members(path, {"y"});
  const int64_t rows = checked_labels(a["y"], path).size(0);
  // Else the count becomes --n 0, refused in words about an option nobody gave.
  if (rows == 0) throw DataError("--latents " + path + ": y is empty (0 rows); give at least one row" + kFix);
  return rows;
}

}  // namespace hamgan
