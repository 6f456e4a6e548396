#include "data/epoch_order.h"

#include <algorithm>
#include <utility>

namespace hamgan {
namespace {

int64_t chunk_count(const OrderSpec& s) { return (s.examples + s.chunk_rows - 1) / s.chunk_rows; }

void shuffle(std::vector<int64_t>& v, uint64_t state) {
  for (int64_t i = static_cast<int64_t>(v.size()) - 1; i > 0; --i) {
    state = splitmix64(state);
    const auto j = static_cast<int64_t>((static_cast<unsigned __int128>(state) * uint64_t(i + 1)) >> 64);
    std::swap(v[i], v[j]);
  }
}

uint64_t epoch_state(uint64_t seed, int64_t epoch) { return splitmix64(seed ^ splitmix64(0x5EED0000ull + uint64_t(epoch))); }

}  // namespace

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::vector<int64_t> permutation(uint64_t seed, int64_t epoch, int64_t n) {
  std::vector<int64_t> p(n);
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  shuffle(p, epoch_state(seed, epoch));
  return p;
}

bool flip_bit(uint64_t seed, int64_t epoch, int64_t index) {
  return splitmix64(splitmix64(seed ^ 0xF1100000ull) ^ splitmix64(uint64_t(epoch) * 0x100000001B3ull + uint64_t(index))) & 1;
}

OrderSpec effective_order(OrderSpec spec) {
  if (spec.windowed() && batches_per_epoch(spec) < 1) spec.window = 0;
  return spec;
}

int64_t batches_per_epoch(const OrderSpec& s) {
  if (!s.windowed()) return s.examples / (s.local_batch * s.shards);
  // Every rank gets at least floor(chunks / shards) chunks; at worst one of
  // them is the short last chunk. Independent of the epoch's deal.
  const int64_t chunks = chunk_count(s), last = s.examples - (chunks - 1) * s.chunk_rows;
  const int64_t fewest = (chunks / s.shards) * s.chunk_rows - (s.chunk_rows - last);
  return std::max<int64_t>(fewest, 0) / s.local_batch;
}

std::vector<int64_t> epoch_order(const OrderSpec& s, int64_t epoch) {
  const int64_t batches = batches_per_epoch(s), global = s.local_batch * s.shards;
  std::vector<int64_t> out;
  out.reserve(batches * s.local_batch);
  if (!s.windowed()) {
    const auto p = permutation(s.seed, epoch, s.examples);
    for (int64_t b = 0; b < batches; ++b) {
      const auto first = p.begin() + b * global + s.shard * s.local_batch;
      out.insert(out.end(), first, first + s.local_batch);
    }
    return out;
  }
  // A separate stream from the full shuffle's, so the two orders never coincide.
  const auto chunks = permutation(s.seed ^ 0xC4C4C4C4ull, epoch, chunk_count(s));
  std::vector<int64_t> mine;
  for (size_t k = s.shard; k < chunks.size(); k += s.shards) mine.push_back(chunks[k]);
  const uint64_t window_base = splitmix64(epoch_state(s.seed, epoch) ^ splitmix64(0xA11D0000ull + uint64_t(s.shard)));
  std::vector<int64_t> window;
  for (size_t w = 0; w * s.window < mine.size(); ++w) {
    window.clear();
    for (size_t k = w * s.window; k < std::min(mine.size(), (w + 1) * s.window); ++k)
      for (int64_t i = mine[k] * s.chunk_rows; i < std::min(s.examples, (mine[k] + 1) * s.chunk_rows); ++i)
        window.push_back(i);
    shuffle(window, splitmix64(window_base + w));
    out.insert(out.end(), window.begin(), window.end());
  }
  out.resize(batches * s.local_batch);
  return out;
}

}  // namespace hamgan
