// Endless seeded loader. Batch k (counted from the start position) is a pure
// function of (seed, epoch, index): workers take batch numbers in order, build
// them independently and the consumer returns them strictly in order, so thread
// timing never changes content. Epochs drop the last partial batch (BigGAN's
// drop_last), so every batch has batch_size examples from one epoch's order.
#include "data/loader.h"

#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "core/errors.h"
#include "data/chunk_cache.h"
#include "data/epoch_order.h"

namespace hamgan {

struct DataLoader::State {
  // One rank's epoch and, under chunk windows, how many of its examples each
  // chunk gives from the loader's first batch there on (when it may be dropped).
  struct EpochPlan {
    std::vector<int64_t> order;
    std::vector<int64_t> uses;
  };

  std::shared_ptr<Dataset> dataset;
  LoaderOptions opt;
  OrderSpec order;
  int64_t batches = 0, local = 0;  // batches per epoch, examples per batch of this rank
  int64_t c = 0, h = 0, w = 0;
  bool pin = false;  // pin_memory and a CUDA device present
  LoaderPosition first;  // the first batch this loader builds
  std::unique_ptr<ChunkCache> chunks;

  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  int64_t next_assign = 0, next_return = 0;
  LoaderPosition assign_pos, returned_pos;
  std::map<int64_t, std::shared_ptr<const EpochPlan>> plans;  // by epoch, a few kept
  std::map<int64_t, Batch> ready;
  std::map<int64_t, std::exception_ptr> failed;
  std::vector<std::thread> threads;

  // Normalizes a position: a batch that would run past the epoch's end
  // starts the next epoch instead.
  LoaderPosition normalize(LoaderPosition p) const {
    if (p.index + opt.batch_size > batches * opt.batch_size) return {p.epoch + 1, 0};
    return p;
  }

  std::shared_ptr<const EpochPlan> plan_for(int64_t epoch) {  // caller holds mu
    auto it = plans.find(epoch);
    if (it != plans.end()) return it->second;
    auto p = std::make_shared<EpochPlan>();
    p->order = epoch_order(order, epoch);
    if (chunks) {
      p->uses.assign((dataset->size() + order.chunk_rows - 1) / order.chunk_rows, 0);
      const int64_t from = epoch == first.epoch ? first.index / opt.batch_size * local : 0;
      for (size_t i = from; i < p->order.size(); ++i) ++p->uses[p->order[i] / order.chunk_rows];
    }
    plans[epoch] = p;
    while (plans.size() > 3) plans.erase(plans.begin());
    return p;
  }

  Batch build(LoaderPosition pos, const EpochPlan& plan) const {
    const int64_t b = local, first_global = pos.index + opt.shard * b;
    const auto from = plan.order.begin() + pos.index / opt.batch_size * b;
    const std::vector<int64_t> idx(from, from + b);
    Batch out{torch::empty({b, c, h, w}, torch::TensorOptions(torch::kUInt8).pinned_memory(pin)),
              torch::empty({b}, torch::TensorOptions(torch::kInt64).pinned_memory(pin)),
              torch::empty({b}, torch::TensorOptions(torch::kBool).pinned_memory(pin))};
    int64_t* labels = out.labels.data_ptr<int64_t>();
    if (chunks) {
      chunks->gather(pos.epoch, idx, plan.uses, out.images.data_ptr<uint8_t>());
      for (int64_t i = 0; i < b; ++i) labels[i] = dataset->label(idx[i]);
    } else {
      dataset->get_batch(idx, out.images.data_ptr<uint8_t>(), labels);
    }
    const int64_t nc = dataset->num_classes();
    bool* flips = out.flips.data_ptr<bool>();
    for (int64_t i = 0; i < b; ++i) {
      if (labels[i] < 0 || labels[i] >= nc)
        throw DataError(dataset->describe() + ": label " + std::to_string(labels[i]) + " of example " +
                        std::to_string(idx[i]) + " is outside [0, " + std::to_string(nc) + ")");
      flips[i] = opt.flip && flip_bit(opt.seed, pos.epoch, first_global + i);
    }
    return out;
  }

  void worker() {
    for (;;) {
      int64_t seq;
      LoaderPosition pos;
      std::shared_ptr<const EpochPlan> plan;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stop || next_assign < next_return + opt.prefetch; });
        if (stop) return;
        seq = next_assign++;
        pos = normalize(assign_pos);
        assign_pos = {pos.epoch, pos.index + opt.batch_size};
        plan = plan_for(pos.epoch);
      }
      try {
        Batch batch = build(pos, *plan);
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
  if (options.shuffle_window < 0) throw ConfigError("loader: shuffle_window must be >= 0 (0: full shuffle)");
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
  s.local = options.batch_size / options.shards;
  s.order = effective_order({s.dataset->size(), s.dataset->chunk_rows(), options.shuffle_window, s.local,
                             options.shard, options.shards, options.seed});
  s.batches = hamgan::batches_per_epoch(s.order);
  if (s.order.windowed()) s.chunks = std::make_unique<ChunkCache>(*s.dataset);
  s.c = s.dataset->channels();
  s.h = s.dataset->height();
  s.w = s.dataset->width();
  s.pin = options.pin_memory && torch::cuda::is_available();
  s.first = s.normalize(start);
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
    std::shared_ptr<const State::EpochPlan> plan;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      plan = s.plan_for(pos.epoch);
    }
    Batch b = s.build(pos, *plan);
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
int64_t DataLoader::batches_per_epoch() const { return state_->batches; }
int64_t DataLoader::peak_chunks() const { return state_->chunks ? state_->chunks->peak_resident() : 0; }

torch::Tensor model_images(const Batch& batch, torch::Device device) {
  auto bytes = batch.images.to(device, /*non_blocking=*/true);
  // Mirror the bytes before widening them: the cheapest place for the flip.
  if (batch.flips.defined())
    bytes = torch::where(batch.flips.to(device, /*non_blocking=*/true).view({-1, 1, 1, 1}), bytes.flip({3}), bytes);
  // The same float32 operations as torchvision's ToTensor + Normalize(0.5, 0.5).
  // 255 as a device tensor: CUDA turns division by a host scalar into a
  // multiplication by its reciprocal, which rounds differently.
  return bytes.to(torch::kFloat32).div_(torch::scalar_tensor(255.0f, bytes.options().dtype(torch::kFloat32))).sub_(0.5f).div_(0.5f);
}

}  // namespace hamgan
