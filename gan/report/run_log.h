#pragma once
// The run's metrics log: one JSON object per line (metrics.jsonl), flat
// {"step": N, "name": value, ..., "note": "text"}, readable with
// `pandas.read_json(lines=True)` or jq, appended as training goes and trimmed
// on resume. Text members (e.g. the protocol of an evaluation) follow the numbers.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hamgan {

using MetricRow = std::vector<std::pair<std::string, double>>;
using TextRow = std::vector<std::pair<std::string, std::string>>;

class MetricsLog {
 public:
  // A fresh run (`resume_step` < 0) starts an empty file; a resumed run keeps
  // the rows up to `resume_step` and drops later ones (written after the
  // checkpoint it resumes from), so the log never has a step twice.
  MetricsLog(std::string path, int64_t resume_step);
  void append(int64_t step, const MetricRow& values, const TextRow& texts = {});  // one line, flushed
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Rows of a metrics.jsonl file (numbers only: text members are skipped; NaN/Infinity/null read as NaN/±inf).
// A missing file or malformed line throws DataError naming the file and line.
std::vector<std::map<std::string, double>> read_metrics(const std::string& path);
// The same rows' text members (e.g. an evaluation's `protocol` and `labels`); rows without any are empty maps.
std::vector<std::map<std::string, std::string>> read_metric_texts(const std::string& path);

// "1.25", "nan", "inf": the JSON spelling used in the log (Python's json reads NaN/Infinity).
std::string json_number(double v);
std::string json_string(const std::string& s);  // quoted, with JSON escapes

}  // namespace hamgan
