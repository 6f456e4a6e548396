#pragma once
// The model keys and the registered context blocks as JSON (`hamgan model-info --fields_json`),
// generated from model_config_fields() and the block registry, so that a copy kept elsewhere (the
// Python package's tables) can be compared with the binary instead of with a hand-made list.
#include <string>

namespace hamgan {

// {"model_fields": [FIELD...], "blocks": [{"name", "options": [FIELD...]}...]}
// with FIELD = {"name", "type" (int|float|bool|string|choice|list), "default" (the canonical text,
// core/field_text.h: "0.01", "true", "nmf"), "choices" (choice and list fields that name theirs)}, all in
// table order. model_fields holds every key of model_config_fields(), block options included; each
// block lists its own options, as its registry row holds them.
std::string model_fields_json();

}  // namespace hamgan
