#pragma once
// Orders for the worker tests, built the way order creation leaves them: rows inserted with SQL
// and the estimate locked through billing::post, so every money move after it is real.
// Teardown checks the invariants of invariants.sql.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <vector>

#include "invariants.hpp"
#include "mediagen/billing/ledger.hpp"
#include "mediagen/db/pg.hpp"
#include "mediagen/engines/speech.hpp"
#include "mediagen/storage/local_store.hpp"
#include "mediagen/orders/queue.hpp"
#include "mediagen/workers/speech_source.hpp"
#include "mediagen/workers/worker_pool.hpp"
#include "support.hpp"

namespace mediagen::test {

struct OrderSpec {
  std::vector<std::string> texts;
  std::vector<std::int64_t> tokens;  // per chunk; empty: the text's length
  std::int64_t price_per_1k_minor = 1500;
  std::string task_type = "tts";
  std::string engine_request = R"({"engine":"espeak","voice":"en-us","variant":"","language":"en","settings":{}})";
};

struct FixtureOrder {
  std::string id;
  std::vector<std::string> items;  // by chunk_index
  std::int64_t price_units = 0;
  std::int64_t tokens_from_quota = 0;
};

// PCM that sounds like nothing but behaves like speech: a tone of 40 ms per byte of text and one
// timed word per space-separated token. Counts its calls.
class ToneSource final : public workers::SpeechSource {
 public:
  boost::system::result<engines::SpeechPcm, engines::EngineFailure> speak(const engines::SpeechRequest& r) override {
    calls.fetch_add(1);
    engines::SpeechPcm pcm;
    pcm.sample_rate = 22050;
    const std::size_t samples = static_cast<std::size_t>(pcm.sample_rate) * 40 * r.text.size() / 1000;
    pcm.samples.resize(samples);
    for (std::size_t i = 0; i < samples; ++i) {
      pcm.samples[i] = static_cast<std::int16_t>(8000 * std::sin(2 * M_PI * 440.0 * static_cast<double>(i) / 22050));
    }
    std::size_t start = std::string::npos;
    for (std::size_t i = 0; i <= r.text.size(); ++i) {
      const bool space = i == r.text.size() || r.text[i] == ' ';
      if (!space && start == std::string::npos) start = i;
      if (space && start != std::string::npos) {
        pcm.words.push_back({start, i - start, static_cast<std::int64_t>(start) * 40});
        start = std::string::npos;
      }
    }
    return pcm;
  }
  std::atomic<int> calls{0};
};

class WorkersTest : public MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (HasFatalFailure()) return;
    db.emplace(db_url, &counters);
    user = UserId{std::stoll(query_value(
        db_url, "INSERT INTO users (email, name) VALUES ('w" + random_hex() + "@example.com', 'W') RETURNING id"))};
    db::transact(*db, [&](db::Tx& tx) {
      money = billing::default_asset(*db, tx).id;
      tokens = billing::token_asset(*db, tx);
      billing::adjust_wallet(*db, tx, user, MinorUnits{kWallet}, "test funds");
    });
    root = std::filesystem::temp_directory_path() / ("mg_workers_" + random_hex());
    auto opened = storage::LocalStore::open(root.string());
    ASSERT_TRUE(opened.has_value());
    store.emplace(std::move(*opened));
  }

  void TearDown() override {
    if (db) expect_invariants(db_url);
    db.reset();
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
    MigratedTest::TearDown();
  }

  // Subscription quota for the user (quota_funding -> quota).
  void grant_quota(std::int64_t amount) {
    db::transact(*db, [&](db::Tx& tx) {
      billing::Transfer t{.kind = "test_grant", .reference = random_hex(), .user = user};
      t.legs.push_back({billing::Account::platform(billing::AccountKind::quota_funding, tokens),
                        billing::Account::quota(user, tokens), amount});
      billing::post(*db, tx, t);
    });
  }

  static std::int64_t ceil_minor(std::int64_t payg, std::int64_t rate) { return (payg * rate + 999) / 1000; }

  // The order as creation leaves it (orders.md "Money"): quota first in chunk order, each
  // chunk's money the difference of the rounded running totals.
  FixtureOrder make_order(const OrderSpec& spec) {
    return db::transact(*db, [&](db::Tx& tx) {
      std::vector<std::int64_t> tok = spec.tokens;
      if (tok.empty()) {
        for (const auto& t : spec.texts) tok.push_back(static_cast<std::int64_t>(t.size()));
      }
      std::int64_t total = 0;
      for (auto t : tok) total += t;
      const std::int64_t quota_balance = billing::balance(*db, tx, billing::Account::quota(user, tokens));
      FixtureOrder o;
      o.tokens_from_quota = std::min(total, quota_balance);
      const std::int64_t payg = total - o.tokens_from_quota;
      o.price_units = ceil_minor(payg, spec.price_per_1k_minor);
      o.id = tx.exec_params1(
                   "INSERT INTO orders (user_id, task_type, service_key, engine_request, input_text, asset_id,"
                   " price_per_1k_minor, price_units, tokens_from_quota, tokens_from_payg)"
                   " VALUES ($1, $2, 'provider_a', $3::jsonb, 'input', $4, $5, $6, $7, $8) RETURNING id::text",
                   user.value, spec.task_type, spec.engine_request, money.value, spec.price_per_1k_minor,
                   o.price_units, o.tokens_from_quota, payg)[0]
                 .as<std::string>();
      std::int64_t quota_left = o.tokens_from_quota, cum_payg = 0;
      for (std::size_t i = 0; i < spec.texts.size(); ++i) {
        const std::int64_t q = std::min(tok[i], quota_left);
        quota_left -= q;
        const std::int64_t before = ceil_minor(cum_payg, spec.price_per_1k_minor);
        cum_payg += tok[i] - q;
        const std::int64_t minor = ceil_minor(cum_payg, spec.price_per_1k_minor) - before;
        const auto len = static_cast<std::int64_t>(spec.texts[i].size());
        o.items.push_back(
            tx.exec_params1(
                  "WITH ins AS (INSERT INTO order_items (order_id, item_type, chunk_index, original_text_length,"
                  " current_text_length, free_length, billable_length, max_billable_length, max_raw_length,"
                  " raw_length, capacity_unit, price_units, quota_tokens, payg_minor, remaining_locked, queued_at)"
                  " VALUES ($1::uuid, 'chunk', $2::int, $4, $4, $4, $4, $4, 5000, $4, 'chars', $5, $6, $7, $5,"
                  "  now() + $2::int * interval '1 microsecond') RETURNING id),"
                  " t AS (INSERT INTO order_item_texts SELECT id, $3::text FROM ins) SELECT id::text FROM ins",
                  o.id, static_cast<int>(i), spec.texts[i], len, tok[i], q, minor)[0]
                .as<std::string>());
      }
      billing::Transfer lock{.kind = "order_lock", .reference = o.id, .user = user, .order_id = o.id};
      lock.legs.push_back({billing::Account::wallet(user, money), billing::Account::escrow(user, o.id, money),
                           o.price_units});
      lock.legs.push_back({billing::Account::quota(user, tokens), billing::Account::quota_escrow(user, o.id, tokens),
                           o.tokens_from_quota});
      billing::post(*db, tx, lock);
      return o;
    });
  }

  std::string value(const std::string& sql) { return query_value(db_url, sql); }
  std::int64_t number(const std::string& sql) {
    const auto v = value(sql);
    return v.empty() ? 0 : std::stoll(v);
  }
  std::string order_status(std::string_view id) {
    return value("SELECT status FROM orders WHERE id = '" + std::string(id) + "'");
  }
  std::string item_field(std::string_view id, const std::string& field) {
    return value("SELECT " + field + " FROM order_items WHERE id = '" + std::string(id) + "'");
  }
  std::int64_t account(const std::string& kind, const std::string& owner, AssetId asset) {
    return number("SELECT balance FROM ledger_accounts WHERE kind = '" + kind + "' AND owner = '" + owner +
                  "' AND asset_id = " + std::to_string(asset.value));
  }
  std::string user_owner() const { return "user:" + std::to_string(user.value); }
  std::int64_t wallet() { return account("wallet", user_owner(), money); }
  std::int64_t quota() { return account("quota", user_owner(), tokens); }
  std::int64_t escrow(std::string_view order) { return account("escrow", "order:" + std::string(order), money); }
  std::int64_t quota_escrow(std::string_view order) {
    return account("quota_escrow", "order:" + std::string(order), tokens);
  }
  std::int64_t ledger_txns() { return number("SELECT count(*) FROM ledger_txns"); }
  std::int64_t ledger_entries() { return number("SELECT count(*) FROM ledger_entries"); }

  // Two workers on short leases and sweeps, so rescues and stitches happen within a test.
  static workers::WorkerPoolOptions pool_options() {
    workers::WorkerPoolOptions o;
    o.workers = 2;
    o.lease = std::chrono::seconds(10);
    o.sweep_interval = std::chrono::milliseconds(200);
    o.wake_interval = std::chrono::seconds(1);
    return o;
  }

  // Waits (bounded) until the SQL condition holds; the bound only keeps a broken build from hanging.
  bool eventually(const std::string& sql) {
    for (int i = 0; i < 2400; ++i) {
      if (value(sql) == "t") return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  // The order is decided (terminal or partially completed) and no stitch holds it.
  bool settled(const std::string& order) {
    return eventually("SELECT status NOT IN ('created', 'pending', 'in_progress') AND stitch_token IS NULL FROM orders"
                      " WHERE id = '" + order + "'");
  }

  std::string read_all(const std::string& key) {
    auto size = store->stat(key);
    if (!size || !*size) return "";
    return store->read(key, 0, **size).value();
  }

  // Makes every running lease of the order (or of all orders) look expired.
  void expire_leases() {
    value("UPDATE order_items SET locked_until = now() - interval '1 second' WHERE status = 'processing'");
  }

  static constexpr std::int64_t kWallet = 1'000'000;
  std::optional<db::Db> db;
  std::optional<storage::LocalStore> store;
  std::filesystem::path root;
  UserId user;
  AssetId money, tokens;
};

}  // namespace mediagen::test
