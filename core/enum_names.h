#pragma once
// One table of names per enum: value -> name, name -> value (with a ConfigError
// listing the names), and the names a choice field offers. A row marked as an
// alias is accepted when reading but never written or listed.
#include <initializer_list>
#include <string>
#include <vector>

#include "core/errors.h"

namespace hamgan {

template <class E>
class EnumNames {
 public:
  struct Row {
    E value;
    std::string name;
    bool alias = false;
  };

  // `key` names the setting in errors ("loss: unknown value 'x'; use hinge or ns").
  EnumNames(std::string key, std::initializer_list<Row> rows) : key_(std::move(key)), rows_(rows) {}

  const std::string& name(E value) const {
    for (const auto& r : rows_)
      if (!r.alias && r.value == value) return r.name;
    throw ConfigError(key_ + ": a value without a name in its table");
  }

  bool contains(const std::string& name) const {
    for (const auto& r : rows_)
      if (r.name == name) return true;
    return false;
  }

  E parse(const std::string& name) const {
    for (const auto& r : rows_)
      if (r.name == name) return r.value;
    throw ConfigError(key_ + ": unknown value '" + name + "'; use " + names_text());
  }

  // The written names in table order (aliases left out).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& r : rows_)
      if (!r.alias) out.push_back(r.name);
    return out;
  }

  // "a, b or c".
  std::string names_text() const {
    const auto n = names();
    std::string s;
    for (size_t i = 0; i < n.size(); ++i) s += (i == 0 ? "" : i + 1 == n.size() ? " or " : ", ") + n[i];
    return s;
  }

  const std::string& key() const { return key_; }

 private:
  std::string key_;
  std::vector<Row> rows_;
};

}  // namespace hamgan
