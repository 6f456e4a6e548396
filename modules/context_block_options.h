#pragma once
// The option fields of one registered context block (the registry's row), for tools that
// list the blocks with their own options, such as `hamgan model-info --fields_json`.
#include <string>
#include <vector>

#include "core/config_fields.h"

namespace hamgan {

// Throws ModelError naming the registered blocks when `name` is not one of them.
std::vector<FieldSpec> context_block_option_fields(const std::string& name);

}  // namespace hamgan
