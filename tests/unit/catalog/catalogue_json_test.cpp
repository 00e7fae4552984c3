// The catalogue's shapes (spec 2.8, 4.7), the display currency, the ETag and its If-None-Match.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mediagen/catalog/catalogue_cache.hpp"
#include "mediagen/catalog/catalogue_json.hpp"

namespace mediagen::catalog {
namespace {

using nlohmann::json;

Model token_model() {
  Model m;
  m.key = "aurora-large";
  m.name = "Aurora Large";
  m.family = "aurora";
  m.kind = "chat";
  m.description = "d";
  m.context_window = 200000;
  m.capabilities_json = R"(["chat","tools"])";
  m.prices[static_cast<std::size_t>(PriceClass::input)] = 300;
  m.prices[static_cast<std::size_t>(PriceClass::output)] = 1505;
  return m;
}

Catalogue sample() {
  Catalogue c;
  c.version = "7-abcdef12";
  c.asset = {AssetId{1}, "USD", "fiat", "US dollar", 2, true, true, 0, std::nullopt, TimePoint{}, TimePoint{}};
  c.models.push_back(token_model());
  Model image;
  image.key = "prism-image";
  image.kind = "image";
  image.pricing_mode = PricingMode::per_call;
  image.prices[static_cast<std::size_t>(PriceClass::request)] = 4;
  c.models.push_back(image);
  Model unpriced;
  unpriced.key = "lumen-next";
  c.models.push_back(unpriced);
  c.rates.push_back({"EUR", "€", 2, 0.92});
  c.rates.push_back({"JPY", "¥", 0, 155.5});
  return c;
}

json list(const Catalogue& c, std::optional<std::string> code) {
  return json::parse(list_json(c, choose_display(c, code), TimeZone::utc()));
}

TEST(CatalogueJson, ListHasEveryFieldOfTheSpec) {
  const auto c = sample();
  const auto data = list(c, std::nullopt);
  EXPECT_EQ(data["version"], "7-abcdef12");
  ASSERT_EQ(data["models"].size(), 3u);
  const auto& m = data["models"][0];
  for (const char* field : {"key", "name", "family", "kind", "description", "context_window", "max_output_tokens",
                            "capabilities", "pricing_mode", "price", "billing_available", "byok"}) {
    EXPECT_TRUE(m.contains(field)) << field;
  }
  EXPECT_EQ(m["capabilities"], json::parse(R"(["chat","tools"])"));
  EXPECT_TRUE(m["max_output_tokens"].is_null());
  EXPECT_EQ(m["pricing_mode"], "per_token");
  EXPECT_EQ(m["price"]["input"]["per_mtok_minor"], 300);
  EXPECT_DOUBLE_EQ(m["price"]["output"]["per_mtok_formatted"].get<double>(), 15.05);
  EXPECT_TRUE(m["price"]["reasoning"].is_null());
  EXPECT_TRUE(m["price"]["request"].is_null());
  for (const char* field : {"id", "code", "kind", "precision", "name", "is_active", "is_default", "default_balance",
                            "deleted_at", "created_at", "updated_at"}) {
    EXPECT_TRUE(data["asset"].contains(field)) << field;
  }
  EXPECT_EQ(data["asset"]["created_at"], "1970-01-01T00:00:00+00:00");
  EXPECT_TRUE(data["asset"]["deleted_at"].is_null());
}

TEST(CatalogueJson, PerCallAndUnpricedModels) {
  const auto data = list(sample(), std::nullopt);
  const auto& image = data["models"][1];
  EXPECT_EQ(image["pricing_mode"], "per_call");
  EXPECT_EQ(image["price"]["request"]["per_call_minor"], 4);
  EXPECT_DOUBLE_EQ(image["price"]["request"]["per_call_formatted"].get<double>(), 0.04);
  EXPECT_TRUE(image["price"]["input"].is_null());
  EXPECT_TRUE(data["models"][2]["price"].is_null());
}

TEST(CatalogueJson, WithoutTheHeaderThePlatformCurrencyIsTheDisplayCurrency) {
  const auto data = list(sample(), std::nullopt);
  EXPECT_EQ(data["display_currency"], json::parse(R"({"code":"USD","symbol":null,"precision":2,"available":true})"));
  EXPECT_DOUBLE_EQ(data["models"][0]["price"]["output"]["per_mtok_display"].get<double>(), 15.05);
}

TEST(CatalogueJson, DisplayValuesAreConvertedAndRoundedToTheCurrencyPrecision) {
  const auto eur = list(sample(), "EUR");
  EXPECT_EQ(eur["display_currency"], json::parse(R"({"code":"EUR","symbol":"€","precision":2,"available":true})"));
  // 15.05 * 0.92 = 13.846 -> 13.85
  EXPECT_DOUBLE_EQ(eur["models"][0]["price"]["output"]["per_mtok_display"].get<double>(), 13.85);
  EXPECT_DOUBLE_EQ(eur["models"][0]["price"]["output"]["per_mtok_formatted"].get<double>(), 15.05);
  const auto jpy = list(sample(), "JPY");
  // 0.04 * 155.5 = 6.22 -> 6 at precision 0
  EXPECT_DOUBLE_EQ(jpy["models"][1]["price"]["request"]["per_call_display"].get<double>(), 6.0);
}

TEST(CatalogueJson, ACurrencyWithoutARateIsUnavailableAndItsValuesNull) {
  const auto data = list(sample(), "GBP");
  EXPECT_EQ(data["display_currency"]["code"], "GBP");
  EXPECT_EQ(data["display_currency"]["available"], false);
  EXPECT_TRUE(data["display_currency"]["symbol"].is_null());
  EXPECT_TRUE(data["models"][0]["price"]["input"]["per_mtok_display"].is_null());
  EXPECT_EQ(data["models"][0]["price"]["input"]["per_mtok_minor"], 300);
}

TEST(CatalogueJson, EntryHasOneModelAndNoDisplayCurrency) {
  const auto c = sample();
  const auto data = json::parse(entry_json(c, c.models[0], choose_display(c, "EUR"), TimeZone::utc()));
  EXPECT_EQ(data["models"].size(), 1u);
  EXPECT_FALSE(data.contains("display_currency"));
  EXPECT_EQ(data["version"], "7-abcdef12");
  EXPECT_TRUE(data.contains("asset"));
}

TEST(CatalogueJson, CallableNeedsActiveBillableAndPriced) {
  auto m = token_model();
  EXPECT_TRUE(m.callable());
  m.billing_available = false;
  EXPECT_FALSE(m.callable());
  m = token_model();
  m.prices = {};
  EXPECT_FALSE(m.callable());
  m = token_model();
  m.active = false;
  EXPECT_FALSE(m.callable());
}

TEST(DisplayCurrencyHeader, ThreeLettersAnyCaseElseIgnored) {
  EXPECT_EQ(parse_display_currency("eur"), "EUR");
  EXPECT_EQ(parse_display_currency("  Rub "), "RUB");
  EXPECT_EQ(parse_display_currency("EURO"), std::nullopt);
  EXPECT_EQ(parse_display_currency("E1R"), std::nullopt);
  EXPECT_EQ(parse_display_currency(""), std::nullopt);
  EXPECT_EQ(parse_display_currency("\xc3\x89UR"), std::nullopt);
}

TEST(ETag, VersionAndDisplayCurrencyQuoted) {
  const auto c = sample();
  EXPECT_EQ(etag(c.version, choose_display(c, std::nullopt)), "\"7-abcdef12-USD\"");
  EXPECT_EQ(etag(c.version, choose_display(c, "EUR")), "\"7-abcdef12-EUR\"");
}

TEST(ETag, ATimeZoneOtherThanUtcIsPartOfTheTag) {
  // The asset's times are written in the caller's zone: another zone is another representation.
  const auto c = sample();
  const auto moscow = TimeZone::parse("Europe/Moscow");
  ASSERT_TRUE(moscow);
  EXPECT_EQ(etag(c.version, choose_display(c, std::nullopt), *moscow), "\"7-abcdef12-USD-Europe/Moscow\"");
  EXPECT_EQ(etag(c.version, choose_display(c, std::nullopt), TimeZone::utc()), "\"7-abcdef12-USD\"");
}

TEST(IfNoneMatch, MatchesOneOfAListWeaklyOrAStar) {
  const std::string tag = "\"7-abcdef12-USD\"";
  EXPECT_TRUE(if_none_match("\"7-abcdef12-USD\"", tag));
  EXPECT_TRUE(if_none_match("W/\"7-abcdef12-USD\"", tag));
  EXPECT_TRUE(if_none_match("\"x\", \"7-abcdef12-USD\"", tag));
  EXPECT_TRUE(if_none_match(" * ", tag));
  EXPECT_FALSE(if_none_match("\"6-abcdef12-USD\"", tag));
  EXPECT_FALSE(if_none_match("7-abcdef12-USD", tag));  // unquoted
  EXPECT_FALSE(if_none_match("\"7-abcdef12-USD", tag));
  EXPECT_FALSE(if_none_match("\"x\" junk, \"7-abcdef12-USD\"", tag));
  EXPECT_FALSE(if_none_match("", tag));
  EXPECT_FALSE(if_none_match("\"\"", tag));
}

class SteppedClock final : public Clock {
 public:
  TimePoint now() const override { return t; }
  TimePoint t{};
};

TEST(CatalogueCache, KeepsALoadUntilInvalidatedOrTooOld) {
  SteppedClock clock;
  CatalogueCache cache(clock, Seconds{300});
  auto first = cache.get();
  EXPECT_FALSE(first.catalogue);
  cache.put(std::make_shared<const Catalogue>(sample()), first.generation);
  EXPECT_TRUE(cache.get().catalogue);
  clock.t += Seconds{299};
  EXPECT_TRUE(cache.get().catalogue);
  clock.t += Seconds{1};
  EXPECT_FALSE(cache.get().catalogue);
  auto again = cache.get();
  cache.put(std::make_shared<const Catalogue>(sample()), again.generation);
  EXPECT_TRUE(cache.get().catalogue);
  cache.invalidate();
  EXPECT_FALSE(cache.get().catalogue);
}

TEST(CatalogueCache, ALoadThatStartedBeforeAnInvalidationIsNotKept) {
  SteppedClock clock;
  CatalogueCache cache(clock);
  auto before = cache.get();
  cache.invalidate();  // a change was announced while the load ran
  cache.put(std::make_shared<const Catalogue>(sample()), before.generation);
  EXPECT_FALSE(cache.get().catalogue);
}

}  // namespace
}  // namespace mediagen::catalog
