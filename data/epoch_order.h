#pragma once
// The order in which a loader visits a dataset, as a pure function of
// (seed, epoch, shard): what a resumed run needs to continue exactly.
//
// Full shuffle: one permutation of all examples per epoch; each rank takes its
// slice of every global batch (all ranks walk the same permutation).
// Chunk windows, for files stored in chunks that are decoded whole (compressed
// HDF5): each epoch permutes the chunks, deals them to the ranks in turn (no
// chunk is read by two ranks), and shuffles the examples within each run of
// `window` consecutive chunks of a rank, so a rank decodes each of its chunks
// once per epoch while holding about two windows in memory.
#include <cstdint>
#include <vector>

namespace hamgan {

uint64_t splitmix64(uint64_t x);

// Fisher–Yates driven by splitmix64 from (seed, epoch): our own generator, so
// the order never depends on the LibTorch version.
std::vector<int64_t> permutation(uint64_t seed, int64_t epoch, int64_t n);

// Whether the example at (epoch, global position) is mirrored.
bool flip_bit(uint64_t seed, int64_t epoch, int64_t index);

struct OrderSpec {
  int64_t examples = 0;
  int64_t chunk_rows = 0;  // examples per stored chunk; 0: random access is cheap
  int64_t window = 0;      // chunks shuffled together; 0: full shuffle
  int64_t local_batch = 1; // examples per rank per batch
  int64_t shard = 0, shards = 1;
  uint64_t seed = 0;

  bool windowed() const { return chunk_rows > 0 && window > 0; }
};

// The chunk windows a spec would use, or a full shuffle where they cannot
// give every rank a batch (fewer chunks than ranks): the spec to run.
OrderSpec effective_order(OrderSpec spec);

// Batches per epoch, the same for every rank and epoch (the last partial
// batch is dropped, as BigGAN's drop_last; under chunk windows every rank
// stops where the rank with the fewest examples must).
int64_t batches_per_epoch(const OrderSpec& spec);

// One rank's epoch: `examples[b·local_batch + i]` is example i of its batch b,
// for b < batches_per_epoch.
std::vector<int64_t> epoch_order(const OrderSpec& spec, int64_t epoch);

}  // namespace hamgan
