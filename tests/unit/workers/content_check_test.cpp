#include "mediagen/workers/content_check.hpp"

#include <gtest/gtest.h>

namespace mediagen::workers {
namespace {

TEST(ContentCheck, APolicyTermMatchesAsAWholeWordInAnyAsciiCase) {
  EXPECT_TRUE(contains_term("This is Forbidden.", "forbidden"));
  EXPECT_TRUE(contains_term("FORBIDDEN", "forbidden"));
  EXPECT_TRUE(contains_term("say \"forbidden\", then", "Forbidden"));
  EXPECT_TRUE(contains_term("a very bad phrase here", "bad phrase"));
}

TEST(ContentCheck, APolicyTermInsideALongerWordDoesNotMatch) {
  EXPECT_FALSE(contains_term("classic", "class"));
  EXPECT_FALSE(contains_term("subclass", "class"));
  EXPECT_FALSE(contains_term("class2", "class"));
  EXPECT_FALSE(contains_term("classé", "class"));  // a non-ASCII letter continues the word
  EXPECT_FALSE(contains_term("anything", ""));
  EXPECT_FALSE(contains_term("ab", "abc"));
}

TEST(ContentCheck, TheVerdictFlagsPolicyBeforeTheFaultDrill) {
  const ContentRules rules{{"forbidden", ""}, "FAULT-1"};
  EXPECT_EQ(check_content("Nothing to see.", rules), ContentVerdict::ok);
  EXPECT_EQ(check_content("forbidden FAULT-1", rules), ContentVerdict::policy_flagged);
  EXPECT_EQ(check_content("a FAULT-1 drill", rules), ContentVerdict::fault_drill);
  EXPECT_EQ(check_content("a fault-1 drill", rules), ContentVerdict::ok);  // the marker is exact bytes
  EXPECT_EQ(check_content("anything", ContentRules{}), ContentVerdict::ok);
}

}  // namespace
}  // namespace mediagen::workers
