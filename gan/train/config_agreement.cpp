#include "gan/train/config_agreement.h"

#include <functional>
#include <sstream>
#include <vector>

#include "core/errors.h"

namespace hamgan {
namespace {

struct KeyLine {
  std::string key, line;
};

std::vector<KeyLine> compared_lines(const std::string& text) {
  std::vector<KeyLine> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find(" = ");
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq);
    if (key == "threads" || key == "workers") continue;  // each process's own resources
    out.push_back({key, line});
  }
  return out;
}

// A 63-bit digest of a line; a collision would have to hit the same key's two values.
int64_t digest(const std::string& s) { return static_cast<int64_t>(std::hash<std::string>{}(s) >> 1); }

}  // namespace

void check_ranks_agree(const std::string& config_text, Communicator& comm, const torch::Device& device) {
  if (comm.world_size() <= 1) return;
  const std::vector<KeyLine> lines = compared_lines(config_text);
  const int64_t n = static_cast<int64_t>(lines.size());
  // Gathered tensors must be of one size on every rank: agree on the count first.
  const int64_t total = comm.sum(n, "comparing the ranks' configs");
  if (total != n * comm.world_size())
    throw ConfigError("config: the ranks resolved different sets of keys (this rank, " + std::to_string(comm.rank()) +
                      ", has " + std::to_string(n) + "); start every rank with the same hamgan build and options");
  torch::Tensor mine = torch::empty({n}, torch::kLong);
  for (int64_t i = 0; i < n; ++i) mine[i] = digest(lines[static_cast<size_t>(i)].line);
  const std::vector<torch::Tensor> all = comm.all_gather(mine.to(device), "comparing the ranks' configs");
  std::vector<torch::Tensor> host;
  for (const auto& t : all) host.push_back(t.to(torch::kCPU));
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> differing;
    const int64_t reference = host[0][i].item<int64_t>();
    for (size_t r = 1; r < host.size(); ++r)
      if (host[r][i].item<int64_t>() != reference) differing.push_back(static_cast<int64_t>(r));
    if (differing.empty()) continue;
    std::string ranks;
    for (int64_t r : differing) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    throw ConfigError("config: `" + lines[static_cast<size_t>(i)].key + "` differs between the ranks (rank " +
                      ranks + " against rank 0; here, rank " + std::to_string(comm.rank()) + ": " +
                      lines[static_cast<size_t>(i)].line + "); start every rank with the same options and config file");
  }
}

}  // namespace hamgan
