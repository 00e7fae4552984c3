#pragma once
// Order operations that move money (spec 1, 3.1, 4.1, 4.1.1, 4.2, 7.1): create, cancel, order
// retry, item retry, bulk retry and regenerate. Each runs in ONE database transaction holding
// its state change and its ledger transfers, so a refusal changes nothing and a crash loses
// nothing. All functions run blocking SQL (call them on the blocking pool).
//
// Replies carry the response data already rendered (JSON) in the caller's time zone.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "mediagen/access/principal.hpp"
#include "mediagen/core/api_error.hpp"
#include "mediagen/core/clock.hpp"
#include "mediagen/core/time_zone.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/order_events.hpp"

namespace mediagen::cache {
class Redis;
}
namespace mediagen::storage {
class ObjectStore;
}

namespace mediagen::orders {

// What an operation did. The handler turns it into the answer's status; only new work wakes
// the workers.
enum class Outcome : std::uint8_t {
  work_queued,  // an order or items were queued for the workers
  changed,      // state changed and nothing was queued (a cancel)
};

// The plan's concurrency slots as an answer reports them (X-Concurrency-Limit, -Current).
struct SlotUse {
  std::int64_t limit = 0;
  std::int64_t current = 0;
};

struct OperationReply {
  Outcome outcome = Outcome::changed;
  const char* message = "ok";  // catalogue key of the envelope's message
  std::string data_json;
  bool replayed = false;  // answered from an earlier request with the same Idempotency-Key
  std::optional<SlotUse> slots;  // a create under a plan with slots: its slots with this order
  // The statuses the operation changed (committed by the time the reply is returned), for the
  // realtime events; empty for a replay.
  std::vector<OrderChange> changes;
};

// True when the content policy refuses a text (the workers' check, injected by the
// composition root so a retry text it would refuse is refused before any charge).
using ContentPolicy = std::function<bool(std::string_view text)>;

// Who asks, and how to render times.
class QuoteSigner;

struct Caller {
  const auth::Principal& principal;
  TimeZone tz;
  ContentPolicy blocked;  // may be empty: nothing is blocked up front
  const Clock* clock = nullptr;  // what decides the policy cooldown and quotes; null: the system clock
  // Signs the top-up quotes of the explicit-confirmation mode (spec 7.1); needed only with it on.
  const QuoteSigner* quotes = nullptr;

  TimePoint now() const { return clock ? clock->now() : std::chrono::system_clock::now(); }
};

// An Idempotency-Key header with the hash of the request it came with.
struct IdempotencyKey {
  std::string key;
  std::string request_hash;  // sha256 of method, path and body
};

// 1..255 visible ASCII characters; otherwise nullopt (the route answers 422).
std::optional<std::string> valid_idempotency_key(std::string_view header) noexcept;

// The files of a multipart POST /orders (input_files[]), and the store that keeps an accepted
// voice_search upload under its order.
struct OrderUploads {
  std::vector<std::string_view> files;  // each file's bytes, in body order
  storage::ObjectStore* store = nullptr;
};

Result<OperationReply> create_order(db::Db& db, const Caller& caller, const nlohmann::json& body,
                                    const std::optional<IdempotencyKey>& idempotency,
                                    const OrderUploads& uploads = {});
// A tts order from a template or from a service's model (the OpenAI-compatible surface): the
// template's settings with `voice_id` and `speed` laid over them, or mode_v1 of `service_key`'s
// `model_id` with that voice. Settings that do not pass the service's schema (an unknown voice,
// a speed out of the model's range) are 422 template_model_outdated, before anything is written;
// everything else - idempotency, limits, quota then balance, maintenance, the text - is
// POST /orders' own transaction. Without a template the order's template_id is null.
struct SpeechOrder {
  std::optional<std::string> template_id;
  std::string service_key;  // without a template
  std::string model_id;     // without a template
  std::optional<std::string> voice_id;
  std::optional<double> speed;
  std::string text;
};
Result<OperationReply> create_speech_order(db::Db& db, const Caller& caller, const SpeechOrder& request,
                                           const std::optional<IdempotencyKey>& idempotency);

Result<OperationReply> cancel_order(db::Db& db, const Caller& caller, std::string_view order_id);

// The end of an order made for one answer (the OpenAI-compatible surface) when that answer ends
// before all of its audio was sent: positions 0..delivered-1 reached the client and stay charged.
// In one transaction, the way cancel does it: the live records are stopped and what the order
// still holds is released; then every charge of a position at or after `delivered` is returned
// (charge_refund), and the order becomes failed with failure_reason not_delivered. An order that
// is already failed, cancelled or compensated is left as its own rules settled it (no changes).
// Returns the status changes (the realtime events' source); 404 for another user's order.
Result<std::vector<OrderChange>> end_undelivered_order(db::Db& db, UserId user, std::string_view order_id,
                                                       int delivered);
Result<OperationReply> retry_order(db::Db& db, const Caller& caller, std::string_view order_id,
                                   const nlohmann::json& body, const std::optional<IdempotencyKey>& idempotency);

Result<OperationReply> retry_item(db::Db& db, const Caller& caller, std::string_view order_id,
                                  std::string_view item_id, const nlohmann::json& body,
                                  const std::optional<IdempotencyKey>& idempotency);
Result<OperationReply> retry_failed_items(db::Db& db, const Caller& caller, std::string_view order_id);
Result<OperationReply> regenerate_item(db::Db& db, const Caller& caller, std::string_view order_id,
                                       std::string_view item_id, const nlohmann::json& body);

}  // namespace mediagen::orders
