#pragma once
// Resellers and their gift codes (spec 2.7, 3.4, 4.8; migrations/0016_reseller.sql).
//
// A reseller is a user with a row in `resellers` (`mediagen admin reseller enable`): a discount in
// basis points and a cancel window in minutes. A code is issued from the reseller balance at
// cost = nominal less the discount (rounded down), the platform funding the difference, and the
// outstanding code holds the nominal until it is redeemed into a user's wallet or cancelled
// (back where it came from). Every move is a ledger transfer in the transaction that changes the
// code's status; the code row is locked first, so a cancel and a redeem of one code race to one
// winner.
//
// Values of a code (decided here; the spec leaves them open):
//   source:  "reseller"          issued by a reseller through the API
//   funding: "reseller_balance"  paid from the reseller balance, the discount by the platform
//   status:  "active" -> "redeemed" | "cancelled" (both final)
//
// All functions run blocking SQL: call them inside BlockingPool::run.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/core/idempotency_key.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/core/uuid_id.hpp"
#include "mediagen/core/money.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/realtime/event.hpp"
#include "mediagen/reseller/code_format.hpp"

namespace mediagen::reseller {

enum class GiftCodeStatus { active, redeemed, cancelled };
std::string_view to_string(GiftCodeStatus status);
std::optional<GiftCodeStatus> parse_gift_code_status(std::string_view text);

inline constexpr std::int64_t kDefaultCancelWindowMinutes = 60;
inline constexpr std::int64_t kMaxCancelWindowMinutes = 525600;  // a year
inline constexpr std::int64_t kMaxDiscountBps = 10000;
// A nominal above this is refused (422): far above any real gift, far below overflow.
inline constexpr std::int64_t kMaxNominal = 1'000'000'000'000;

struct ResellerProfile {
  UserId user;
  std::int64_t discount_bps = 0;
  std::int64_t cancel_window_minutes = kDefaultCancelWindowMinutes;
  bool enabled = true;
  TimePoint created_at;
  CurrencyAsset asset;      // the platform currency, in which the balance below counts
  std::int64_t balance = 0;  // the reseller balance in minor units
};

struct GiftCode {
  std::string uuid;
  UserId reseller;
  std::optional<std::string> code;  // the full code; absent when it cannot be opened (another secret)
  std::string code_masked;
  std::int64_t nominal = 0;
  std::int64_t cost = 0;
  std::int64_t discount_bps = 0;
  CurrencyAsset asset;
  std::string source;
  std::string funding;
  GiftCodeStatus status = GiftCodeStatus::active;
  std::optional<TimePoint> activatable_at;
  std::optional<TimePoint> redeemed_at;
  std::optional<TimePoint> cancelled_at;
  TimePoint created_at;
  TimePoint updated_at;
};

// The GiftCode of spec 2.7 as JSON text (times in tz); never the redeemer.
std::string gift_code_json(const GiftCode& code, const TimeZone& tz);
// gift_code.updated on private-reseller.codes.{reseller}: {uuid, code_masked, status, nominal,
// nominal_formatted, currency_asset, activatable_at, redeemed_at, cancelled_at, updated_at}
// (times in UTC). Never the full code, never the redeemer.
realtime::Event gift_code_event(const GiftCode& code);

// `mediagen admin reseller enable`: creates or updates the profile (a value left out keeps the
// current one, or the default for a new profile), and adds `balance` (minor units, >= 0) to the
// reseller balance from the platform's funding.
struct EnableReseller {
  UserId user;
  std::optional<std::int64_t> discount_bps;
  std::optional<std::int64_t> cancel_window_minutes;
  std::int64_t add_balance = 0;
};
// nullopt when no such user.
std::optional<ResellerProfile> enable_reseller(db::Db& db, const EnableReseller& request);

// 404 not_reseller when the user has no enabled reseller profile.
Result<ResellerProfile> find_reseller(db::Db& db, UserId user);

struct IssueRequest {
  std::int64_t nominal = 0;
  std::optional<std::string> currency;  // asset code; the platform currency when absent
  std::optional<TimePoint> activatable_at;
};
// 404 not_reseller; 422 for an unknown currency; 402 insufficient_balance. A lost COMMIT is
// settled (db/settled.hpp): the code is issued and paid for once.
Result<GiftCode> issue_code(db::Db& db, const CodeCipher& cipher, const Clock& clock, UserId reseller,
                            const IssueRequest& request);

// An issue under an Idempotency-Key: the key is claimed first in the same transaction and the
// answer `render` makes of the new code is stored with it, sealed like the code it shows. A
// replay carries only that answer (no code: nothing was issued, nothing paid).
struct IssuedCode {
  std::optional<GiftCode> code;
  std::string data_json;
  bool replayed = false;
};
using RenderCode = std::function<std::string(const GiftCode&)>;
Result<IssuedCode> issue_code(db::Db& db, const CodeCipher& cipher, const Clock& clock, UserId reseller,
                              const IssueRequest& request, const IdempotencyKey& key, const RenderCode& render);
// Before anything else: the answer of a finished issue under the key (409
// idempotency_key_reused when the key was used with another request). nullopt: none.
std::optional<Result<IssuedCode>> replayed_issue(db::Db& db, const CodeCipher& cipher, UserId reseller,
                                                 const IdempotencyKey& key);

struct CodePage {
  std::vector<GiftCode> items;
  std::int64_t total = 0;
};
Result<CodePage> list_codes(db::Db& db, const CodeCipher& cipher, UserId reseller,
                            std::optional<GiftCodeStatus> status, std::int64_t offset, std::int64_t limit);
// 404 gift_code_not_found for a malformed uuid, a missing one or another reseller's.
Result<GiftCode> find_code(db::Db& db, const CodeCipher& cipher, UserId reseller, const std::optional<GiftCodeId>& uuid);
// Within the reseller's window after issue: cancelled, the cost back on the reseller balance.
// 409 gift_code_cancel_window_expired past it; 409 gift_code_not_cancellable once redeemed or cancelled.
Result<GiftCode> cancel_code(db::Db& db, const CodeCipher& cipher, const Clock& clock, UserId reseller,
                             const std::optional<GiftCodeId>& uuid);

// Redemption (the dashboard's part, `mediagen admin giftcode redeem`): the nominal into the user's
// wallet of the code's currency, exactly once.
enum class RedeemRefusal { none, malformed, not_found, unknown_user, not_yet_active, redeemed, cancelled };
std::string_view describe(RedeemRefusal refusal);
struct Redeemed {
  RedeemRefusal refusal = RedeemRefusal::none;
  std::optional<GiftCode> code;  // set when refusal is none
  std::int64_t wallet_balance = 0;
};
Redeemed redeem_code(db::Db& db, const Clock& clock, UserId user, std::string_view code_text);

// GET /reseller/stats: codes issued in [from, to) and, of those, what they became; amounts in
// minor units of the platform currency (codes in other currencies are counted apart per asset).
struct StatsBucket {
  CurrencyAsset asset;
  std::int64_t issued = 0, active = 0, redeemed = 0, cancelled = 0;
  std::int64_t nominal_issued = 0, cost_issued = 0, nominal_redeemed = 0, cost_cancelled = 0;
};
struct ResellerStats {
  TimePoint from;
  TimePoint to;
  std::vector<StatsBucket> assets;
};
Result<ResellerStats> reseller_stats(db::Db& db, UserId reseller, TimePoint from, TimePoint to);

}  // namespace mediagen::reseller
