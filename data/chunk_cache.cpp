#include "data/chunk_cache.h"

#include <algorithm>
#include <cstring>

namespace hamgan {

ChunkCache::ChunkCache(const Dataset& dataset)
    : dataset_(dataset),
      rows_(dataset.chunk_rows()),
      per_(dataset.channels() * dataset.height() * dataset.width()) {}

void ChunkCache::gather(int64_t epoch, const std::vector<int64_t>& indices, const std::vector<int64_t>& uses,
                        uint8_t* images) {
  std::map<int64_t, int64_t> needed;  // chunk → examples of this batch in it
  for (int64_t i : indices) ++needed[i / rows_];
  std::map<int64_t, std::shared_ptr<Entry>> held;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [k, count] : needed) {
      auto& slot = entries_[{epoch, k}];
      if (!slot) {
        slot = std::make_shared<Entry>();
        slot->remaining = uses.at(k);
      }
      held[k] = slot;
    }
    peak_ = std::max<int64_t>(peak_, entries_.size());
  }
  // Claim one undecoded chunk at a time, so workers that need the same
  // window's chunks decode different ones side by side.
  for (;;) {
    Entry* mine = nullptr;
    int64_t k = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [chunk, e] : held)
        if (!e->claimed) {
          e->claimed = true, mine = e.get(), k = chunk;
          break;
        }
    }
    if (!mine) break;
    try {
      mine->pixels.resize(std::min(rows_, dataset_.size() - k * rows_) * per_);
      dataset_.read_chunk(k, mine->pixels.data());
    } catch (...) {
      mine->error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      mine->ready = true;
    }
    cv_.notify_all();
  }
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mu_);
    for (auto& chunk : held) {
      const Entry& e = *chunk.second;  // C++17 lambdas cannot capture a structured binding
      cv_.wait(lock, [&] { return e.ready; });
      if (e.error && !error) error = e.error;
    }
  }
  if (!error)
    for (size_t i = 0; i < indices.size(); ++i) {
      const int64_t k = indices[i] / rows_;
      std::memcpy(images + i * per_, held[k]->pixels.data() + (indices[i] - k * rows_) * per_, per_);
    }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [k, count] : needed) {
      auto it = entries_.find({epoch, k});
      if (it != entries_.end() && (it->second->remaining -= count) <= 0) entries_.erase(it);
    }
  }
  if (error) std::rethrow_exception(error);
}

int64_t ChunkCache::peak_resident() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_;
}

}  // namespace hamgan
