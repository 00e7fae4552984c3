#pragma once
// Orders made the way a client makes them (orders::create_order), from a provider_a template of
// a seeded catalogue, by a key of the fixture's user, on a clock the test steers.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "mediagen/auth/keys.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/create.hpp"
#include "mediagen/orders/queue.hpp"
#include "mediagen/templates/seed.hpp"
#include "mediagen/templates/templates.hpp"
#include "mediagen/voices/catalogue_builder.hpp"
#include "mediagen/voices/voices.hpp"
#include "stepped_clock.hpp"
#include "workers_fixture.hpp"

namespace mediagen::test {

class TemplateOrdersTest : public WorkersTest {
 protected:
  void SetUp() override {
    WorkersTest::SetUp();
    if (HasFatalFailure()) return;
    const auto catalogue = voices::build_catalogue({{"gmw/en-US", "en-us", "English (America)", "male"}},
                                                   {{"m2", "male2", "male", 0}});
    std::string voice;
    for (const auto& v : catalogue) {
      if (v.service == "provider_a") voice = v.voice_id;
    }
    db::transact(*db, [&](db::Tx& tx) {
      templates::seed_catalogue(*db, tx);
      voices::seed_voices(*db, tx, catalogue);
    });
    auto made = templates::create_template(
        *db, user,
        {{"service_key", "provider_a"},
         {"name", "Narrator"},
         {"config", {{"tts_settings", {{"mode", "mode_v1"}, {"model_id", "a-v3"}, {"voice_id", voice}}}}}});
    ASSERT_TRUE(made);
    template_id = made->id;
    key.emplace(auth::create_key(*db, {.user = user, .scopes = {}, .name = "k", .expires_at = {}, .limits = {}}).key);
  }

  orders::Caller caller() const { return {*key, TimeZone::utc(), {}, &clock, quotes}; }

  // POST /orders with the template and `text`, and whatever `extra` adds to the body.
  Result<orders::OrderWritten> create_with(std::string_view text,
                                           const nlohmann::json& extra = nlohmann::json::object()) {
    nlohmann::json body{{"template_id", template_id}, {"input_text", text}};
    body.update(extra);
    auto request = orders::read_create_request(body);  // as POST /orders reads its body
    if (!request) return request.error();
    return orders::create_order(*db, caller(), std::move(*request), nullptr);
  }

  // The id of the order made, or "" (a failure) when the create was refused.
  std::string created(std::string_view text) {
    auto r = create_with(text);
    EXPECT_TRUE(r) << (r ? "" : std::string(to_string(r.error().reason)));
    if (!r) return "";
    return r->order.id;
  }

  // The waiting chunk of a one-chunk order made and the order stitched: completed.
  void complete_one_chunk_order(orders::WorkQueue& queue, const std::string& id) {
    auto chunk = queue.claim(std::chrono::seconds(30));
    ASSERT_TRUE(chunk);
    auto settled = queue.complete(chunk->item_id, chunk->lease_token, {.result_path = "orders/" + id + "/0.mp3"});
    ASSERT_TRUE(settled.stitch);
    EXPECT_TRUE(queue.finish_stitch(*settled.stitch, {.files = {"orders/" + id + "/result.mp3"}}));
    EXPECT_EQ(order_status(id), "completed");
  }

  // Whole seconds, so that times derived from it come out exact.
  SteppedClock clock{std::chrono::floor<Seconds>(std::chrono::system_clock::now())};
  const orders::QuoteSigner* quotes = nullptr;
  std::optional<auth::Principal> key;
  std::string template_id;
};

}  // namespace mediagen::test
