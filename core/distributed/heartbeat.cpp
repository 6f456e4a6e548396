#include "core/distributed/heartbeat.h"

#include <chrono>
#include <vector>

namespace hamgan {
namespace {

using WallClock = std::chrono::system_clock;
constexpr auto kHeartbeat = std::chrono::milliseconds(1000);
constexpr auto kStaleAfter = std::chrono::milliseconds(4000);

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(WallClock::now().time_since_epoch()).count();
}

std::string alive_key(int64_t rank) { return "hamgan/alive/" + std::to_string(rank); }

}  // namespace

Heartbeat::Heartbeat(c10::intrusive_ptr<c10d::Store> store, int64_t rank, int64_t world_size, bool store_on_rank0,
                     std::string rank0_address)
    : store_(std::move(store)),
      rank_(rank),
      world_size_(world_size),
      store_on_rank0_(store_on_rank0),
      rank0_address_(std::move(rank0_address)) {
  store_->set(alive_key(rank_), std::vector<uint8_t>{});  // present before the first beat
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      try {
        const std::string t = std::to_string(now_ms());
        store_->set(alive_key(rank_), std::vector<uint8_t>(t.begin(), t.end()));
      } catch (...) {
        // The store's host is gone: the next collective reports it.
      }
      lock.lock();
      cv_.wait_for(lock, kHeartbeat, [this] { return stop_; });
    }
  });
}

Heartbeat::~Heartbeat() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string Heartbeat::who_stopped_answering() {
  std::vector<std::string> silent;
  bool store_lost = false;
  const auto give_up = std::chrono::steady_clock::now() + kStaleAfter + kHeartbeat;
  while (silent.empty() && !store_lost) {
    for (int64_t r = 0; r < world_size_ && !store_lost; ++r) {
      if (r == rank_) continue;
      try {
        store_->setTimeout(std::chrono::milliseconds(2000));
        const auto v = store_->get(alive_key(r));
        const std::string s(v.begin(), v.end());
        if (s.empty() || now_ms() - std::stoll(s) > kStaleAfter.count()) silent.push_back(std::to_string(r));
      } catch (...) {
        store_lost = true;
      }
    }
    if (!silent.empty() || store_lost || std::chrono::steady_clock::now() > give_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  if (store_lost && store_on_rank0_) {
    rank0_lost_ = true;
    return "rank 0 (" + (rank0_address_.empty() ? std::string() : rank0_address_ + ", ") +
           "the host of the rendezvous store) is gone or unreachable";
  }
  if (!silent.empty() && silent[0] == "0") rank0_lost_ = true;
  if (silent.empty())
    return "no rank missed its heartbeat (a peer failed with an error of its own, or the collectives diverged)";
  std::string who = silent.size() == 1 ? "rank " + silent[0] : "ranks " + silent[0];
  for (size_t i = 1; i < silent.size(); ++i) who += ", " + silent[i];
  return who + " stopped answering";
}

}  // namespace hamgan
