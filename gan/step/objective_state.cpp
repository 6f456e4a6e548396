// The objective's checkpointed state (gan/step/objective.h): ADA's p and counters, and
// every rank-local row by name: "objective_<name>" holds this rank's row and, in a job of
// several ranks, "objective_<name>_ranks" every rank's, so each rank resumes its own.
// Files written before the rows had names hold one packed row, "recipe_row" (LeCam's two
// anchors, whether they are set, ADA's two sums), and "rank_recipe_rows"; they still load.
#include "core/distributed/communicator.h"
#include "gan/checkpoint/archive.h"
#include "gan/step/objective.h"

namespace hamgan {
namespace {

const char* const kLegacyRow = "recipe_row";
const char* const kLegacyRankRows = "rank_recipe_rows";

std::string row_key(const std::string& name) { return "objective_" + name; }

// This rank's row of `key`: its own row of the ranks' table where the file has one of this world size.
// Checked to hold `width` numbers before anything reads them.
torch::Tensor own_row(CheckpointReader& r, const std::string& key, const std::string& ranks_key, int64_t rank,
                      int64_t world_size, int64_t width) {
  std::string from = key;
  torch::Tensor row;
  if (r.has(ranks_key)) {
    const torch::Tensor all = r.get_tensor(ranks_key);
    if (all.dim() == 2 && all.size(0) == world_size) {
      from = ranks_key;
      row = all[rank];
    }
  }
  if (!row.defined()) row = r.get_tensor(key);
  if (row.dim() != 1 || row.numel() != width || !row.is_floating_point())
    throw CheckpointError(r.path() + ": " + from + " is not a row of " + std::to_string(width) +
                          " numbers (damaged or written by another tool); use an earlier checkpoint of the run");
  return row;
}

}  // namespace

torch::Tensor Objective::ada_row() const { return ada_->state().sign_sums.to(torch::kDouble); }

void Objective::load_ada_row(const torch::Tensor& row) {
  AdaState s = ada_->state();
  s.sign_sums = row.to(torch::kDouble).cpu().to(torch::kFloat);
  ada_->load_state(s);
}

void Objective::gather(Communicator& comm) {
  rank_rows_.clear();
  const auto add = [&](const std::string& name, const torch::Tensor& row) {
    rank_rows_.emplace_back(name, torch::stack(comm.all_gather(row, "gathering the objective's " + name +
                                                                       " state for a checkpoint")));
  };
  if (ada_) add("ada", ada_row());
  for (const auto& [name, t] : terms_)
    if (const torch::Tensor row = t->state_row(); row.defined()) add(name, row);
}

void Objective::save(CheckpointWriter& w) const {
  const auto put_row = [&](const std::string& name, const torch::Tensor& row) {
    w.put(row_key(name), row);
    for (const auto& [n, rows] : rank_rows_)
      if (n == name && rows.size(0) > 1) w.put(row_key(name) + "_ranks", rows);
  };
  if (ada_) {
    const AdaState s = ada_->state();
    w.put(row_key("ada") + "_p", s.p);
    w.put(row_key("ada") + "_updates", s.updates);
    w.put(row_key("ada") + "_images", s.images);
    put_row("ada", ada_row());
  }
  for (const auto& [name, t] : terms_)
    if (const torch::Tensor row = t->state_row(); row.defined()) put_row(name, row);
}

void Objective::load(CheckpointReader& r, int64_t rank, int64_t world_size) {
  // ADA's p and counters, the same on every rank: under "ada_" in files with the packed row.
  const auto load_ada_counters = [&](const std::string& prefix) {
    AdaState s = ada_->state();
    s.p = r.get_double(prefix + "p");
    s.updates = r.get_int(prefix + "updates");
    s.images = r.get_int(prefix + "images");
    ada_->load_state(s);
  };
  if (r.has(kLegacyRow)) {
    const torch::Tensor row = own_row(r, kLegacyRow, kLegacyRankRows, rank, world_size, 5).to(torch::kDouble).cpu();
    if (ObjectiveTerm* lecam = term("lecam")) lecam->load_state_row(row.slice(0, 0, 3));
    if (ada_) {
      load_ada_row(row.slice(0, 3, 5));
      if (r.has("ada_p")) load_ada_counters("ada_");
    }
    return;
  }
  // Each row as wide as the component's own (a fresh term's row says how wide).
  const auto named_row = [&](const std::string& name, int64_t width) {
    return own_row(r, row_key(name), row_key(name) + "_ranks", rank, world_size, width);
  };
  // A component the file lacks (the term was off when it was written) starts afresh.
  if (ada_ && r.has(row_key("ada"))) {
    load_ada_row(named_row("ada", 2));
    load_ada_counters(row_key("ada") + "_");
  }
  for (auto& [name, t] : terms_)
    if (r.has(row_key(name))) t->load_state_row(named_row(name, t->state_row().numel()));
}

}  // namespace hamgan
