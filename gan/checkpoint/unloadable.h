#pragma once
// A run directory whose step checkpoints are all there but none loads (bit rot,
// a cut marker, a disk that failed): every command refuses it in one line that
// names the files, and nothing in it is overwritten or pruned. `--resume FILE`
// continues from a named good checkpoint instead (checkpoints/best.pt, or a copy
// restored from a backup); the damaged step files are then set aside under
// `<name>.damaged`, never pruned, so the run can write its new ones.
#include <string>
#include <vector>

namespace hamgan {

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
