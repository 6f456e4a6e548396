#pragma once
// `hamgan bench checkpoint`: what the integrity check costs at a real model's
// size. Writes one checkpoint of `mib` MiB of float32 tensors (ImageNet-128
// BigGAN-size states with both Adam moments are about 1 GiB), then times the
// write (the SHA-256 is taken as the bytes leave), the first open (digest check
// plus parse), a second open (this process verified the file already) and the
// digest alone. All reads come from a warm page cache, as a resume right after a
// write does; a cold read adds the disk's own time to both paths alike.
#include <cstdint>
#include <string>

namespace hamgan {

struct CheckpointBenchConfig {
  int64_t mib = 1024;
  std::string dir;   // where the file goes; empty: the system's temporary folder
  std::string json;  // write the result here as JSON
};

struct CheckpointBenchResult {
  int64_t bytes = 0;
  double write_s = 0, first_open_s = 0, second_open_s = 0, sha256_s = 0;
};

CheckpointBenchResult bench_checkpoint(const CheckpointBenchConfig& cfg);

}  // namespace hamgan
