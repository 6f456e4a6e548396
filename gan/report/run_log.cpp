#include "gan/report/run_log.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/errors.h"

namespace hamgan {

std::string json_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

MetricsLog::MetricsLog(std::string path, int64_t resume_step) : path_(std::move(path)) {
  std::vector<std::string> keep;
  if (resume_step >= 0) {
    std::ifstream in(path_);
    std::string line;
    for (int64_t n = 1; std::getline(in, line); ++n) {
      if (line.empty()) continue;
      const auto pos = line.find("\"step\":");
      if (pos == std::string::npos) continue;
      if (std::atoll(line.c_str() + pos + 7) <= resume_step) keep.push_back(line);
    }
  }
  std::string text;
  for (const auto& l : keep) text += l + "\n";
  write_text_atomically(path_, text);
}

void MetricsLog::append(int64_t step, const MetricRow& values, const TextRow& texts) {
  std::ostringstream line;
  line << "{\"step\": " << step;
  for (const auto& [k, v] : values) line << ", \"" << k << "\": " << json_number(v);
  for (const auto& [k, v] : texts) line << ", \"" << k << "\": " << json_string(v);
  line << "}\n";
  std::ofstream out(path_, std::ios::app);
  out << line.str();
  out.flush();
}

namespace {
struct Parser {
  const std::string& s;
  size_t i = 0;
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  // A JSON string value into *out (the escapes json_string writes undone); false when the value is not a string.
  bool string_value(std::string* out) {
    if (!eat('"')) return false;
    out->clear();
    while (i < s.size() && s[i] != '"') {
      if (s[i] != '\\') {
        out->push_back(s[i++]);
        continue;
      }
      if (i + 1 >= s.size()) break;
      const char c = s[i + 1];
      out->push_back(c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c);
      i += 2;
    }
    if (i >= s.size()) throw std::runtime_error("unterminated string");
    ++i;
    return true;
  }
  std::string key() {
    if (!eat('"')) throw std::runtime_error("expected a quoted key");
    const size_t start = i;
    while (i < s.size() && s[i] != '"') ++i;
    if (i >= s.size()) throw std::runtime_error("unterminated key");
    return s.substr(start, i++ - start);
  }
  double number() {
    ws();
    for (const auto& [word, value] : {std::pair<const char*, double>{"NaN", NAN},
                                      {"null", NAN},
                                      {"Infinity", INFINITY},
                                      {"-Infinity", -INFINITY}}) {
      const size_t n = std::strlen(word);
      if (s.compare(i, n, word) == 0) {
        i += n;
        return value;
      }
    }
    char* end = nullptr;
    const double v = std::strtod(s.c_str() + i, &end);
    if (end == s.c_str() + i) throw std::runtime_error("expected a number");
    i = static_cast<size_t>(end - s.c_str());
    return v;
  }
};
}  // namespace

namespace {

// Every row's numbers and text members, in file order.
void read_rows(const std::string& path, std::vector<std::map<std::string, double>>* numbers,
               std::vector<std::map<std::string, std::string>>* texts) {
  std::ifstream in(path);
  if (!in) throw DataError(path + ": cannot open metrics log (is this a run directory of 'hamgan train'?)");
  std::string line, text;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Parser p{line};
    std::map<std::string, double> row;
    std::map<std::string, std::string> text_row;
    try {
      if (!p.eat('{')) throw std::runtime_error("expected '{'");
      if (!p.eat('}')) {
        do {
          std::string k = p.key();
          if (!p.eat(':')) throw std::runtime_error("expected ':'");
          if (p.string_value(&text))
            text_row[k] = text;
          else
            row[k] = p.number();
        } while (p.eat(','));
        if (!p.eat('}')) throw std::runtime_error("expected '}'");
      }
    } catch (const std::runtime_error& e) {
      throw DataError(path + ":" + std::to_string(n) + ": malformed metrics line (" + e.what() + ")");
    }
    if (numbers) numbers->push_back(std::move(row));
    if (texts) texts->push_back(std::move(text_row));
  }
}

}  // namespace

std::vector<std::map<std::string, double>> read_metrics(const std::string& path) {
  std::vector<std::map<std::string, double>> rows;
  read_rows(path, &rows, nullptr);
  return rows;
}

std::vector<std::map<std::string, std::string>> read_metric_texts(const std::string& path) {
  std::vector<std::map<std::string, std::string>> rows;
  read_rows(path, nullptr, &rows);
  return rows;
}

}  // namespace hamgan
