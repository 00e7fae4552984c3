#include "mediagen/http/idempotency.hpp"

#include "mediagen/core/crypto.hpp"

namespace mediagen::http {

Result<std::optional<IdempotencyKey>> idempotency_key_of(const RequestContext& ctx) {
  auto header = ctx.request.header("Idempotency-Key");
  if (!header) return std::optional<IdempotencyKey>{};
  auto key = valid_idempotency_key(*header);
  if (!key) {
    return ApiError::validation("Idempotency-Key", Message{"validation.idempotency_key", {{"attribute", "Idempotency-Key"}}});
  }
  std::string what = std::string(to_string(ctx.request.method())) + " " + ctx.path + "\n";
  if (ctx.form) {
    for (const auto& part : ctx.form->parts) {
      what += part.name + "\n" + crypto::to_hex(crypto::sha256(part.data)) + "\n";
    }
  } else {
    what += ctx.request.body();
  }
  return std::optional<IdempotencyKey>{IdempotencyKey{*key, crypto::to_hex(crypto::sha256(what))}};
}

}  // namespace mediagen::http
