// core/enum_names.h: one name table per enum, both directions, aliases read but never written.
#include <gtest/gtest.h>

#include "core/enum_names.h"
#include "core/errors.h"

namespace hamgan {
namespace {

enum class Fruit { kApple, kPear, kPlum };

const EnumNames<Fruit>& fruit_names() {
  static const EnumNames<Fruit> names(
      "fruit", {{Fruit::kApple, "apple"}, {Fruit::kPear, "pear"}, {Fruit::kPlum, "plum"}, {Fruit::kPear, "poire", true}});
  return names;
}

TEST(EnumNames, ReadsAndWritesEveryRowAndListsTheNamesInOrder) {
  for (auto f : {Fruit::kApple, Fruit::kPear, Fruit::kPlum}) EXPECT_EQ(fruit_names().parse(fruit_names().name(f)), f);
  EXPECT_EQ(fruit_names().parse("poire"), Fruit::kPear);  // an alias is read
  EXPECT_EQ(fruit_names().name(Fruit::kPear), "pear");    // and never written
  EXPECT_EQ(fruit_names().names(), (std::vector<std::string>{"apple", "pear", "plum"}));
  try {
    fruit_names().parse("fig");
    ADD_FAILURE() << "accepted fig";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "fruit: unknown value 'fig'; use apple, pear or plum");
  }
}

}  // namespace
}  // namespace hamgan
