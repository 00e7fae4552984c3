#pragma once
// The transaction that creates an order, shared by POST /orders and order retry; what an order
// write answers (OrderWritten, ItemsQueued) and the Idempotency-Key answer kept beside it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mediagen/db/idempotency.hpp"
#include "mediagen/orders/request.hpp"
#include "mediagen/orders/text.hpp"
#include "mediagen/orders/order.hpp"
#include "mediagen/orders/limits.hpp"
#include "mediagen/templates/templates.hpp"

namespace mediagen::orders {

// The plan's concurrency slots with a new order (X-Concurrency-Limit, -Current).
struct SlotUse {
  std::int64_t limit = 0;
  std::int64_t current = 0;
};

// What an order write did: the order it made (create, order retry) or cancelled. Changes are
// the statuses it moved, committed by the time it returns (the realtime events). A replay sets
// nothing but `replayed`: the key's earlier answer stands (AnswerKeeper::earlier).
struct OrderWritten {
  Order order;
  bool work_queued = false;      // a new order: its chunks wait for the workers
  std::optional<SlotUse> slots;  // a create under a plan with slots
  std::vector<OrderChange> changes;
  bool replayed = false;
};

// Records queued for the workers: an item retry or a regeneration (one), retry-failed (each).
struct ItemsQueued {
  OrderId order_id;
  std::vector<Item> items;
  std::vector<OrderChange> changes;
  bool replayed = false;
};

// Whether a write left work for the workers (so they are woken, and only then).
inline bool queued_work(const OrderWritten& done) { return done.work_queued; }
inline bool queued_work(const ItemsQueued& done) { return !done.items.empty(); }

// Whether an earlier request answered under a key: then its answer stands, and nothing is done.
enum class KeyUse : std::uint8_t { first, repeated };

// Idempotency-Key on the operations that charge (beyond the spec, because charging is automatic
// and clients time out), kept in the shared store (db/idempotency.hpp) as whoever answers
// renders the answer. The services claim the key first in their transaction: a concurrent
// duplicate blocks on its row until the first transaction ends, then replays a committed answer
// or runs anew after a rollback. They keep the answer last in it, so the answer exists exactly
// when the write does, and they never see what it says. `scope` names the operation the key
// belongs to. Keys live 24 hours.
class KeptAnswer {
 public:
  KeptAnswer(UserId user, IdempotencyKey key) : user_(user), key_(std::move(key)) {}

  // Outside any transaction, before the write is prepared: whether a finished request holds the
  // key (a replay answers even when what it needed has since changed); 409 when the key was used
  // with another request or operation.
  Result<KeyUse> finished(db::Db& db, std::string_view scope);
  // First in the write's transaction: whether an earlier request answered under the key; 409
  // as above.
  Result<KeyUse> claim(db::Db& db, db::Tx& tx, std::string_view scope);
  // The earlier answer, once finished() or claim() said the key is repeated.
  const db::StoredAnswer& earlier() const { return *earlier_; }
  // This request's answer once kept, so that it is rendered once.
  const std::optional<db::StoredAnswer>& kept() const { return kept_; }

 protected:
  void keep_answer(db::Db& db, db::Tx& tx, db::StoredAnswer answer);

 private:
  UserId user_;
  IdempotencyKey key_;
  std::optional<db::StoredAnswer> earlier_;
  std::optional<db::StoredAnswer> kept_;
};

template <class Done>
class AnswerKeeper final : public KeptAnswer {
 public:
  using Render = std::function<db::StoredAnswer(const Done&)>;
  AnswerKeeper(UserId user, IdempotencyKey key, Render render)
      : KeptAnswer(user, std::move(key)), render_(std::move(render)) {}

  // Last in the write's transaction: its answer, as the caller renders it.
  void keep(db::Db& db, db::Tx& tx, const Done& done) { keep_answer(db, tx, render_(done)); }

 private:
  Render render_;
};
using OrderKeeper = AnswerKeeper<OrderWritten>;
using ItemsKeeper = AnswerKeeper<ItemsQueued>;

struct NewOrder {
  std::optional<std::string> order_id;  // chosen before the transaction (its upload is stored first); else at insert
  TaskType task_type = TaskType::tts;
  std::string service_key;
  std::string model_id;
  std::optional<TemplateId> template_id;
  std::string config_snapshot = "{}";
  std::string config_override = "{}";
  GenerationMode mode = GenerationMode::ordinary;
  std::string task_data = "{}";
  std::string engine_request = "{}";
  std::string input_text;
  std::int64_t price_per_1k_minor = 0;
  ChunkerOptions chunker;
  ChunkPlan plan;                      // the chunks; empty when the request is refused anyway
  std::optional<std::string> retry_of;
  TopupConfirmation topup;
  // POST /orders `webhook`; an order retry without one keeps the original's (in the insert).
  std::optional<webhooks::OrderWebhook> webhook;
  // POST /orders `output_format`; an order retry keeps the original's. Written into
  // engine_request ("output_format") at the insert, whichever path made the rest of it.
  std::optional<engines::OutputFormat> output_format;
};

// The output format an order's engine_request names (an order retry keeps it); nullopt: none.
std::optional<engines::OutputFormat> output_format_of(std::string_view engine_request_json);

// A voice service's template (or an order's snapshot of one) as resolved today: its model,
// chunk capacity, price, normalised config and what the engine needs.
void use_speech_setup(NewOrder& order, const templates::SpeechSetup& setup);

// sfx and music (order.task_type, the prompt in order.input_text): the service's first active
// model and its engine, and - when the prompt passed its checks - one chunk per variant priced by
// the seconds it makes (generative.hpp). False when the service is not offered.
bool use_prompt_service(db::Db& db, const GenerativeParams& params, bool prompt_ok, NewOrder& order);

// In one transaction, in the spec's order: Idempotency-Key claim, the policy cooldown,
// concurrency slots and the key's token limits (429), quota then balance (402), maintenance (503),
// then `shape` (a 422 found while reading the request), then - in the explicit-confirmation mode -
// the top-up quote (402 payg_topup_required, 409 quote_mismatch), and only then the inserts. Any
// refusal rolls everything back. (When none of the refusals after the balance's can apply, the
// inserts run before the money statement, so that the wallet's lock is held the shortest; the
// answers are the same.) `operation` names what the Idempotency-Key (claimed in `kept`, when
// there is one) and a top-up quote belong to.
//
// `from_template`: the order is made from that template, resolved inside this transaction so
// that the order is one commit: the template is read with the context (404 or 403 before any
// other refusal), validated against the catalogue (a template that no longer passes is the 422
// template_model_outdated, after the request's own 422 `request_shape`), then the text planned
// when `plan_text`. `order` then carries everything but the template's part; `shape` is unused.
struct FromTemplate {
  TemplateId id;
  bool plan_text = false;
  std::optional<ApiError> request_shape;
};
Result<OrderWritten> insert_order(db::Db& db, const Caller& caller, const NewOrder& order,
                                  std::optional<ApiError> shape, OrderKeeper* kept, std::string_view operation,
                                  const FromTemplate* from_template = nullptr);

}  // namespace mediagen::orders

// voice_search orders (spec 4.1.1): one uploaded audio file, one chunk, one flat price.
//
// The file is judged at request time by its content alone (engines/audio_intake.hpp: libmagic,
// then its first second decoded; never its name or Content-Type): none, empty or a header
// without samples is source_file_required, anything that is not decodable audio
// source_file_unsupported, both before any charge. The worker decodes the whole file later. Several files are refused (422 on
// input_files): a search describes one voice, and silently using one of them would hide it.
// The accepted file is kept in the object store under the order (voice_search_upload_key), so
// the retention janitor removes it with the order's other files; the database never holds it.
//
// Billing: the service's capacity unit is `searches`: the one chunk bills one token at the
// model's price per 1,000 tokens, whatever the audio's length.
//
// orders.engine_request: {"engine": "voice_search", "upload": <storage key>, "top": 1..50}.
// An order retry searches the original order's file again while retention keeps it.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "mediagen/core/api_error.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::orders {

inline constexpr std::int64_t kVoiceSearchDefaultTop = 10;
inline constexpr std::int64_t kVoiceSearchMaxTop = 50;

// "orders/<id>/input/sample": the upload of a voice_search order.
std::string voice_search_upload_key(std::string_view order_id);

// The one file a voice search uses, or why the request is refused: a domain refusal (required,
// unsupported) or a field error on input_files (several files).
struct JudgedUpload {
  std::optional<std::string_view> bytes;
  std::optional<ApiError> refusal;
};
JudgedUpload judge_voice_search_upload(std::span<const std::string_view> files, FieldErrors& errors);

// The voice_search service's first active model prices one search; `upload_key` is where the
// worker finds the file. False when the service is not offered.
bool use_voice_search_service(db::Db& db, std::int64_t top, std::string_view upload_key, NewOrder& order);

// engine_request's "upload" and "top" of a stored voice_search order (for its retry).
struct VoiceSearchRequest {
  std::string upload;
  std::int64_t top = kVoiceSearchDefaultTop;
};
std::optional<VoiceSearchRequest> read_voice_search_request(std::string_view engine_request_json);

}  // namespace mediagen::orders

// The SQL of order creation (order_create_service.cpp): what the creating transaction reads and
// locks, and the order and its chunks in two statements. Every function but find_prompt_service
// runs inside the caller's transaction.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mediagen/core/clock.hpp"
#include "mediagen/core/ids.hpp"
#include "mediagen/db/db.hpp"

namespace mediagen::orders {

// Assets, the switches, the policy cooldown and the live subscription as it bears on an order of
// `service`, in one round trip.
struct CreateContext {
  AssetId money;
  AssetId tokens;
  bool maintenance = false;
  bool subscribed = false;
  std::optional<std::int64_t> slots;        // the plan's concurrency slots; none: unlimited
  bool entitled = false;                    // the plan's quota may pay for this service
  std::optional<std::int64_t> usage_limit;  // the plan's ceiling on this service per period
  std::int64_t period_start_us = 0;         // the live subscription's start (epoch microseconds)
  bool payg_enabled = true;                 // the balance may pay what the quota does not
  bool confirm_mode = false;                // spec 7.1's fallback: a top-up needs a confirmed quote
  std::string currency;                     // the default asset's code
  std::optional<TimePoint> blocked_until;   // the user's policy cooldown, when one was ever given
  std::int64_t catalogue_version = 0;       // the service catalogue's (templates::ServiceCache)
};
CreateContext read_create_context(db::Db& db, db::Tx& tx, UserId user, const std::string& service);

// The same for an order made from a template, with the template's row in the same statement
// (`row` empty: no such template); the context is that of the template's service.
struct TemplateRow {
  UserId owner;
  std::string service_key;
  std::string config_json;
  bool deleted = false;
};
CreateContext read_template_context(db::Db& db, db::Tx& tx, UserId user, const TemplateId& template_id,
                                    std::optional<TemplateRow>& row);

// Tokens the user's orders on `service` charged or still hold locked since `since_us`.
std::int64_t service_usage_since(db::Db& db, db::Tx& tx, UserId user, const std::string& service,
                                 std::int64_t since_us);

// Whether `tokens` more on `service` would pass the live plan's ceiling on it this period.
inline bool exceeds_service_ceiling(db::Db& db, db::Tx& tx, UserId user, const CreateContext& ctx,
                                   const std::string& service, std::int64_t tokens) {
  return ctx.usage_limit && service_usage_since(db, tx, user, service, ctx.period_start_us) + tokens > *ctx.usage_limit;
}

// Locks the user's row (serialising one user's creations while slots are counted) and counts
// the orders still active.
std::int64_t lock_user_and_count_active(db::Db& db, db::Tx& tx, UserId user);

// The subscription quota left, its ledger row locked so concurrent orders split it exactly.
std::int64_t lock_subscription_quota(db::Db& db, db::Tx& tx, UserId user, AssetId tokens);

// The order row and every chunk, in one statement; returns created_at and the transaction's id.
struct OrderInsert {
  const std::string& order_id;
  UserId user;
  ApiKeyId key;
  const NewOrder& order;
  AssetId money;
  const OrderPrice& price;
  const std::vector<std::int64_t>& chunk_tokens;
};
struct OrderInserted {
  TimePoint created_at;
  std::int64_t xid = 0;  // db::KnownXid
};
OrderInserted insert_order_and_chunks(db::Db& db, db::Tx& tx, const OrderInsert& insert);

// Records the nonce of a confirmed top-up quote against the order it pays for; false when the
// quote was spent before (by this order's lost attempt, the caller checks order_exists first).
bool spend_quote(db::Db& db, db::Tx& tx, std::string_view nonce, UserId user, std::string_view order_id);

// Whether the order row is there: after a lost COMMIT, tells whether the create was kept.
bool order_exists(db::Db& db, db::Tx& tx, std::string_view order_id);

// A template-less service (sfx, music): its first active model and its engine.
struct PromptService {
  std::string service_key;
  std::string model_id;
  std::int64_t price_per_1k_minor = 0;
  std::string engine;
  std::string upstream_json;  // services.upstream; empty for the embedded engines
};
std::optional<PromptService> find_prompt_service(db::Db& db, TaskType task_type);

}  // namespace mediagen::orders

#include <nlohmann/json_fwd.hpp>

namespace mediagen::storage {
class ObjectStore;
}

// Creating orders: POST /orders and the OpenAI-compatible surface's speech orders. Each runs in
// ONE database transaction holding its state change and its ledger transfers (blocking SQL: call
// on the blocking pool).
namespace mediagen::orders {
// The files of a multipart POST /orders (input_files[]), and the store that keeps an accepted
// voice_search upload under its order.
struct OrderUploads {
  std::vector<std::string_view> files;  // each file's bytes, in body order
  storage::ObjectStore* store = nullptr;
};

Result<OrderWritten> create_order(db::Db& db, const Caller& caller, CreateRequest request, OrderKeeper* kept,
                                  const OrderUploads& uploads = {});
// A tts order from a template or from a service's model (the OpenAI-compatible surface): the
// template's settings with `voice_id` and `speed` laid over them, or mode_v1 of `service_key`'s
// `model_id` with that voice. Settings that do not pass the service's schema (an unknown voice,
// a speed out of the model's range) are 422 template_model_outdated, before anything is written;
// everything else - idempotency, limits, quota then balance, maintenance, the text - is
// POST /orders' own transaction. Without a template the order's template_id is null.
struct SpeechOrder {
  std::optional<TemplateId> template_id;
  std::string service_key;  // without a template
  std::string model_id;     // without a template
  std::optional<std::string> voice_id;
  std::optional<double> speed;
  // Further voice settings and the language laid over the template's (the ElevenLabs-compatible
  // surface); checked against the model's schema like a template's.
  std::optional<double> stability;
  std::optional<double> similarity_boost;
  std::optional<bool> use_speaker_boost;
  std::optional<std::string> language_code;
  // What comes before and after the text (engine_request's previous_text, next_text).
  std::optional<std::string> previous_text;
  std::optional<std::string> next_text;
  bool breaks = false;  // ElevenLabs' break tags are pauses (engine_request "breaks")
  std::string text;
};
Result<OrderWritten> create_speech_order(db::Db& db, const Caller& caller, const SpeechOrder& request,
                                         OrderKeeper* kept);

}  // namespace mediagen::orders
