#pragma once
// One table of fields per configuration. A field is a key (the TOML key and the
// CLI long option name), a type, a check, help text, what a resume may do with it,
// and typed get/set on the config object, all in text. Validation, "key = value"
// text and its reader, and CLI options are derived from the table, so a key is
// written down once. A field's default is whatever the config struct's initialiser says.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/config_file.h"
#include "core/enum_names.h"
#include "core/field_text.h"

namespace hamgan {

// kList: names from `choices` (any items when there are none), comma-separated in
// text ("fid_inception,is"), a TOML array in files (["fid_inception", "is"]); may be empty.
enum class FieldType { kInt, kFloat, kBool, kString, kChoice, kList };

// What `hamgan train --resume` does when a key differs from the run's recorded value.
enum class ResumeRule {
  kUndeclared,   // not said: treated as kMustMatch, and a test refuses it in the train table
  kMustMatch,    // changes the updates or random draws: refused unless --allow_config_change
  kMayChange,    // accepted and written to config_changes.log
  kNotCompared,  // run control (run_dir, steps, ...): neither refused nor recorded
};

// A requirement on a well-typed value: "" when fine, else what it must be ("must be >= 1"), or
// a whole problem with its fix when the text does not start with "must" ("x: no such file; ...").
using FieldCheck = std::function<std::string(const std::string& value)>;

// What a key is, independent of where its value lives.
struct FieldSpec {
  std::string key;
  FieldType type = FieldType::kString;
  std::string help;
  std::vector<std::string> choices;  // kChoice, kList: the accepted values
  FieldCheck check;                  // optional
  std::string default_value;         // canonical text; filled by make_field from the struct's default
  // kBool (or a kChoice with "true" among its choices) that the command line also
  // takes bare: --key means true; a choice also takes a word (--resume auto).
  bool flag = false;
  std::string negation;              // flag only: a second name that sets false ("no_progress")
  bool required = false;             // the command line or --config must give it
  ResumeRule resume = ResumeRule::kUndeclared;
};

FieldSpec int_field(std::string key, std::string help, FieldCheck check = {});
FieldSpec float_field(std::string key, std::string help, FieldCheck check = {});
FieldSpec bool_field(std::string key, std::string help);
// A boolean taken bare on the command line (--key, or --key=false; --negation sets false).
FieldSpec flag_field(std::string key, std::string help, std::string negation = "");
FieldSpec string_field(std::string key, std::string help, FieldCheck check = {});
FieldSpec choice_field(std::string key, std::vector<std::string> choices, std::string help);
FieldSpec list_field(std::string key, std::vector<std::string> choices, std::string help);
// A string (or any) field that must be given.
FieldSpec required(FieldSpec spec);

FieldCheck at_least(double lo);                    // value >= lo
FieldCheck above(double lo);                       // value > lo
FieldCheck in_range(double lo, double hi);         // lo <= value < hi
FieldCheck between(double lo, double hi);          // lo <= value <= hi
FieldCheck one_of(std::vector<int64_t> values);    // integer in a set
FieldCheck not_empty();

// What is wrong with `value` for `spec`, value first, with the fix ("" when fine; on success
// `value` becomes canonical: "1e-2" -> "0.01", "yes" -> "true", "010" -> "10"):
// "'abc' is not an integer; it must be an integer >= 1, like 64 (the default)",
// "-16 is out of range; it must be >= 1". Callers prefix where it came from ("--key: ").
std::string field_problem(const FieldSpec& spec, std::string& value);
// ConfigError "<section>: <key> <problem>" for a bad value: the check's requirement with the value
// ("must be >= 1, got '0'"), or field_problem's words for a value of the wrong type.
void check_field(const std::string& section, const FieldSpec& spec, std::string& value);
// `key = value` as a TOML line: strings and choices quoted, lists as arrays of strings.
std::string toml_line(const FieldSpec& spec, const std::string& value);
// A TOML entry's value as field text: a list's elements comma-joined (`list`), else its one value;
// ConfigError "<section>: <key> takes one value, got an array of N" otherwise.
std::string single_text_value(const std::string& section, const ConfigEntry& item, bool list);
// ConfigError "<section>: unknown key '<key>'".
[[noreturn]] void throw_unknown_field(const std::string& section, const std::string& key);

template <class T>
struct Field {
  FieldSpec spec;
  std::function<std::string(const T&)> get;              // canonical text of the current value
  std::function<void(T&, const std::string&)> set;       // from checked, canonical text

  Field on_resume(ResumeRule rule) const {
    Field f = *this;
    f.spec.resume = rule;
    return f;
  }
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

// A choice stored as enum member `m`, its choices and text from `names` (which must outlive the table).
template <class T, class E>
Field<T> enum_field(std::string key, const EnumNames<E>& names, std::string help, E T::*m) {
  return make_field<T>(
      choice_field(std::move(key), names.names(), std::move(help)), [&names, m](const T& c) { return names.name(c.*m); },
      [&names, m](T& c, const std::string& s) { c.*m = names.parse(s); });
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

// The rows of `a`, then those of `b`.
template <class T>
FieldTable<T> concat_fields(FieldTable<T> a, const FieldTable<T>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
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

// Sets the keys present in TOML `text` on `c` (missing keys keep c's values). Malformed TOML,
// unknown keys and bad values throw ConfigError naming the key.
template <class T>
void fields_from_text(const std::string& section, const FieldTable<T>& table, const std::string& text, T& c) {
  for (const ConfigEntry& item : parse_config_text(text, section)) {
    const std::string key = item.table.empty() ? item.key : item.table + "." + item.key;
    const Field<T>* field = nullptr;
    for (const auto& f : table)
      if (f.spec.key == key) field = &f;
    if (!field) throw_unknown_field(section, key);
    std::string value = single_text_value(section, item, field->spec.type == FieldType::kList);
    check_field(section, field->spec, value);
    field->set(c, value);
  }
}

}  // namespace hamgan
