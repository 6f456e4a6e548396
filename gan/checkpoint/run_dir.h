#pragma once
// The checkpoint directory of a run (<run>/checkpoints/): step_<step>.pt files,
// each with its completeness marker, and a `latest` file naming the newest
// good one. Old step files beyond `keep` are pruned after a new one is marked,
// so the last good checkpoint is never replaced by a later, possibly broken,
// state. Files not named step_*.pt (e.g. a kept best checkpoint) are never pruned.
#include <cstdint>
#include <string>
#include <vector>
#include "core/run_paths.h"

namespace hamgan {

std::string checkpoint_file_name(int64_t step);  // "step_0000500.pt"

// Step files in `dir`, oldest first (complete or not).
std::vector<std::string> step_checkpoints(const std::string& dir);

// Complete (its marker matches) and opens as a checkpoint of a format this build reads (digest checked).
bool checkpoint_is_loadable(const std::string& path);

// The newest good checkpoint of `dir`, or "" when it has none. `latest` is
// trusted when it names a complete, readable file; otherwise the newest such
// step file is used and one warning line naming both goes to stderr.
std::string latest_checkpoint(const std::string& dir);

// Points `latest` at `file_name` (atomically), then deletes all but the newest
// `keep` step files and their markers (never `file_name` itself, nor `protect`).
void mark_latest_checkpoint(const std::string& dir, const std::string& file_name, int64_t keep,
                            const std::string& protect = "");

// A kept checkpoint file (e.g. best.pt) that is there but incomplete or damaged: its size
// or SHA-256 differs from its completeness marker, or the marker is missing.
bool checkpoint_is_damaged(const std::string& path);

// Accepts a checkpoint file, a run directory or its checkpoints/ directory; throws CheckpointError.
// which = "best" takes the run's kept best checkpoint (best.pt) instead of its latest.
std::string resolve_checkpoint_path(const std::string& file_or_dir, const std::string& which = "latest");

// A run directory whose step checkpoints are all there but none loads (bit rot,
// a cut marker, a disk that failed): every command refuses it in one line that
// names the files, and nothing in it is overwritten or pruned. `--resume FILE`
// continues from a named good checkpoint instead (checkpoints/best.pt, or a copy
// restored from a backup); the damaged step files are then set aside under
// `<name>.damaged`, never pruned, so the run can write its new ones
// (gan/checkpoint/unloadable.cpp).

// Step files of `dir` (step_*.pt) that do not load, oldest first.
std::vector<std::string> unloadable_checkpoints(const std::string& dir);

// "3 checkpoints, none loadable (step_0000200.pt, step_0000400.pt, step_0000600.pt: incomplete or
// damaged)", or "" when `dir` holds a loadable step file or none at all.
std::string unloadable_checkpoints_summary(const std::string& dir);

// Throws ConfigError when `dir` holds step files and none loads: one line naming them and the ways on.
void refuse_unloadable_checkpoints(const std::string& dir);

// The checkpoint `file` a run continues from (`--resume FILE`): it must load, and `dir` (the run's
// checkpoints) must hold no loadable checkpoint of a later step, which the run would overwrite. Damaged
// step files of `dir` are renamed to `<name>.damaged` (kept, never pruned), each named on stderr.
std::string named_checkpoint_to_resume(const std::string& file, const std::string& dir);

}  // namespace hamgan
