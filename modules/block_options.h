#pragma once
// The three conversions every block with options needs, written once over the
// block's typed field table: the specs it registers, its typed options from a
// ContextOptions, and back.
#include <string>
#include <vector>

#include "core/config_fields.h"
#include "modules/context_block.h"

namespace hamgan {

template <class T>
std::vector<FieldSpec> option_specs(const FieldTable<T>& table) {
  std::vector<FieldSpec> specs;
  for (const auto& f : table) specs.push_back(f.spec);
  return specs;
}

// Every field read from `o` (missing keys at their registered defaults) and checked; errors name `block`.
template <class T>
T parse_block_options(const std::string& block, const FieldTable<T>& table, const ContextOptions& o) {
  T typed;
  for (const auto& f : table) {
    std::string v = o.value(f.spec.key);
    check_field(block, f.spec, v);
    f.set(typed, v);
  }
  return typed;
}

template <class T>
ContextOptions block_context_options(const std::string& block, const FieldTable<T>& table, const T& typed,
                                     int64_t num_classes) {
  ContextOptions o;
  o.name = block;
  o.num_classes = num_classes;
  for (const auto& f : table) o.values[f.spec.key] = f.get(typed);
  return o;
}

}  // namespace hamgan
