#pragma once
// The ranks of a data-parallel job must train one configuration: a rank started
// with another g_ch crashed inside Gloo, another seed silently broke the disjoint
// data shards, another steps ended one rank early. Checked once, right after the
// ranks connect and before any collective on the networks.
#include <torch/torch.h>

#include <string>

#include "core/distributed/communicator.h"

namespace hamgan {

// Compares every key of the resolved config text (flat `key = value` lines)
// across the ranks, except the per-process resources `threads` and `workers`;
// throws ConfigError on every rank naming the first differing key, this rank's
// value and the ranks that differ from rank 0.
// `device`: where the communicator's collectives run (CUDA for NCCL).
void check_ranks_agree(const std::string& config_text, Communicator& comm, const torch::Device& device);

}  // namespace hamgan
