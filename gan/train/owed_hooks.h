#pragma once
// The work a run owes its last step after that step's checkpoint: the sample
// grid and the final evaluation (with best.pt). A stop or a kill can land after
// the checkpoint and before them; the run is then at its last step but not done,
// so a resume (the requeued `--resume auto` job) finishes exactly that work.
// What is owed is read from the run's own files: no grid PNG of the step, no
// evaluation row (one with a protocol) of the step in metrics.jsonl.
#include <memory>

#include "core/distributed/communicator.h"
#include "core/run_paths.h"
#include "gan/train/hooks.h"

namespace hamgan {

// The grid and evaluation hooks still owed at `step` (empty when none is); every rank
// gets the same evaluation decision (rank 0 reads the files).
TrainHooks owed_final_hooks(const HookSettings& s, std::shared_ptr<Evaluator> evaluator, const RunPaths& paths,
                            int64_t step, Communicator& comm);

}  // namespace hamgan
