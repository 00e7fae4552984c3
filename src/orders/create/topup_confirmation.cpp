#include "topup_confirmation.hpp"

#include "mediagen/core/crypto.hpp"
#include "mediagen/orders/limits.hpp"

namespace mediagen::orders {
namespace {

// Each field as "<length>:<bytes>", so no two requests share a hash input.
void field(std::string& out, std::string_view value) {
  out += std::to_string(value.size());
  out += ':';
  out += value;
}

}  // namespace

std::string quote_fingerprint(std::string_view scope, const NewOrder& order) {
  std::string in;
  field(in, scope);
  field(in, task_type_name(order.task_type));
  field(in, order.service_key);
  field(in, order.model_id);
  field(in, order.template_id ? order.template_id->str() : std::string());
  field(in, order.config_snapshot);
  field(in, order.config_override);
  field(in, to_string(order.mode));
  field(in, order.task_data);
  field(in, order.input_text);
  return crypto::to_hex(crypto::sha256(in));
}

std::optional<ApiError> topup_refusal(db::Db& db, db::Tx& tx, const Caller& caller, const NewOrder& order,
                                      std::string_view scope, const CreateContext& ctx, const OrderPrice& price,
                                      std::string_view order_id) {
  if (!topup_checked(ctx, price)) return std::nullopt;
  if (!caller.quotes) return ApiError::internal_error("confirm mode without a quote signer");
  const std::string fingerprint = quote_fingerprint(scope, order);
  const QuoteTerms terms{.user = caller.principal.user_id, .amount_minor = price.minor, .fingerprint = fingerprint};
  const TopupConfirmation& asked = order.topup;

  if (asked.confirmed && asked.quote_token && !asked.quote_token->empty()) {
    const auto nonce = caller.quotes->accept(*asked.quote_token, terms, caller.now());
    if (!nonce || !spend_quote(db, tx, *nonce, caller.principal.user_id, order_id)) {
      return ApiError::refused(Reason::quote_mismatch);
    }
    return std::nullopt;
  }
  // No confirmation, or a blind one without a quote: a fresh quote, nothing charged.
  const IssuedQuote quote = caller.quotes->issue(terms, caller.now());
  ApiError e = ApiError::refused(Reason::payg_topup_required);
  e.with("topup_price", price.minor)
      .with("currency", ctx.currency)
      .with("tokens_from_quota", price.from_quota)
      .with("tokens_from_payg", price.from_payg)
      .with("quote_token", quote.token)
      .with("quote_expires_at", quote.expires_at);
  return e;
}

}  // namespace mediagen::orders
