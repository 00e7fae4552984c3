#include "mediagen/access/scopes.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "mediagen/auth/keys.hpp"

namespace mediagen::auth {
namespace {

std::vector<Scope> all_scopes() {
  std::vector<Scope> out;
  for (std::size_t i = 0; i < kScopeCount; ++i) out.push_back(static_cast<Scope>(i));
  return out;
}

std::set<std::string> allowed_names(const ScopeSet& set) {
  std::set<std::string> out;
  for (Scope s : all_scopes()) {
    if (set.allows(s)) out.emplace(to_string(s));
  }
  return out;
}

std::set<std::string> name_set(const ScopeSet& set) {
  auto names = set.names();
  return {names.begin(), names.end()};
}

const std::set<std::string> kReadOnly{"orders.read",  "orders.download", "templates.read",
                                      "voices.read",  "billing.read",    "profile.read"};

TEST(Scopes, NamesTheElevenPermissionsOfTheSpec) {
  std::set<std::string> names;
  for (Scope s : all_scopes()) names.emplace(to_string(s));
  EXPECT_EQ(names, (std::set<std::string>{"orders.read", "orders.write", "orders.download", "templates.read",
                                          "templates.write", "voices.read", "voices.write", "billing.read",
                                          "profile.read", "reseller.read", "reseller.write"}));
}

TEST(Scopes, ParsesEveryNameBackToItsScope) {
  for (Scope s : all_scopes()) EXPECT_EQ(parse_scope(to_string(s)), s);
}

TEST(Scopes, RejectsUnknownNames) {
  for (const char* name : {"", "*", "orders", "orders.READ", "Orders.read", "orders.read ", "admin", "reseller"}) {
    EXPECT_FALSE(parse_scope(name).has_value()) << "'" << name << "'";
  }
}

TEST(Scopes, MarksOnlyTheTwoResellerScopesAsReseller) {
  for (Scope s : all_scopes()) {
    EXPECT_EQ(is_reseller(s), s == Scope::reseller_read || s == Scope::reseller_write) << to_string(s);
  }
}

TEST(Scopes, PresetReadOnlyIsExactlyTheSixReadScopes) {
  auto set = preset("read_only");
  ASSERT_TRUE(set.has_value());
  EXPECT_EQ(name_set(*set), kReadOnly);
  EXPECT_EQ(allowed_names(*set), kReadOnly);
  EXPECT_FALSE(set->wildcard());
}

TEST(Scopes, PresetAutomationIsReadOnlyPlusOrdersWrite) {
  auto set = preset("automation");
  ASSERT_TRUE(set.has_value());
  auto expected = kReadOnly;
  expected.insert("orders.write");
  EXPECT_EQ(name_set(*set), expected);
  EXPECT_FALSE(set->allows(Scope::templates_write));
  EXPECT_FALSE(set->allows(Scope::voices_write));
}

TEST(Scopes, PresetFullIsEveryScopeButTheResellerOnes) {
  auto set = preset("full");
  ASSERT_TRUE(set.has_value());
  EXPECT_EQ(name_set(*set), (std::set<std::string>{"orders.read", "orders.write", "orders.download", "templates.read",
                                                   "templates.write", "voices.read", "voices.write", "billing.read",
                                                   "profile.read"}));
  EXPECT_FALSE(set->wildcard());
}

TEST(Scopes, NoPresetGrantsAResellerScope) {
  for (const char* name : {"read_only", "automation", "full"}) {
    auto set = preset(name);
    ASSERT_TRUE(set.has_value()) << name;
    EXPECT_FALSE(set->allows(Scope::reseller_read)) << name;
    EXPECT_FALSE(set->allows(Scope::reseller_write)) << name;
  }
}

TEST(Scopes, RejectsAnUnknownPreset) {
  for (const char* name : {"", "admin", "Full", "read-only", "full "}) EXPECT_FALSE(preset(name).has_value()) << name;
}

TEST(Scopes, WildcardAllowsEveryScopeButTheResellerOnes) {
  ScopeSet set;
  set.add_wildcard();
  for (Scope s : all_scopes()) EXPECT_EQ(set.allows(s), !is_reseller(s)) << to_string(s);
  EXPECT_FALSE(set.has_explicit(Scope::orders_read));
}

TEST(Scopes, GrantsResellerScopesOnlyByName) {
  ScopeSet set;
  set.add_wildcard();
  set.add(Scope::reseller_read);
  EXPECT_TRUE(set.allows(Scope::reseller_read));
  EXPECT_FALSE(set.allows(Scope::reseller_write));
}

TEST(Scopes, DoesNotImplyDownloadFromRead) {
  ScopeSet set;
  set.add(Scope::orders_read);
  EXPECT_FALSE(set.allows(Scope::orders_download));
  EXPECT_FALSE(set.allows(Scope::orders_write));
}

TEST(Scopes, AnEmptySetAllowsNothing) {
  ScopeSet set;
  EXPECT_TRUE(set.empty());
  EXPECT_TRUE(allowed_names(set).empty());
  EXPECT_TRUE(set.names().empty());
}

TEST(Scopes, ListsTheWildcardFirstThenNamesInDeclarationOrder) {
  ScopeSet set;
  set.add(Scope::reseller_write);
  set.add(Scope::orders_read);
  set.add_wildcard();
  EXPECT_EQ(set.names(), (std::vector<std::string>{"*", "orders.read", "reseller.write"}));
}

TEST(Scopes, RoundTripsNamesThroughFromNames) {
  std::vector<ScopeSet> sets{ScopeSet{}, *preset("read_only"), *preset("automation"), *preset("full")};
  ScopeSet mixed;
  mixed.add_wildcard();
  mixed.add(Scope::reseller_read);
  sets.push_back(mixed);
  for (Scope s : all_scopes()) {
    ScopeSet one;
    one.add(s);
    sets.push_back(one);
  }
  for (const auto& set : sets) {
    auto back = ScopeSet::from_names(set.names());
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, set);
  }
}

TEST(Scopes, FromNamesToleratesDuplicates) {
  auto set = ScopeSet::from_names({"orders.read", "orders.read", "*", "*"});
  ASSERT_TRUE(set.has_value());
  EXPECT_EQ(set->names(), (std::vector<std::string>{"*", "orders.read"}));
}

TEST(Scopes, FromNamesRejectsAnUnknownScope) {
  EXPECT_FALSE(ScopeSet::from_names({"orders.read", "orders.delete"}).has_value());
  EXPECT_FALSE(ScopeSet::from_names({""}).has_value());
  EXPECT_FALSE(ScopeSet::from_names({"**"}).has_value());
}

TEST(Scopes, MergesSets) {
  ScopeSet a = *preset("read_only");
  ScopeSet b;
  b.add(Scope::reseller_read);
  b.add_wildcard();
  a.merge(b);
  EXPECT_TRUE(a.wildcard());
  EXPECT_TRUE(a.has_explicit(Scope::reseller_read));
  EXPECT_TRUE(a.has_explicit(Scope::profile_read));
}

TEST(Keys, GeneratesMgPrefixedKeysOf43Base64urlCharacters) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    const std::string key = generate_key();
    ASSERT_EQ(key.size(), 46u) << key;
    EXPECT_EQ(key.substr(0, 3), "mg_");
    for (char c : key.substr(3)) {
      EXPECT_TRUE((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
          << key;
    }
    EXPECT_TRUE(seen.insert(key).second);
  }
}

}  // namespace
}  // namespace mediagen::auth
