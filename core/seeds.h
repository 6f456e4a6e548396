#pragma once
// Every seed a run derives from its one `seed` key, named by what it drives, so
// no two streams collide by accident and the numbers stay where they were: the
// offsets are the values earlier releases used, kept so that the same seed still
// gives the same grids, evaluations and samples.
#include <cstdint>

namespace hamgan {

enum class SeedPurpose {
  kWeights,             // the global generator: initial weights, the Hamburger's random bases
  kGridNoise,           // the fixed z and labels of every training sample grid
  kGridStandingStats,   // G's BN statistics recomputed before a grid
  kEvalNoise,           // the fixed z and labels of every evaluation of a run
  kEvalStandingStats,   // G's BN statistics recomputed before an evaluation
  kLoadStandingStats,   // G's BN statistics recomputed when a checkpoint is loaded to sample
  kSyntheticReference,  // the stand-in reference statistics of `hamgan bench fid`
};

// The seed of `purpose` for a run seeded with `seed`.
uint64_t derived_seed(uint64_t seed, SeedPurpose purpose);

// The seed of rank `rank`'s noise stream (z and fake labels): splitmix64 of
// (seed, rank), unrelated to the weight stream seeded with `seed` itself.
uint64_t rank_noise_seed(uint64_t seed, int64_t rank);

}  // namespace hamgan
