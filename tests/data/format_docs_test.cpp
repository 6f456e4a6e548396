// data/formats.h: the one table of dataset formats. The help strings and error
// messages are rendered from it, and every list of formats in the docs names
// each row, so a format added to the table and missed by a doc fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "core/errors.h"
#include "data/formats.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

// A list of formats in a doc: the text from `anchor` up to the next `end`.
struct DocList {
  const char* file;  // relative to the source tree
  const char* anchor;
  const char* end;
};

constexpr DocList kDocLists[] = {
    {"README.md", "any dataset (", ")"},  // the row of `hamgan prepare`
    {"docs/architecture.md", "| `data/` | datasets (", ")"},
    {"docs/data.md", "| Path ", "\n\n"},  // the table open_dataset follows
    {"docs/data.md", "| `--input`/`src` |", "\n"},
    {"docs/metrics.md", "a data set opened by `data/`", ")"},
    {"docs/training.md", "| dataset |", "\n"},
};

TEST(DatasetFormats, EveryDocListNamesEveryFormat) {
  for (const DocList& list : kDocLists) {
    const std::string path = std::string(HAMGAN_SOURCE_DIR) + "/" + list.file;
    const std::string text = test::file_contents(path);
    ASSERT_FALSE(text.empty()) << path << ": cannot read it";
    const size_t from = text.find(list.anchor);
    ASSERT_NE(from, std::string::npos) << path << ": no list starting '" << list.anchor << "'";
    const std::string listed = text.substr(from, text.find(list.end, from + 1) - from);
    for (const DatasetFormat& f : kDatasetFormats)
      EXPECT_NE(listed.find(f.name), std::string::npos)
          << path << ": the list at '" << list.anchor << "' does not name " << f.name << " (data/formats.h)";
  }
}

TEST(DatasetFormats, RowsAreCompleteAndNamedOnce) {
  std::set<std::string> names;
  for (const DatasetFormat& f : kDatasetFormats) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    for (const char* text : {f.noun, f.what, f.recognised}) EXPECT_GT(std::string(text).size(), 3u) << f.name;
  }
}

TEST(DatasetFormats, HumanListsReadAsOneSentence) {
  EXPECT_EQ(dataset_format_list(), "an IDX folder, an image folder, an .hdf5 file or a .zip archive");
  EXPECT_EQ(prepare_output_list(), "an .hdf5 file or a .zip archive");
}

TEST(DatasetFormats, AFileOfNoFormatIsRefusedNamingEveryFormat) {
  const std::string path = test::scratch_dir("data", "no_format") + "/notes.txt";
  std::ofstream(path) << "neither HDF5 nor ZIP\n";
  DatasetSpec spec;
  spec.path = path;
  try {
    open_dataset(spec);
    FAIL() << "a text file was opened as a dataset";
  } catch (const DataError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": not a dataset (expected " + dataset_format_list() + ")");
  }
}

}  // namespace
}  // namespace hamgan
