// Reseller rules: who is a reseller, what a code costs, the cancel window, exactly-once redemption,
// and the ledger transfers that go with each status change (gift_codes.hpp).
#include "mediagen/billing/ledger.hpp"
#include "mediagen/core/uuid_id.hpp"
#include "mediagen/db/idempotency.hpp"
#include "mediagen/db/settled.hpp"
#include "mediagen/reseller/gift_codes.hpp"
#include "reseller_store.hpp"

namespace mediagen::reseller {
namespace {

using billing::Account;
using billing::AccountKind;

// The nominal less the discount, the discount rounded down: the reseller never pays less than
// the rate says.
std::int64_t cost_of(std::int64_t nominal, std::int64_t discount_bps) {
  return nominal - nominal * discount_bps / kMaxDiscountBps;
}

GiftCode opened(store::CodeRow row, const CodeCipher& cipher) {
  row.code.code = cipher.open(row.sealed);
  return std::move(row.code);
}

// The enabled profile of the user, read in tx (FOR SHARE with `lock`).
Result<store::ResellerRow> reseller_of(db::Db& db, db::Tx& tx, UserId user, bool lock) {
  auto row = store::find_reseller(db, tx, user, lock);
  if (!row || !row->enabled) return ApiError::refused(Reason::not_reseller);
  return *row;
}

// The reseller's own code, locked; anything else is gift_code_not_found.
Result<store::CodeRow> own_code(db::Db& db, db::Tx& tx, UserId reseller, const std::optional<GiftCodeId>& uuid,
                                bool lock) {
  if (!uuid) return ApiError::refused(Reason::gift_code_not_found);
  auto row = store::find_code(db, tx, uuid->str(), lock);
  if (!row || row->code.reseller != reseller) return ApiError::refused(Reason::gift_code_not_found);
  return std::move(*row);
}

// Where a code's money sits and where it came from: the cost from the reseller balance, the
// discount from the platform's funding.
std::vector<billing::Leg> issue_legs(const GiftCode& c) {
  const auto outstanding = Account::platform(AccountKind::gift_outstanding, c.asset.id);
  return {{Account::reseller(c.reseller, c.asset.id), outstanding, c.cost},
          {Account::platform(AccountKind::funding, c.asset.id), outstanding, c.nominal - c.cost}};
}

std::vector<billing::Leg> reversed(std::vector<billing::Leg> legs) {
  for (auto& leg : legs) std::swap(leg.from, leg.to);
  return legs;
}

ResellerProfile profile_of(db::Db& db, db::Tx& tx, const store::ResellerRow& row) {
  ResellerProfile out{.user = row.user,
                      .discount_bps = row.discount_bps,
                      .cancel_window_minutes = row.cancel_window_minutes,
                      .enabled = row.enabled,
                      .created_at = row.created_at,
                      .asset = billing::default_asset(db, tx)};
  out.balance = billing::balance(db, tx, Account::reseller(row.user, out.asset.id));
  return out;
}

// The issue itself, inside the caller's transaction.
Result<GiftCode> issue_in(db::Db& db, db::Tx& tx, const CodeCipher& cipher, const Clock& clock, UserId reseller,
                          const IssueRequest& request) {
  auto profile = reseller_of(db, tx, reseller, true);
  if (!profile) return profile.error();
  std::optional<CurrencyAsset> asset;
  if (request.currency) asset = store::money_asset(db, tx, *request.currency);
  else asset = billing::default_asset(db, tx);
  if (!asset) return ApiError::validation("currency", Message{"validation.currency", {{"attribute", "currency"}}});
  const std::int64_t cost = cost_of(request.nominal, profile->discount_bps);
  // The balance row locked before anything is written: a refusal writes nothing at all.
  if (billing::balance(db, tx, Account::reseller(reseller, asset->id)) < cost) {
    return ApiError::refused(Reason::insufficient_balance);
  }
  const std::string code = make_gift_code();
  store::NewCode row{.uuid = random_uuid(),
                     .reseller = reseller,
                     .hash = gift_code_hash(code),
                     .sealed = cipher.seal(code),
                     .masked = mask_gift_code(code),
                     .nominal = request.nominal,
                     .cost = cost,
                     .discount_bps = profile->discount_bps,
                     .asset = asset->id,
                     .activatable_at = request.activatable_at,
                     .now = clock.now()};
  GiftCode issued = store::insert_code(db, tx, row).code;
  billing::post(db, tx, {.kind = "gift_code_issue", .reference = issued.uuid, .user = reseller, .legs = issue_legs(issued)});
  issued.code = code;
  return issued;
}

// The operation an Idempotency-Key of an issue belongs to.
constexpr std::string_view kIssueScope = "reseller.codes.issue";

// A stored issue answer opened again; one sealed under another secret cannot be replayed.
Result<IssuedCode> replay(const CodeCipher& cipher, const db::StoredAnswer& stored) {
  auto opened = cipher.open_answer(stored.body);
  if (!opened) return ApiError::internal_error("a stored gift code answer cannot be opened (another secret)");
  return IssuedCode{.data_json = std::move(*opened), .replayed = true};
}

}  // namespace

std::optional<ResellerProfile> enable_reseller(db::Db& db, const EnableReseller& request) {
  return db::transact(db, [&](db::Tx& tx) -> std::optional<ResellerProfile> {
    if (!store::user_exists(db, tx, request.user)) return std::nullopt;
    const auto row = store::upsert_reseller(db, tx, request.user, request.discount_bps, request.cancel_window_minutes);
    const auto asset = billing::default_asset(db, tx).id;
    billing::post(db, tx,
                  {.kind = "reseller_topup",
                   .reference = random_uuid(),
                   .user = request.user,
                   .note = "admin reseller enable",
                   .legs = {{Account::platform(AccountKind::funding, asset), Account::reseller(request.user, asset),
                             request.add_balance}}});
    return profile_of(db, tx, row);
  });
}

Result<ResellerProfile> find_reseller(db::Db& db, UserId user) {
  return db::transact(db, [&](db::Tx& tx) -> Result<ResellerProfile> {
    auto row = reseller_of(db, tx, user, false);
    if (!row) return row.error();
    return profile_of(db, tx, *row);
  });
}

Result<GiftCode> issue_code(db::Db& db, const CodeCipher& cipher, const Clock& clock, UserId reseller,
                            const IssueRequest& request) {
  return db::transact_settled(db, [&](db::Tx& tx) { return issue_in(db, tx, cipher, clock, reseller, request); });
}

Result<IssuedCode> issue_code(db::Db& db, const CodeCipher& cipher, const Clock& clock, UserId reseller,
                              const IssueRequest& request, const IdempotencyKey& key, const RenderCode& render) {
  return db::transact_settled(db, [&](db::Tx& tx) -> Result<IssuedCode> {
    auto claimed = db::claim_idempotency_key(db, tx, reseller, kIssueScope, key);
    if (!claimed) return claimed.error();
    if (*claimed) return replay(cipher, **claimed);
    auto issued = issue_in(db, tx, cipher, clock, reseller, request);
    if (!issued) return issued.error();
    IssuedCode out{.code = std::move(*issued)};
    out.data_json = render(*out.code);
    // The answer shows the full code, which the database keeps only sealed.
    db::remember_answer(db, tx, reseller, key, {.status = 201, .body = cipher.seal(out.data_json)});
    return out;
  });
}

std::optional<Result<IssuedCode>> replayed_issue(db::Db& db, const CodeCipher& cipher, UserId reseller,
                                                 const IdempotencyKey& key) {
  auto stored = db::stored_answer(db, reseller, kIssueScope, key);
  if (!stored) return std::nullopt;
  if (!*stored) return Result<IssuedCode>(stored->error());
  return replay(cipher, **stored);
}

Result<CodePage> list_codes(db::Db& db, const CodeCipher& cipher, UserId reseller,
                            std::optional<GiftCodeStatus> status, std::int64_t offset, std::int64_t limit) {
  return db::transact(db, [&](db::Tx& tx) -> Result<CodePage> {
    auto profile = reseller_of(db, tx, reseller, false);
    if (!profile) return profile.error();
    CodePage out;
    out.total = store::count_codes(db, tx, reseller, status);
    if (offset < out.total) {
      for (auto& row : store::page_codes(db, tx, reseller, status, offset, limit)) {
        out.items.push_back(opened(std::move(row), cipher));
      }
    }
    return out;
  });
}

Result<GiftCode> find_code(db::Db& db, const CodeCipher& cipher, UserId reseller, const std::optional<GiftCodeId>& uuid) {
  return db::transact(db, [&](db::Tx& tx) -> Result<GiftCode> {
    auto profile = reseller_of(db, tx, reseller, false);
    if (!profile) return profile.error();
    auto row = own_code(db, tx, reseller, uuid, false);
    if (!row) return row.error();
    return opened(std::move(*row), cipher);
  });
}

Result<GiftCode> cancel_code(db::Db& db, const CodeCipher& cipher, const Clock& clock, UserId reseller,
                             const std::optional<GiftCodeId>& uuid) {
  return db::transact_settled(db, [&](db::Tx& tx) -> Result<GiftCode> {
    auto profile = reseller_of(db, tx, reseller, false);
    if (!profile) return profile.error();
    // The code row first: racing cancels and redeems of one code queue here, one at a time.
    auto row = own_code(db, tx, reseller, uuid, true);
    if (!row) return row.error();
    if (row->code.status != GiftCodeStatus::active) return ApiError::refused(Reason::gift_code_not_cancellable);
    const TimePoint now = clock.now();
    if (now > row->code.created_at + std::chrono::minutes(profile->cancel_window_minutes)) {
      return ApiError::refused(Reason::gift_code_cancel_window_expired);
    }
    // The reseller balance before the outstanding account, in the order an issue takes them.
    (void)billing::balance(db, tx, Account::reseller(reseller, row->code.asset.id));
    auto cancelled = store::mark_cancelled(db, tx, row->code.uuid, now);
    if (!cancelled) return ApiError::refused(Reason::gift_code_not_cancellable);
    billing::post(db, tx,
                  {.kind = "gift_code_cancel", .reference = row->code.uuid, .user = reseller,
                   .legs = reversed(issue_legs(cancelled->code))});
    return opened(std::move(*cancelled), cipher);
  });
}

std::string_view describe(RedeemRefusal refusal) {
  switch (refusal) {
    case RedeemRefusal::none: return "redeemed";
    case RedeemRefusal::malformed: return "not a gift code (LUM-XXXX-XXXX-XXXX)";
    case RedeemRefusal::not_found: return "no such gift code";
    case RedeemRefusal::unknown_user: return "no such user";
    case RedeemRefusal::not_yet_active: return "the gift code cannot be redeemed before its activatable_at";
    case RedeemRefusal::redeemed: return "the gift code is already redeemed";
    case RedeemRefusal::cancelled: return "the gift code is cancelled";
  }
  return "refused";
}

Redeemed redeem_code(db::Db& db, const Clock& clock, UserId user, std::string_view code_text) {
  const auto code = parse_gift_code(code_text);
  if (!code) return {.refusal = RedeemRefusal::malformed};
  return db::transact_settled(db, [&](db::Tx& tx) -> Redeemed {
    if (!store::user_exists(db, tx, user)) return {.refusal = RedeemRefusal::unknown_user};
    auto row = store::find_code_by_hash(db, tx, gift_code_hash(*code), true);
    if (!row) return {.refusal = RedeemRefusal::not_found};
    if (row->code.status == GiftCodeStatus::redeemed) return {.refusal = RedeemRefusal::redeemed};
    if (row->code.status == GiftCodeStatus::cancelled) return {.refusal = RedeemRefusal::cancelled};
    const TimePoint now = clock.now();
    if (row->code.activatable_at && now < *row->code.activatable_at) return {.refusal = RedeemRefusal::not_yet_active};
    auto redeemed = store::mark_redeemed(db, tx, row->code.uuid, user, now);
    if (!redeemed) return {.refusal = RedeemRefusal::redeemed};
    const auto asset = redeemed->code.asset.id;
    const auto wallet = Account::wallet(user, asset);
    billing::post(db, tx,
                  {.kind = "gift_code_redeem", .reference = redeemed->code.uuid, .user = user,
                   .legs = {{Account::platform(AccountKind::gift_outstanding, asset), wallet, redeemed->code.nominal}}});
    return {.code = std::move(redeemed->code), .wallet_balance = billing::balance(db, tx, wallet)};
  });
}

Result<ResellerStats> reseller_stats(db::Db& db, UserId reseller, TimePoint from, TimePoint to) {
  return db::transact(db, [&](db::Tx& tx) -> Result<ResellerStats> {
    auto profile = reseller_of(db, tx, reseller, false);
    if (!profile) return profile.error();
    return ResellerStats{.from = from, .to = to, .assets = store::stats(db, tx, reseller, from, to)};
  });
}

}  // namespace mediagen::reseller
