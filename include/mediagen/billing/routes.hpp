#pragma once
#include "mediagen/http/routes_fwd.hpp"

namespace mediagen::billing {

// GET /wallets and GET /ledger-transactions (billing.read), for accounts whose wallet is
// switched on; for the others they answer as unknown paths do.
void register_wallet_routes(http::Router& router, db::BlockingPool& pool);

}  // namespace mediagen::billing
