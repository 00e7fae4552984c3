// Clone rules: ownership, the limits (clones.hpp), and the status moves of the routes.
#include <algorithm>

#include "mediagen/core/uuid.hpp"
#include "mediagen/db/idempotency.hpp"
#include "mediagen/db/settled.hpp"
#include "mediagen/voices/clones.hpp"
#include "clone_store.hpp"

namespace mediagen::voices {
namespace {

constexpr const char* kProviderD = "provider_d";
// The operation an Idempotency-Key of a create belongs to (the path, and so the service, is in
// the request's hash).
constexpr std::string_view kCreateScope = "voices.clones.create";

std::int64_t plan_limit(const store::LimitContext& ctx, std::string_view service) {
  const auto& limit = service == kProviderD ? ctx.plan_limit_provider_d : ctx.plan_limit;
  return limit.value_or(kDefaultPlanCloneLimit);
}

// The ceiling for one more counted clone of `service`, under the user row's lock.
std::optional<ApiError> check_limits(db::Db& db, db::Tx& tx, UserId user, std::string_view service) {
  const auto ctx = store::limit_context(db, tx, user);
  if (!ctx.subscribed) {
    if (!store::payg_enabled(db, tx, service)) return ApiError::refused(Reason::no_subscription);
    const std::int64_t used = store::counted(db, tx, user, "provider_c") + store::counted(db, tx, user, kProviderD);
    if (used >= kFreeCloneLimit) return ApiError::refused(Reason::no_subscription);
    return std::nullopt;
  }
  if (store::counted(db, tx, user, service) >= plan_limit(ctx, service)) return ApiError::refused(Reason::limit_exceeded);
  return std::nullopt;
}

// The caller's clone of the service, locked; 404 for anything else (as orders answer).
Result<Clone> owned_locked(db::Db& db, db::Tx& tx, UserId user, std::string_view service, const CloneId& id) {
  auto clone = store::find(db, tx, id.str(), /*lock=*/true);
  if (!clone || clone->user != user || clone->service != service) return ApiError::not_found();
  return std::move(*clone);
}

// The user row locked, the limits, then the row.
Result<Clone> insert_counted(db::Db& db, db::Tx& tx, UserId user, const NewClone& clone) {
  if (!store::lock_user(db, tx, user)) return ApiError::not_found();
  if (auto refusal = check_limits(db, tx, user, clone.service)) return *refusal;
  return store::insert(db, tx, user, clone);
}

}  // namespace

Result<Clone> create_clone(db::Db& db, UserId user, const NewClone& clone) {
  return db::transact_settled(db, [&](db::Tx& tx) { return insert_counted(db, tx, user, clone); });
}

Result<CreatedClone> create_clone(db::Db& db, UserId user, const NewClone& clone, const IdempotencyKey& key,
                                  const std::function<std::string(const Clone&)>& render) {
  return db::transact_settled(db, [&](db::Tx& tx) -> Result<CreatedClone> {
    auto claimed = db::claim_idempotency_key(db, tx, user, kCreateScope, key);
    if (!claimed) return claimed.error();
    if (*claimed) return CreatedClone{.data_json = std::move((*claimed)->body), .replayed = true};
    auto created = insert_counted(db, tx, user, clone);
    if (!created) return created.error();
    CreatedClone out{.clone = std::move(*created)};
    out.data_json = render(*out.clone);
    db::remember_answer(db, tx, user, key, {.status = 201, .body = out.data_json});
    return out;
  });
}

std::optional<Result<CreatedClone>> replayed_create(db::Db& db, UserId user, const IdempotencyKey& key) {
  auto stored = db::stored_answer(db, user, kCreateScope, key);
  if (!stored) return std::nullopt;
  if (!*stored) return Result<CreatedClone>(stored->error());
  return Result<CreatedClone>(CreatedClone{.data_json = std::move((*stored)->body), .replayed = true});
}

ClonePage list_clones(db::Db& db, UserId user, std::string_view service, std::int64_t offset, std::int64_t limit) {
  return db::transact(db, [&](db::Tx& tx) {
    ClonePage out;
    out.total = store::count(db, tx, user, service);
    if (offset < out.total) out.items = store::page(db, tx, user, service, offset, limit);
    return out;
  });
}

Result<Clone> find_clone(db::Db& db, UserId user, std::string_view service, const CloneId& clone_id) {
  auto clone = db::read(db, [&](db::Tx& tx) { return store::find(db, tx, clone_id.str(), false); });
  if (!clone || clone->user != user || clone->service != service) return ApiError::not_found();
  return std::move(*clone);
}

Result<Clone> retry_clone(db::Db& db, UserId user, std::string_view service, const CloneId& clone_id) {
  return db::transact_settled(db, [&](db::Tx& tx) -> Result<Clone> {
    if (!store::lock_user(db, tx, user)) return ApiError::not_found();
    auto clone = owned_locked(db, tx, user, service, clone_id);
    if (!clone) return clone.error();
    if (clone->status != CloneStatus::failed) return ApiError::refused(Reason::invalid_status);
    if (auto refusal = check_limits(db, tx, user, service)) return *refusal;
    return store::requeue_failed(db, tx, clone_id.str());
  });
}

Result<Clone> archive_clone(db::Db& db, UserId user, std::string_view service, const CloneId& clone_id) {
  return db::transact_settled(db, [&](db::Tx& tx) -> Result<Clone> {
    auto clone = owned_locked(db, tx, user, service, clone_id);
    if (!clone) return clone.error();
    if (clone->status == CloneStatus::archived) return std::move(*clone);
    return store::archive(db, tx, clone_id.str());
  });
}

CloneQuotas clone_quotas(db::Db& db, UserId user) {
  return db::transact(db, [&](db::Tx& tx) {
    CloneQuotas out;
    const auto ctx = store::limit_context(db, tx, user);
    out.subscription = ctx.subscribed;
    const std::int64_t c = store::counted(db, tx, user, "provider_c");
    const std::int64_t d = store::counted(db, tx, user, kProviderD);
    for (const auto& [service, used] : {std::pair<std::string, std::int64_t>{"provider_c", c}, {kProviderD, d}}) {
      CloneQuota q{.service = service};
      // Without a subscription both services share the free ceiling.
      q.limit = ctx.subscribed ? plan_limit(ctx, service) : kFreeCloneLimit;
      q.used = ctx.subscribed ? used : c + d;
      q.remaining = std::max<std::int64_t>(0, q.limit - q.used);
      out.services.push_back(std::move(q));
    }
    return out;
  });
}

}  // namespace mediagen::voices
