// Opening the rendezvous store (rendezvous.h) so that it fails within the
// timeout, in one line, wherever c10d's TCPStore would hang or print a trace.
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "core/distributed/communicator.h"
#include "core/distributed/rendezvous.h"

namespace hamgan {
namespace {

// A TCPStore whose client connects: a program at the port that accepts the
// connection and never answers c10d's ping leaves its constructor blocked for
// good. It runs on a thread of its own that the caller stops waiting for.
struct StoreInFlight {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  c10::intrusive_ptr<c10d::Store> store;
  std::exception_ptr error;
};

// The store, or null when its constructor has not returned within `limit` (its thread is left blocked).
c10::intrusive_ptr<c10d::Store> tcp_store_within(const std::string& host, const c10d::TCPStoreOptions& options,
                                                 std::chrono::milliseconds limit) {
  auto flight = std::make_shared<StoreInFlight>();
  std::thread([flight, host, options] {
    c10::intrusive_ptr<c10d::Store> store;
    std::exception_ptr error;
    try {
      store = c10::make_intrusive<c10d::TCPStore>(host, options);
    } catch (...) {
      error = std::current_exception();
    }
    const std::lock_guard<std::mutex> lock(flight->mu);
    flight->store = std::move(store);
    flight->error = error;
    flight->done = true;
    flight->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(flight->mu);
  if (!flight->cv.wait_for(lock, limit, [&] { return flight->done; })) return {};
  if (flight->error) std::rethrow_exception(flight->error);
  return flight->store;
}

// Whether some program at host:port accepts a TCP connection within a second.
bool accepts_connections(const std::string& host, int64_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return false;
  bool accepted = false;
  for (const addrinfo* a = found; a && !accepted; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      accepted = true;
    } else if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int err = 0;
      socklen_t len = sizeof(err);
      accepted = poll(&p, 1, 1000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
    }
    close(fd);
  }
  freeaddrinfo(found);
  return accepted;
}

// c10d logs a failed connection attempt at ERROR level with a stack trace, on
// top of the one line reported here: quiet while the store opens, unless
// TORCH_CPP_LOG_LEVEL asks for c10d's own account.
class QuietC10dScope {
 public:
  QuietC10dScope() : saved_(FLAGS_caffe2_log_level) {
    if (!std::getenv("TORCH_CPP_LOG_LEVEL")) FLAGS_caffe2_log_level = std::max(saved_, c10::GLOG_FATAL);
  }
  ~QuietC10dScope() { FLAGS_caffe2_log_level = saved_; }
  QuietC10dScope(const QuietC10dScope&) = delete;
  QuietC10dScope& operator=(const QuietC10dScope&) = delete;

 private:
  int saved_;
};

std::string seconds_text(std::chrono::milliseconds d) { return std::to_string(d.count() / 1000) + " s"; }

}  // namespace

std::string rendezvous_address(const DistEnv& env) {
  return env.store_file.empty() ? "tcp://" + env.master_addr + ":" + std::to_string(env.master_port)
                                : "file://" + env.store_file;
}

c10::intrusive_ptr<c10d::Store> open_rendezvous_store(const DistEnv& env, std::chrono::milliseconds timeout) {
  if (!env.store_file.empty())
    return c10::make_intrusive<c10d::FileStore>(env.store_file, static_cast<int>(env.world_size));
  c10d::TCPStoreOptions o;
  o.port = static_cast<uint16_t>(env.master_port);
  o.isServer = env.rank == 0 && !env.agent_store;
  // No count of workers to wait for: a client would add itself to a counter in
  // the store before knowing whose store it is. The ranks meet in the identity
  // check and the process group's rendezvous instead, with the same timeout.
  o.waitWorkers = false;
  o.timeout = timeout;
  const std::string who = "distributed: rank " + std::to_string(env.rank) + " of " + std::to_string(env.world_size);
  const std::string host_port = env.master_addr + ":" + std::to_string(env.master_port);
  const QuietC10dScope quiet;
  c10::intrusive_ptr<c10d::Store> store;
  try {
    // c10d's own connection attempts give up at `timeout`: a little more, so that its account comes first.
    store = tcp_store_within(env.master_addr, o, timeout + std::chrono::seconds(2));
  } catch (const std::exception& e) {
    if (o.isServer && std::string(e.what()).find("EADDRINUSE") != std::string::npos)
      throw ConfigError("distributed: MASTER_PORT " + std::to_string(env.master_port) +
                        " is already in use on this machine, so rank 0 cannot host the rendezvous store there "
                        "(another job or program listens on it); start every rank of this job with another "
                        "MASTER_PORT");
    throw;
  }
  if (store) return store;
  if (accepts_connections(env.master_addr, env.master_port))
    throw PeerError(who + ": the program at " + host_port + " accepts connections but did not answer as a " +
                    "rendezvous store within " + seconds_text(timeout) + ": MASTER_PORT is held by another " +
                    "program, not by this job's rank 0; start every rank of this job with another MASTER_PORT");
  throw PeerError(who + ": nothing answered at " + host_port + " within " + seconds_text(timeout) +
                  ": rank 0 is not running (it failed or was not started), or MASTER_ADDR/MASTER_PORT point "
                  "elsewhere");
}

}  // namespace hamgan
