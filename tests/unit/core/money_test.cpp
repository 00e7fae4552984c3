#include "mediagen/core/money.hpp"

#include <gtest/gtest.h>

namespace mediagen {
namespace {

TEST(Money, ConvertsMinorUnitsToWholeUnits) {
  EXPECT_DOUBLE_EQ(to_whole_units(MinorUnits{150000}, 2), 1500.0);
  EXPECT_DOUBLE_EQ(to_whole_units(MinorUnits{1505}, 2), 15.05);
  EXPECT_DOUBLE_EQ(to_whole_units(MinorUnits{-250}, 2), -2.5);
  EXPECT_DOUBLE_EQ(to_whole_units(MinorUnits{7}, 0), 7.0);
  EXPECT_DOUBLE_EQ(to_whole_units(MinorUnits{1}, 8), 1e-8);
  EXPECT_DOUBLE_EQ(to_whole_units(MinorUnits{0}, 2), 0.0);
}

TEST(Money, OrdersAmounts) {
  EXPECT_LT(MinorUnits{1}, MinorUnits{2});
  EXPECT_EQ(MinorUnits{5}, MinorUnits{5});
}

}  // namespace
}  // namespace mediagen
