#pragma once
// The SQL of resellers and gift codes (migrations/0016_reseller.sql).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/db/db.hpp"
#include "mediagen/reseller/gift_codes.hpp"

namespace mediagen::reseller::store {

struct ResellerRow {
  UserId user;
  std::int64_t discount_bps = 0;
  std::int64_t cancel_window_minutes = 0;
  bool enabled = true;
  TimePoint created_at;
};

bool user_exists(db::Db& db, db::Tx& tx, UserId user);
// `lock`: FOR SHARE, so a profile change waits for issues in flight (and the reverse).
std::optional<ResellerRow> find_reseller(db::Db& db, db::Tx& tx, UserId user, bool lock);
ResellerRow upsert_reseller(db::Db& db, db::Tx& tx, UserId user, std::optional<std::int64_t> discount_bps,
                            std::optional<std::int64_t> cancel_window_minutes);

// An active money asset (not tokens, not deleted) by its code.
std::optional<CurrencyAsset> money_asset(db::Db& db, db::Tx& tx, std::string_view code);

// A code row as stored: the GiftCode (without its opened code) and what only the service reads.
struct CodeRow {
  GiftCode code;
  std::string sealed;
  std::optional<std::int64_t> redeemed_by;
};

struct NewCode {
  std::string uuid;
  UserId reseller;
  std::string hash;
  std::string sealed;
  std::string masked;
  std::int64_t nominal = 0;
  std::int64_t cost = 0;
  std::int64_t discount_bps = 0;
  AssetId asset;
  std::optional<TimePoint> activatable_at;
  TimePoint now;
};
CodeRow insert_code(db::Db& db, db::Tx& tx, const NewCode& code);

// `lock`: FOR UPDATE, which is what makes racing cancels and redeems of one code take turns.
std::optional<CodeRow> find_code(db::Db& db, db::Tx& tx, std::string_view uuid, bool lock);
std::optional<CodeRow> find_code_by_hash(db::Db& db, db::Tx& tx, std::string_view hash, bool lock);
std::vector<CodeRow> page_codes(db::Db& db, db::Tx& tx, UserId reseller, std::optional<GiftCodeStatus> status,
                                std::int64_t offset, std::int64_t limit);
std::int64_t count_codes(db::Db& db, db::Tx& tx, UserId reseller, std::optional<GiftCodeStatus> status);

// active -> cancelled / redeemed; nullopt when the code was not active.
std::optional<CodeRow> mark_cancelled(db::Db& db, db::Tx& tx, std::string_view uuid, TimePoint at);
std::optional<CodeRow> mark_redeemed(db::Db& db, db::Tx& tx, std::string_view uuid, UserId user, TimePoint at);

std::vector<StatsBucket> stats(db::Db& db, db::Tx& tx, UserId reseller, TimePoint from, TimePoint to);

}  // namespace mediagen::reseller::store
