#pragma once
// The transaction that creates an order, shared by POST /orders and order retry.
#include <cstdint>
#include <optional>
#include <string>

#include "generative.hpp"
#include "mediagen/orders/chunker.hpp"
#include "mediagen/orders/orders.hpp"
#include "mediagen/orders/topup_quote.hpp"
#include "mediagen/templates/templates.hpp"

namespace mediagen::orders {

struct NewOrder {
  std::optional<std::string> order_id;  // chosen before the transaction (its upload is stored first); else at insert
  std::string task_type = "tts";
  std::string service_key;
  std::string model_id;
  std::optional<std::string> template_id;
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
};

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
// the top-up quote (402 payg_topup_required, 409 quote_mismatch), and only then the inserts. Any refusal rolls everything
// back. `idempotency_scope` names the operation the key belongs to.
Result<OperationReply> insert_order(db::Db& db, const Caller& caller, const NewOrder& order,
                                    std::optional<ApiError> shape, const std::optional<IdempotencyKey>& idempotency,
                                    std::string_view idempotency_scope);

}  // namespace mediagen::orders
