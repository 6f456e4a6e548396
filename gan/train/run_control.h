#pragma once
// The options of `hamgan train` that steer one process rather than describe the
// run: whether to resume, how long this process may run, whether to draw a
// progress bar. They are rows like the train keys (the command line and a
// --config file read them alike) but are never part of the resolved config, so
// a run resumed with other values is still the same run.
#include <cstdint>
#include <string>

#include "gan/train/train_config.h"

namespace hamgan {

// resume (false | true | auto; a bare --resume is true), allow_config_change, time_limit, quiet.
const FieldTable<TrainConfig>& train_run_control_fields();

// A wall-clock duration as SLURM and people write it, in seconds: "5400", "90m",
// "1h30m", "2d", "1:30:00" (h:mm:ss) or "90:00" (mm:ss); -1 for anything else.
int64_t parse_duration(const std::string& text);
// "1h30m" for 5400; "0" for 0.
std::string format_duration(int64_t seconds);

}  // namespace hamgan
