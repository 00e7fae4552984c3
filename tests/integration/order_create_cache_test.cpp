// POST /orders from a template with the services kept in memory (templates/service_cache.hpp), on
// real PostgreSQL: the catalogue version moves with every change a service is read from, an order
// never uses a kept service past such a change, and a refusal after the early insert of the order
// (the balance's, spec 4.1.1) leaves nothing behind.
#include <gtest/gtest.h>

#include "mediagen/billing/ledger.hpp"
#include "mediagen/orders/create.hpp"
#include "mediagen/templates/service_cache.hpp"
#include "template_orders_fixture.hpp"

namespace mediagen::test {
namespace {

class OrderCreateCacheTest : public TemplateOrdersTest {
 protected:
  std::int64_t version() { return number("SELECT counter FROM service_catalogue_version"); }

  Result<orders::OrderWritten> create_kept(std::string_view text) {
    auto request = orders::read_create_request({{"template_id", template_id}, {"input_text", text}});
    if (!request) return request.error();
    const orders::Caller with_cache{*key, TimeZone::utc(), {}, &clock, quotes, &services};
    return orders::create_order(*db, with_cache, std::move(*request), nullptr);
  }

  std::int64_t orders_made() { return number("SELECT count(*) FROM orders"); }

  templates::ServiceCache services;
};

TEST_F(OrderCreateCacheTest, TheVersionMovesWithEveryChangeAServiceIsReadFrom) {
  const std::vector<std::string> changes = {
      "UPDATE services SET name = name || '!' WHERE key = 'provider_a'",
      "UPDATE service_models SET price_per_1k_minor = price_per_1k_minor + 1 WHERE model_id = 'a-v3'",
      "UPDATE service_modes SET is_active = is_active WHERE mode = 'mode_v1'",
      "UPDATE voices SET language = language",
      "UPDATE voices SET espeak_variant = espeak_variant",
      "UPDATE voices SET is_active = false WHERE false",  // a statement, even of no row
      "DELETE FROM voices WHERE false",
  };
  for (const auto& change : changes) {
    const std::int64_t before = version();
    value(change);
    EXPECT_GT(version(), before) << change;
  }
  // What no service or voice is made of leaves it alone.
  const std::int64_t before = version();
  value("UPDATE templates SET name = name");
  value("UPDATE voice_clones SET name = name");
  EXPECT_EQ(version(), before);
}

TEST_F(OrderCreateCacheTest, AnOrderUsesAKeptServiceOnlyUntilTheCatalogueChanges) {
  ASSERT_TRUE(create_kept("Hello there."));
  EXPECT_NE(services.find("provider_a", version()), nullptr) << "the order kept its service";
  const auto first = create_kept("Hello there.");
  ASSERT_TRUE(first);
  const std::int64_t price = first->order.price_units;
  ASSERT_GT(price, 0);

  // The model made dearer by plain SQL: the next order pays the new price.
  value("UPDATE service_models SET price_per_1k_minor = price_per_1k_minor * 10 WHERE model_id = 'a-v3'");
  const auto dearer = create_kept("Hello there.");
  ASSERT_TRUE(dearer);
  EXPECT_GT(dearer->order.price_units, price);

  // The model switched off: the template is outdated at once, and nothing is written or charged.
  value("UPDATE service_models SET is_active = false WHERE model_id = 'a-v3'");
  const std::int64_t made = orders_made(), funds = wallet(), txns = ledger_txns();
  const auto outdated = create_kept("Hello there.");
  ASSERT_FALSE(outdated);
  EXPECT_EQ(outdated.error().status, 422);
  EXPECT_EQ(outdated.error().reason, Reason::template_model_outdated);
  EXPECT_EQ(orders_made(), made);
  EXPECT_EQ(wallet(), funds);
  EXPECT_EQ(ledger_txns(), txns);

  value("UPDATE service_models SET is_active = true WHERE model_id = 'a-v3'");
  EXPECT_TRUE(create_kept("Hello there."));
}

TEST_F(OrderCreateCacheTest, AKeptVoiceIsUsedOnlyUntilTheCatalogueChanges) {
  const auto first = create_kept("Hello there.");
  ASSERT_TRUE(first);
  EXPECT_EQ(services.voices(), 1U);
  const std::string voice =
      value("SELECT config->'tts_settings'->>'voice_id' FROM templates WHERE id = '" + template_id + "'");
  ASSERT_FALSE(voice.empty());

  // Another espeak variant for the voice: the next order speaks with it.
  value("UPDATE voices SET espeak_variant = 'm7' WHERE voice_id = '" + voice + "'");
  const auto changed = create_kept("Hello there.");
  ASSERT_TRUE(changed);
  EXPECT_EQ(value("SELECT engine_request->>'variant' FROM orders WHERE id = '" + changed->order.id + "'"), "m7");

  // The voice withdrawn: the template is outdated at once.
  value("UPDATE voices SET is_active = false WHERE voice_id = '" + voice + "'");
  const auto outdated = create_kept("Hello there.");
  ASSERT_FALSE(outdated);
  EXPECT_EQ(outdated.error().reason, Reason::template_model_outdated);
}

TEST_F(OrderCreateCacheTest, ABalanceRefusalAfterTheEarlyInsertLeavesNothingBehind) {
  const auto first = create_kept("Hello there.");
  ASSERT_TRUE(first);
  const std::int64_t price = first->order.price_units;
  // Leave one unit less than the next order's price.
  db::transact(*db, [&](db::Tx& tx) {
    billing::adjust_wallet(*db, tx, user, MinorUnits{-(wallet() - price + 1)}, "test drain");
  });
  ASSERT_EQ(wallet(), price - 1);
  const std::int64_t made = orders_made(), items = number("SELECT count(*) FROM order_items"),
                     texts = number("SELECT count(*) FROM order_item_texts"), txns = ledger_txns();

  const auto refused = create_kept("Hello there.");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().status, 402);
  EXPECT_EQ(refused.error().reason, Reason::insufficient_balance);
  EXPECT_EQ(orders_made(), made);
  EXPECT_EQ(number("SELECT count(*) FROM order_items"), items);
  EXPECT_EQ(number("SELECT count(*) FROM order_item_texts"), texts);
  EXPECT_EQ(ledger_txns(), txns);
  EXPECT_EQ(wallet(), price - 1);

  // One unit more, and the same order is made and takes exactly the rest.
  db::transact(*db, [&](db::Tx& tx) { billing::adjust_wallet(*db, tx, user, MinorUnits{1}, "test top-up"); });
  const auto made_now = create_kept("Hello there.");
  ASSERT_TRUE(made_now);
  EXPECT_EQ(wallet(), 0);
  EXPECT_EQ(escrow(made_now->order.id), price);
}

}  // namespace
}  // namespace mediagen::test
