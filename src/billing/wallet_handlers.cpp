// HTTP of the wallet and ledger listings (spec 4.6): parse, read on the blocking pool, render.
#include <string>

#include "ledger_query.hpp"
#include "mediagen/billing/routes.hpp"
#include "mediagen/billing/wallet.hpp"
#include "mediagen/core/json_writer.hpp"
#include "mediagen/db/blocking_pool.hpp"
#include "mediagen/http/router.hpp"

namespace mediagen::billing {
namespace {

namespace asio = boost::asio;

void write_asset(JsonWriter& w, const CurrencyAsset& asset) {
  w.key("currency_asset")
      .begin_object()
      .field("code", std::string_view(asset.code))
      .field("precision", std::int64_t{asset.precision})
      .end_object();
}

// Minor units as a string (as GET /user's balance) and in whole units as a number.
void write_amount(JsonWriter& w, std::string_view key, std::int64_t minor, int precision) {
  w.key(key)
      .begin_object()
      .field("amount", std::string_view(std::to_string(minor)))
      .field("amount_formatted", to_whole_units(MinorUnits{minor}, precision))
      .end_object();
}

std::string wallets_json(const std::vector<Wallet>& wallets) {
  JsonWriter w(64 + 192 * wallets.size());
  w.begin_array();
  for (const auto& wallet : wallets) {
    w.begin_object().field("kind", to_string(wallet.kind));
    write_asset(w, wallet.asset);
    w.field("is_default", wallet.is_default);
    write_amount(w, "balance", wallet.balance, wallet.asset.precision);
    write_amount(w, "locked", wallet.locked, wallet.asset.precision);
    w.end_object();
  }
  return w.end_array().take();
}

void write_optional(JsonWriter& w, std::string_view key, const std::optional<std::string>& value) {
  w.key(key);
  if (value) w.value(std::string_view(*value));
  else w.null();
}

void write_txn(JsonWriter& w, const LedgerTxn& t, const CurrencyAsset& currency, const http::RequestContext& ctx) {
  w.begin_object().field("id", t.id).field("kind", std::string_view(t.kind));
  write_optional(w, "order_id", t.order_id);
  write_optional(w, "item_id", t.item_id);
  w.field("created_at", std::string_view(ctx.time(t.created_at)))
      .field("amount", std::string_view(std::to_string(t.wallet_amount)))
      .field("amount_formatted", to_whole_units(MinorUnits{t.wallet_amount}, currency.precision));
  write_asset(w, currency);
  w.field("quota_tokens", t.quota_amount);
  w.key("movements").begin_array();
  for (const auto& m : t.movements) {
    w.begin_object().field("account", std::string_view(m.account));
    write_asset(w, m.asset);
    w.field("amount", std::string_view(std::to_string(m.amount)))
        .field("amount_formatted", to_whole_units(MinorUnits{m.amount}, m.asset.precision))
        .field("balance_after", std::string_view(std::to_string(m.balance_after)))
        .end_object();
  }
  w.end_array().end_object();
}

std::string ledger_page_json(const LedgerPage& page, const http::RequestContext& ctx) {
  JsonWriter w(128 + 512 * page.items.size());
  w.begin_object().key("items").begin_array();
  for (const auto& t : page.items) write_txn(w, t, page.currency, ctx);
  w.end_array()
      .field("current_page", page.page)
      .field("last_page", page.last_page())
      .field("per_page", page.per_page)
      .field("total", page.total);
  return w.end_object().take();
}

asio::awaitable<Result<http::Reply>> wallets(db::BlockingPool& pool, http::RequestContext& ctx) {
  auto read = [user = ctx.principal->user_id](db::Resources& r) { return list_wallets(r.db, user); };
  const auto found = co_await pool.run(std::move(read));
  co_return http::Reply{.data_json = wallets_json(found)};
}

asio::awaitable<Result<http::Reply>> ledger(db::BlockingPool& pool, http::RequestContext& ctx) {
  auto filter = parse_ledger_query(http::Query::parse(ctx.query));
  if (!filter) co_return filter.error();
  auto read = [user = ctx.principal->user_id, f = std::move(*filter)](db::Resources& r) {
    return list_ledger(r.db, user, f);
  };
  const LedgerPage page = co_await pool.run(std::move(read));
  co_return http::Reply{.data_json = ledger_page_json(page, ctx)};
}

using Reader = asio::awaitable<Result<http::Reply>> (*)(db::BlockingPool&, http::RequestContext&);

void add_get(http::Router& router, db::BlockingPool& pool, std::string pattern, Reader reader) {
  auto route = http::scoped_get(std::move(pattern), auth::Scope::billing_read,
                                [&pool, reader](http::RequestContext& ctx) { return reader(pool, ctx); });
  // Switched off, the account has no wallet paths at all (spec 4.6).
  route.exists_for = [&pool](http::RequestContext& ctx) -> asio::awaitable<bool> {
    auto read = [user = ctx.principal->user_id](db::Resources& r) { return wallet_enabled(r.db, user); };
    co_return co_await pool.run(std::move(read));
  };
  router.add_api(std::move(route));
}

}  // namespace

void register_wallet_routes(http::Router& router, db::BlockingPool& pool) {
  add_get(router, pool, "/wallets", wallets);
  add_get(router, pool, "/ledger-transactions", ledger);
}

}  // namespace mediagen::billing
