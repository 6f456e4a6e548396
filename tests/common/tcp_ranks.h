#pragma once
// Ranks of a job started as torchrun or SLURM start them, with MASTER_ADDR,
// MASTER_PORT, RANK and WORLD_SIZE, for the tests of what the rendezvous over
// TCP does when a port, a peer or another job gets in the way.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "tests/common/process.h"
#include "tests/common/train_test_util.h"

namespace hamgan::test {

// A listening socket on every address of this machine, on a port the kernel
// picked; it never accepts: the kernel completes each connection into its backlog.
struct ListeningSocket {
  int fd = -1;
  int port = 0;
  ListeningSocket() {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t len = sizeof(a);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd, 16) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return;
    port = ntohs(a.sin_port);
  }
  ~ListeningSocket() { ::close(fd); }
  ListeningSocket(const ListeningSocket&) = delete;
  ListeningSocket& operator=(const ListeningSocket&) = delete;
};

// A port nothing listens on now (a listening socket's, released).
inline int free_port() {
  const ListeningSocket s;
  return s.port;
}

// Rank `rank` of two meeting at 127.0.0.1:`port`, training `run_dir`, its output in `log`.
inline pid_t start_tcp_rank(int rank, int port, const std::string& run_dir, int timeout, int64_t steps,
                            const std::string& log, const std::string& extra = "") {
  const std::string r = std::to_string(rank);
  return spawn_shell("env -u HAMGAN_DIST_INIT MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port) +
                         " RANK=" + r + " LOCAL_RANK=" + r + " WORLD_SIZE=2 " + hamgan_bin() + " train" +
                         tiny_cli_args() + " --threads 1 --steps " + std::to_string(steps) + " --dist_timeout " +
                         std::to_string(timeout) + " --run_dir " + run_dir + " " + extra,
                     log);
}

inline size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace hamgan::test
