// The services kept in memory: a service is used only at the catalogue version it was read at.
#include "mediagen/templates/service_cache.hpp"

#include <gtest/gtest.h>

namespace mediagen::templates {
namespace {

ServiceCatalogue service(std::string key, std::int64_t version, std::string model = "m1") {
  ServiceCatalogue s;
  s.service.key = std::move(key);
  s.version = version;
  Model m;
  m.model_id = std::move(model);
  s.models.push_back(m);
  return s;
}

TEST(ServiceCache, GivesAServiceOnlyAtTheVersionItWasReadAt) {
  ServiceCache cache;
  cache.keep(service("provider_a", 7));
  const auto hit = cache.find("provider_a", 7);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->service.key, "provider_a");
  EXPECT_EQ(hit->models.at(0).model_id, "m1");
  EXPECT_EQ(cache.find("provider_a", 8), nullptr);  // the catalogue changed since
  EXPECT_EQ(cache.find("provider_a", 6), nullptr);
  EXPECT_EQ(cache.find("provider_b", 7), nullptr);
}

TEST(ServiceCache, ANewerReadReplacesTheServiceAndAnOlderOneDoesNot) {
  ServiceCache cache;
  cache.keep(service("provider_a", 7, "old"));
  cache.keep(service("provider_a", 9, "new"));
  cache.keep(service("provider_a", 8, "late"));  // a slow read of an older catalogue
  EXPECT_EQ(cache.find("provider_a", 8), nullptr);
  const auto hit = cache.find("provider_a", 9);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->models.at(0).model_id, "new");
  EXPECT_EQ(cache.size(), 1U);
}

TEST(ServiceCache, PastItsCapacityItStartsOver) {
  ServiceCache cache(2);
  cache.keep(service("a", 1));
  cache.keep(service("b", 1));
  EXPECT_EQ(cache.size(), 2U);
  cache.keep(service("c", 1));
  EXPECT_EQ(cache.size(), 1U);
  EXPECT_EQ(cache.find("a", 1), nullptr);
  EXPECT_NE(cache.find("c", 1), nullptr);
}

TEST(ServiceCache, AKeptServiceIsACopyThatLaterChangesDoNotReach) {
  ServiceCache cache;
  ServiceCatalogue s = service("provider_a", 3);
  cache.keep(s);
  s.models.at(0).model_id = "changed";
  EXPECT_EQ(cache.find("provider_a", 3)->models.at(0).model_id, "m1");
}

}  // namespace
}  // namespace mediagen::templates
