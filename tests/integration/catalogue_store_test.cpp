// The AI catalogue's rows (migration 0015) against a real PostgreSQL: one load holds what the
// routes need; every change of a model, a price or a rate moves the version in its transaction,
// a write that changes nothing does not; the demo seed is idempotent and keeps operator changes.
#include <gtest/gtest.h>

#include "mediagen/catalog/catalogue_store.hpp"
#include "mediagen/db/connection.hpp"
#include "mediagen/db/transact.hpp"
#include "support.hpp"

namespace mediagen::test {
namespace {

using catalog::PriceClass;

class CatalogueStoreTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
  }
  void TearDown() override {
    db.reset();
    MigratedTest::TearDown();
  }

  std::string version() {
    return db::transact(*db, [&](db::Tx& tx) { return catalog::catalogue_version(*db, tx); });
  }
  catalog::Model set(const catalog::ModelChange& change) {
    return db::transact(*db, [&](db::Tx& tx) { return catalog::set_model(*db, tx, change); });
  }
  static catalog::ModelChange priced(std::string key, std::int64_t input) {
    catalog::ModelChange c{.key = std::move(key)};
    c.prices[static_cast<std::size_t>(PriceClass::input)] = input;
    return c;
  }

  std::optional<db::Db> db;
};

TEST_F(CatalogueStoreTest, AFreshCatalogueIsEmptyWithThePlatformAsset) {
  const auto c = catalog::load_catalogue(*db);
  EXPECT_TRUE(c.models.empty());
  EXPECT_TRUE(c.rates.empty());
  EXPECT_EQ(c.asset.code, "USD");
  EXPECT_EQ(c.asset.precision, 2);
  EXPECT_TRUE(c.asset.is_default);
  EXPECT_FALSE(c.asset.deleted_at);
  EXPECT_FALSE(c.version.empty());
}

TEST_F(CatalogueStoreTest, SetCreatesThenChangesOnlyWhatIsGiven) {
  const auto v0 = version();
  auto m = set(priced("m-1", 100));
  EXPECT_EQ(m.name, "m-1");
  EXPECT_EQ(m.kind, "chat");
  EXPECT_EQ(m.price(PriceClass::input), 100);
  EXPECT_TRUE(m.callable());
  const auto v1 = version();
  EXPECT_NE(v1, v0);

  catalog::ModelChange rename{.key = "m-1", .name = "Model One", .billing_available = false};
  m = set(rename);
  EXPECT_EQ(m.name, "Model One");
  EXPECT_EQ(m.price(PriceClass::input), 100);  // kept
  EXPECT_FALSE(m.callable());
  const auto v2 = version();
  EXPECT_NE(v2, v1);

  set(rename);  // the same values again: no change, no new version
  EXPECT_EQ(version(), v2);
}

TEST_F(CatalogueStoreTest, APriceChangeMovesTheVersionAndTheLoadSeesIt) {
  set(priced("m-1", 100));
  const auto before = catalog::load_catalogue(*db);
  set(priced("m-1", 120));
  const auto after = catalog::load_catalogue(*db);
  EXPECT_NE(after.version, before.version);
  ASSERT_EQ(after.models.size(), 1u);
  EXPECT_EQ(after.models[0].price(PriceClass::input), 120);
}

TEST_F(CatalogueStoreTest, ClearPricesLeavesOnlyTheGivenOnes) {
  auto c = priced("m-1", 100);
  c.prices[static_cast<std::size_t>(PriceClass::output)] = 400;
  set(c);
  catalog::ModelChange only{.key = "m-1", .clear_prices = true};
  only.prices[static_cast<std::size_t>(PriceClass::request)] = 4;
  const auto m = set(only);
  EXPECT_FALSE(m.price(PriceClass::input));
  EXPECT_FALSE(m.price(PriceClass::output));
  EXPECT_EQ(m.price(PriceClass::request), 4);
}

TEST_F(CatalogueStoreTest, InactiveModelsAreNotLoadedAndRemovalMovesTheVersion) {
  set(priced("m-1", 100));
  set(priced("m-2", 100));
  set({.key = "m-2", .active = false});
  EXPECT_EQ(catalog::load_catalogue(*db).models.size(), 1u);
  const auto v = version();
  EXPECT_TRUE(db::transact(*db, [&](db::Tx& tx) { return catalog::remove_model(*db, tx, "m-1"); }));
  EXPECT_NE(version(), v);
  EXPECT_FALSE(db::transact(*db, [&](db::Tx& tx) { return catalog::remove_model(*db, tx, "m-1"); }));
  EXPECT_TRUE(catalog::load_catalogue(*db).models.empty());
}

TEST_F(CatalogueStoreTest, RatesAreSetKeptAndVersioned) {
  const auto v = version();
  auto r = db::transact(*db, [&](db::Tx& tx) { return catalog::set_rate(*db, tx, {"EUR", "0.92", "€", std::nullopt}); });
  EXPECT_EQ(r.precision, 2);
  EXPECT_DOUBLE_EQ(r.rate, 0.92);
  EXPECT_NE(version(), v);
  r = db::transact(*db, [&](db::Tx& tx) { return catalog::set_rate(*db, tx, {"EUR", "0.95", std::nullopt, 3}); });
  EXPECT_EQ(r.symbol, "€");  // kept
  EXPECT_EQ(r.precision, 3);
  const auto c = catalog::load_catalogue(*db);
  ASSERT_NE(c.rate("EUR"), nullptr);
  EXPECT_DOUBLE_EQ(c.rate("EUR")->rate, 0.95);
}

TEST_F(CatalogueStoreTest, TheSeedIsIdempotentAndKeepsOperatorChanges) {
  const auto first = db::transact(*db, [&](db::Tx& tx) { return catalog::seed_catalogue(*db, tx); });
  EXPECT_GE(first.inserted_models, 12);
  auto c = catalog::load_catalogue(*db);
  int per_call = 0, unpriced = 0, not_billable = 0;
  for (const auto& m : c.models) {
    per_call += m.pricing_mode == catalog::PricingMode::per_call;
    unpriced += !m.has_price();
    not_billable += !m.billing_available;
  }
  EXPECT_GE(per_call, 1);
  EXPECT_GE(unpriced, 1);
  EXPECT_GE(not_billable, 1);
  EXPECT_NE(c.rate("EUR"), nullptr);
  EXPECT_NE(c.rate("RUB"), nullptr);

  set(priced("aurora-mini", 30));
  const auto v = version();
  const auto again = db::transact(*db, [&](db::Tx& tx) { return catalog::seed_catalogue(*db, tx); });
  EXPECT_EQ(again.inserted_models, 0);
  EXPECT_EQ(version(), v);
  EXPECT_EQ(catalog::load_catalogue(*db).find("aurora-mini")->price(PriceClass::input), 30);
}

TEST_F(CatalogueStoreTest, TheLoadCountsItsQueries) {
  const auto before = counters.db_queries.load();
  (void)catalog::load_catalogue(*db);
  EXPECT_GT(counters.db_queries.load(), before);
}

}  // namespace
}  // namespace mediagen::test
