// Endless seeded loader. Batch k (counted from the start position) is a pure
// function of (seed, epoch, index): workers take batch numbers in order, build
// them independently and the consumer returns them strictly in order, so thread
// timing never changes content. Epochs drop the last partial batch (BigGAN's
// drop_last), so every batch has batch_size examples from one permutation.
#include "data/loader.h"

#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "core/errors.h"

namespace hamgan {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Fisher–Yates driven by splitmix64, seeded from (seed, epoch): our own
// generator so the order never depends on the LibTorch version.
std::vector<int64_t> permutation(uint64_t seed, int64_t epoch, int64_t n) {
  std::vector<int64_t> p(n);
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  uint64_t state = splitmix64(seed ^ splitmix64(0x5EED0000ull + uint64_t(epoch)));
  for (int64_t i = n - 1; i > 0; --i) {
    state = splitmix64(state);
    const auto j = static_cast<int64_t>((static_cast<unsigned __int128>(state) * uint64_t(i + 1)) >> 64);
    std::swap(p[i], p[j]);
  }
  return p;
}

bool flip_bit(uint64_t seed, int64_t epoch, int64_t index) {
  return splitmix64(splitmix64(seed ^ 0xF1100000ull) ^ splitmix64(uint64_t(epoch) * 0x100000001B3ull + uint64_t(index))) & 1;
}

// ToTensor + Normalize(0.5, 0.5) in float32, as torchvision computes it.
struct Lut {
  float v[256];
  Lut() {
    for (int i = 0; i < 256; ++i) v[i] = (float(i) / 255.0f - 0.5f) / 0.5f;
  }
};

}  // namespace

struct DataLoader::State {
  std::shared_ptr<Dataset> dataset;
  LoaderOptions opt;
  int64_t n = 0, c = 0, h = 0, w = 0;
  bool pin = false;  // pin_memory and a CUDA device present
  Lut lut;

  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  int64_t next_assign = 0, next_return = 0;
  LoaderPosition assign_pos, returned_pos;
  std::map<int64_t, std::shared_ptr<const std::vector<int64_t>>> perms;  // by epoch, a few kept
  std::map<int64_t, Batch> ready;
  std::map<int64_t, std::exception_ptr> failed;
  std::vector<std::thread> threads;

  // Normalizes a start position: a batch that would run past the epoch's end
  // starts the next epoch instead.
  LoaderPosition normalize(LoaderPosition p) const {
    if (p.index + opt.batch_size > n) return {p.epoch + 1, 0};
    return p;
  }

  std::shared_ptr<const std::vector<int64_t>> perm_for(int64_t epoch) {  // caller holds mu
    auto it = perms.find(epoch);
    if (it != perms.end()) return it->second;
    auto p = std::make_shared<const std::vector<int64_t>>(permutation(opt.seed, epoch, n));
    perms[epoch] = p;
    while (perms.size() > 3) perms.erase(perms.begin());
    return p;
  }

  Batch build(LoaderPosition pos, const std::vector<int64_t>& perm) const {
    const int64_t b = opt.batch_size / opt.shards, per = c * h * w, first = pos.index + opt.shard * b;
    std::vector<int64_t> idx(perm.begin() + first, perm.begin() + first + b);
    auto raw = torch::empty({b, c, h, w}, torch::kUInt8);
    auto labels = torch::empty({b}, torch::kInt64);
    dataset->get_batch(idx, raw.data_ptr<uint8_t>(), labels.data_ptr<int64_t>());
    auto images = torch::empty({b, c, h, w}, torch::TensorOptions(torch::kFloat32).pinned_memory(pin));
    const uint8_t* src = raw.data_ptr<uint8_t>();
    float* dst = images.data_ptr<float>();
    const int64_t nc = dataset->num_classes();
    for (int64_t i = 0; i < b; ++i) {
      const int64_t l = labels.data_ptr<int64_t>()[i];
      if (l < 0 || l >= nc)
        throw DataError(dataset->describe() + ": label " + std::to_string(l) + " of example " +
                        std::to_string(idx[i]) + " is outside [0, " + std::to_string(nc) + ")");
      const bool flip = opt.flip && flip_bit(opt.seed, pos.epoch, first + i);
      const uint8_t* s = src + i * per;
      float* d = dst + i * per;
      for (int64_t r = 0; r < c * h; ++r, s += w, d += w) {
        if (flip)
          for (int64_t x = 0; x < w; ++x) d[x] = lut.v[s[w - 1 - x]];
        else
          for (int64_t x = 0; x < w; ++x) d[x] = lut.v[s[x]];
      }
    }
    return {images, labels};
  }

  void worker() {
    for (;;) {
      int64_t seq;
      LoaderPosition pos;
      std::shared_ptr<const std::vector<int64_t>> perm;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stop || next_assign < next_return + opt.prefetch; });
        if (stop) return;
        seq = next_assign++;
        pos = normalize(assign_pos);
        assign_pos = {pos.epoch, pos.index + opt.batch_size};
        perm = perm_for(pos.epoch);
      }
      try {
        Batch batch = build(pos, *perm);
        std::lock_guard<std::mutex> lock(mu);
        ready.emplace(seq, std::move(batch));
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        failed.emplace(seq, std::current_exception());
      }
      cv.notify_all();
    }
  }
};

DataLoader::DataLoader(std::shared_ptr<Dataset> dataset, LoaderOptions options, LoaderPosition start)
    : state_(std::make_unique<State>()) {
  auto& s = *state_;
  if (!dataset) throw ConfigError("loader: no dataset");
  if (options.batch_size < 1) throw ConfigError("loader: batch_size must be >= 1");
  if (options.workers < 0) throw ConfigError("loader: workers must be >= 0");
  if (options.prefetch < 1) options.prefetch = 1;
  if (options.shards < 1 || options.shard < 0 || options.shard >= options.shards || options.batch_size % options.shards != 0)
    throw ConfigError("loader: batch_size " + std::to_string(options.batch_size) + " does not split into " +
                      std::to_string(options.shards) + " equal shards (shard " + std::to_string(options.shard) + ")");
  if (options.batch_size > dataset->size())
    throw ConfigError("loader: batch_size " + std::to_string(options.batch_size) + " exceeds the " +
                      std::to_string(dataset->size()) + " examples of " + dataset->describe());
  if (start.epoch < 0 || start.index < 0 || start.index > dataset->size())
    throw ConfigError("loader: the saved data position (epoch " + std::to_string(start.epoch) + ", index " +
                      std::to_string(start.index) + ") lies outside the " + std::to_string(dataset->size()) +
                      " examples of " + dataset->describe() +
                      ": the data changed since the run started; resume with the same data or start a new run");
  s.dataset = std::move(dataset);
  s.opt = options;
  s.n = s.dataset->size();
  s.c = s.dataset->channels();
  s.h = s.dataset->height();
  s.w = s.dataset->width();
  s.pin = options.pin_memory && torch::cuda::is_available();
  s.assign_pos = start;
  s.returned_pos = start;
  for (int64_t i = 0; i < options.workers; ++i) s.threads.emplace_back([&s] { s.worker(); });
}

DataLoader::~DataLoader() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stop = true;
  }
  state_->cv.notify_all();
  for (auto& t : state_->threads) t.join();
}

Batch DataLoader::next() {
  auto& s = *state_;
  if (s.threads.empty()) {  // workers = 0: build on the calling thread
    const LoaderPosition pos = s.normalize(s.returned_pos);
    std::shared_ptr<const std::vector<int64_t>> perm;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      perm = s.perm_for(pos.epoch);
    }
    Batch b = s.build(pos, *perm);
    std::lock_guard<std::mutex> lock(s.mu);
    s.returned_pos = {pos.epoch, pos.index + s.opt.batch_size};
    return b;
  }
  std::unique_lock<std::mutex> lock(s.mu);
  const int64_t seq = s.next_return;
  s.cv.wait(lock, [&] { return s.ready.count(seq) || s.failed.count(seq); });
  // A failed batch stays failed: the loader does not skip data silently.
  if (auto f = s.failed.find(seq); f != s.failed.end()) std::rethrow_exception(f->second);
  Batch b = std::move(s.ready[seq]);
  s.ready.erase(seq);
  const LoaderPosition pos = s.normalize(s.returned_pos);
  s.returned_pos = {pos.epoch, pos.index + s.opt.batch_size};
  ++s.next_return;
  lock.unlock();
  s.cv.notify_all();
  return b;
}

LoaderPosition DataLoader::position() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->returned_pos;
}

const Dataset& DataLoader::dataset() const { return *state_->dataset; }

}  // namespace hamgan
