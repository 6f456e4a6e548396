// The human lists of dataset formats, rendered from kDatasetFormats.
#include "data/formats.h"

#include <vector>

namespace hamgan {
namespace {

// "a, b or c".
std::string spoken_list(const std::vector<std::string>& items) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return s;
}

}  // namespace

std::string dataset_format_list() {
  std::vector<std::string> nouns;
  for (const DatasetFormat& f : kDatasetFormats) nouns.push_back(f.noun);
  return spoken_list(nouns);
}

std::string prepare_output_list() {
  std::vector<std::string> nouns;
  for (const DatasetFormat& f : kDatasetFormats)
    if (f.prepare_key) nouns.push_back(f.noun);
  return spoken_list(nouns);
}

}  // namespace hamgan
