#include <gtest/gtest.h>

#include "realtime/address_slots.hpp"

namespace mediagen::realtime {
namespace {

TEST(AddressSlots, CapsTheSocketsOfOneAddressAndFreesASlotWithItsSocket) {
  auto slots = std::make_shared<AddressSlots>(2);
  auto a = slots->take("198.51.100.1");
  auto b = slots->take("198.51.100.1");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(slots->take("198.51.100.1"), nullptr);
  EXPECT_EQ(slots->refused(), 1u);
  EXPECT_NE(slots->take("198.51.100.2"), nullptr) << "another address has its own slots";
  a.reset();
  EXPECT_NE(slots->take("198.51.100.1"), nullptr);
  EXPECT_EQ(slots->refused(), 1u);
}

}  // namespace
}  // namespace mediagen::realtime
