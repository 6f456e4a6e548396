#include "gan/train/run_control.h"

#include <cctype>
#include <vector>

namespace hamgan {
namespace {

// "1:30:00" or "90:00": the colon-separated fields, most significant first; each holds digits.
int64_t clock_duration(const std::string& text) {
  std::vector<int64_t> parts{0};
  bool digits = false;  // in the current field
  for (char ch : text) {
    if (ch == ':') {
      if (!digits) return -1;  // ":" or "1::2" is not a time, and must not read as 0 (no limit)
      digits = false;
      parts.push_back(0);
    } else if (std::isdigit(static_cast<unsigned char>(ch))) {
      if (parts.back() > 1000000) return -1;
      parts.back() = parts.back() * 10 + (ch - '0');
      digits = true;
    } else {
      return -1;
    }
  }
  if (parts.size() > 3 || !digits) return -1;
  int64_t seconds = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0 && parts[i] >= 60) return -1;  // minutes and seconds below 60
    seconds = seconds * 60 + parts[i];
  }
  return seconds;
}

// "1h30m", "90m", "5400", "2d": numbers, each followed by a unit (a lone number is seconds).
int64_t unit_duration(const std::string& text) {
  int64_t seconds = 0, number = -1;
  for (char ch : text) {
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      if (number > 100000000) return -1;
      number = (number < 0 ? 0 : number * 10) + (ch - '0');
      continue;
    }
    const int64_t unit = ch == 'd' ? 86400 : ch == 'h' ? 3600 : ch == 'm' ? 60 : ch == 's' ? 1 : 0;
    if (unit == 0 || number < 0) return -1;
    seconds += number * unit;
    number = -1;
  }
  return number >= 0 ? seconds + number : seconds;
}

bool is_resume_mode(const std::string& value) {
  for (const auto& n : resume_mode_names().names())
    if (n == value) return true;
  return false;
}

// A mode, or a path to a file (a checkpoint: checked when the run opens it).
std::string resume_problem(const std::string& value) {
  if (is_resume_mode(value)) return "";
  if (value.find(".pt") == std::string::npos && value.find('/') == std::string::npos)
    return "'" + value + "' is not one of the choices; it must be one of false, true, auto, or a checkpoint file "
           "(e.g. runs/x/checkpoints/best.pt)";
  return "";
}

std::string duration_problem(const std::string& value) {
  return parse_duration(value) >= 0 ? "" : "must be a duration like 3h50m, 230m, 13800 (seconds) or 3:50:00";
}

}  // namespace

int64_t parse_duration(const std::string& text) {
  if (text.empty()) return -1;
  return text.find(':') != std::string::npos ? clock_duration(text) : unit_duration(text);
}

std::string format_duration(int64_t seconds) {
  if (seconds <= 0) return "0";
  std::string out;
  for (const auto& [unit, name] : {std::pair<int64_t, char>{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}})
    if (seconds >= unit) {
      out += std::to_string(seconds / unit) + name;
      seconds %= unit;
    }
  return out;
}

const EnumNames<ResumeMode>& resume_mode_names() {
  static const EnumNames<ResumeMode> names(
      "resume", {{ResumeMode::kNo, "false"}, {ResumeMode::kYes, "true"}, {ResumeMode::kAuto, "auto"}});
  return names;
}

const FieldTable<TrainConfig>& train_run_control_fields() {
  using T = TrainConfig;
  static const FieldTable<TrainConfig> table = [] {
    // false | true | auto, or the checkpoint file to continue from (e.g. checkpoints/best.pt when
    // every step file is damaged, or a copy restored from a backup).
    Field<T> resume = make_field<T>(
        string_field("resume",
                     "Continue from the run dir's newest checkpoint (auto: where there is one, else start fresh; "
                     "FILE: from that checkpoint file)",
                     resume_problem),
        [](const T& c) { return c.resume_file.empty() ? resume_mode_names().name(c.resume) : c.resume_file; },
        [](T& c, const std::string& s) {
          const bool mode = is_resume_mode(s);
          c.resume = mode ? resume_mode_names().parse(s) : ResumeMode::kYes;
          c.resume_file = mode ? "" : s;
        });
    resume.spec.flag = true;  // --resume alone means true
    return FieldTable<TrainConfig>{
        resume,
        member_field(flag_field("allow_config_change", "With --resume: accept a changed seed, batch_size, dataset, "
                                                       "... (recorded in config_changes.log)"),
                     &T::allow_config_change),
        make_field<T>(string_field("time_limit", "Wall-clock time this process may run, e.g. 3h50m (0: none); it "
                                                 "checkpoints and stops in time",
                                   duration_problem),
                      [](const T& c) { return format_duration(c.time_limit); },
                      [](T& c, const std::string& s) { c.time_limit = parse_duration(s); }),
        make_field<T>(flag_field("quiet", "No progress bar"), [](const T& c) { return format_value(!c.progress); },
                      [](T& c, const std::string& s) { c.progress = s != "true"; }),
    };
  }();
  return table;
}

}  // namespace hamgan
