#include "data/block_pipeline.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "core/errors.h"

namespace hamgan {
namespace {

constexpr auto kPoll = std::chrono::milliseconds(50);  // how often waits look at `stop`

struct Slot {
  DecodedBlock block;
  int64_t id = -1;         // the block this slot holds now
  int64_t remaining = 0;   // its images not decoded yet
};

class Pipeline {
 public:
  Pipeline(const BlockPipelineSpec& spec, const std::function<int64_t(int64_t, uint8_t*)>& decode,
           const std::atomic<bool>& stop)
      : spec_(spec), decode_(decode), stop_(stop), slots_(std::max<int64_t>(spec.ring, 1)) {
    blocks_ = (spec.images + spec.block - 1) / spec.block;
    for (int64_t b = 0; b < std::min<int64_t>(blocks_, slots_.size()); ++b) assign(b);
  }

  // The workers are stopped and joined on every way out, exceptions included.
  ~Pipeline() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      abort_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  bool run(const std::function<void(DecodedBlock&)>& consume) {
    const int64_t workers = std::min(spec_.workers, std::max<int64_t>(spec_.images, 1));
    for (int64_t t = 0; t < workers; ++t) threads_.emplace_back([this] { work(); });
    for (int64_t b = 0; b < blocks_; ++b) {
      Slot& s = slot(b);
      {
        std::unique_lock<std::mutex> lock(mu_);
        while (s.remaining > 0 && !error_ && !stop_) cv_.wait_for(lock, kPoll);
        if (error_) std::rethrow_exception(error_);
        if (stop_) return false;
      }
      consume(s.block);
      if (b + static_cast<int64_t>(slots_.size()) < blocks_) {
        std::lock_guard<std::mutex> lock(mu_);
        assign(b + slots_.size());
      }
      cv_.notify_all();
    }
    return true;
  }

 private:
  Slot& slot(int64_t b) { return slots_[b % slots_.size()]; }

  // Readies the slot of block b for its images (the workers leave it alone until its id is b).
  void assign(int64_t b) {
    Slot& s = slot(b);
    DecodedBlock& k = s.block;
    k.start = b * spec_.block;
    k.len = std::min(spec_.block, spec_.images - k.start);
    k.pixels.resize(k.len * spec_.bytes_per_image);
    k.labels.assign(k.len, 0);
    k.ok.assign(k.len, 0);
    k.errors.assign(k.len, {});
    s.remaining = k.len;
    s.id = b;
  }

  void work() {
    for (;;) {
      const int64_t i = next_.fetch_add(1);
      if (i >= spec_.images) return;
      const int64_t b = i / spec_.block;
      Slot& s = slot(b);
      {
        std::unique_lock<std::mutex> lock(mu_);
        while (s.id != b && !abort_ && !error_ && !stop_) cv_.wait_for(lock, kPoll);
        if (abort_ || error_ || stop_) return;
      }
      DecodedBlock& k = s.block;
      const int64_t j = i - k.start;
      try {
        k.labels[j] = decode_(i, k.pixels.data() + j * spec_.bytes_per_image);
        k.ok[j] = 1;
      } catch (const DataError& e) {
        k.errors[j] = e.what();
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu_);
        if (!error_) error_ = std::current_exception();
        cv_.notify_all();
        return;
      }
      std::lock_guard<std::mutex> lock(mu_);
      if (--s.remaining == 0) cv_.notify_all();
    }
  }

  const BlockPipelineSpec spec_;
  const std::function<int64_t(int64_t, uint8_t*)>& decode_;
  const std::atomic<bool>& stop_;
  std::vector<Slot> slots_;
  int64_t blocks_ = 0;
  std::atomic<int64_t> next_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool abort_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace

bool run_block_pipeline(const BlockPipelineSpec& spec, const std::function<int64_t(int64_t, uint8_t*)>& decode,
                        const std::function<void(DecodedBlock&)>& consume, const std::atomic<bool>& stop) {
  if (spec.images <= 0) return !stop;
  Pipeline pipeline(spec, decode, stop);
  return pipeline.run(consume);
}

}  // namespace hamgan
