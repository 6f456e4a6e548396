#include "core/seeds.h"

namespace hamgan {

uint64_t derived_seed(uint64_t seed, SeedPurpose purpose) {
  switch (purpose) {
    case SeedPurpose::kWeights: return seed;
    case SeedPurpose::kGridNoise: return seed + 12345;
    case SeedPurpose::kGridStandingStats: return seed + 12346;
    case SeedPurpose::kEvalNoise: return seed + 777;
    case SeedPurpose::kEvalStandingStats: return seed + 778;
    case SeedPurpose::kLoadStandingStats: return seed + 1;
    case SeedPurpose::kSyntheticReference: return seed + 1;
  }
  return seed;
}

uint64_t rank_noise_seed(uint64_t seed, int64_t rank) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(rank + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace hamgan
