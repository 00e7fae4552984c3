#pragma once
// The explicit-confirmation fallback of spec 7.1 inside insert_order's transaction: with the
// switch on, an order that would take money from the balance is created only with a confirmed
// quote of exactly that amount (mediagen/orders/topup_quote.hpp).
#include <optional>
#include <string>
#include <string_view>

#include "mediagen/core/api_error.hpp"
#include "mediagen/db/db.hpp"
#include "mediagen/orders/create.hpp"
#include "mediagen/orders/request.hpp"

namespace mediagen::orders {

// What the order asks for, hashed: the service, model, template and its snapshot, the override,
// mode, task data and text, and the operation (`scope`: a create, or a retry of which order). A
// quote is good only for a request with the same fingerprint.
std::string quote_fingerprint(std::string_view scope, const NewOrder& order);

// Whether topup_refusal has anything to judge: the explicit-confirmation mode is on and the order
// takes money from the balance.
inline bool topup_checked(const CreateContext& ctx, const OrderPrice& price) {
  return ctx.confirm_mode && price.minor > 0;
}

// Nothing when the order may go on: normal mode, nothing taken from the balance, or a confirmed
// quote of exactly `price.minor` for this user and request, still fresh and never spent before
// (it is spent on `order_id` here). Otherwise, before anything is written:
//   402 payg_topup_required with a fresh quote when no confirmation came (no
//       confirm_payg_topup: true, or no quote_token with it);
//   409 quote_mismatch when the token came with confirmation but does not hold.
std::optional<ApiError> topup_refusal(db::Db& db, db::Tx& tx, const Caller& caller, const NewOrder& order,
                                      std::string_view scope, const CreateContext& ctx, const OrderPrice& price,
                                      std::string_view order_id);

}  // namespace mediagen::orders
