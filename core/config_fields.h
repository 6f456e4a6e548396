#pragma once
// One table of fields per configuration. A field is a key (the TOML key and the
// CLI long option name), a type, a check, help text and typed get/set on the
// config object, all in text. Validation, "key = value" text and its reader,
// and CLI options are derived from the table, so a key is written down once.
// A field's default is whatever the config struct's initialiser says.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace hamgan {

// kList: names from `choices`, comma-separated in text ("fid_inception,is"), a
// TOML array in files (["fid_inception", "is"]); may be empty.
enum class FieldType { kInt, kFloat, kBool, kString, kChoice, kList };

// A check of a well-typed value: "" when fine, else what is wrong ("must be >= 1").
using FieldCheck = std::function<std::string(const std::string& value)>;

// What a key is, independent of where its value lives.
struct FieldSpec {
  std::string key;
  FieldType type = FieldType::kString;
  std::string help;
  std::vector<std::string> choices;  // kChoice: the accepted values
  FieldCheck check;                  // optional
  std::string default_value;         // canonical text; filled by make_field from the struct's default
};

FieldSpec int_field(std::string key, std::string help, FieldCheck check = {});
FieldSpec float_field(std::string key, std::string help, FieldCheck check = {});
FieldSpec bool_field(std::string key, std::string help);
FieldSpec string_field(std::string key, std::string help, FieldCheck check = {});
FieldSpec choice_field(std::string key, std::vector<std::string> choices, std::string help);
FieldSpec list_field(std::string key, std::vector<std::string> choices, std::string help);

// The items of a kList value's canonical text ("" → none).
std::vector<std::string> split_list(const std::string& text);
std::string join_list(const std::vector<std::string>& items);

FieldCheck at_least(double lo);                    // value >= lo
FieldCheck above(double lo);                       // value > lo
FieldCheck in_range(double lo, double hi);         // lo <= value < hi
FieldCheck one_of(std::vector<int64_t> values);    // integer in a set
FieldCheck not_empty();

// The problem with `value` for `spec` ("" when fine); on success `value` becomes canonical
// ("1e-2" -> "0.01", "yes" -> "true").
std::string field_problem(const FieldSpec& spec, std::string& value);
// field_problem as ConfigError "<section>: <key> <problem>".
void check_field(const std::string& section, const FieldSpec& spec, std::string& value);

// Canonical text of a typed value and back (the value must already be canonical or checked).
std::string format_value(int64_t v);
std::string format_value(uint64_t v);
std::string format_value(double v);  // shortest decimal that reads back exactly, always with '.' or 'e'
std::string format_value(bool v);
std::string format_value(const std::string& v);
void parse_value(const std::string& s, int64_t& v);
void parse_value(const std::string& s, uint64_t& v);
void parse_value(const std::string& s, double& v);
void parse_value(const std::string& s, bool& v);
void parse_value(const std::string& s, std::string& v);
std::string format_value(const std::vector<std::string>& v);  // comma-joined
void parse_value(const std::string& s, std::vector<std::string>& v);

// `key = value` as a TOML line: strings and choices quoted, lists as arrays of strings.
std::string toml_line(const FieldSpec& spec, const std::string& value);
// The `key = value` pairs of flat TOML text, values unquoted (a one-line array of strings
// becomes its comma-joined items); blank and '#' lines are skipped.
// A line that is not `key = value` throws ConfigError naming `section` and the line.
std::vector<std::pair<std::string, std::string>> read_toml_lines(const std::string& section, const std::string& text);
// ConfigError "<section>: unknown key '<key>'".
[[noreturn]] void throw_unknown_field(const std::string& section, const std::string& key);

template <class T>
struct Field {
  FieldSpec spec;
  std::function<std::string(const T&)> get;              // canonical text of the current value
  std::function<void(T&, const std::string&)> set;       // from checked, canonical text
};
template <class T>
using FieldTable = std::vector<Field<T>>;

// A field with its default taken from T{}.
template <class T>
Field<T> make_field(FieldSpec spec, std::function<std::string(const T&)> get,
                    std::function<void(T&, const std::string&)> set) {
  spec.default_value = get(T{});
  return {std::move(spec), std::move(get), std::move(set)};
}

// A field stored in member `m` (int64_t, uint64_t, double, bool, std::string or a list of strings).
template <class T, class M>
Field<T> member_field(FieldSpec spec, M T::*m) {
  return make_field<T>(
      std::move(spec), [m](const T& c) { return format_value(c.*m); },
      [m](T& c, const std::string& s) { parse_value(s, c.*m); });
}

// The fields of `inner`, reached through member `m` of Outer.
template <class Outer, class Inner>
FieldTable<Outer> nested_fields(const FieldTable<Inner>& inner, Inner Outer::*m) {
  FieldTable<Outer> out;
  for (const auto& f : inner)
    out.push_back({f.spec, [m, get = f.get](const Outer& c) { return get(c.*m); },
                   [m, set = f.set](Outer& c, const std::string& s) { set(c.*m, s); }});
  return out;
}

// Throws ConfigError "<section>: <key> ..." for the first bad value.
template <class T>
void validate_fields(const std::string& section, const FieldTable<T>& table, const T& c) {
  for (const auto& f : table) {
    std::string v = f.get(c);
    check_field(section, f.spec, v);
  }
}

// Every field as a TOML line, in table order.
template <class T>
std::string fields_to_text(const FieldTable<T>& table, const T& c) {
  std::string s;
  for (const auto& f : table) s += toml_line(f.spec, f.get(c));
  return s;
}

// Sets the keys present in `text` on `c` (missing keys keep c's values). Unknown keys and bad
// values throw ConfigError naming the key.
template <class T>
void fields_from_text(const std::string& section, const FieldTable<T>& table, const std::string& text, T& c) {
  for (auto& [key, value] : read_toml_lines(section, text)) {
    const Field<T>* field = nullptr;
    for (const auto& f : table)
      if (f.spec.key == key) field = &f;
    if (!field) throw_unknown_field(section, key);
    check_field(section, field->spec, value);
    field->set(c, value);
  }
}

}  // namespace hamgan
