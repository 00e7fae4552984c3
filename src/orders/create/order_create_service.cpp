// Order creation (spec 4.1.1) and the transaction it shares with order retry. The checks run in
// the spec's order - template access (403), policy cooldown, concurrency and token quota (429),
// billing (402), maintenance (503),
// request shape (422) - and the order, its chunks, the lock of its estimate and the
// Idempotency-Key answer commit together in one transaction, or nothing does. The SQL is in
// order_write_store.cpp.
#include "mediagen/orders/create.hpp"
#include "mediagen/core/json_text.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "mediagen/billing/ledger.hpp"
#include "mediagen/core/crypto.hpp"
#include "mediagen/core/uuid.hpp"
#include "mediagen/db/settled.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/limits.hpp"
#include "mediagen/orders/request.hpp"
#include "topup_confirmation.hpp"
#include "mediagen/storage/object_store.hpp"
#include "mediagen/orders/text.hpp"
#include "mediagen/templates/templates.hpp"

namespace mediagen::orders {
namespace {

// The operation a POST /orders Idempotency-Key and a top-up quote belong to.
constexpr std::string_view kCreateScope = "orders.create";

// Where an upstream engine sends the chunk, and the key's source (never the key): the workers
// call without reading the catalogue, and a later change of the service leaves this order alone.
nlohmann::json upstream_request(const templates::ServiceUpstream& u, std::string_view service, std::string_view model,
                                std::string_view voice) {
  return {{"service", service},
          {"url", u.url},
          {"model", u.model.empty() ? std::string(model) : u.model},
          {"key_env", u.key_env},
          {"key_file", u.key_file},
          {"voice", voice}};
}

std::string engine_request_json(const templates::SpeechSetup& setup) {
  // A voice clone is a profile of the embedded engine, whichever engine serves the service.
  const bool upstream = templates::is_upstream_engine(setup.service.engine) && setup.service.upstream &&
                        setup.voice.profile_json.empty();
  const std::string engine = upstream ? setup.service.engine : "espeak";
  nlohmann::json settings = nlohmann::json::object();
  if (setup.effective.stability) settings["stability"] = *setup.effective.stability;
  if (setup.effective.similarity_boost) settings["similarity_boost"] = *setup.effective.similarity_boost;
  if (setup.effective.speed) settings["speed"] = *setup.effective.speed;
  if (setup.effective.use_speaker_boost) settings["use_speaker_boost"] = *setup.effective.use_speaker_boost;
  nlohmann::json request{{"engine", engine},
                         {"voice", setup.voice.espeak_voice},
                         {"variant", setup.voice.espeak_variant},
                         {"language", setup.language_code.value_or("")},
                         {"settings", std::move(settings)}};
  if (upstream) {
    request["upstream"] = upstream_request(*setup.service.upstream, setup.service.key, setup.model.model_id,
                                           setup.voice.upstream_voice_id);
  }
  // A voice clone's profile travels with the order: archiving the clone later does not change
  // how the order speaks.
  if (!setup.voice.profile_json.empty()) {
    auto profile = nlohmann::json::parse(setup.voice.profile_json, nullptr, false);
    if (profile.is_object()) request["profile"] = std::move(profile);
  }
  return to_json_text(request);
}

// A variant seed nobody asked for: random, so two identical orders make different music.
std::uint32_t random_seed() {
  const std::string bytes = crypto::random_bytes(4);
  std::uint32_t seed = 0;
  for (const char b : bytes) seed = (seed << 8) | static_cast<unsigned char>(b);
  return seed;
}

// `slots` is what the plan's slots will be with this order (the X-Concurrency-* headers).
std::optional<ApiError> plan_limits_refusal(db::Db& db, db::Tx& tx, UserId user, const CreateContext& ctx,
                                            const std::string& service, std::int64_t tokens,
                                            std::optional<SlotUse>& slots) {
  if (!ctx.slots && !ctx.usage_limit) return std::nullopt;
  const std::int64_t active = lock_user_and_count_active(db, tx, user);
  if (ctx.slots) slots = SlotUse{.limit = *ctx.slots, .current = active + 1};
  if (ctx.slots && active >= *ctx.slots) {
    ApiError e = ApiError::refused(Reason::concurrency_limit_exceeded);
    e.headers = {{"X-Concurrency-Limit", std::to_string(*ctx.slots)}, {"X-Concurrency-Current", std::to_string(active)}};
    return e;
  }
  if (exceeds_service_ceiling(db, tx, user, ctx, service, tokens)) return ApiError::refused(Reason::limit_exceeded);
  return std::nullopt;
}

}  // namespace

void use_speech_setup(NewOrder& order, const templates::SpeechSetup& setup) {
  order.model_id = setup.model.model_id;
  order.config_snapshot = setup.config_json;
  order.chunker = {.capacity = static_cast<std::size_t>(setup.model.capacity),
                   .unit = setup.model.capacity_unit,
                   .mode = order.mode};
  order.price_per_1k_minor = setup.model.price_per_1k_minor;
  order.engine_request = engine_request_json(setup);
}

// Sound effects and music: the service's first active model and its engine; the plan is one
// chunk per variant, each billing the seconds it will make (generative.hpp).
bool use_prompt_service(db::Db& db, const GenerativeParams& params, bool prompt_ok, NewOrder& order) {
  const auto service = find_prompt_service(db, order.task_type);
  if (!service) return false;
  order.service_key = service->service_key;
  order.model_id = service->model_id;
  order.price_per_1k_minor = service->price_per_1k_minor;
  order.chunker = generative_chunker(order.task_type);
  if (!prompt_ok) return true;  // refused for its shape later; nothing to estimate
  const std::int64_t duration_ms = generative_duration_ms(order.task_type, order.input_text, params);
  const std::uint32_t seed = params.seed.value_or(random_seed());
  order.plan = plan_generative(order.input_text, duration_ms, params.variants);
  order.engine_request = generative_engine_request(service->engine, order.task_type, duration_ms, seed);
  if (templates::is_upstream_engine(service->engine)) {
    if (auto u = templates::upstream_from_json(service->upstream_json)) {
      auto request = nlohmann::json::parse(order.engine_request);
      request["upstream"] = upstream_request(*u, order.service_key, order.model_id, "");
      order.engine_request = to_json_text(request);
    }
  }
  return true;
}

namespace {

// The context, and for an order made from a template its resolution (FromTemplate) into
// `resolved` and `shape`.
Result<CreateContext> read_context(db::Db& db, db::Tx& tx, const Caller& caller, const FromTemplate* from,
                                   const NewOrder& order, std::optional<NewOrder>& resolved,
                                   std::optional<ApiError>& shape) {
  const UserId user = caller.principal.user_id;
  if (!from) return read_create_context(db, tx, user, order.service_key);
  std::optional<TemplateRow> row;
  CreateContext ctx = read_template_context(db, tx, user, from->id, row);
  const auto owner = row ? std::optional(row->owner) : std::nullopt;
  if (auto refusal = templates::template_use_refusal(owner, row && row->deleted, user)) return *refusal;
  NewOrder& made = resolved.emplace(order);
  made.template_id = from->id;
  made.service_key = row->service_key;
  auto setup = templates::validate_stored_in(db, tx, row->service_key, row->config_json, user,
                                             {.cache = caller.services, .version = ctx.catalogue_version});
  if (setup) {
    use_speech_setup(made, *setup);
    if (from->plan_text) made.plan = plan_chunks(made.input_text, made.chunker);
  }
  shape = from->request_shape;
  if (!shape && !setup) shape = setup.error();
  return ctx;
}

// Everything after the context, in the order insert_order's header gives.
Result<OrderWritten> write_order(db::Db& db, db::Tx& tx, const Caller& caller, const NewOrder& order,
                                 const CreateContext& ctx, const std::optional<ApiError>& shape,
                                 const KeyTokens& key_tokens, OrderKeeper* kept, std::string_view operation,
                                 db::KnownXid& xid) {
  const auth::Principal& principal = caller.principal;
  const UserId user = principal.user_id;
  const std::int64_t tokens = static_cast<std::int64_t>(order.plan.billable_chars);
  // 429: the policy cooldown, the plan's slots and its ceiling on the service (counted under
  // the user's lock, so racing creates see each other), then the key's token pool.
  if (auto refusal = policy_cooldown_refusal(ctx.blocked_until, caller.now())) return *refusal;
  std::optional<SlotUse> slots;
  if (auto refusal = plan_limits_refusal(db, tx, user, ctx, order.service_key, tokens, slots)) return *refusal;
  if (auto refusal = key_tokens.take(db, tx, tokens)) return *refusal;

  // 402: the quota first where the plan entitles the service, the rest from the balance where
  // the service is open to pay-as-you-go.
  const std::int64_t quota = ctx.entitled ? lock_subscription_quota(db, tx, user, ctx.tokens) : 0;
  std::vector<std::int64_t> chunk_tokens;
  chunk_tokens.reserve(order.plan.chunks.size());
  for (const auto& c : order.plan.chunks) chunk_tokens.push_back(static_cast<std::int64_t>(c.billable_length));
  const OrderPrice price = price_order(chunk_tokens, quota, order.price_per_1k_minor);
  if (price.from_payg > 0 && !ctx.payg_enabled) return ApiError::refused(Reason::insufficient_allowance);

  const std::string order_id = order.order_id.value_or(time_ordered_uuid());
  const OrderAccounts accounts{user, order_id, ctx.money, ctx.tokens};
  // When only the balance can still refuse, the order and its chunks go in before the money
  // moves: the wallet's row lock, which serialises one user's orders, is then held over the
  // money statement and the commit only, not over the transaction's widest insert too. A 402
  // still wins: it rolls the insert back with everything else.
  const bool refusal_may_follow = ctx.maintenance || shape || topup_checked(ctx, price);
  std::optional<OrderInserted> inserted;
  const auto insert = [&] {
    inserted = insert_order_and_chunks(db, tx, {order_id, user, principal.key_id, order, ctx.money, price, chunk_tokens});
  };
  if (!refusal_may_follow) insert();
  try {
    lock_order(db, tx, accounts, {.quota_tokens = price.from_quota, .minor = price.minor});
  } catch (const billing::InsufficientBalance&) {
    return ApiError::refused(Reason::insufficient_balance);
  }

  // 503, then 422; a top-up is quoted only for an order that would otherwise be made.
  if (ctx.maintenance) return ApiError::refused(Reason::service_maintenance);
  if (shape) return *shape;
  if (auto refusal = topup_refusal(db, tx, caller, order, operation, ctx, price, order_id)) return *refusal;

  if (!inserted) insert();
  xid.value = inserted->xid;
  const TimePoint created_at = inserted->created_at;

  OrderWritten written{.work_queued = true, .slots = slots};
  Order& o = written.order;
  o.id = order_id;
  o.user_id = user;
  o.task_type = order.task_type;
  o.status = OrderStatus::created;
  o.service_key = order.service_key;
  if (order.template_id) o.template_id = order.template_id->str();
  o.config_override_json = order.config_override;
  o.generation_mode = std::string(to_string(order.mode));
  o.price_units = price.minor;
  o.tokens_from_quota = price.from_quota;
  o.tokens_from_payg = price.from_payg;
  o.retry_of = order.retry_of;
  o.created_at = o.updated_at = created_at;
  if (kept) kept->keep(db, tx, written);
  return written;
}

}  // namespace

Result<OrderWritten> insert_order(db::Db& db, const Caller& caller, const NewOrder& order,
                                  std::optional<ApiError> shape, OrderKeeper* kept, std::string_view operation,
                                  const FromTemplate* from_template) {
  const KeyTokens key_tokens(caller);
  // A lost COMMIT is settled by asking PostgreSQL about this attempt's own transaction.
  return db::transact_settled(db, [&](db::Tx& tx, db::KnownXid& xid) -> Result<OrderWritten> {
    if (kept) {
      auto claimed = kept->claim(db, tx, operation);
      if (!claimed) return claimed.error();
      if (*claimed == KeyUse::repeated) return OrderWritten{.replayed = true};  // nothing else is written
    }
    // Per attempt: a transaction that runs again resolves its template again.
    std::optional<NewOrder> resolved;
    std::optional<ApiError> attempt_shape = shape;
    auto ctx = read_context(db, tx, caller, from_template, order, resolved, attempt_shape);
    if (!ctx) return ctx.error();
    return write_order(db, tx, caller, resolved ? *resolved : order, *ctx, attempt_shape, key_tokens, kept,
                       operation, xid);
  });
}

namespace {

// A voice search's file is kept under the order before the order is inserted (a worker may
// claim the chunk the moment it commits); whatever does not become that order is removed again.
Result<OrderWritten> insert_with_upload(db::Db& db, const Caller& caller, const NewOrder& order,
                                        std::optional<ApiError> shape, OrderKeeper* kept,
                                        std::optional<std::string_view> upload, storage::ObjectStore* store) {
  if (shape || !upload) return insert_order(db, caller, order, std::move(shape), kept, kCreateScope);
  if (!store) return ApiError::internal_error("no object store for uploads");
  const std::string key = voice_search_upload_key(*order.order_id);
  if (auto put = store->put(key, *upload); !put) return ApiError::unavailable(put.error().detail);
  std::optional<Result<OrderWritten>> reply;
  try {
    reply.emplace(insert_order(db, caller, order, std::nullopt, kept, kCreateScope));
  } catch (...) {
    (void)store->remove_prefix(order_storage_prefix(*order.order_id));
    throw;
  }
  if (!*reply || (*reply)->replayed) (void)store->remove_prefix(order_storage_prefix(*order.order_id));
  return std::move(*reply);
}

}  // namespace

Result<OrderWritten> create_order(db::Db& db, const Caller& caller, CreateRequest request, OrderKeeper* kept,
                                  const OrderUploads& uploads) {
  if (kept) {
    auto finished = kept->finished(db, kCreateScope);
    if (!finished) return finished.error();
    if (*finished == KeyUse::repeated) return OrderWritten{.replayed = true};
  }
  CreateRequest& req = request;

  NewOrder order;
  std::optional<std::string_view> upload;  // voice_search: the accepted file
  order.task_type = req.task_type;
  order.config_override = to_json_text(req.config_override);
  order.mode = req.mode;
  order.task_data = to_json_text(req.task_data);
  order.input_text = req.text;
  order.topup = req.topup;
  // A name the URL check could not judge: where it resolves now (the delivery checks again).
  if (req.webhook_host && webhooks::resolves_to_refused(*req.webhook_host)) {
    req.errors.add("webhook", Message{"validation.webhook_address", {{"attribute", "webhook"}}});
    req.webhook.reset();
  }
  order.webhook = req.webhook;
  if (order.task_type != TaskType::voice_search) order.output_format = req.output_format;

  // From a template: read, checked (403 / 404 first) and resolved in the creating transaction,
  // so the order is one commit; a template that no longer passes the schema is a shape problem,
  // reported with the other 422s (FromTemplate).
  if (req.template_id) {
    const bool plan_text = req.text_ok && !is_single_shot(req.task_type);
    const FromTemplate from{.id = *req.template_id, .plan_text = plan_text,
                            .request_shape = shape_refusal(req, std::nullopt)};
    return insert_order(db, caller, order, std::nullopt, kept, kCreateScope, &from);
  }
  if (is_single_shot(req.task_type)) {
    if (!use_prompt_service(db, req.generative, req.text_ok, order)) req.refusal = ApiError::refused(Reason::service_not_found);
  } else if (req.task_type == TaskType::voice_search && !req.refusal) {
    auto judged = judge_voice_search_upload(uploads.files, req.errors);
    upload = judged.bytes;
    if (judged.refusal) req.refusal = std::move(judged.refusal);
    order.order_id = time_ordered_uuid();
    if (!use_voice_search_service(db, req.top, voice_search_upload_key(*order.order_id), order)) {
      req.refusal = ApiError::refused(Reason::service_not_found);
    }
    // Nothing is charged for a search that is refused for its shape.
    if (!req.acceptable()) order.plan = ChunkPlan{};
  }

  // The estimate: what the text will bill, even when another field is wrong (billing is checked
  // before the shape); nothing when there is no usable text, which the shape check refuses.
  if (req.text_ok && !order.service_key.empty() && !is_single_shot(req.task_type)) {
    order.plan = plan_chunks(order.input_text, order.chunker);
  }

  std::optional<ApiError> shape = shape_refusal(req, std::nullopt);
  return insert_with_upload(db, caller, order, std::move(shape), kept, upload, uploads.store);
}

}  // namespace mediagen::orders
